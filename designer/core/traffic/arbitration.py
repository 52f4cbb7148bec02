"""Egress arbitration on a lossless (PFC) fabric: fair among ingress ports, then among flows.

The fluid model (``maxmin``) shares a congested link max-min fairly among the flows crossing
it. A lossless Ethernet switch does not: its egress queue is first in, first out, and what
bounds each sender is PFC, which pauses whole ingress ports (IEEE 802.1Qbb). Every ingress
port feeding a congested egress fills its share of the buffer to the pause threshold, is
paused, drains, resumes at line rate, so in the steady state each ingress port gets an equal
share of the egress, whatever the number of flows behind it; the flows of one ingress port
then split that port's share as the switch upstream shares it (the same rule one hop up).
This is the PFC unfairness the DCQCN paper reports (Zhu et al., SIGCOMM 2015, section 2: a
flow alone on its ingress port gets more than flows sharing one). csg-htsim's lossless
switch is built this way (``LosslessOutputQueue``: one FIFO per egress;
``LosslessInputQueue``: pause above the high threshold, resume below the low one).

First order, stated:

- every link shares its capacity max-min fairly among its ingress groups (the link each
  flow arrived on; the flows leaving a host form one group, which its NIC serves flow by
  flow), each group asking the sum of its flows' rates elsewhere; a group's share is then
  split max-min fairly among its flows;
- a fixed point over the links (a flow asks each link the least its other links offer it),
  by sweeps from the line rates; a sweep that swings between two answers ends at the lower;
  then one pass keeps every link within capacity and the spare goes max-min fairly to the
  flows below their demand (so no flow is left under what every link it crosses could give);
- the flows' rates are solved again every time a flow finishes (completions within 1 % in
  one epoch): a flow alone on its port finishes first and the flows that shared a port speed
  up, so a flow's throughput is its bytes over its completion time, as a packet simulator
  measures it.

InfiniBand's switches arbitrate an egress among input ports too (weighted round robin over
virtual lanes and inputs, credit flow control per link), so the same grouping is a fair
first order there; the tool applies it only where it is checked against a simulator of that
fabric (lossless RoCE, htsim_roce). With per-flow max-min and equal flow sizes no flow ever
speeds up (a flow's bottleneck peers finish with it), so the completions are the steady
rates; the grouping is what makes them differ.
"""

from __future__ import annotations

import numpy as np

SWEEPS = 60  # fixed-point sweeps per solve (converges in a handful on tree fabrics)
TOL = 1e-6  # relative change of every rate that ends the sweeps
MERGE = 0.01  # completions this close (relative) end in one epoch


def water_fill(seg: np.ndarray, x: np.ndarray, cap: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Max-min fair allocation, segment by segment: the items of segment ``s`` (``seg == s``)
    ask ``x`` each and share ``cap[s]``. Returns each item's allocation and each segment's
    level (inf where every item gets what it asks)."""
    if x.size == 0:
        return x.copy(), np.full(cap.size, np.inf)
    return Segments(seg, cap.size).fill(x, cap)


class Segments:
    """Items in segments, ready for many water fills with other asks: the sweeps of a solve
    fill the same segments again and again, and only the order within each changes."""

    def __init__(self, seg: np.ndarray, n_seg: int) -> None:
        # a stable sort of 16-bit keys is a radix sort: by ask, then by segment, in two
        # passes instead of a lexicographic sort (2-3x faster at 10,000 items)
        narrow = np.int16 if n_seg <= np.iinfo(np.int16).max else np.int32
        self.key = seg.astype(narrow)
        self.s = np.sort(seg, kind="stable")
        n = seg.size
        start = np.r_[0, np.flatnonzero(self.s[1:] != self.s[:-1]) + 1] if n else \
            np.empty(0, np.int64)
        size = np.diff(np.r_[start, n])
        self.first = np.repeat(start, size)
        self.left = np.repeat(size, size) - (np.arange(n) - self.first)  # items from here on

    def fill(self, x: np.ndarray, cap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``water_fill`` of these segments asking ``x``."""
        by_x = np.argsort(x)  # equal asks get equal shares, in whatever order
        order = by_x[np.argsort(self.key[by_x], kind="stable")]
        s, v, left = self.s, x[order], self.left
        csum = np.cumsum(v)
        below = csum - v
        before = below - below[self.first]  # sum of the smaller ones in the segment
        c = cap[s]
        unmet = v * left + before > c * (1 + 1e-12)
        level = np.full(cap.size, np.inf)
        idx = np.flatnonzero(unmet)
        if idx.size:  # the segment's level is at its first unmet item
            si = s[idx]
            head = np.r_[True, si[1:] != si[:-1]]
            at = idx[head]
            level[si[head]] = (c - before)[at] / left[at]
        out = np.empty(x.size)
        out[order] = np.minimum(v, level[s])
        return out, level


class Incidence:
    """Flows' paths in order (``flow``/``link`` entries, each flow's links hop by hop) with
    each entry's ingress group: the link the flow arrived on, or its first link's own group
    (the sending host)."""

    def __init__(self, flow: np.ndarray, link: np.ndarray, n_flows: int, n_links: int) -> None:
        order = np.argsort(flow, kind="stable")  # keeps each flow's hops in path order
        self.flow, self.link = flow[order], link[order]
        self.n_flows, self.n_links = n_flows, n_links
        prev = np.r_[-1, self.link[:-1]]
        first = np.r_[True, self.flow[1:] != self.flow[:-1]]
        prev[first] = -1  # arrived from the host: one group per (link, host)
        # a group id per distinct (link, ingress) pair
        key = self.link.astype(np.int64) * (n_links + 1) + (prev + 1)
        _, self.group = np.unique(key, return_inverse=True)
        self.group = self.group.ravel()
        self.n_groups = int(self.group.max()) + 1 if self.group.size else 0
        self.group_link = np.zeros(self.n_groups, np.int64)
        self.group_link[self.group] = self.link


class _Live:
    """One solve's entries (the live flows', in flow order) and what every sweep of it reads:
    the groups in use, their segments for the water fills, and where each flow's entries
    start (so a per-flow least is a segment reduction, not a scattered one)."""

    def __init__(self, inc: Incidence, live: np.ndarray) -> None:
        on = live[inc.flow]
        self.f, self.g, self.link = inc.flow[on], inc.group[on], inc.link[on]
        self.used = np.unique(self.g)
        self.used_link = inc.group_link[self.used]
        self.by_link = Segments(self.used_link, inc.n_links)
        self.by_group = Segments(self.g, inc.n_groups)
        n = self.f.size
        self.start = np.flatnonzero(np.r_[True, self.f[1:] != self.f[:-1]]) if n else \
            np.empty(0, np.int64)
        self.flows = self.f[self.start]
        self.seg = np.repeat(np.arange(self.start.size), np.diff(np.r_[self.start, n]))

    def least(self, v: np.ndarray, F: int) -> np.ndarray:
        """Each flow's least ``v`` over its entries (inf for a flow with none)."""
        out = np.full(F, np.inf)
        out[self.flows] = np.minimum.reduceat(v, self.start)
        return out

    def least_elsewhere(self, v: np.ndarray) -> np.ndarray:
        """Per entry: the least ``v`` over the flow's other entries (inf for a one-link
        flow)."""
        m1 = np.minimum.reduceat(v, self.start)
        is_min = v <= m1[self.seg]
        n_min = np.add.reduceat(is_min.astype(np.int64), self.start)
        m2 = np.minimum.reduceat(np.where(is_min, np.inf, v), self.start)
        m2 = np.where(n_min > 1, m1, m2)
        return np.where(is_min, m2[self.seg], m1[self.seg])


def _share(inc: Incidence, on: _Live, d: np.ndarray, cap: np.ndarray):
    """One pass over the links with entry demands ``d``: each entry's allocation and what
    the link would offer it were it to ask more (the level of its group's flows if the group
    is held, else its demand plus the room up to the groups' level, or the link's spare)."""
    g, used, link = on.g, on.used, on.link
    ask = np.bincount(g, weights=d, minlength=inc.n_groups)
    share = np.zeros(inc.n_groups)
    share[used], lam = on.by_link.fill(ask[used], cap)
    alloc, mu = on.by_group.fill(d, share)
    spare = cap - np.bincount(on.used_link, weights=share[used], minlength=cap.size)
    held = ask[g] > share[g] * (1 + 1e-12)
    room = np.where(np.isfinite(lam[link]), lam[link] - ask[g], spare[link])
    offer = np.where(held, mu[g], d + np.maximum(room, 0.0))
    return alloc, offer


def port_fair_rates(inc: Incidence, live: np.ndarray, demand: np.ndarray, cap: np.ndarray
                    ) -> np.ndarray:
    """Rates (Gb/s) of the ``live`` flows under ingress-port-then-flow fairness at every link;
    0 for the others.

    Sweeps of offers (each link's offer to a flow is what it would give the flow were it to
    ask more, so a link never holds a flow down by what it gave before): a flow asks each
    link the least that its other links offer. Then one pass with the flows asking their
    rates keeps every link within its capacity, and what the links still have spare goes to
    the flows that can use it, max-min fairly (a flow's rate is never left below what every
    link it crosses could give)."""
    from designer.core.traffic.maxmin import max_min_fair

    F = inc.n_flows
    on = _Live(inc, live)
    f, lk = on.f, on.link
    if f.size == 0:
        return np.zeros(F)
    offer = np.full(f.size, np.inf)
    rate = before = np.zeros(F)
    for _ in range(SWEEPS):
        d = np.minimum(demand[f], on.least_elsewhere(offer))
        _, offer = _share(inc, on, d, cap)
        r = np.where(live, np.minimum(on.least(offer, F), demand), 0.0)
        if np.allclose(r, rate, rtol=TOL, atol=0.0):
            rate = r
            break
        # a few flows may swing between two answers, sweep after sweep: take the lower of
        # the two (the passes below keep the links within capacity and hand out the rest)
        if np.allclose(r, before, rtol=TOL, atol=0.0):
            rate = np.minimum(r, rate)
            break
        rate, before = r, rate
    # within capacity: each link shares out what the flows ask; a flow keeps its least
    alloc, _ = _share(inc, on, rate[f], cap)
    rate = np.where(live, np.minimum(on.least(alloc, F), demand), 0.0)
    # work conserving: the spare capacity, max-min fairly, to flows below their demand
    spare = np.maximum(cap - np.bincount(lk, weights=rate[f], minlength=cap.size), 0.0)
    want = np.where(live, np.maximum(demand - rate, 0.0), 0.0)
    if (want > demand * 1e-9).any():
        extra = max_min_fair(f, lk, np.ones(f.size), want, spare, live)
        rate = rate + extra.t * want
    return rate


def completion_times(inc: Incidence, demand: np.ndarray, cap: np.ndarray, nbytes: np.ndarray,
                     reached: np.ndarray, after=None) -> tuple[np.ndarray, np.ndarray]:
    """Each flow's completion (seconds) when its bytes move at ``port_fair_rates`` solved
    again as flows finish (``demand`` Gb/s per flow, ``nbytes`` bytes), and the rates while
    every flow still runs. ``after(rates, live)``, when given, may lower the rates of an
    epoch (PFC victims). Unreached: inf."""
    F = inc.n_flows
    left = nbytes.astype(np.float64) * 8 / 1e9  # gigabits
    live = reached & (left > 0) & (demand > 0)
    done = np.where(reached, 0.0, np.inf)
    now = 0.0
    first = None
    while live.any():
        rate = port_fair_rates(inc, live, demand, cap)
        if after is not None:
            rate = after(rate, live)
        if first is None:
            first = rate
        lv = np.flatnonzero(live)
        r = rate[lv]
        if not (r > 0).all():  # a flow that cannot move never finishes
            done[lv[r <= 0]] = np.inf
            live[lv[r <= 0]] = False
            continue
        # the next flows to finish, and those within MERGE of them, leave together, each
        # at its own time at these rates: the others speed up MERGE of an epoch late at most
        ttf = left[lv] / r
        batch = ttf <= ttf.min() * (1 + MERGE)
        dt = float(ttf[batch].max())
        done[lv[batch]] = now + ttf[batch]
        now += dt
        left[lv] = np.where(batch, 0.0, left[lv] - r * dt)
        live[lv[batch]] = False
    return done, (np.zeros(F) if first is None else first)
