"""Queueing delay under load: the tail the latency panel adds to the idle figures.

Model (stated with the figures): every link is an M/M/1 queue whose server sends one packet of
``MTU`` bytes in ``s = MTU * 8 / capacity``; at utilisation ``rho`` a packet waits
``W`` with ``P(W > x) = rho * exp(-(1 - rho) x / s)`` (mean ``rho s / (1 - rho)``). A flow's
delay adds the waits of the links it crosses (weighted by its share on each when sprayed);
its p99 is bounded by adding each link's p99 wait (conservative: the hops' waits are not
all at their tail at once). ``rho`` is capped at ``RHO_CAP``: at 100% the model's queue grows
without end, while a real one is bounded by buffers, credits (InfiniBand) and congestion
control (RoCE), which this model does not describe.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.traffic.network import Network
from designer.core.traffic.routing import Routed

MTU_BYTES = 4096
RHO_CAP = 0.99
MODEL = ("M/M/1 queue per link, 4096-byte packets, utilisation from the max-min rates "
         "(capped at 0.99); p99 adds each hop's p99 wait")


@dataclass(frozen=True)
class QueueTail:
    mean_us: float  # over flows: mean added delay
    p50_us: float
    p99_us: float  # the p99 over flows of each flow's p99 bound
    max_us: float
    model: str = MODEL

    def to_json(self) -> dict:
        return {"mean": round(self.mean_us, 4), "p50": round(self.p50_us, 4),
                "p99": round(self.p99_us, 4), "max": round(self.max_us, 4), "model": self.model}


def waits_us(cap_gbps: np.ndarray, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean, p99) M/M/1 waiting time per link, in microseconds."""
    rho = np.clip(rho, 0.0, RHO_CAP)
    s_us = MTU_BYTES * 8 / np.maximum(cap_gbps, 1e-9) / 1000.0
    mean = rho * s_us / (1 - rho)
    # P(W > x) = rho exp(-(1-rho) x / s) = 0.01  ->  x = s ln(100 rho) / (1 - rho)
    p99 = np.where(rho > 0.01, s_us * np.log(np.maximum(100 * rho, 1.0)) / (1 - rho), 0.0)
    return mean, p99


def queue_tail(net: Network, routed: Routed | None, util: np.ndarray, message_bytes: int = 0
               ) -> QueueTail:
    """``routed`` None (patterns solved by class): a path crossing every layer up and down,
    at the layer's mean utilisation (mean, p50) and its busiest link (p99, max)."""
    mean_l, p99_l = waits_us(net.link_cap, util)
    if routed is None:
        used = util > 0
        n = len(net.layers)
        cnt = np.maximum(np.bincount(net.link_layer[used], minlength=n), 1)
        rho = np.bincount(net.link_layer[used], weights=util[used], minlength=n) / cnt
        cap = np.bincount(net.link_layer[used], weights=net.link_cap[used], minlength=n) / cnt
        m, _ = waits_us(cap, rho)
        worst = np.zeros(n)
        np.maximum.at(worst, net.link_layer, p99_l)
        return QueueTail(float(2 * m.sum()), float(2 * m.sum()), float(2 * worst.sum()),
                         float(2 * worst.sum()))
    if hasattr(routed, "matvec"):  # the factored spray (spray.SprayOp): same sums
        if not routed.reached.any():
            return QueueTail(0.0, 0.0, 0.0, 0.0)
        mean_f, p99_f = routed.matvec(mean_l), routed.matvec(p99_l)
    else:
        if routed.flow.size == 0:
            return QueueTail(0.0, 0.0, 0.0, 0.0)
        F = routed.reached.size
        mean_f = np.bincount(routed.flow, weights=routed.frac * mean_l[routed.link],
                             minlength=F)
        p99_f = np.bincount(routed.flow, weights=routed.frac * p99_l[routed.link],
                            minlength=F)
    mean_f, p99_f = mean_f[routed.reached], p99_f[routed.reached]
    return QueueTail(float(mean_f.mean()), float(np.median(mean_f)),
                     float(np.quantile(p99_f, 0.99)), float(p99_f.max()))
