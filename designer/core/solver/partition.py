"""Candidate balanced cuts: trivial, group labels, dragonfly-aligned, index order, METIS.

Every candidate only proposes a side for each switch; ``CutEvaluator`` then places the GPUs
exactly, so any candidate yields a valid balanced cut and the best one is an upper bound on
the bisection. Candidates are cheap (each is a few array passes) except METIS, which runs on
the switch graph with GPUs folded into their switches as vertex weights (a few thousand
vertices at 65,536 GPUs).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

try:  # imported here, at start-up: a first import of a native library inside a worker
    import pymetis  # thread has hung Qt applications
except ImportError:  # pragma: no cover
    pymetis = None

from designer.core.solver.compile import Compiled
from designer.core.solver.cuts import majority_fill

LABEL_KEYS = ("pod", "su", "group", "rail")


def _prefix_by_group(key: np.ndarray, weight: np.ndarray, comp: np.ndarray,
                     eligible: np.ndarray) -> np.ndarray:
    """Per component, the eligible switches first in ``key`` order up to half their weight."""
    idx = np.flatnonzero(eligible)
    side = np.zeros(key.size, bool)
    if idx.size == 0:
        return side
    order = idx[np.lexsort((idx, key[idx], comp[idx]))]
    cw = comp[order]
    w = weight[order]
    cum = np.cumsum(w)
    starts = np.r_[0, np.flatnonzero(np.diff(cw)) + 1]
    run = np.repeat(starts, np.diff(np.r_[starts, cw.size]))
    before = np.where(run > 0, cum[run - 1], 0.0)
    local = cum - before
    total = np.zeros(int(comp.max()) + 1)
    np.add.at(total, cw, w)
    side[order] = (local <= total[cw] / 2 + 1e-9) & (total[cw] > 0)
    return side


Sides = Iterator[tuple[str, np.ndarray]]


def label_sides(c: Compiled, weight: np.ndarray, comp: np.ndarray) -> Sides:
    """Cuts along group labels: the first half of the pods / SUs / groups on side A."""
    sw = c.sw
    for key in LABEL_KEYS:
        labels = c.groups.get(key)
        if labels is None:
            continue
        lab = labels[sw].astype(np.int64)
        has = lab > 0
        if not has.any():
            continue
        # weight per (component, label); groups in label order until half the component's weight
        gid = comp * (int(lab.max()) + 1) + lab
        gw = np.bincount(gid[has], weights=weight[has], minlength=int(gid.max()) + 1)
        g_side = _prefix_by_group(
            np.arange(gw.size), gw, np.arange(gw.size) // (int(lab.max()) + 1), gw > 0
        )
        side = np.where(has, g_side[gid], False)
        yield f"{key} halves", majority_fill(c, side, has)
        yield f"{key} halves, rest on one side", side
        # groups with the least capacity leaving them per GPU first (damaged pods), and each
        # group alone (the rest of the balance is made by moving GPUs)
        ext = _external_capacity(c, np.where(has, gid, -1), gw.size)
        ratio = np.where(gw > 0, ext / np.maximum(gw, 1e-9), np.inf)
        weighted = ratio[gw > 0]
        if weighted.size and np.ptp(weighted) > 0:
            rank = np.argsort(np.argsort(ratio, kind="stable"), kind="stable")
            w_side = _prefix_by_group(rank, gw, np.arange(gw.size) // (int(lab.max()) + 1),
                                      gw > 0)
            yield f"weakest {key}s first", np.where(has, w_side[gid], False)
        groups = np.flatnonzero(gw > 0)
        if groups.size <= 32:
            for g in groups[np.argsort(ratio[groups], kind="stable")][:8].tolist():
                yield f"one {key}", has & (gid == g)
        # split the first group of side B too, its switches in index order
        straddle = _first_b_group(gid, has, side)
        if straddle is not None:
            half = _prefix_by_group(np.arange(sw.size), weight + 1e-6, comp,
                                    has & (gid == straddle))
            s2 = side | half
            yield f"{key} halves, split group", majority_fill(c, s2, has)


def _external_capacity(c: Compiled, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Switch-link capacity leaving each group (group -1: no group)."""
    gu, gv = group[c.edge_u], group[c.edge_v]
    cross = gu != gv
    out = np.zeros(n_groups)
    for g in (gu, gv):
        sel = cross & (g >= 0)
        out += np.bincount(g[sel], weights=c.edge_cap[sel], minlength=n_groups)
    return out


def _first_b_group(gid: np.ndarray, has: np.ndarray, side: np.ndarray) -> int | None:
    b_groups = np.unique(gid[has & ~side])
    if b_groups.size == 0:
        return None
    return int(b_groups[0])


def aligned_sides(c: Compiled, weight: np.ndarray, comp: np.ndarray) -> Sides:
    """Dragonfly-style cut: half of one group's routers, plus the groups they link to most.

    When the number of groups is odd one group must be split; the cheapest split puts on side
    A the half of its routers whose global links lead to side A. Built from the wiring, so it
    works for any global arrangement.
    """
    labels = c.groups.get("group")
    if labels is None:
        return
    lab = labels[c.sw].astype(np.int64)
    has = lab > 0
    if not has.any():
        return
    S = c.n_switches
    src, dst = c.adj_src, c.indices
    n_lab = int(lab.max()) + 1
    for k in np.unique(comp[has]):
        in_k = has & (comp == k)
        groups = np.unique(lab[in_k])
        if groups.size < 3:
            continue
        total = float(weight[in_k].sum())
        for s in (groups[0], groups[groups.size // 2]):
            members = np.flatnonzero(in_k & (lab == s))
            half = members[: (members.size + 1) // 2]
            rest = members[(members.size + 1) // 2:]
            h_mask = np.zeros(S, bool)
            h_mask[half] = True
            r_mask = np.zeros(S, bool)
            r_mask[rest] = True
            sel = (h_mask[src] | r_mask[src]) & has[dst] & (lab[dst] != s)
            sign = np.where(h_mask[src[sel]], 1.0, -1.0)
            score = np.bincount(lab[dst[sel]], weights=sign * c.adj_cap[sel], minlength=n_lab)
            others = groups[groups != s]
            others = others[np.argsort(-score[others], kind="stable")]
            gw = np.bincount(lab[in_k], weights=weight[in_k], minlength=n_lab)
            need = total / 2 - float(weight[half].sum())
            cum = np.cumsum(gw[others])
            chosen = others[cum <= need + 1e-9]
            side = np.zeros(S, bool)
            side[half] = True
            side |= in_k & np.isin(lab, chosen)
            yield "group-aligned split", majority_fill(c, side, has)


def index_sides(c: Compiled, weight: np.ndarray, comp: np.ndarray) -> Sides:
    """Switches that hold GPUs in device order, half of them on A; the rest by majority."""
    hold = weight > 0
    if not hold.any():
        return
    side = _prefix_by_group(np.arange(c.n_switches), weight, comp, hold)
    yield "leaf halves", majority_fill(c, side, hold)
    yield "leaf halves, rest on one side", side
    # the switches with the least uplink per GPU first: damaged or oversubscribed leaves
    tier = c.switch_tier
    eu, ev, cap = c.edge_u, c.edge_v, c.edge_cap
    up = np.bincount(np.where(tier[eu] < tier[ev], eu, ev)[tier[eu] != tier[ev]],
                     weights=cap[tier[eu] != tier[ev]], minlength=c.n_switches)
    key = np.where(hold, up / np.maximum(weight, 1e-9), np.inf)
    if np.ptp(key[hold]) > 0:
        order = np.argsort(np.argsort(key, kind="stable"), kind="stable")
        side = _prefix_by_group(order, weight, comp, hold)
        yield "weakest leaves first", side
        yield "weakest leaves first, majority", majority_fill(c, side, hold)


def metis_side(c: Compiled, weight: np.ndarray, comp: np.ndarray, n_comp: int,
               control=None, seed: int = 1, ufactor: int = 1) -> np.ndarray | None:
    """METIS two-way partition of every component with GPUs, GPUs folded into weights.

    ``ufactor`` is METIS' allowed imbalance in thousandths: a looser balance lets it find
    cheaper cuts, which the evaluator then rebalances exactly by moving GPUs."""
    if pymetis is None:  # pragma: no cover - a dependency, but keep the solver usable
        return None
    S = c.n_switches
    side = np.zeros(S, bool)
    cap = c.adj_cap
    unit = np.gcd.reduce(np.round(cap).astype(np.int64)) if cap.size else 1
    ew = np.maximum(1, np.round(cap / max(unit, 1))).astype(np.int64)
    vw_all = np.round(weight * 8).astype(np.int64)
    comp_w = np.bincount(comp, weights=weight, minlength=n_comp)
    for k in np.flatnonzero(comp_w > 0)[:32]:
        nodes = np.flatnonzero(comp == k)
        if nodes.size < 2:
            continue
        local = np.full(S, -1, np.int64)
        local[nodes] = np.arange(nodes.size)
        starts, ends = c.indptr[nodes], c.indptr[nodes + 1]
        lens = ends - starts
        rows = np.repeat(starts, lens) + (
            np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        )
        xadj = np.r_[0, np.cumsum(lens)]
        adjncy = local[c.indices[rows]]
        opts = pymetis.Options(seed=seed, ufactor=ufactor)
        graph = _csr_adjacency(xadj, adjncy)
        _, parts = pymetis.part_graph(
            2, graph, vweights=vw_all[nodes], eweights=ew[rows], options=opts
        )
        side[nodes] = np.asarray(parts, dtype=np.int64) == 0
        if control is not None:
            control.check()
    return side


def _csr_adjacency(xadj: np.ndarray, adjncy: np.ndarray):
    """pymetis' CSR graph object (newer releases), else the plain arrays as a tuple."""
    cls = getattr(pymetis, "CSRAdjacency", None)
    if cls is not None:
        return cls(adj_starts=xadj, adjacent=adjncy)
    return _LegacyCSR(xadj, adjncy)


class _LegacyCSR:
    """Adjacency lists for pymetis releases without CSRAdjacency."""

    def __init__(self, xadj: np.ndarray, adjncy: np.ndarray) -> None:
        self.xadj, self.adjncy = xadj, adjncy

    def __len__(self) -> int:
        return len(self.xadj) - 1

    def __getitem__(self, i: int):
        return self.adjncy[self.xadj[i]:self.xadj[i + 1]]
