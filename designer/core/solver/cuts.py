"""Exact cost of a balanced cut once every switch has a side, and the candidate cuts tried.

A cut is given by the side of every switch (True = side A). Given that, the cheapest way to
put exactly K = N/2 GPUs on side A is found exactly: a GPU on side A cuts its links to
side-B switches, so GPUs are taken in order of that extra cost (per class, vectorised).
Appliances (such as a UFM) are not GPUs: each takes the side that cuts fewer of its links.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.solver.compile import Compiled
from designer.core.solver.components import csr_labels


@dataclass(frozen=True)
class Cut:
    gbps: float
    side: np.ndarray  # bool per switch
    a_gpus: int  # GPUs placed on side A
    method: str


class CutEvaluator:
    """Evaluates switch-side assignments; precomputes what every evaluation shares."""

    def __init__(self, c: Compiled) -> None:
        self.c = c
        cl = c.classes
        self.n = c.n_gpus
        self.n_unconnected = int(c.n_gpus - cl.count.sum())
        self.owner = cl.owner
        self.k_options = sorted({self.n // 2, (self.n + 1) // 2})
        self.S = c.n_switches
        app, sw, cap = c.appliance_att
        _, self.app_term = np.unique(app, return_inverse=True)
        self.app_sw, self.app_cap = sw, cap
        self.n_app = int(self.app_term.max()) + 1 if app.size else 0

    def cost(self, side: np.ndarray, method: str = "") -> Cut:
        c = self.c
        cl = c.classes
        cut_sw = float(c.edge_cap[side[c.edge_u] != side[c.edge_v]].sum())
        on_a = side[cl.att_switch]
        cap_a = np.bincount(self.owner, weights=np.where(on_a, cl.att_cap, 0.0), minlength=cl.n)
        cap_b = np.bincount(self.owner, weights=np.where(on_a, 0.0, cl.att_cap), minlength=cl.n)
        app = 0.0
        if self.n_app:
            a_on = side[self.app_sw]
            ca = np.bincount(self.app_term, np.where(a_on, self.app_cap, 0.0), self.n_app)
            cb = np.bincount(self.app_term, np.where(a_on, 0.0, self.app_cap), self.n_app)
            app = float(np.minimum(ca, cb).sum())
        # all GPUs on B cost cap_a; moving one of class c to A changes that by cap_b - cap_a
        delta = cap_b - cap_a
        base = float((cl.count * cap_a).sum())
        order = np.argsort(delta, kind="stable")
        d_sorted = delta[order]
        cnt = cl.count[order]
        # unconnected GPUs cost nothing on either side: a class of delta 0
        pos = np.searchsorted(d_sorted, 0.0)
        d_sorted = np.insert(d_sorted, pos, 0.0)
        cnt = np.insert(cnt, pos, self.n_unconnected)
        cum = np.cumsum(cnt)
        best = (np.inf, 0)
        for k in self.k_options:
            full = int(np.searchsorted(cum, k, side="right"))
            taken = float((d_sorted[:full] * cnt[:full]).sum())
            rest = k - (int(cum[full - 1]) if full else 0)
            if rest and full < d_sorted.size:
                taken += float(d_sorted[full]) * rest
            total = cut_sw + base + taken + app
            if total < best[0]:
                best = (total, k)
        return Cut(max(0.0, best[0]), side, best[1], method)


def switch_weights(c: Compiled) -> np.ndarray:
    """GPUs per switch, a GPU's weight shared over its links in proportion to capacity."""
    cl = c.classes
    tot = cl.rate
    share = cl.count[cl.owner] * cl.att_cap / np.where(tot[cl.owner] > 0, tot[cl.owner], 1.0)
    return np.bincount(cl.att_switch, weights=share, minlength=c.n_switches)


def components(c: Compiled) -> tuple[int, np.ndarray]:
    S = c.n_switches
    if S == 0:
        return 0, np.empty(0, np.int64)
    return csr_labels(c.indptr, c.indices)


def majority_fill(c: Compiled, side: np.ndarray, known: np.ndarray, rounds: int = 8) -> np.ndarray:
    """Give unassigned switches the side most of their link capacity goes to (ties: B)."""
    side = side.copy()
    known = known.copy()
    src = c.adj_src
    for _ in range(rounds):
        todo = ~known
        if not todo.any():
            break
        k_nb = known[c.indices]
        a_cap = np.bincount(src, np.where(k_nb & side[c.indices], c.adj_cap, 0.0), c.n_switches)
        b_cap = np.bincount(src, np.where(k_nb & ~side[c.indices], c.adj_cap, 0.0), c.n_switches)
        decide = todo & ((a_cap > 0) | (b_cap > 0))
        if not decide.any():
            break
        side[decide] = a_cap[decide] > b_cap[decide]
        known |= decide
    return side
