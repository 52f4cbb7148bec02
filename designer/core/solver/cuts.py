"""Exact cost of a balanced cut once every switch has a side, and the candidate cuts tried.

A cut is given by the side of every switch (True = side A). Given that, the cheapest way to
put exactly K = N/2 GPUs on side A is found exactly: a GPU on side A cuts its links to
side-B switches, so GPUs are taken in order of that extra cost (per class, vectorised).
Appliances (such as a UFM) are not GPUs: each takes the side that cuts fewer of its links.

GPUs of a rack-scale domain (the 18 trays of an NVL72) talk over NVLink, so a balanced cut
of the fabric puts whole racks on a side: racks are taken in order of their extra cost per
GPU, and only the last one taken may be split to balance the halves exactly (the cheapest of
its GPUs go). Racks alike in their GPU classes form one type, so this is a few numpy operations
per cut however many racks there are. GPUs of a one-server domain (an 8-GPU server) are placed
one by one, as the bisection of NVIDIA's tables counts them: each is a network endpoint of its
own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix, vstack

from designer.core.solver.compile import Compiled, mix64
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
        self.types = _domain_types(c)

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
        if self.types is not None:
            taken, k = self.types.place(delta, self.k_options)
            return Cut(max(0.0, cut_sw + base + taken + app), side, k, method)
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


class DomainTypes:
    """Scale-up domains grouped by their GPU classes: ``matrix`` types x classes of GPU counts,
    ``mult`` domains of each type, ``size`` GPUs in one domain of a type."""

    def __init__(self, matrix: csr_matrix, mult: np.ndarray, size: np.ndarray) -> None:
        self.matrix, self.mult, self.size = matrix, mult, size

    def place(self, delta: np.ndarray, k_options) -> tuple[float, int]:
        """(least extra cost of K GPUs on side A, that K) over ``k_options``: whole domains in
        order of extra cost per GPU (unconnected GPUs are domains of one that cost nothing),
        then part of the next one."""
        td = self.matrix @ delta  # extra cost of one whole domain of each type
        order = np.argsort(td / self.size, kind="stable")
        gpus = (self.mult * self.size)[order]
        cum = np.cumsum(gpus)
        whole = np.cumsum((td * self.mult)[order])
        best = (np.inf, 0)
        for k in k_options:
            j = int(np.searchsorted(cum, k, side="right"))  # types taken whole
            taken = float(whole[j - 1]) if j else 0.0
            rest = k - (int(cum[j - 1]) if j else 0)
            if rest and j < order.size:
                t = int(order[j])
                q = min(int(self.mult[t]), rest // int(self.size[t]))
                taken += q * float(td[t])
                rest -= q * int(self.size[t])
                if rest:
                    nxt = t if q < self.mult[t] else (int(order[j + 1]) if j + 1 < order.size
                                                      else None)
                    taken += self._cheapest(nxt, rest, delta) if nxt is not None else np.inf
            if taken + 0.0 < best[0]:
                best = (taken, k)
        return best

    def _cheapest(self, t: int, r: int, delta: np.ndarray) -> float:
        """Extra cost of the ``r`` cheapest GPUs of one domain of type ``t``."""
        row = self.matrix.getrow(t)
        if not row.nnz:  # unconnected GPUs: free
            return 0.0
        d = delta[row.indices]
        order = np.argsort(d, kind="stable")
        cnt = row.data[order].astype(np.int64)
        take = np.minimum(cnt, np.maximum(r - (np.cumsum(cnt) - cnt), 0))
        return float((d[order] * take).sum())


def _domain_types(c: Compiled) -> DomainTypes | None:
    """The design's rack types (and its other GPUs, as types of one GPU), or None when no
    domain spans several servers (every GPU is then placed on its own, the faster way)."""
    cl = c.classes
    if not cl.dom_id.size:
        return None
    n_dom = int(cl.dom_id.max()) + 1
    multi = np.zeros(n_dom, bool)
    k = min(n_dom, c.domains.count)
    multi[:k] = c.domains.servers[:k] > 1
    rack = multi[cl.dom_id]
    if not rack.any():
        return None
    # GPUs of one-server domains: a type of one-GPU domains per class
    single = np.bincount(cl.dom_class[~rack], weights=cl.dom_count[~rack],
                         minlength=cl.n).astype(np.int64)
    size = np.bincount(cl.dom_id[rack], weights=cl.dom_count[rack],
                       minlength=n_dom).astype(np.int64)
    # a domain's signature: two hashes of its (class, count) entries
    rec = cl.dom_class.astype(np.uint64) * np.uint64(1_000_003) + cl.dom_count.astype(np.uint64)
    h1 = np.zeros(n_dom, np.uint64)
    h2 = np.zeros(n_dom, np.uint64)
    with np.errstate(over="ignore"):
        np.add.at(h1, cl.dom_id, mix64(rec))
        np.add.at(h2, cl.dom_id, mix64(rec ^ np.uint64(0x5DEECE66D)))
    live = np.flatnonzero(size > 0)  # domains with a connected GPU (the rest cost nothing)
    keys = np.stack([h1[live], h2[live], size[live].astype(np.uint64)], axis=1)
    _, rep, mult = np.unique(keys, axis=0, return_index=True, return_counts=True)
    rep = live[rep]
    # the matrix of each type is its first domain's row; unconnected GPUs are a type of
    # empty one-GPU domains (nothing to cut)
    m = csr_matrix((cl.dom_count[rack].astype(np.float64),
                    (cl.dom_id[rack], cl.dom_class[rack])), shape=(n_dom, cl.n))
    rows = [m[rep]]
    mult, size = mult.astype(np.int64), size[rep]
    cls = np.flatnonzero(single)
    if cls.size:
        rows.append(csr_matrix((np.ones(cls.size), (np.arange(cls.size), cls)),
                               shape=(cls.size, cl.n)))
        mult, size = np.r_[mult, single[cls]], np.r_[size, np.ones(cls.size, np.int64)]
    free = int(c.n_gpus - cl.count.sum())
    if free:
        rows.append(csr_matrix((1, cl.n)))
        mult, size = np.r_[mult, free], np.r_[size, 1]
    return DomainTypes(vstack(rows).tocsr(), mult, size)


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
