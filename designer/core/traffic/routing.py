"""Route flows on the design's graph: which links each flow crosses, and with what share.

Every routing descends shortest paths (switch-to-switch hops to the destination's class, see
``network``), all flows one hop at a time as arrays:

- ``spray``: packet spraying, the fluid model. At every switch a flow splits over all next
  hops that bring it closer, in proportion to their capacity (every packet on its own path,
  as Ultra Ethernet, MRC and Spectrum-X's per-packet adaptive routing send; what ideal
  adaptive routing approaches). Its former name ``adaptive`` is still accepted and means the
  same (``ALIASES``).
- ``ecmp``: each flow (each of the q queue pairs of a connection) is hashed onto one next
  hop. The hash is a random 64-bit key per flow (the 5-tuple's hash, redrawn each trial)
  mixed with a per-switch salt; with ``polarised`` every switch uses the same function, so
  the choice at one tier repeats the one below (hash polarisation).
- ``static``: InfiniBand destination routing as ftree programs it (d-mod-k): the next hop is
  picked by the destination's number modulo the candidates, the same for every source, so
  each up port carries an even share of the destinations.
- ``valiant``: each flow goes minimally to a random intermediate switch, then minimally on
  (dragonfly Valiant routing); both legs are hashed like ECMP.

Flowlet (adaptive) switching, which moves a flow to another path at a gap in its packets, lies
between ECMP (a path per flow) and spraying (a path per packet); it is not modelled, so no
routing here carries that name.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.errors import DesignerError
from designer.core.solver.compile import mix64
from designer.core.traffic.network import (
    UNREACHABLE,
    Network,
    hops_from_sets,
    nearest,
    shares,
)
from designer.core.traffic.ranks import dest_rank

ROUTINGS = ("spray", "ecmp", "static", "valiant")
# former names, still accepted where a routing is given (project files, commands)
ALIASES = {"adaptive": "spray"}
ROUTING_LABELS = {"spray": "packet spraying", "ecmp": "ECMP hashing",
                  "static": "static (d-mod-k)", "valiant": "Valiant (hashed)"}


def canonical_routing(routing: str) -> str:
    """The routing's name, a former name mapped to today's (``adaptive`` -> ``spray``)."""
    return ALIASES.get(routing, routing)
_CHUNK = 2_000_000  # candidate entries expanded at a time (bounds memory)


class RoutingError(DesignerError):
    """A routing that cannot be applied to this design or these options."""


@dataclass(frozen=True, eq=False)
class Routed:
    """Sparse flow-link incidence: flow ``flow[i]`` puts ``frac[i]`` of its rate on
    ``link[i]``. ``reached[f]`` is False for a flow with no path."""

    flow: np.ndarray
    link: np.ndarray
    frac: np.ndarray
    reached: np.ndarray


def _keys(n: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, np.iinfo(np.int64).max, size=n, dtype=np.int64).astype(np.uint64)


def _pick(rep: np.ndarray, ok: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """Index (into the candidate arrays) of the ``key % count``-th good candidate of each
    row, -1 for rows without one."""
    cnt = np.bincount(rep[ok], minlength=n)
    good = np.flatnonzero(ok)
    start = np.cumsum(cnt) - cnt
    k = (key % np.maximum(cnt, 1).astype(np.uint64)).astype(np.int64)
    return np.where(cnt > 0, good[np.minimum(start + k, max(good.size - 1, 0))]
                    if good.size else -1, -1)


class _Target:
    """Distance from switches to each flow's target (a GPU class or a switch).
    ``by_target``: target x switch distances."""

    def __init__(self, by_target: np.ndarray, col: np.ndarray) -> None:
        self.table, self.col = by_target, col

    def at(self, sw: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return self.table[self.col[rows], sw]


def _hash_walk(net: Network, start: np.ndarray, tgt: _Target, key: np.ndarray,
               salt: np.ndarray | None, dmodk: bool = False, max_hops: int = 1 << 30
               ) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Walk each flow from switch ``start`` down the distance to its target, one hashed
    next hop per switch. Returns (flow rows, ports) per hop and the final switch (-1 lost).

    ``dmodk``: the key is the destination's number and a switch of tier i takes candidate
    ``(key / (k_1 ... k_{i-1})) mod count``, k_j the up ports of a tier-j switch: consecutive
    destinations spread over one tier's ports and their quotients over the next tier's, as
    d-mod-k (ftree) does; the plain key at every tier would reuse one port per tier. Going
    down, the destination's number itself picks among parallel cables. The choice depends on
    the switch and the destination only, like a forwarding table."""
    F = start.size
    div = _tier_divisor(net) if dmodk else None
    cur = start.copy()
    rows_out: list[np.ndarray] = []
    ports_out: list[np.ndarray] = []
    active = np.flatnonzero((cur >= 0) & (tgt.at(np.maximum(cur, 0), np.arange(F)) > 0)
                            & (tgt.at(np.maximum(cur, 0), np.arange(F)) < UNREACHABLE))
    cur[(cur >= 0) & (tgt.at(np.maximum(cur, 0), np.arange(F)) >= UNREACHABLE)] = -1
    hops = 0
    while active.size and hops < max_hops:
        hops += 1
        deg = net.port_ptr[cur[active] + 1] - net.port_ptr[cur[active]]
        cs = np.cumsum(deg)
        cuts = np.searchsorted(cs, np.arange(_CHUNK, cs[-1] if cs.size else 0, _CHUNK))
        edges = np.unique(np.r_[0, cuts, active.size])
        nxt_all = np.full(active.size, -1, np.int64)
        for lo, hi in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True):
            fl = active[lo:hi]
            u = cur[fl]
            rep, port = net.ports_leaving(u)
            d_here = tgt.at(u, fl)
            ok = tgt.at(net.port_dst[port], fl[rep]) == d_here[rep] - 1
            k = key[fl]
            if div is not None:
                # going up: the quotient by the tiers below; going down (parallel cables to
                # the next switch) the destination's own number spreads them
                tier = net.c.switch_tier
                down = np.bincount(rep[ok & (tier[net.port_dst[port]] < tier[u][rep])],
                                   minlength=fl.size) > 0
                k = np.where(down, k, k // div[u])
            if salt is not None:
                with np.errstate(over="ignore"):
                    k = mix64(k ^ salt[u])
            pick = _pick(rep, ok, k, fl.size)
            got = pick >= 0
            chosen = port[np.maximum(pick, 0)]
            rows_out.append(fl[got])
            ports_out.append(chosen[got])
            nxt_all[lo:hi] = np.where(got, net.port_dst[chosen], -1)
        cur[active] = nxt_all
        alive = nxt_all >= 0
        done = np.zeros(active.size, bool)
        done[alive] = tgt.at(nxt_all[alive], active[alive]) == 0
        active = active[alive & ~done]
    return rows_out, ports_out, cur


def _tier_divisor(net: Network) -> np.ndarray:
    """Per switch: the product of the usual up-port counts of the tiers below it."""
    tier = net.c.switch_tier.astype(np.int64)
    up = tier[net.port_src] < tier[net.port_dst]
    n_up = np.bincount(net.port_src[up], minlength=tier.size)
    div = np.ones(int(tier.max(initial=0)) + 2, np.uint64)
    for t in range(1, div.size - 1):
        at = (tier == t) & (n_up > 0)
        k = int(np.median(n_up[at])) if at.any() else 1
        div[t + 1] = div[t] * np.uint64(max(k, 1))
    return div[tier]


def _first_attachment(net: Network, gpu: np.ndarray, tgt: _Target, key: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(attachment row, switch) each flow leaves its GPU by: one of the GPU's NICs nearest
    its target, chosen by ``key``; (-1, -1) when none reaches it."""
    rep, att = net.attachments(gpu)
    ok = nearest(rep, tgt.at(net.att_switch[att], rep), gpu.size)
    pick = _pick(rep, ok, key, gpu.size)
    a = np.where(pick >= 0, att[np.maximum(pick, 0)], -1)
    return a, np.where(a >= 0, net.att_switch[np.maximum(a, 0)], -1)


def delivery_port(net: Network, gpu: np.ndarray, at: np.ndarray, key: np.ndarray) -> np.ndarray:
    """The attachment of ``gpu`` on switch ``at`` (one chosen by ``key`` if several), -1."""
    rep, att = net.attachments(gpu)
    ok = net.att_switch[att] == at[rep]
    pick = _pick(rep, ok, key, gpu.size)
    return np.where(pick >= 0, att[np.maximum(pick, 0)], -1)


def route_hashed(net: Network, src: np.ndarray, dst: np.ndarray, key: np.ndarray,
                 salt: np.ndarray | None, via: np.ndarray | None = None,
                 dmodk: bool = False) -> Routed:
    """One path per flow (ECMP, d-mod-k static, Valiant when ``via`` gives intermediate
    switches). ``salt``: per-switch hash salt (None: the same function everywhere)."""
    c = net.c
    F = src.size
    cls_tgt = _Target(net.dist_by_class, c.gpu_class[dst])
    flows: list[np.ndarray] = []
    links: list[np.ndarray] = []
    if via is None:
        a, start = _first_attachment(net, src, cls_tgt, key)
    else:
        sw_dist = switch_distances(net)
        a, start = _first_attachment(net, src, _Target(sw_dist, via), key)
        r, p, mid = _hash_walk(net, start, _Target(sw_dist, via), key, salt, dmodk)
        flows += r
        links += p
        start = mid
    got = a >= 0
    flows.append(np.flatnonzero(got))
    links.append(net.nic_up(a[got]))
    r, p, end = _hash_walk(net, start, cls_tgt, key, salt, dmodk)
    flows += r
    links += p
    ok = end >= 0
    d = np.full(F, -1, np.int64)
    d[ok] = delivery_port(net, dst[ok], end[ok], key[ok])
    fin = d >= 0
    flows.append(np.flatnonzero(fin))
    links.append(net.nic_down(d[fin]))
    reached = got & fin
    flow = np.concatenate(flows)
    link = np.concatenate(links)
    keep = reached[flow]
    return Routed(flow[keep], link[keep], np.ones(int(keep.sum())), reached)


def switch_distances(net: Network) -> np.ndarray:
    """Hops between every pair of switches (Valiant's first leg aims at a switch)."""
    c = net.c
    S = c.n_switches
    if S > MAX_VALIANT_SWITCHES:
        raise RoutingError(f"Valiant routing is limited to designs of up to "
                           f"{MAX_VALIANT_SWITCHES:,} switches (this one has {S:,}): it holds "
                           "the hops between every two switches")
    every = np.arange(S + 1)
    return hops_from_sets(c.indptr, c.indices, every, every[:-1])


# the table is switches^2 x 2 bytes: 578 MB at this size, which holds the largest dragonfly
# the generators make (16,416 routers)
MAX_VALIANT_SWITCHES = 17_000


def route_spray(net: Network, src: np.ndarray, dst: np.ndarray, dst_class: np.ndarray,
                src_atts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> Routed:
    """The fluid model: each flow split over every shortest next hop by capacity.

    ``src_atts`` = (flow, attachment row, share) overrides how flows leave their GPU (used
    for class-level rows); by default a GPU's NICs nearest the target share by capacity, and
    the flow arrives over the destination GPU's NICs on the switch it reaches."""
    F = src.size
    tgt = _Target(net.dist_by_class, dst_class)
    rep, att = net.attachments(src) if src_atts is None else src_atts[:2]
    ok = nearest(rep, tgt.at(net.att_switch[att], rep), F)
    share = shares(rep, np.where(ok, net.att_cap[att], 0.0), F)
    flows = [rep[ok]]
    links = [net.nic_up(att[ok])]
    fracs = [share[ok]]
    # state: (flow, switch, fraction), merged per (flow, switch) after every hop
    s_flow, s_sw, s_frac = _merge(rep[ok], net.att_switch[att[ok]], share[ok],
                                  net.c.n_switches)
    arrived: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    while s_flow.size:
        dh = tgt.at(s_sw, s_flow)
        here = dh == 0
        arrived.append((s_flow[here], s_sw[here], s_frac[here]))
        s_flow, s_sw, s_frac, dh = s_flow[~here], s_sw[~here], s_frac[~here], dh[~here]
        if not s_flow.size:
            break
        rep, port = net.ports_leaving(s_sw)
        ok = tgt.at(net.port_dst[port], s_flow[rep]) == dh[rep] - 1
        rep, port = rep[ok], port[ok]
        cap = net.port_cap[port]
        tot = np.bincount(rep, weights=cap, minlength=s_flow.size)
        f = s_frac[rep] * cap / tot[rep]
        flows.append(s_flow[rep])
        links.append(port)
        fracs.append(f)
        s_flow, s_sw, s_frac = _merge(s_flow[rep], net.port_dst[port], f, net.c.n_switches)
    # delivery over the destination GPUs' NICs at the switches reached
    if arrived:
        a_flow = np.concatenate([x[0] for x in arrived])
        a_sw = np.concatenate([x[1] for x in arrived])
        a_frac = np.concatenate([x[2] for x in arrived])
    else:
        a_flow = a_sw = np.empty(0, np.int64)
        a_frac = np.empty(0)
    rep, att = net.attachments(dst[a_flow])
    ok = net.att_switch[att] == a_sw[rep]
    share = shares(rep, np.where(ok, net.att_cap[att], 0.0), a_flow.size)
    flows.append(a_flow[rep[ok]])
    links.append(net.nic_down(att[ok]))
    fracs.append(a_frac[rep[ok]] * share[ok])
    flow = np.concatenate(flows)
    link = np.concatenate(links)
    frac = np.concatenate(fracs)
    delivered = np.bincount(a_flow, weights=a_frac, minlength=F)
    reached = delivered > 0.999
    keep = reached[flow]
    return Routed(flow[keep], link[keep], frac[keep], reached)


def _merge(flow: np.ndarray, sw: np.ndarray, frac: np.ndarray, S: int):
    key = flow.astype(np.int64) * max(S, 1) + sw
    u, inv = np.unique(key, return_inverse=True)
    return u // max(S, 1), u % max(S, 1), np.bincount(inv.reshape(-1), weights=frac)


def hash_salt(net: Network, seed: int, polarised: bool) -> np.ndarray | None:
    """Per-switch salts for the ECMP hash; None (one function everywhere) when polarised."""
    if polarised:
        return None
    rng = np.random.default_rng(seed ^ 0x5A17)
    return _keys(net.c.n_switches, rng)


def dmodk_balance(net: Network) -> dict[str, tuple[int, int, float, int]]:
    """Route balance of the static (d-mod-k) routing as ``check-ib`` reports OpenSM's: for
    every up-going switch port (toward a higher tier), how many destination GPUs it carries.
    Returns "leaf -> spine"-style layer -> (ports, min, mean, max). Destination routing
    makes a port's destinations the same from every source: the first hop from every
    switch to every GPU is the table."""
    c = net.c
    S, N = c.n_switches, c.n_gpus
    start = np.repeat(np.arange(S), N)
    dst = np.tile(np.arange(N), S)
    tgt = _Target(net.dist_by_class, c.gpu_class[dst])
    d_here = tgt.at(start, np.arange(start.size))
    go = (d_here > 0) & (d_here < UNREACHABLE)
    start, dst = start[go], dst[go]
    tgt = _Target(net.dist_by_class, c.gpu_class[dst])
    key = dest_rank(c)[dst]
    # one hop of the walk: the table entry of every (switch, destination)
    _, ports, _ = _hash_walk(net, start, tgt, key, None, dmodk=True, max_hops=1)
    port = np.concatenate(ports) if ports else np.empty(0, np.int64)
    per_port = np.bincount(port, minlength=net.n_ports)
    tier = c.switch_tier
    up = tier[net.port_src] < tier[net.port_dst]
    names = {1: "leaf", 2: "spine", 3: "core"}
    out: dict[str, tuple[int, int, float, int]] = {}
    for t in sorted(set(tier[net.port_src[up]].tolist())):
        sel = up & (tier[net.port_src] == t)
        v = per_port[sel]
        label = f"{names.get(t, t)} -> {names.get(t + 1, t + 1)}"
        out[label] = (int(v.size), int(v.min()), float(v.mean()), int(v.max()))
    return out
