"""Max-min fair rates by progressive filling on a sparse flow-link incidence.

Every flow ``f`` asks for ``demand[f]`` Gb/s and carries ``w[f, l]`` of its rate on link
``l`` (1 on a single path, fractions when sprayed; a row standing for ``m`` alike flows has
its entries times ``m``). All unfrozen flows grow together as the same fraction ``t`` of their
demand; when a link fills, the flows crossing it freeze at the current ``t``; a flow that
reaches its demand (``t = 1``) freezes too.

Each link fills at the level ``t = res / grow`` (capacity left by the frozen flows over the
growth of the live ones). Freezing flows only raises the levels of the links they cross, and
leaves every other link's level as it was, so a round costs what it touches: the few links
that filled, the flows crossing them and those flows' links. The next level is the smallest
of a short list of candidate links (the smallest levels, partitioned out of all links now and
then), so no round passes over every link or every flow. The rounds are as many as there are
distinct fair-share levels: a failed spine under adaptive routing makes about a hundred, a
random permutation on a large dragonfly thousands.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy.sparse import csr_matrix

from designer.core.traffic.network import rows_of

REL_TOL = 1e-9  # links within this of the bottleneck level fill in the same round
MAX_ROUNDS = 1_000_000  # a level per round: more than any design's flows could make
CANDIDATES_MIN = 1024  # links on the short list of the lowest fill levels (or 1/256)


@dataclass(frozen=True, eq=False)
class Fair:
    t: np.ndarray  # per flow: rate / demand, in [0, 1]
    load: np.ndarray  # per link: Gb/s carried
    rounds: int


Sparse = tuple[np.ndarray, np.ndarray]  # (sorted indices, values)


def gather_rows(m: csr_matrix, rows: np.ndarray, val: np.ndarray | None = None) -> Sparse:
    """The entries of ``rows`` of ``m`` (each row's times its ``val``): (column, weight)
    pairs, columns repeated where rows share them."""
    which, pos = rows_of(m.indptr, rows)
    w = m.data[pos] if val is None else m.data[pos] * val[which]
    return m.indices[pos], w


_SCRATCH = threading.local()  # per thread: the GUI may solve on several at once


def _scratch(n: int) -> np.ndarray:
    buf = getattr(_SCRATCH, "buf", None)
    if buf is None or buf.size < n:
        buf = _SCRATCH.buf = np.zeros(n)
    return buf


def combine(cols: np.ndarray, w: np.ndarray, n: int) -> Sparse:
    """Sum the weights of equal columns: (sorted distinct columns, non-zero sums). Each sum
    adds its weights in their order from zero, as ``np.bincount`` does."""
    if cols.size * 6 < n:
        # a few columns of many: summed into a kept zero vector entry by entry (np.add.at
        # adds in order, as bincount), the columns found by a sort (np.unique's inverse
        # cost twice as much; a fresh n-vector per call, more than the sums)
        buf = _scratch(n)
        try:
            np.add.at(buf, cols, w)
            s = np.sort(cols)
            idx = s[np.concatenate(([True], s[1:] != s[:-1]))] if s.size else s
            val = buf[idx]
        finally:
            buf[cols] = 0.0  # zero again, whatever happened
        keep = val != 0
        return idx[keep], val[keep]
    dense = np.bincount(cols, weights=w, minlength=n)
    mark = np.zeros(n, bool)  # a scan of n bytes, not of n floats
    mark[cols] = True
    idx = np.flatnonzero(mark)
    idx = idx[dense[idx] != 0]
    return idx, dense[idx]


def add_sparse(ai: np.ndarray, av: np.ndarray, bi: np.ndarray, bv: np.ndarray) -> Sparse:
    """The sum of two sparse vectors (sorted distinct indices, as ``combine`` gives): sorted
    distinct indices, zero sums left out. The smaller's entries are found in the larger by
    binary search and the rest inserted in order: a pass over the larger, not a sort."""
    if ai.size < bi.size:
        ai, av, bi, bv = bi, bv, ai, av
    pos = np.searchsorted(ai, bi)
    hit = pos < ai.size
    hit[hit] = ai[pos[hit]] == bi[hit]
    val = av.copy()
    val[pos[hit]] += bv[hit]
    miss = ~hit
    idx = np.insert(ai, pos[miss], bi[miss])
    val = np.insert(val, pos[miss], bv[miss])
    keep = val != 0
    return (idx, val) if keep.all() else (idx[keep], val[keep])


def max_min_fair(flow: np.ndarray, link: np.ndarray, w: np.ndarray, demand: np.ndarray,
                 cap: np.ndarray, reached: np.ndarray | None = None, control=None) -> Fair:
    """``flow``/``link``/``w``: incidence triplets (``w`` per unit of rate, multiplicity
    included); ``demand`` Gb/s per flow; ``cap`` Gb/s per link. Unreached flows get t = 0."""
    F, L = demand.size, cap.size
    a = csr_matrix((w * demand[flow], (flow, link)), shape=(F, L))  # Gb/s per unit t
    live = np.ones(F, bool) if reached is None else reached.copy()
    live &= np.bincount(flow, minlength=F) > 0  # a flow on no link has no path
    # a flow asking nothing never fills a link: it ends at t = 1 with the rest
    a.eliminate_zeros()
    a_t = a.T.tocsr()

    def touching(links: np.ndarray) -> np.ndarray:
        return gather_rows(a_t, links)[0]

    def spread(flows: np.ndarray) -> Sparse:
        cols, wt = gather_rows(a, flows)
        return combine(cols, wt, L)

    t, rounds = fill(cap, live, lambda x: a_t @ x.astype(np.float64), touching, spread,
                     control)
    return Fair(t=t, load=a_t @ t, rounds=rounds)


def max_min_fair_op(op, coef: np.ndarray, cap: np.ndarray, reached: np.ndarray | None = None,
                    control=None) -> Fair:
    """Progressive filling as ``max_min_fair`` with the incidence given as an operator
    (``spray.SprayOp``): ``op.rmatvec(x)`` the per-link load of flows carrying ``x`` each,
    ``op.matvec(v)`` the per-flow sum of ``v`` over its links, ``op.flows_touching(links)``
    and ``op.spread(flows, x)`` the same for a few links or flows. ``coef`` is Gb/s per unit
    ``t`` per flow (demand times multiplicity)."""
    F = coef.size
    cap = cap.astype(np.float64)
    live = np.ones(F, bool) if reached is None else reached.copy()
    # a flow on no link has no path
    live &= op.on_links() if hasattr(op, "on_links") else op.matvec(np.ones(cap.size)) > 0
    # links that always fill together filled as one (the same rates, fewer links a round)
    on, cap_on = op.grouped(cap) if hasattr(op, "grouped") else (op, cap)
    held = on.held_loads() if hasattr(on, "held_loads") else None
    t, rounds = fill(cap_on, live, lambda x: on.rmatvec(np.where(x, coef, 0.0)),
                     on.flows_touching, lambda f: on.spread(f, coef[f], held), control, held)
    return Fair(t=t, load=op.rmatvec(coef * t), rounds=rounds)


class HeldLoads(Protocol):
    """A part of every round's freed growth that ``fill`` needs on a few links only. Each
    link's level is needed while it is on the short list; off it, a level only rises as
    flows freeze, so the list stays valid with old figures until it is drawn again. So a
    part whose loads reach tens of thousands of links a round (a spray's climb over every
    spine) gives them for the listed links at once and holds the rest, owed, until the
    list is drawn again: one pass then, in place of one a round."""

    def watch(self, links: np.ndarray) -> None:
        """The listed links (sorted) from now until the next ``release``."""

    def take(self, level: float) -> Sparse:
        """The part's freed growth of the last ``spread`` on the watched links, frozen at
        ``level``; the rest is held with its level."""

    def release(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All that is held, on the links that were not watched: (links, growth freed, its
        capacity used); nothing is held after."""


class _Levels:
    """Each link's fill level (``res / grow`` of the filling's own arrays) and a short list
    of the smallest (``cand``, each at or below ``bound``): every link off the list fills at
    ``bound`` or later. Levels only rise, so the list stays valid until its smallest passes
    ``bound``; then it is drawn again from every link. Off the list a level is not needed
    until then, so it is worked out again only for links on the list (a round's freezing
    touches tens of thousands of links, a few dozen of them listed) and for every link at a
    redraw: the same values, as they come from the same ``res`` and ``grow``."""

    def __init__(self, res: np.ndarray, grow: np.ndarray, floor: np.ndarray,
                 held: HeldLoads | None = None) -> None:
        self.res, self.grow, self.floor = res, grow, floor
        self.held = held
        self.closed = np.zeros(res.size, bool)  # filled: every flow through them frozen
        self.listed = np.zeros(res.size, bool)  # on the list (or were: a few more is fine)
        self.size = max(CANDIDATES_MIN, res.size // 256)
        self.redraw()

    def sync(self) -> None:
        """The held loads of the rounds so far, taken off every unlisted link's ``res`` and
        ``grow`` (the listed links had theirs round by round)."""
        if self.held is not None:
            links, gone, used = self.held.release()
            self.res[links] -= used
            self.grow[links] -= gone

    def _of(self, links, res: np.ndarray, grow: np.ndarray) -> np.ndarray:
        growing = (grow > self.floor[links]) & ~self.closed[links]
        # divided only where growing (no warnings to silence), the rest never fills
        return np.divide(res, grow, out=np.full(res.size, np.inf), where=growing)

    def set(self, links: np.ndarray, res: np.ndarray, grow: np.ndarray) -> None:
        """``res`` and ``grow`` of these links changed to these values."""
        on = self.listed[links]
        if on.any():
            self.level[links[on]] = self._of(links[on], res[on], grow[on])

    def close(self, links: np.ndarray) -> None:
        self.closed[links] = True
        self.level[links] = np.inf

    def refresh(self, grow: np.ndarray) -> None:
        """The growth worked out afresh: every level again, the list drawn again."""
        self.grow = grow
        self.redraw()

    def redraw(self) -> None:
        self.sync()
        self.level = self._of(slice(None), self.res, self.grow)
        finite = np.flatnonzero(np.isfinite(self.level))
        if finite.size <= self.size:
            self.cand, self.bound = finite, np.inf
        else:
            part = np.argpartition(self.level[finite], self.size)
            self.cand = finite[part[: self.size]]
            self.bound = float(self.level[finite[part[self.size]]])
        self.listed[:] = False
        self.listed[self.cand] = True
        if self.held is not None:
            self.held.watch(np.sort(self.cand))

    def lowest(self) -> float:
        while True:
            lv = self.level[self.cand]
            keep = lv <= self.bound  # ties with the bound may sit off the list: still lowest
            self.cand = self.cand[keep]
            if self.cand.size:
                return float(lv[keep].min())
            if not np.isfinite(self.bound):
                return np.inf
            self.redraw()

    def at_most(self, thr: float) -> np.ndarray:
        if thr < self.bound:
            return self.cand[self.level[self.cand] <= thr]
        self.redraw()  # every level current
        return np.flatnonzero(self.level <= thr)


def fill(cap: np.ndarray, live: np.ndarray, spread_all: Callable[[np.ndarray], np.ndarray],
         touching: Callable[[np.ndarray], np.ndarray], spread: Callable[[np.ndarray], Sparse],
         control=None, held: HeldLoads | None = None) -> tuple[np.ndarray, int]:
    """Progressive filling over an incidence given by three functions: ``spread_all(mask)``
    the per-link growth (Gb/s per unit t) of the flows in ``mask``, ``touching(links)`` the
    flows crossing those links (repeats allowed), ``spread(flows)`` their growth per link,
    sparse. ``held``: a part of the growth that ``spread`` left out and holds (see
    ``HeldLoads``). Returns each flow's t and the rounds (levels) taken."""
    F = live.size
    cap = cap.astype(np.float64)
    t = np.zeros(F)
    live = live.copy()
    res = cap.copy()
    grow = spread_all(live)
    floor = 1e-12 * np.maximum(cap, 1.0)
    levels = _Levels(res, grow, floor, held)
    n_live = int(live.sum())
    fresh_at = n_live
    level = 0.0
    rounds = 0
    while n_live and rounds < MAX_ROUNDS:
        rounds += 1
        if n_live * 2 < fresh_at:  # the growth afresh now and then: no drift
            fresh_at = n_live
            levels.sync()  # what is held is owed to ``res`` (the growth is made anew)
            grow = spread_all(live)
            levels.refresh(grow)
        nxt = max(min(levels.lowest(), 1.0), level)
        if nxt >= 1.0:
            t[live] = 1.0
            break
        full = levels.at_most(nxt * (1 + REL_TOL) + 1e-15)
        flows = touching(full)
        flows = np.unique(flows[live[flows]])
        t[flows] = nxt
        live[flows] = False
        n_live -= flows.size
        links, gone = spread(flows)
        if held is not None:
            links, gone = add_sparse(*held.take(nxt), links, gone)
        r = res[links]
        r -= gone * nxt
        res[links] = r
        g = grow[links]
        g -= gone
        grow[links] = g
        levels.set(links, r, g)
        levels.close(full)  # every live flow through them has just frozen
        level = nxt
        if control is not None and rounds % 8 == 0:
            control.check()
    if n_live and rounds >= MAX_ROUNDS:  # never reached in practice; freeze where we are
        t[live] = level
    return t, rounds


def max_min_fair_dense(a: np.ndarray, cap: np.ndarray) -> Fair:
    """``max_min_fair`` for a small incidence held dense: ``a[f, l]`` the Gb/s flow ``f`` puts
    on link ``l`` per unit t (C-ordered, entries non-negative, every flow on some link); the
    same t and loads, bit for bit. Sums over flows run flow by flow, as the sparse products
    do, and adding a zero leaves a sum as it was: every figure is the sparse one. Worth it
    where the problem is a few hundred flows and links solved thousands of times (the
    cluster replay), where building the sparse matrices cost more than the filling."""
    F, L = a.shape
    cap = cap.astype(np.float64)
    on = a > 0
    t = np.zeros(F)
    live = np.ones(F, bool)
    open_ = np.ones(L, bool)  # links not yet filled (a filled one's flows are all frozen)
    res = cap.copy()
    grow = _flow_sum(a)
    floor = 1e-12 * np.maximum(cap, 1.0)
    n_live = F
    fresh_at = n_live
    level = 0.0
    rounds = 0
    lv = _fill_levels(res, grow, floor, open_)
    while n_live and rounds < MAX_ROUNDS:
        rounds += 1
        if n_live * 2 < fresh_at:  # as ``fill``: the growth afresh now and then
            fresh_at = n_live
            grow = _flow_sum(a[live])
            lv = _fill_levels(res, grow, floor, open_)
        low = float(lv.min()) if L else np.inf
        nxt = max(min(low, 1.0), level)
        if nxt >= 1.0:
            t[live] = 1.0
            break
        full = lv <= nxt * (1 + REL_TOL) + 1e-15
        at = np.flatnonzero(full)
        # mostly one link fills at a time: its column, without copying the others
        flows = live & (on[:, at[0]] if at.size == 1 else on[:, at].any(axis=1))
        t[flows] = nxt
        live[flows] = False
        n_live -= int(np.count_nonzero(flows))
        gone = _flow_sum(a[flows])
        res -= gone * nxt
        grow -= gone
        open_ &= ~full
        lv = _fill_levels(res, grow, floor, open_)
        level = nxt
    if n_live and rounds >= MAX_ROUNDS:
        t[live] = level
    return Fair(t=t, load=_flow_sum(a * t[:, None]), rounds=rounds)


def _flow_sum(a: np.ndarray) -> np.ndarray:
    """Column sums added row after row: the order the sparse products add in. numpy reduces
    a C-ordered array over its rows by adding whole rows in turn; a single column is
    reduced pairwise instead, so it is accumulated."""
    if a.shape[1] == 1 and a.shape[0]:
        return np.add.accumulate(a, axis=0)[-1]
    return a.sum(axis=0)


def _fill_levels(res: np.ndarray, grow: np.ndarray, floor: np.ndarray, open_: np.ndarray
                 ) -> np.ndarray:
    growing = (grow > floor) & open_
    # divided only where growing (no warnings to silence), the rest never fills
    return np.divide(res, grow, out=np.full(res.size, np.inf), where=growing)
