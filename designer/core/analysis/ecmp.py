"""A ring collective under ECMP, as NCCL's channels and queue pairs meet the hashed paths.

NCCL lays a ring all-reduce over several channels (``channels_per_nic`` per NIC: one ring per
NIC position, doubled when the node's NVLink allows) and opens ``qps`` queue pairs per
connection (``NCCL_IB_QPS_PER_CONNECTION``, 1 by default); on RoCE each queue pair is its own
UDP flow, hashed onto one path. A channel's chunks go round its ring in a pipeline, so every
hop of a channel moves at the channel's one rate, split evenly over the connection's queue
pairs (NCCL sends messages round robin on them); the NIC shares its line rate between its
channels. Rates are max-min fair with each channel a single commodity over every link its
queue pairs were hashed onto (a channel slowed at one hot link leaves room on the others),
and the collective's network time is that of its slowest channel: its bytes are split evenly
over the channels. The slowdown against the same channels on an ideal fabric (NIC-bound) is
what the estimates apply to the network terms, which the NVLink part of a ring may hide.

A job rings only its own servers: with ``gpus`` set (the workload's job), the ring runs over
the first servers that hold that many GPUs (contiguous placement), so it crosses only their
ToRs and meets only their collisions; a ring over 192 ToRs meets the worst of 192.

The per-flow balls-into-bins view (one flow per link, ``designer load``) is unchanged; this
module only calls ``core.traffic``'s public functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.analysis.nccl_model import CHANNELS_PER_NIC, QPS_PER_CONNECTION
from designer.core.analysis.workload import WorkloadError
from designer.core.catalog import Catalog, builtin_catalog
from designer.core.model import Project
from designer.core.solver.compile import Compiled, compile_project
from designer.core.traffic.maxmin import max_min_fair
from designer.core.traffic.network import build_network
from designer.core.traffic.patterns import Pattern, PatternError, gpu_server, ring
from designer.core.traffic.routing import hash_salt, route_hashed


@dataclass(frozen=True)
class RingUnderEcmp:
    channels_per_nic: int
    qps: int
    flows: int  # hashed flows (queue pairs) crossing a server boundary
    trials: int
    slowdown: float  # mean over hash seeds of the slowest channel against the ideal
    slowdown_worst: float
    channel_rates: np.ndarray  # last trial: each channel's rate over its ideal, in (0, 1]
    servers: int = 0  # servers the ring runs over (the job's, or all)

    def label(self) -> str:
        return (f"ECMP, {self.channels_per_nic} channel(s) per NIC x {self.qps} queue pair(s) "
                f"per connection, a ring over {self.servers:,} servers: ring network time "
                f"{self.slowdown:.3f}x the ideal")


def job_ring(c: Compiled, pat: Pattern, gpus: int | None) -> tuple[np.ndarray, np.ndarray, int]:
    """(src, dst, servers) of the ring a job of ``gpus`` GPUs runs: over the first servers that
    hold them (contiguous placement), GPU k of each server to GPU k of the next and the last
    back to the first, as ``ring`` lays it over the whole design."""
    srv = np.flatnonzero(c.is_server)
    held = np.cumsum(c.table.gpus[srv])
    n = srv.size if not gpus else min(int(np.searchsorted(held, gpus)) + 1, srv.size)
    if n == srv.size:
        return pat.src, pat.dst, n
    base = c.gpu_base[srv[:n]]
    pos = np.arange(int(c.table.gpus[srv[:n]].min()))
    src = (base[:, None] + pos[None, :]).ravel()
    dst = (np.roll(base, -1)[:, None] + pos[None, :]).ravel()
    return (src, dst, n) if n > 1 else (src[:0], dst[:0], n)


def ring_under_ecmp(project: Project, *, channels_per_nic: int = CHANNELS_PER_NIC,
                    qps: int = QPS_PER_CONNECTION, trials: int = 3, seed: int = 0,
                    gpus: int | None = None, catalog: Catalog | None = None,
                    control=None) -> RingUnderEcmp:
    if channels_per_nic < 1 or qps < 1 or trials < 1:
        raise WorkloadError("channels per NIC, queue pairs per connection and trials must be "
                            "at least 1")
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    c = compile_project(project, cat, control)
    try:
        pat = ring(c)
    except PatternError as exc:
        raise WorkloadError(f"--under ecmp: {exc}") from None
    net = build_network(c, control)
    ring_src, ring_dst, servers = job_ring(c, pat, gpus)
    hops = ring_src.size
    if hops == 0:
        return RingUnderEcmp(channels_per_nic, qps, 0, trials, 1.0, 1.0, np.ones(1), servers)
    # the ring of GPU position k runs ``channels_per_nic`` channels; channel (k, j)
    pos = ring_src - c.gpu_base[gpu_server(c)[ring_src]]
    n_pos = int(pos.max()) + 1
    per_hop = channels_per_nic * qps
    hop = np.repeat(np.arange(hops), per_hop)
    chan_of_hop = np.tile(np.repeat(np.arange(channels_per_nic), qps), hops)
    channel = pos[hop] * channels_per_nic + chan_of_hop
    n_channels = n_pos * channels_per_nic
    src, dst = ring_src[hop], ring_dst[hop]
    # a channel asks its share of the NIC's line rate (the ideal: NIC-bound)
    demand = np.full(n_channels, float(net.line_rate[ring_src].min()) / channels_per_nic)
    slow: list[float] = []
    rates = np.ones(n_channels)
    for k in range(trials):
        rng = np.random.default_rng(seed + k)
        key = rng.integers(0, np.iinfo(np.int64).max, size=src.size).astype(np.uint64)
        routed = route_hashed(net, src, dst, key, hash_salt(net, seed + k, False))
        if not routed.reached.all():
            raise WorkloadError("--under ecmp: some ring hops have no path in this design")
        fair = max_min_fair(channel[routed.flow], routed.link, routed.frac / qps, demand,
                            net.link_cap, None, control)
        rates = np.clip(fair.t, 1e-12, 1.0)
        slow.append(float(1.0 / rates.min()))
    return RingUnderEcmp(channels_per_nic, qps, int(src.size), trials, float(np.mean(slow)),
                         float(max(slow)), rates, servers)
