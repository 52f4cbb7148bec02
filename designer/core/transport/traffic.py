"""The load model under a design's transport: its default routing, and for an incast the
transport's burst model on the design's own round trip and the links a pause would hold.

``run_transport_load`` is what ``designer load`` and the window's Traffic panel call: the
routing is the one asked for, else the transport's (``Transport.load_routing``); the result
names the transport model that ran. For ``incast`` the fluid model of ``incast.py`` runs with
the design's line rate and round trip, and the links the routed incast crosses before its last
hop are the ones PFC or credits hold back (none on a transport without them).

``lossless`` picks the rate model on a transport with PFC under hashed routing (``LOSSLESS``):
``pfc`` (the default there) slows the flows behind the ports PFC pauses, spread upstream
hop by hop (``traffic.pfc``); ``ports`` also shares each egress among its ingress ports
first and solves again as flows finish (``traffic.arbitration``: what the htsim export
checks, costly past a few thousand flows); ``off`` is the fluid max-min model. Elsewhere
(InfiniBand's credits, a lossy transport, spraying or static routes) the fluid model runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.errors import DesignerError
from designer.core.solver.compile import Compiled
from designer.core.traffic.load import LoadResult, run_load
from designer.core.traffic.network import Network, build_network
from designer.core.traffic.patterns import Pattern
from designer.core.transport.incast import IncastInputs, IncastResult, incast
from designer.core.transport.profiles import Transport

BURST_BYTES = 1 << 20  # one sender's share of an incast burst by default: 1 MiB
PROPAGATION_NS_PER_M = 5.0
LOSSLESS = ("auto", "pfc", "ports", "off")
LOSSLESS_FLOWS = 8192  # 'ports' solves again at every finishing time: refused past this


class LosslessOptionError(DesignerError):
    """A lossless model asked for where it does not apply or is too costly."""


def lossless_model(transport: Transport, routing: str, lossless: str = "auto") -> str:
    """The rate model that runs: ``pfc``, ``ports`` or ``off`` (``LOSSLESS``); ``auto`` is
    ``pfc`` on a transport with PFC under hashed routing, else ``off``."""
    if lossless not in LOSSLESS:
        raise LosslessOptionError(f"unknown lossless model '{lossless}' (choose "
                                  f"{', '.join(LOSSLESS)})")
    applies = transport.flow_control == "pfc" and routing in ("ecmp", "valiant")
    if lossless == "auto":
        return "pfc" if applies else "off"
    if lossless != "off" and not applies:
        why = (f"{transport.name} has no PFC" if transport.flow_control != "pfc" else
               f"{routing} routing leaves no hashed hot port to pause (ecmp or valiant)")
        raise LosslessOptionError(f"lossless model '{lossless}': {why}; use off")
    return lossless


@dataclass(frozen=True)
class TransportLoad:
    load: LoadResult
    transport: Transport
    routing_given: bool  # the routing was asked for, not the transport's default
    incast: IncastResult | None = None
    held_links: int = 0  # links a pause or credit stall would hold (incast only)
    fabric_links: int = 0  # directed switch-to-switch links of the design
    lossless: str = "off"  # the rate model that ran (lossless_model)

    def routing_text(self) -> str:
        how = "as asked" if self.routing_given else "the transport's default"
        return f"{self.transport.name}: {self.load.routing} routing ({how})"

    def model_text(self) -> str:
        out = self.routing_text()
        if self.incast is not None:
            out += f"; {self.incast.model}"
        return out

    def to_json(self) -> dict:
        t = self.transport
        j = self.load.to_json()
        j["transport"] = {"id": t.id, "name": t.name, "routing_default": t.load_routing,
                          "routing_given": self.routing_given, "model": self.model_text(),
                          "flow_control": t.flow_control, "reaction": t.reaction,
                          "sources": list(t.sources)}
        j["lossless"] = {"model": self.lossless, "text": LOSSLESS_TEXT[self.lossless]}
        if self.incast is not None:
            j["incast"] = self.incast.to_json() | {
                "held_links": self.held_links, "fabric_links": self.fabric_links,
                "held_links_share": round(self.held_links / self.fabric_links, 6)
                if self.fabric_links else 0.0}
        return j


def round_trip_us(c: Compiled, net: Network, util: np.ndarray | None) -> float:
    """Sender to receiver and back over the layers the pattern loaded: each switch's and NIC's
    latency (the catalog's), and each cable's propagation at its layer's default length."""
    used = np.zeros(len(net.layers), bool)
    if util is not None and util.size:
        used[np.unique(net.link_layer[util > 0])] = True
    layers = [net.layers[i] for i in np.flatnonzero(used)] or list(net.layers[:1])
    sw = c.switch_ns[c.sw] if c.sw.size else np.zeros(1)
    sw_ns = float(np.median(sw[sw > 0])) if (sw > 0).any() else 0.0
    nic = c.nic_ns[c.nic_ns > 0]
    nic_ns = float(np.median(nic)) if nic.size else 0.0
    settings = c.project.analysis
    prop = sum(settings.length_for(name) for name in layers) * PROPAGATION_NS_PER_M
    # up and down through each loaded layer: 2 L cables and 2 L - 1 switches one way
    one_way = (2 * len(layers) - 1) * sw_ns + 2 * nic_ns + 2 * prop
    return 2 * one_way / 1000.0


def held_links(net: Network, util: np.ndarray | None, target_gpu: int) -> int:
    """Links the incast loads, but for the receiver's own NIC link: what back-pressure from
    its full queue holds first, hop by hop."""
    if util is None:
        return 0
    busy = np.flatnonzero(util > 0)
    _, att = net.attachments(np.array([target_gpu]))
    last = set(net.nic_down(att).tolist())
    return int(sum(1 for link in busy.tolist() if link not in last))


def run_transport_load(c: Compiled, pattern: str | Pattern, transport: Transport,
                       routing: str | None = None, flows_per_pair: int = 1, trials: int = 1,
                       seed: int = 0, polarised: bool = False, fan_in: int = 16,
                       burst_bytes: float = BURST_BYTES, net: Network | None = None,
                       control=None, tables=None, lossless: str = "auto") -> TransportLoad:
    from designer.core.traffic.routing import canonical_routing

    net = net if net is not None else build_network(c, control)
    how = routing or transport.load_routing
    model = lossless_model(transport, canonical_routing(how), lossless)
    if model == "ports":
        from designer.core.traffic.patterns import make_pattern

        if not isinstance(pattern, Pattern):
            pattern = make_pattern(c, pattern, seed, fan_in)
        n = pattern.weight.size
        if pattern.level != "class" and n * flows_per_pair > LOSSLESS_FLOWS:
            raise LosslessOptionError(
                f"lossless model 'ports' solves the rates again as flows finish: up to "
                f"{LOSSLESS_FLOWS:,} flows (here about {n * flows_per_pair:,}); use pfc")
    r = run_load(c, pattern, how, flows_per_pair, trials, seed,
                 polarised, fan_in, net=net, control=control, tables=tables,
                 pfc=model != "off", arbitration="port" if model == "ports" else "flow")
    if model != "off" and "PFC" not in r.model:
        model = "off"  # solved by GPU class (an all-to-all): no flow to pause
    fabric = int(net.n_ports)
    if r.pattern != "incast":
        return TransportLoad(r, transport, routing is not None, fabric_links=fabric,
                             lossless=model)
    rtt = round_trip_us(c, net, r.link_util)
    res = incast(transport, IncastInputs(r.connections, burst_bytes, r.line_rate_gbps, rtt))
    held = held_links(net, r.link_util, 0) if transport.flow_control != "none" else 0
    return TransportLoad(r, transport, routing is not None, res, held, fabric, model)


LOSSLESS_TEXT = {
    "off": "fluid: every flow at its max-min fair share, as if each sender knew its "
    "bottleneck",
    "pfc": "max-min fair shares, then PFC head-of-line blocking: a saturated port pauses "
    "the ingress ports it holds, the pause spreads upstream hop by hop, and every flow on "
    "a paused link slows to the held flows' rate (first order: steady shares of time, "
    "capacity left by the victims not handed back)",
    "ports": "each egress fair among its ingress ports, then among their flows (a lossless "
    "switch's FIFO under PFC), solved again as flows finish, with PFC head-of-line "
    "blocking spread upstream (the model checked against htsim)",
}
