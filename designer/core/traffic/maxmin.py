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
    frozen_load = np.zeros(L)
    level = 0.0
    rounds = 0
    # the growing flows' rows only, rebuilt when they halve: late rounds touch few flows
    idx = np.flatnonzero(active)
    sub = a[idx]
    sub_t = sub.T.tocsr()
    live_rows = np.ones(idx.size, bool)
    while live_rows.any() and rounds < MAX_ROUNDS:
        rounds += 1
        if live_rows.sum() * 2 < live_rows.size:
            idx = idx[live_rows]
            sub = sub[live_rows]
            sub_t = sub.T.tocsr()
            live_rows = np.ones(idx.size, bool)
        grow = sub_t @ live_rows.astype(np.float64)  # Gb/s per unit t of the growing flows
        live = grow > 0
        residual = cap - frozen_load
        with np.errstate(divide="ignore", invalid="ignore"):
            fill = np.where(live, residual / np.where(live, grow, 1.0), np.inf)
        nxt = max(min(float(fill.min()) if fill.size else np.inf, 1.0), level)
        if nxt >= 1.0:
            t[idx[live_rows]] = 1.0
            live_rows[:] = False
            break
        full = live & (fill <= nxt * (1 + REL_TOL) + 1e-15)
        newly = live_rows & ((sub @ full.astype(np.float64)) > 0)
        t[idx[newly]] = nxt
        frozen_load += (sub_t @ newly.astype(np.float64)) * nxt
        live_rows &= ~newly
        level = nxt
        if control is not None and rounds % 8 == 0:
            control.check()
    if live_rows.any():  # rounds exhausted: freeze the rest at the level reached
        t[idx[live_rows]] = level
    return Fair(t=t, load=a.T @ t, rounds=rounds)
