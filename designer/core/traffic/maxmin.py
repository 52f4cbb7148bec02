"""Max-min fair rates by progressive filling on a sparse flow-link incidence matrix.

Every flow ``f`` asks for ``demand[f]`` Gb/s and carries ``w[f, l]`` of its rate on link
``l`` (1 on a single path, fractions when sprayed; a row standing for ``m`` alike flows has
its entries times ``m``). All unfrozen flows grow together as the same fraction ``t`` of their
demand; when a link fills, the flows crossing it freeze at the current ``t``; a flow that
reaches its demand (``t = 1``) freezes too. Each round is two sparse products (loads of the
growing flows, and which flows touch the links that filled), so the cost is the number of
distinct fair-share levels times the non-zeros, with no loop over flows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

REL_TOL = 1e-9  # links within this of the bottleneck level fill in the same round
MAX_ROUNDS = 10_000


@dataclass(frozen=True, eq=False)
class Fair:
    t: np.ndarray  # per flow: rate / demand, in [0, 1]
    load: np.ndarray  # per link: Gb/s carried
    rounds: int


def max_min_fair(flow: np.ndarray, link: np.ndarray, w: np.ndarray, demand: np.ndarray,
                 cap: np.ndarray, reached: np.ndarray | None = None, control=None) -> Fair:
    """``flow``/``link``/``w``: incidence triplets (``w`` per unit of rate, multiplicity
    included); ``demand`` Gb/s per flow; ``cap`` Gb/s per link. Unreached flows get t = 0."""
    F, L = demand.size, cap.size
    a = csr_matrix((w * demand[flow], (flow, link)), shape=(F, L))  # Gb/s per unit t
    t = np.zeros(F)
    active = np.ones(F, bool) if reached is None else reached.copy()
    active &= np.bincount(flow, minlength=F) > 0  # a flow on no link has no path
    level = 0.0
    rounds = 0
    # only the growing flows' rows and the links they cross, rebuilt when the flows halve:
    # late rounds touch few flows and few links
    idx = np.flatnonzero(active)
    live_rows = np.ones(idx.size, bool)
    sub = a[idx]
    res = cap.astype(np.float64).copy()
    cols = np.arange(L)
    sub, sub_t, cols, res, grow = _compact(sub, cols, res)
    while live_rows.any() and rounds < MAX_ROUNDS:
        rounds += 1
        if live_rows.sum() * 2 < live_rows.size:
            idx = idx[live_rows]
            sub, sub_t, cols, res, grow = _compact(sub[live_rows], cols, res)
            live_rows = np.ones(idx.size, bool)
        live = grow > 1e-12 * np.maximum(cap[cols], 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            fill = np.where(live, res / np.where(live, grow, 1.0), np.inf)
        nxt = max(min(float(fill.min()) if fill.size else np.inf, 1.0), level)
        if nxt >= 1.0:
            t[idx[live_rows]] = 1.0
            live_rows[:] = False
            break
        full = live & (fill <= nxt * (1 + REL_TOL) + 1e-15)
        newly = live_rows & ((sub @ full.astype(np.float64)) > 0)
        t[idx[newly]] = nxt
        gone = sub_t @ newly.astype(np.float64)
        res -= gone * nxt
        grow -= gone
        live_rows &= ~newly
        level = nxt
        if control is not None and rounds % 8 == 0:
            control.check()
    if live_rows.any():  # rounds exhausted: freeze the rest at the level reached
        t[idx[live_rows]] = level
    return Fair(t=t, load=a.T @ t, rounds=rounds)


def _compact(sub: csr_matrix, cols: np.ndarray, res: np.ndarray):
    """Keep the links ``sub``'s flows cross; the growth rate of each afresh (no drift)."""
    keep = np.flatnonzero(np.bincount(sub.indices, minlength=sub.shape[1]) > 0)
    sub = sub[:, keep].tocsr()
    sub_t = sub.T.tocsr()
    grow = sub_t @ np.ones(sub.shape[0])
    return sub, sub_t, cols[keep], res[keep], grow


def max_min_fair_op(op, coef: np.ndarray, cap: np.ndarray, reached: np.ndarray | None = None,
                    control=None) -> Fair:
    """Progressive filling as ``max_min_fair`` with the incidence given as an operator
    (``spray.SprayOp``): ``op.rmatvec(x)`` the per-link load of flows carrying ``x`` each,
    ``op.matvec(v)`` the per-flow sum of ``v`` over its links. ``coef`` is Gb/s per unit
    ``t`` per flow (demand times multiplicity). The same rounds as ``max_min_fair``, two
    products each; the growth is recomputed afresh when the growing flows halve (no drift)."""
    F = coef.size
    cap = cap.astype(np.float64)
    t = np.zeros(F)
    active = np.ones(F, bool) if reached is None else reached.copy()
    active &= op.matvec(np.ones(cap.size)) > 0  # a flow on no link has no path
    live_rows = active
    res = cap.copy()
    grow = op.rmatvec(np.where(live_rows, coef, 0.0))
    n_live = int(live_rows.sum())
    level = 0.0
    rounds = 0
    while live_rows.any() and rounds < MAX_ROUNDS:
        rounds += 1
        if live_rows.sum() * 2 < n_live:
            n_live = int(live_rows.sum())
            grow = op.rmatvec(np.where(live_rows, coef, 0.0))  # afresh: no drift
        live = grow > 1e-12 * np.maximum(cap, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            fill = np.where(live, res / np.where(live, grow, 1.0), np.inf)
        nxt = max(min(float(fill.min()) if fill.size else np.inf, 1.0), level)
        if nxt >= 1.0:
            t[live_rows] = 1.0
            live_rows[:] = False
            break
        full = live & (fill <= nxt * (1 + REL_TOL) + 1e-15)
        newly = live_rows & (op.matvec(full.astype(np.float64)) > 0)
        t[newly] = nxt
        gone = op.rmatvec(np.where(newly, coef, 0.0))
        res -= gone * nxt
        grow -= gone
        live_rows &= ~newly
        level = nxt
        if control is not None:
            control.check()
    if live_rows.any():
        t[live_rows] = level
    return Fair(t=t, load=op.rmatvec(coef * t), rounds=rounds)
