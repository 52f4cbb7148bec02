"""Head-of-line blocking from PFC on a lossless fabric: pauses followed upstream, first order.

The fluid model (``maxmin``) gives every flow its max-min fair share, as if each flow's
sender knew its bottleneck. On lossless RoCE a congested egress port instead pauses the
ingress ports that feed it (PFC, IEEE 802.1Qbb): while an ingress is paused nothing on it
moves, so flows that share that ingress with a throttled flow but are bound elsewhere (the
victims) stop too. With senders at line rate between pauses, the traffic on a paused link
keeps the mix its senders offer, so every flow on it is slowed by the same factor as the
flows the hot port holds.

A paused ingress port is the egress port of the switch upstream: its queue fills in turn,
and that switch pauses its own ingress ports that feed it. The pause spreads upstream hop by
hop, to flows that share no link with the hot port (congestion spreading, the "congestion
tree" of Gran et al., and the PFC storms of Guo et al., SIGCOMM 2016, section 4).

First order, stated:

- a saturated link holds the flows of one of its ingress ports (the link each flow came in
  on; a host's flows on their first link form one group, its NIC) when they get at least
  that port's fair share of the link (ports asking their flows' demands) or one of them runs
  at the link's highest rate; it then pauses that ingress link, whose flows all get at most
  the fastest held flow's throughput (``t' = min(t, pause)`` over a flow's links), except
  the flows that cross that saturated link themselves: they contend for it, and it serves
  whichever ingress port has packets, so their rate stays the fluid solve's;
- a paused link is the upstream switch's egress: it holds the flows of each ingress port of
  that switch whose flows it caps, which pauses those ingress links at the same throughput;
  repeated hop by hop until no pause changes, at most ``MAX_HOPS`` hops (a path's length in
  a three-tier fabric);
- pauses are steady fractions of time: they do not model the pause's round trip, buffers
  or the bursts of a pause being released (htsim's 15-packet queues make those matter);
- saturation is the fluid solve's, and the capacity that victims leave is not handed back
  to others (a second solve would raise some flows again). Rates only go down.

It applies to hashed routing (ECMP) on lossless Ethernet; spraying spreads load so that few
ports saturate, and InfiniBand's credit-based flow control throttles per virtual lane at the
sender (the same spreading in kind, not modelled here).
"""

from __future__ import annotations

import numpy as np

SATURATED = 1 - 1e-6
MAX_HOPS = 6  # pauses followed upstream: a three-tier up-down path has six switch links


def pfc_victims(flow: np.ndarray, link: np.ndarray, t: np.ndarray, demand: np.ndarray,
                cap: np.ndarray, hops: int = MAX_HOPS) -> np.ndarray:
    """Throughput of every flow once PFC pauses spread upstream of saturated links.

    ``flow``/``link``: the flows' paths as incidence pairs, each flow's links in path order
    (``route_hashed`` writes them hop by hop); ``t``: the fluid throughput per flow,
    relative to its ``demand`` (Gb/s); ``cap``: each link's capacity (Gb/s). ``hops``: how
    far upstream a pause is followed (1: only the ingress of a saturated link)."""
    from designer.core.traffic.arbitration import water_fill

    if flow.size == 0:
        return t.copy()
    order = np.argsort(flow, kind="stable")  # each flow's links stay in path order
    f, lk = flow[order], link[order]
    first = np.r_[True, f[1:] != f[:-1]]
    has_prev = np.flatnonzero(~first)  # entries with an ingress link before them
    if has_prev.size == 0:
        return t.copy()
    prev = lk[has_prev - 1]
    fe, xe = f[has_prev], lk[has_prev]
    # ingress groups (link, ingress link before it)
    key = xe.astype(np.int64) * (cap.size + 1) + prev
    _, grp = np.unique(key, return_inverse=True)
    grp = grp.ravel()
    G = int(grp.max()) + 1
    g_link = np.zeros(G, np.int64)
    g_link[grp] = xe
    g_prev = np.zeros(G, np.int64)
    g_prev[grp] = prev
    rate = t * demand
    load = np.bincount(lk, weights=rate[f], minlength=cap.size)
    hot = load >= cap * SATURATED
    # saturated links: the ingress groups they hold
    on_hot = hot[xe]
    g_hot = np.zeros(G, bool)
    g_hot[grp[on_hot]] = True
    ask = np.bincount(grp, weights=demand[fe], minlength=G)
    got = np.bincount(grp, weights=rate[fe], minlength=G)
    used = np.flatnonzero(g_hot)
    share = np.full(G, np.inf)
    share[used], _ = water_fill(g_link[used], ask[used], cap)
    top = np.zeros(cap.size)  # each link's highest rate
    np.maximum.at(top, lk, rate[f])
    g_top = np.zeros(G, bool)
    at_top = on_hot & (rate[fe] >= top[xe] * SATURATED)
    g_top[grp[at_top]] = True
    held = g_hot & ((got >= share * SATURATED) | g_top)
    g_t = np.zeros(G)  # the fastest flow of each group (relative)
    np.maximum.at(g_t, grp, t[fe])
    # each paused link's level and the saturated link it comes from (its origin)
    pause, origin = _lowest(g_prev[held], g_t[held], g_link[held], cap.size)
    # flows that cross a pause's origin are its contenders, not its victims: the hot port
    # serves whichever ingress has packets, so their rate stays the fluid solve's
    crossed = np.unique(f.astype(np.int64) * cap.size + lk)
    out = t.copy()
    for _ in range(hops):
        paused = np.isfinite(pause[lk])
        q = f[paused].astype(np.int64) * cap.size + origin[lk[paused]]
        at = np.minimum(np.searchsorted(crossed, q), crossed.size - 1)
        victim = np.zeros(lk.size, bool)
        victim[np.flatnonzero(paused)[crossed[at] != q]] = True
        lim = np.full(t.size, np.inf)
        np.minimum.at(lim, f[victim], pause[lk[victim]])
        new = np.minimum(out, lim)
        # a paused link holds the groups whose flows run at its level: pause their ingress
        g_t = np.zeros(G)
        np.maximum.at(g_t, grp, new[fe])
        p_g = pause[g_link]
        caught = np.isfinite(p_g) & (g_t >= p_g * SATURATED)
        nxt, nxt_origin = _lowest(np.r_[np.arange(cap.size), g_prev[caught]],
                                  np.r_[pause, p_g[caught]],
                                  np.r_[origin, origin[g_link[caught]]], cap.size)
        if np.array_equal(new, out) and np.array_equal(nxt, pause):
            break
        out, pause, origin = new, nxt, nxt_origin
    return out


def _lowest(at: np.ndarray, level: np.ndarray, origin: np.ndarray, n: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """Per link (``n``): the lowest ``level`` given at it and that level's ``origin``
    (inf and -1 where none)."""
    pause = np.full(n, np.inf)
    src = np.full(n, -1, np.int64)
    keep = np.isfinite(level)
    at, level, origin = at[keep], level[keep], origin[keep]
    if at.size:
        o = np.lexsort((origin, level, at))
        first = np.r_[True, at[o][1:] != at[o][:-1]]
        pause[at[o][first]] = level[o][first]
        src[at[o][first]] = origin[o][first]
    return pause, src
