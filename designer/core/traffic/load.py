"""``run_load``: a pattern routed on the design, max-min fair rates, and what they mean.

Throughput is per connection, relative to what it asks for (its demand: a share of its
GPU's line rate, see ``patterns``). With q queue pairs the pairs' rates add up for the
throughput, while the connection's bytes are split evenly over them, so it finishes with
its slowest pair. The collective's completion is set by its slowest connection; its
slowdown is that completion against the same pattern on an ideal fabric where only the
GPUs' own NIC links limit (an incast is slow on any fabric; only what the fabric adds
counts). Monte Carlo: ECMP and Valiant draw new hash keys each trial; the figures pool the
connections of every trial, the slowdown is the mean over trials and its worst.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import DesignerError
from designer.core.limits import (
    MAX_FLOW_ROUTES,
    MAX_FLOWS_PER_PAIR,
    MAX_FLOWS_PER_TRIAL,
    MAX_SEED,
    MAX_TRIALS,
)
from designer.core.model import Project
from designer.core.solver.compile import Compiled, compile_project
from designer.core.solver.forwarding import forward_sources, rail_of_gpus
from designer.core.traffic.aggregate import class_spray_loads
from designer.core.traffic.maxmin import Fair, max_min_fair, max_min_fair_op
from designer.core.traffic.network import Network, build_network
from designer.core.traffic.patterns import Pattern, make_pattern
from designer.core.traffic.queueing import QueueTail, queue_tail
from designer.core.traffic.ranks import class_rep, dest_rank
from designer.core.traffic.routing import (
    ROUTINGS,
    Routed,
    canonical_routing,
    hash_salt,
    route_hashed,
    route_spray,
)
from designer.core.traffic.spray import SprayOp, applies, spray_op

HOT_LINKS = 10
DEFAULT_ROUTING = {"ib-ndr": "static", "ib-xdr": "static", "eth": "ecmp"}


class LoadOptionError(DesignerError):
    """An option of the load model out of range (trials, flows per pair...)."""


@dataclass(frozen=True)
class HotLink:
    src: str  # device id at the sending end
    dst: str
    layer: str
    utilisation: float
    both_ways: bool = False  # as busy in the other direction
    cables: int = 1  # parallel cables of the pair at this utilisation

    def to_json(self) -> dict:
        return {"from": self.src, "to": self.dst, "layer": self.layer,
                "utilisation": round(self.utilisation, 6), "both_ways": self.both_ways,
                "cables": self.cables}


@dataclass(frozen=True)
class LoadResult:
    pattern: str
    routing: str
    flows_per_pair: int
    trials: int
    polarised: bool
    connections: int
    unrouted: int
    throughput: dict[str, float]  # min, p1, p50, mean
    slowdown: float  # mean over trials
    slowdown_worst: float
    max_utilisation: float
    by_tier: dict[str, float]  # layer -> max utilisation
    hot_links: tuple[HotLink, ...]
    tail: QueueTail
    line_rate_gbps: float
    t: np.ndarray = field(repr=False, compare=False)  # pooled per-connection throughput
    model: str = ""  # how the pattern was solved, when not flow by flow
    # utilisation of every directed link (the network's numbering), for models built on top
    link_util: np.ndarray | None = field(default=None, repr=False, compare=False)
    forwarded: float = 0.0  # rail-only: share of connections forwarded over the scale-up domain
    # the collective's completion time in absolute units (its slowest connection's bytes over
    # its rate, per Gb/s of line rate), mean over trials; comparable between two designs of the
    # same GPUs, which ``slowdown`` (against each design's own NIC-bound ideal) is not: a
    # failure that halves a GPU's NIC ports halves its ideal too. NaN: not computed.
    completion: float = float("nan")

    def to_json(self) -> dict:
        return {
            "pattern": self.pattern,
            "routing": self.routing,
            "flows_per_pair": self.flows_per_pair,
            "trials": self.trials,
            "polarised": self.polarised,
            "connections": self.connections,
            "unrouted": self.unrouted,
            "throughput": {k: round(v, 6) for k, v in self.throughput.items()},
            "completion": {"slowdown": _finite(self.slowdown),
                           "slowdown_worst": _finite(self.slowdown_worst)},
            "links": {"max_utilisation": round(self.max_utilisation, 6),
                      "by_tier": {k: round(v, 6) for k, v in self.by_tier.items()}},
            "hot_links": [h.to_json() for h in self.hot_links],
            "latency_tail_us": self.tail.to_json(),
            "line_rate_gbps": self.line_rate_gbps,
            "model": self.model or "flow by flow: each connection routed, max-min fair rates",
            "forwarded_share": round(self.forwarded, 6),
        }


def _finite(x: float) -> float | None:
    """JSON has no infinity: a collective that never completes (a flow without a path)
    reads null."""
    return round(x, 6) if np.isfinite(x) else None


def default_routing(c: Compiled) -> str:
    """The technology's usual routing: static (OpenSM) on InfiniBand, ECMP on Ethernet."""
    from designer.core.solver.compile import TECHS

    tech = c.tech[c.sw]
    if tech.size == 0 or (tech < 0).all():
        return "ecmp"
    return DEFAULT_ROUTING[TECHS[int(np.bincount(tech[tech >= 0]).argmax())]]


def _weighted_quantile(x: np.ndarray, w: np.ndarray, q: float) -> float:
    if x.size == 0:
        return 0.0
    o = np.argsort(x, kind="stable")
    cw = np.cumsum(w[o])
    return float(x[o][min(int(np.searchsorted(cw, q * cw[-1])), x.size - 1)])


@dataclass(frozen=True)
class _Trial:
    t: np.ndarray  # per connection
    w: np.ndarray  # connection multiplicity
    slowdown: float
    load: np.ndarray
    routed: Routed | SprayOp
    sub_conn: np.ndarray  # connection of every routed (sub)flow
    done: float = float("nan")  # completion time, absolute (see LoadResult.completion)


def _cap(net: Network, p: Pattern) -> np.ndarray:
    cap = net.link_cap
    if p.level != "class":
        return cap
    cap = cap.copy()  # a class row stands for every GPU of the class: its NICs scale up
    cl = net.c.classes
    rep = class_rep(net.c)
    which, att = net.attachments(rep)
    cap[net.nic_up(att)] *= cl.count[which]
    cap[net.nic_down(att)] *= cl.count[which]
    return cap


def _forward(c: Compiled, p: Pattern) -> tuple[Pattern, float]:
    """On a rail-only design, flows to another rail leave from the source domain's GPU on the
    destination's rail (``solver.forwarding``); flows that forwarding delivers inside the
    domain need no fabric and are dropped. The share of connections forwarded, 0 elsewhere."""
    if p.level == "class" or not p.src.size:
        return p, 0.0
    fw = forward_sources(c, p.src, p.dst)
    if fw is None:
        return p, 0.0
    src, moved = fw
    share = float(p.weight[moved].sum() / max(p.weight.sum(), 1))
    keep = src != p.dst
    p = replace(p, src=src[keep], dst=p.dst[keep], demand=p.demand[keep],
                weight=p.weight[keep], nbytes=None if p.nbytes is None else p.nbytes[keep])
    return p, share


def plane_stripes(net: Network) -> int:
    """NIC ports (planes) of a GPU on a multi-plane design, 1 elsewhere: the queue pairs of a
    connection are striped over them under hashed routing, as NCCL uses every port of a
    GPU's NICs (one channel per port), so a flow spreads over the planes instead of landing
    on one by its hash. Designs without planes (a dual-homed NIC's two ToRs) keep hashing."""
    c = net.c
    plane = c.groups.get("plane")
    if plane is None or not (plane > 0).any():
        return 1
    n_att = np.diff(net.att_ptr)
    return int(n_att.max(initial=1)) if n_att.size else 1


def _one_trial(net: Network, p: Pattern, routing: str, q: int, seed: int, polarised: bool,
               control=None, tables=None, pfc: bool = False, arbitration: str = "flow"
               ) -> _Trial:
    c = net.c
    rng = np.random.default_rng(seed)
    if p.level == "class":
        rep = class_rep(c)
        src, dst = rep[p.src], rep[p.dst]
    else:
        src, dst = p.src, p.dst
    n_conn = src.size
    if routing == "spray":
        # the factored spray when arrival is known (every flow's rates are the same as
        # listing its paths; see spray.py), else every path listed
        routed = (spray_op(net, src, dst) if applies(net, dst)
                  else route_spray(net, src, dst, c.gpu_class[dst]))
        sub_conn = np.arange(n_conn)
        subs = 1
    elif routing == "static" and tables is not None:
        from designer.core.traffic.lft import route_lft

        routed = route_lft(net, tables, src, dst)
        sub_conn = np.arange(n_conn)
        subs = 1
    else:
        stripes = plane_stripes(net) if routing != "static" else 1
        subs = 1 if routing == "static" else q * stripes  # static: by destination, QPs coincide
        sub_conn = np.repeat(np.arange(n_conn), subs)
        s_src, s_dst = src[sub_conn], dst[sub_conn]
        if routing == "static":
            key = dest_rank(c)[s_dst]  # d-mod-k: the destination picks the port
            salt = None
        else:
            key = rng.integers(0, np.iinfo(np.int64).max, size=s_src.size).astype(np.uint64)
            if stripes > 1:
                # NCCL opens its queue pairs on every NIC port of the GPU, one plane each:
                # sub-flow j leaves by the (j mod P)-th nearest port; hashing within a plane
                # stays random (the key's high bits)
                j = np.tile(np.arange(subs, dtype=np.uint64), n_conn) % np.uint64(stripes)
                key = (key >> np.uint64(5)) * np.uint64(stripes) + j  # stripes <= 16: no wrap
            salt = hash_salt(net, seed, polarised)
        via = None
        if routing == "valiant":
            hosts = np.unique(net.att_switch)
            via = hosts[rng.integers(0, hosts.size, size=s_src.size)]
        routed = route_hashed(net, s_src, s_dst, key, salt, via, dmodk=routing == "static")
    line = net.line_rate[src]
    demand = p.demand * line
    sub_demand = demand[sub_conn] / subs
    mult = p.weight[sub_conn]
    cap = _cap(net, p)
    written = routed.listed() if isinstance(routed, SprayOp) else None
    if written is not None:  # few paths per flow: fill on the written-out incidence
        fair = max_min_fair(written.flow, written.link, written.frac * mult[written.flow],
                            sub_demand, cap, written.reached, control)
        listed = routed.nic
    elif isinstance(routed, SprayOp):
        fair = max_min_fair_op(routed, sub_demand * mult, cap, routed.reached, control)
        listed = routed.nic
    else:
        fair = max_min_fair(routed.flow, routed.link, routed.frac * mult[routed.flow],
                            sub_demand, cap, routed.reached, control)
        listed = routed
    if arbitration == "port" and isinstance(routed, Routed) and (mult == 1).all():
        fair = _port_arbitrated(routed, sub_demand, cap, p, sub_conn, subs, pfc)
    elif pfc and not isinstance(routed, SprayOp):
        # lossless Ethernet: pauses from saturated ports slow the flows behind them
        from designer.core.traffic.pfc import pfc_victims

        t_pfc = pfc_victims(routed.flow, routed.link, fair.t, sub_demand * mult, cap)
        fair = replace(fair, t=t_pfc, load=np.bincount(
            routed.link, weights=(routed.frac * mult[routed.flow]) * sub_demand[routed.flow]
            * t_pfc[routed.flow], minlength=cap.size))
    # throughput: the connection's queue pairs together; completion: its slowest one
    t_conn = np.bincount(sub_conn, weights=fair.t, minlength=n_conn) / subs
    t_slow = np.full(n_conn, np.inf)
    np.minimum.at(t_slow, sub_conn, fair.t)
    t_slow[~np.isfinite(t_slow)] = 0.0
    # the ideal: the same connections limited by their NICs only
    nic = listed.link >= net.n_ports
    w_nic = (listed.frac * mult[listed.flow])[nic]
    f_nic, l_nic = listed.flow[nic], listed.link[nic]
    at_demand = np.bincount(l_nic, weights=w_nic * sub_demand[f_nic], minlength=cap.size)
    if (at_demand <= cap * (1 + 1e-9)).all():  # the NICs carry every demand: ideal t = 1
        t_ideal = np.where(_conn_reached_of(routed, sub_conn, n_conn), 1.0, np.inf)
    else:
        ideal = max_min_fair(f_nic, l_nic, w_nic, sub_demand, cap, routed.reached, control)
        t_ideal = np.full(n_conn, np.inf)
        np.minimum.at(t_ideal, sub_conn, ideal.t)
    nbytes = p.nbytes if p.nbytes is not None else p.demand
    ok = t_slow > 0
    done = float(np.max(nbytes[ok] / (t_slow[ok] * demand[ok]))) if ok.any() else np.inf
    good = np.isfinite(t_ideal) & (t_ideal > 0)
    best = float(np.max(nbytes[good] / (t_ideal[good] * demand[good]))) if good.any() else 1.0
    slowdown = done / best if ok.all() else float("inf")
    return _Trial(t_conn, p.weight, slowdown, fair.load, routed, sub_conn,
                  done if ok.all() else float("inf"))


def _port_arbitrated(routed: Routed, demand: np.ndarray, cap: np.ndarray, p: Pattern,
                     sub_conn: np.ndarray, subs: int, pfc: bool) -> Fair:
    """Rates under lossless egress arbitration (``traffic.arbitration``: fair among ingress
    ports, then flows), solved again as flows finish; ``t`` is each flow's bytes over its
    completion (relative to its demand), ``load`` the links' load while every flow runs.
    ``pfc``: each epoch's rates then lose what PFC's pauses take from the flows behind a
    saturated port (``traffic.pfc``)."""
    from designer.core.traffic.arbitration import Incidence, completion_times
    from designer.core.traffic.pfc import pfc_victims

    F = demand.size
    inc = Incidence(routed.flow, routed.link, F, cap.size)
    safe = np.maximum(demand, 1e-300)

    def victims(rate: np.ndarray, live: np.ndarray) -> np.ndarray:
        on = live[inc.flow]
        t = pfc_victims(inc.flow[on], inc.link[on], rate / safe, demand, cap)
        return np.where(live, np.minimum(rate, t * demand), 0.0)

    nbytes = (p.nbytes if p.nbytes is not None else p.demand)[sub_conn] / subs
    done, first = completion_times(inc, demand, cap, nbytes, routed.reached,
                                   victims if pfc else None)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(np.isfinite(done) & (done > 0), nbytes * 8 / 1e9 / (done * safe), 0.0)
    t = np.where(routed.reached & (nbytes <= 0), 1.0, np.minimum(t, 1.0))
    load = np.bincount(routed.link, weights=first[routed.flow], minlength=cap.size)
    return Fair(t=t, load=load, rounds=0)


def run_load(c: Compiled, pattern: str | Pattern, routing: str | None = None,
             flows_per_pair: int = 1, trials: int = 1, seed: int = 0, polarised: bool = False,
             fan_in: int = 16, net: Network | None = None, control=None,
             tables=None, pfc: bool = False, arbitration: str = "flow") -> LoadResult:
    """Route ``pattern`` on compiled design ``c`` and solve max-min fair rates.
    ``tables``: OpenSM's forwarding tables (``lft.opensm_tables``) for ``static`` routing;
    without them static routing is the internal d-mod-k equivalent. ``pfc``: on a lossless
    fabric, slow the flows behind ports that PFC pauses (``traffic.pfc``, first order; hashed
    routings, flow by flow; a pattern solved by GPU class is left as it is). ``arbitration``:
    ``"flow"`` (max-min fair among the flows of a link) or ``"port"`` (a lossless switch's
    egress fair among ingress ports first, ``traffic.arbitration``; hashed routings, flow by
    flow, solved again as flows finish)."""
    if not 1 <= trials <= MAX_TRIALS:
        raise LoadOptionError(f"trials must be 1 to {MAX_TRIALS:,} (got {trials:,})")
    if not 1 <= flows_per_pair <= MAX_FLOWS_PER_PAIR:
        raise LoadOptionError(f"flows per pair must be 1 to {MAX_FLOWS_PER_PAIR:,} "
                              f"(got {flows_per_pair:,})")
    if not 0 <= seed <= MAX_SEED:
        raise LoadOptionError(f"the seed must be 0 to {MAX_SEED:,} (got {seed:,})")
    if arbitration not in ("flow", "port"):
        raise LoadOptionError(f"unknown arbitration '{arbitration}' (choose flow or port)")
    routing = canonical_routing(routing or default_routing(c))
    if routing not in ROUTINGS:
        raise LoadOptionError(f"unknown routing '{routing}' (choose {', '.join(ROUTINGS)})")
    p = pattern if isinstance(pattern, Pattern) else make_pattern(c, pattern, seed, fan_in)
    p, forwarded = _forward(c, p)
    runs = 1 if routing in ("spray", "static") else trials
    if p.level != "class":
        _check_work(p, flows_per_pair if routing in ("ecmp", "valiant") else 1, runs)
    net = net if net is not None else build_network(c, control)
    stripes = plane_stripes(net) if routing in ("ecmp", "valiant") else 1
    if p.level != "class" and stripes > 1:
        _check_work(p, flows_per_pair * stripes, runs)  # one queue pair per plane and more
    if p.level == "class":
        return _class_level(net, p, c, routing, flows_per_pair * stripes, control)
    hashed = routing in ("ecmp", "valiant")
    out = [_one_trial(net, p, routing, flows_per_pair, seed + k, polarised, control, tables,
                      pfc and hashed, arbitration if hashed else "flow")
           for k in range(runs)]
    t = np.concatenate([r.t for r in out])
    w = np.concatenate([r.w for r in out])
    last = out[-1]
    util = np.stack([r.load for r in out]).max(axis=0) / np.maximum(net.link_cap, 1e-300)
    if p.level == "class":
        util = out[-1].load / np.maximum(_cap(net, p), 1e-300)
    return LoadResult(
        pattern=p.name, routing=routing, flows_per_pair=flows_per_pair if routing in (
            "ecmp", "valiant") else 1,
        trials=runs, polarised=polarised and routing in ("ecmp", "valiant"),
        connections=int(p.weight.sum()),
        unrouted=int(p.weight[~_conn_reached(last)].sum()),
        throughput={
            "min": float(t.min()) if t.size else 0.0,
            "p1": _weighted_quantile(t, w, 0.01),
            "p50": _weighted_quantile(t, w, 0.5),
            "mean": float(np.average(t, weights=w)) if t.size else 0.0,
        },
        slowdown=float(np.mean([r.slowdown for r in out])),
        slowdown_worst=float(max(r.slowdown for r in out)),
        max_utilisation=float(util.max()) if util.size else 0.0,
        by_tier=_by_layer(net, util),
        hot_links=_hot(net, util),
        tail=queue_tail(net, last.routed, util, c.project.analysis.message_bytes),
        line_rate_gbps=net.nominal_gbps,
        t=t,
        link_util=util,
        forwarded=forwarded,
        completion=float(np.mean([r.done for r in out])),
        model=_model_text(pfc and hashed, arbitration == "port" and hashed),
    )


def _model_text(pfc: bool, port: bool) -> str:
    if port:
        return ("flow by flow, each egress fair among its ingress ports then among their flows "
                "(lossless switch), solved again as flows finish"
                + (", with PFC head-of-line blocking spread upstream of saturated ports "
                   "(first order)" if pfc else ""))
    if pfc:
        return ("flow by flow, max-min fair rates, then PFC head-of-line blocking spread "
                "upstream of saturated ports, hop by hop (first order)")
    return ""


def _check_work(p: Pattern, flows_per_pair: int, runs: int) -> None:
    """Refuse before building anything when the flows to route would not fit: counted from
    the pattern's connections, never by expanding them."""
    connections = int(p.weight.size)
    per_trial = connections * flows_per_pair
    if per_trial > MAX_FLOWS_PER_TRIAL:
        raise LoadOptionError(
            f"{connections:,} connections x {flows_per_pair:,} flows per pair is {per_trial:,} "
            f"flows to route, more than {MAX_FLOWS_PER_TRIAL:,}; give fewer flows per pair")
    if per_trial * runs > MAX_FLOW_ROUTES:
        raise LoadOptionError(
            f"{per_trial:,} flows x {runs:,} trials is {per_trial * runs:,} flows to route, "
            f"more than {MAX_FLOW_ROUTES:,}; give at most "
            f"{max(1, MAX_FLOW_ROUTES // per_trial):,} trials")


def _class_level(net: Network, p: Pattern, c: Compiled, routing: str, q: int,
                 control) -> LoadResult:
    """All-to-all by class: too many flows to route one by one, so every routing is solved
    from the fluid split (see ``class_level``)."""
    found = rail_of_gpus(c)
    rails = found[0] if found is not None else 1
    load, t, t_ideal, t_typical, note = class_level(net, p, routing, q, control, rails)
    if rails > 1:
        note += (f"; rail-only: {rails} rails, cross-rail bytes forwarded over the scale-up "
                 "domain onto the destination's rail")
    cap = _cap(net, p)
    util = load * t / np.maximum(cap, 1e-300)
    th = {"min": t, "p1": t, "p50": t_typical, "mean": t_typical}
    return LoadResult(
        pattern=p.name, routing=routing, flows_per_pair=q if routing == "ecmp" else 1,
        trials=1, polarised=False, connections=int(p.weight.sum()), unrouted=0, throughput=th,
        slowdown=t_ideal / t if t > 0 else float("inf"),
        slowdown_worst=t_ideal / t if t > 0 else float("inf"),
        max_utilisation=float(util.max()) if util.size else 0.0,
        by_tier=_by_layer(net, util), hot_links=_hot(net, util),
        tail=queue_tail(net, None, util, c.project.analysis.message_bytes),
        line_rate_gbps=net.nominal_gbps, t=np.array([t]), model=note, link_util=util,
        forwarded=(rails - 1) / rails,
    )


def class_level(net: Network, p: Pattern, routing: str, q: int = 1, control=None,
                rails: int = 1) -> tuple[np.ndarray, float, float, float, str]:
    """Link loads at demand, the slowest and the typical flow's fraction of demand, the ideal
    (NIC-bound) fraction, and a sentence naming the model, for a class-level all-to-all.

    Adaptive routing sprays every flow over its shortest paths (the fluid optimum). Static
    d-mod-k routing gives each up port the same number of destinations, so on a uniform
    all-to-all its loads are the fluid split too. ECMP hashes each of the flows to one path:
    with n flows on a link on average and L links in its layer, the most loaded link carries
    about n + sqrt(2 n ln L) flows (balls into bins with many more balls than bins: Raab and
    Steger, RANDOM 1998); q queue pairs per connection make n q smaller flows. Valiant sends
    each flow through a random switch first: a uniform all-to-all loads the fabric twice."""
    load = class_spray_loads(net, p, control)
    if rails > 1:
        # rail-only: the uniform exchange's cross-rail bytes are forwarded onto the
        # destination's rail, so each rail carries its own all-to-all R times over
        load = load * rails
    cap = _cap(net, p)
    fabric = np.arange(net.n_links) < net.n_ports
    if routing == "valiant":
        load = np.where(fabric, 2.0 * load, load)
    with np.errstate(divide="ignore", invalid="ignore"):
        head = np.where(load > 0, cap / load, np.inf)
    t_fluid = min(1.0, float(head.min())) if head.size else 1.0
    ideal = np.where(~fabric, head, np.inf)
    t_ideal = min(1.0, float(ideal.min())) if ideal.size else 1.0
    if routing in ("spray", "static"):
        how = ("fluid split over every shortest path (max-concurrent flow)" if routing ==
               "spray" else "d-mod-k: each up port carries as many destinations, so the "
               "loads are the fluid split")
        return load, t_fluid, t_ideal, t_fluid, f"all-to-all by GPU class; {how}"
    # hashed (ECMP) or randomly bounced (Valiant) flows: the worst link of each layer carries
    # its mean plus the spread of random placement
    flows = q if routing == "ecmp" else 1
    rate = net.c.classes.rate
    per_flow = float(np.average(p.demand * rate[p.src], weights=p.weight)) / flows
    n = np.where(fabric, load / max(per_flow, 1e-300), 0.0)
    layer_links = np.bincount(net.link_layer[fabric], minlength=len(net.layers))
    links_in_layer = np.where(fabric, layer_links[net.link_layer], 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.where(n > 0, np.sqrt(2.0 * np.log(np.maximum(links_in_layer, 2)) / n), 0.0)
    worst = load * (1.0 + spread)
    with np.errstate(divide="ignore", invalid="ignore"):
        head_worst = np.where(worst > 0, cap / worst, np.inf)
    t_worst = min(1.0, float(head_worst.min())) if head_worst.size else 1.0
    how = (f"ECMP, {flows} flow(s) per pair" if routing == "ecmp"
           else "Valiant (twice the fluid split on fabric links)")
    note = (f"all-to-all by GPU class; {how}: the fluid split plus the spread of random "
            "placement on the worst link (balls into bins, n + sqrt(2 n ln L))")
    return worst, t_worst, t_ideal, t_fluid, note


def _conn_reached(tr: _Trial) -> np.ndarray:
    return _conn_reached_of(tr.routed, tr.sub_conn, tr.t.size)


def _conn_reached_of(routed: Routed | SprayOp, sub_conn: np.ndarray, n_conn: int) -> np.ndarray:
    """Connections all of whose queue pairs have a path."""
    missing = np.bincount(sub_conn[~routed.reached], minlength=n_conn)
    return missing == 0


def _by_layer(net: Network, util: np.ndarray) -> dict[str, float]:
    out: dict[str, float] = {}
    if not util.size:
        return out
    best = np.zeros(len(net.layers))
    np.maximum.at(best, net.link_layer, util)
    present = np.bincount(net.link_layer, minlength=len(net.layers)) > 0
    for i, name in enumerate(net.layers):
        if present[i]:
            out[name] = float(best[i])
    return out


def _hot(net: Network, util: np.ndarray, n: int = HOT_LINKS) -> tuple[HotLink, ...]:
    """The busiest device pairs, each once: its busier direction, ``both_ways`` when the
    other direction is as busy, and how many parallel cables run at that level."""
    if not util.size:
        return ()
    # switch-to-switch links first among equals: a NIC at line rate is the demand itself
    fabric_link = np.arange(util.size) < net.n_ports
    level = np.round(util, 9)
    busy = np.flatnonzero(util > 0)
    if not busy.size:
        return ()
    a, b = net.link_ends(busy)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    n_dev = int(hi.max()) + 1  # one integer key per device pair: np.unique over rows
    pair = np.unique(lo * n_dev + hi, return_inverse=True)[1].reshape(-1)  # sorts slowly
    order = np.lexsort((~fabric_link[busy], -level[busy]))
    _, first = np.unique(pair[order], return_index=True)
    top = order[np.sort(first)][:n]  # positions in ``busy``
    peak = np.zeros(int(pair.max()) + 1)
    np.maximum.at(peak, pair, level[busy])
    at_peak = level[busy] == peak[pair]
    forward = np.bincount(pair[at_peak & (a == lo)], minlength=peak.size)
    backward = np.bincount(pair[at_peak & (a != lo)], minlength=peak.size)
    ids = net.c.fabric.devices
    out = []
    for k in top.tolist():
        i, g = int(busy[k]), int(pair[k])
        same_way = forward[g] if a[k] == lo[k] else backward[g]
        other_way = backward[g] if a[k] == lo[k] else forward[g]
        out.append(HotLink(ids[int(a[k])].id, ids[int(b[k])].id,
                           net.layers[int(net.link_layer[i])], float(util[i]),
                           bool(other_way > 0), int(same_way)))
    return tuple(out)


def project_load(project: Project, pattern: str, routing: str | None = None,
                 flows_per_pair: int = 1, trials: int = 1, seed: int = 0,
                 polarised: bool = False, fan_in: int = 16, catalog: Catalog | None = None,
                 control=None) -> LoadResult:
    """``run_load`` on a project (compiled here)."""
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    c = compile_project(project, cat, control)
    return run_load(c, pattern, routing, flows_per_pair, trials, seed, polarised, fan_in,
                    control=control)


def collective_slowdown(project: Project, result: object | None = None,
                        pattern: str = "ring", routing: str | None = None,
                        flows_per_pair: int = 1, trials: int = 1, seed: int = 0,
                        catalog: Catalog | None = None) -> float:
    """The network slowdown factor of a collective's traffic under a routing: the slowest
    connection's completion against the ideal fabric (1.0 = the fabric costs nothing).
    ``result`` (a solver Result) is accepted for the decision analysis' call shape."""
    r = project_load(project, pattern, routing, flows_per_pair, trials, seed, catalog=catalog)
    return r.slowdown
