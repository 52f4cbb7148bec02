"""Where the spray does not depend on its destination: the far part of a split spray.

On a fat tree with balanced striping every spine is unlike the others (each meets the pods
by other aggregation switches), so ``quotient.cells_of`` folds nothing above the leaves and
the (switch, destination class) chain of ``spray.spray_op`` holds every spine for every
destination: 951 million hops at 131,072 GPUs. Yet far from its destination a flow climbs the
same way whichever destination it has, and destinations under one pod stay alike until the
pod is reached. So destination classes are grouped by their distances to every switch
without GPUs (a pod's leaves: alike from anywhere above the pod), and a state (cell, class)
joins the *far* state (cell, group) when all of this hold for the group's classes:

- they are at one distance ``D >= 2`` from the cell (classes attached to the cell end there
  and are never in its traffic);
- at every hop out of the cell, either each of them is one hop nearer at the next cell
  (the hop is valid for all), or none is (valid for none).

Then each of the group's classes splits at the cell over the same hops by the same shares
(the spray's rule reads distances only), so the traffic of the whole group can be summed
and followed as one: exactly the sums of the per-class chain, regrouped. Where the next cell
is not far for the group, the traffic leaves the far part into the per-class state (next
cell, its own class): how much of each flow leaves where is the far part's exit
distribution from the flow's start, pulled back once up the far chain (spray.py).

The conditions are checked from the distance table per (group, cell) and per (group, hop):
no assumption about the topology is made, and where they fail the states stay per class.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse import vstack as sp_vstack

from designer.core.traffic.network import UNREACHABLE, Network, rows_of
from designer.core.traffic.quotient import (
    MAX_ROUNDS,
    SEED_IN,
    Cells,
    capacity_units,
    relabel,
    signature,
)

# (group, cell hop) pairs checked at most: the check holds a few arrays of that size (about
# 11 bytes a pair at its peak: 450 MB here); a design past it has classes that do not group,
# and the split would not save anything (131,072-GPU fat tree: 14 million)
MAX_CHECKS = 40_000_000


@dataclass(frozen=True, eq=False)
class Far:
    """``group`` of each destination class (``n`` groups); per (group, cell): ``dist`` of the
    group's classes (those not attached to the cell), ``lo``/``hi`` the least and most of
    all its classes, and ``far`` whether (cell, group) is a far state; per (group, hop):
    ``valid`` whether it leads one nearer for all the group's classes."""

    group: np.ndarray
    n: int
    dist: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    far: np.ndarray
    valid: np.ndarray  # per (group, cell hop): one nearer for every class of the group

    def hops(self, cells: Cells) -> int:
        """Hops out of far states (cell, group), an upper bound on the far chain's size."""
        deg = np.diff(cells.ptr)
        return int((self.far * deg[None, :]).sum())


def far_states(net: Network, cells: Cells) -> Far | None:
    """The far states of ``net``'s spray (``None`` when the check would cost too much)."""
    table = net.dist_by_class
    C = table.shape[0]
    NC = cells.n
    empty = cells.size == 0  # the start colour of switches without GPUs, when there are none
    crep = np.where(empty, 0, cells.rep)
    gpu_cells = np.zeros(NC, bool)
    gpu_cells[cells.cell[net.att_switch]] = True
    inner = np.flatnonzero(~gpu_cells & ~empty)
    if C == 0 or not inner.size:
        return None
    # classes alike from every switch without GPUs (the leaves are where they differ)
    key = np.ascontiguousarray(table[:, crep[inner]])
    # rows as single byte strings: np.unique(axis=0) took 1.2 s on 1,821 rows of 2,732
    rows = key.view(np.dtype((np.void, key.dtype.itemsize * key.shape[1]))).ravel()
    _, group = np.unique(rows, return_inverse=True)
    group = group.reshape(-1).astype(np.int64)
    G = int(group.max()) + 1
    H = int(cells.nxt.size)
    if G * (H + NC) > MAX_CHECKS:
        return None
    order = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[order], np.arange(G))
    d = table[order][:, crep]  # classes by group x cells
    lo = np.minimum.reduceat(d, starts, axis=0)
    hi = np.maximum.reduceat(d, starts, axis=0)
    # the classes not attached to the cell (at distance 0 they end there)
    lo_out = np.minimum.reduceat(np.where(d == 0, UNREACHABLE, d), starts, axis=0)
    hi_out = np.maximum.reduceat(np.where(d == 0, -1, d).astype(np.int16), starts, axis=0)
    del d
    base = (lo_out == hi_out) & (lo_out >= 2) & (lo_out < UNREACHABLE) & ~empty[None, :]
    # per hop: valid for every class of the group or for none (a superset of the classes
    # in the cell's traffic is checked: a stricter test, never a looser one)
    hop_cell = np.repeat(np.arange(NC), np.diff(cells.ptr))
    # a byte a distance for the (group, hop) arrays (tens of millions of entries): the
    # distances are a few hops, UNREACHABLE the largest either way; lo_out is at least 1
    want = _bytes(lo_out)[:, hop_cell] - 1
    lo_b, hi_b = _bytes(lo), _bytes(hi)
    lv, hv = lo_b[:, cells.nxt], hi_b[:, cells.nxt]
    valid = (lv == want) & (hv == want)  # one nearer for every class of the group
    # valid for some of the classes only: the next cell's least at most one nearer and its
    # most at least one nearer, not both equal to it
    mixed = (lv <= want) & (hv >= want) & ~valid
    del want, lv, hv
    deg = np.diff(cells.ptr)
    some = deg > 0
    any_mixed = np.zeros((G, NC), bool)
    if H:
        any_mixed[:, some] = np.logical_or.reduceat(mixed, cells.ptr[:-1][some], axis=1)
    far = base & ~any_mixed
    return Far(group=group, n=G, dist=lo_out, lo=lo, hi=hi, far=far, valid=valid)


def _bytes(d: np.ndarray) -> np.ndarray:
    return np.minimum(d, 255).astype(np.uint8)


@dataclass(frozen=True, eq=False)
class Nodes:
    """The far chain's places: the cells, then merged groups of cells (``merged`` names each
    cell's) whose far traffic is always spread evenly over their switches. Hops CSR by
    node (``ptr``) to cells ``nxt``, with a member switch's capacity ``cap`` (a group's:
    the mean over its switches) and the cable bundle ``pair``: a cell pair's, or a merged
    group's to one cell (the rows of ``pb`` past the cells' pairs)."""

    n: int
    n_cells: int
    ptr: np.ndarray
    nxt: np.ndarray
    cap: np.ndarray
    pair: np.ndarray
    rep: np.ndarray  # a member cell of each node
    merged: np.ndarray  # cell -> its merged group's node, -1 when none
    lumped: np.ndarray  # (group of classes, merged group): merged for that group
    pb: csr_matrix  # bundles x ports, cells' pairs then merged groups'

    def node(self, g: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The far place of cell ``v`` for destination group ``g``."""
        m = self.merged[v]
        use = m >= 0
        out = v.astype(np.int64)
        out[use] = np.where(self.lumped[g[use], m[use] - self.n_cells], m[use], v[use])
        return out


def far_nodes(net: Network, cells: Cells, far: Far, pb: csr_matrix) -> Nodes:
    """Cells merged for the far chain. Far from the destination a flow climbs, and where a
    cell receives its far traffic only from cells that spread it evenly and from the same
    capacity per switch (a pod's aggregation switches, fed by the pod's leaves), its
    switches carry equal shares however unlike they are above (each meets other spines).
    Such cells are found by colour refinement on the far hops *into* each cell; a merged
    group stands for a destination group when all its cells are far at one distance with
    the same capacity per switch over the valid hops, and everything that sends it far
    traffic is merged for that group too or is one cell (checked until nothing changes).
    Then the group's traffic leaves it by the mean of its switches' splits, and a hop's
    load spreads over all the group's cables to the next cell by capacity: the sums of
    the per-cell chain."""
    NC, G = cells.n, far.n
    hu = np.repeat(np.arange(NC), np.diff(cells.ptr))
    v = cells.nxt
    valid = far.valid & far.far[:, hu]
    go = valid & far.far[:, v]  # far to far
    hops = np.flatnonzero(go.any(axis=0))
    capq = capacity_units(cells.cap)  # per member switch of the sending cell
    # the capacity each switch of the receiving cell gets: the pair's over its switches
    inq = capacity_units(cells.cap * cells.size[hu] / cells.size[v])
    gpu = np.zeros(NC, bool)
    gpu[cells.cell[net.att_switch]] = True
    colour = np.zeros(NC, np.int64)
    colour[gpu] = np.arange(1, int(gpu.sum()) + 1)
    n_col = int(colour.max()) + 1
    for _ in range(MAX_ROUNDS):
        if not hops.size:
            break
        new = relabel(colour, signature(colour, v[hops], hu[hops], inq[hops], SEED_IN))
        n_new = int(new.max()) + 1
        colour = new
        if n_new == n_col:
            break
        n_col = n_new
    count = np.bincount(colour, minlength=n_col)
    many = (count >= 2) & (np.bincount(colour, weights=gpu, minlength=n_col) == 0)
    ids = np.cumsum(many) - 1
    X = int(many.sum())
    merged = np.where(many[colour], NC + ids[colour], -1)
    lumped = np.zeros((G, X), bool)
    if X:
        mc = np.flatnonzero(merged >= 0)
        mx = merged[mc] - NC
        # per merged cell, the capacity over the valid hops, for every destination group
        # (integer units: the same sums in any order); the other cells are never compared
        ok = np.ones((G, X), bool)
        for a in (far.far[:, mc].astype(np.int64), far.dist[:, mc].astype(np.int64),
                  _valid_capacity(valid, capq, cells.ptr, mc)):
            lo = np.full((G, X), np.inf)
            hi = np.full((G, X), -np.inf)
            np.minimum.at(lo.T, mx, a.T)
            np.maximum.at(hi.T, mx, a.T)
            ok &= lo == hi
        ok &= far.far[:, mc[np.unique(mx, return_index=True)[1]]]
        # senders of far traffic into a merged group: merged for the group too, or one cell
        into = hops[merged[v[hops]] >= 0]
        src_m = merged[hu[into]]
        lumped = ok
        for _ in range(MAX_ROUNDS):
            loose = (src_m >= 0)[None, :] & ~np.where(
                src_m >= 0, lumped[:, np.maximum(src_m - NC, 0)], True)
            loose &= valid[:, into]  # only a hop that carries the group's traffic
            bad = np.zeros((G, X), bool)
            gi, hi_ = np.nonzero(loose)
            bad[gi, merged[v[into[hi_]]] - NC] = True
            nxt_l = lumped & ~bad
            if (nxt_l == lumped).all():
                break
            lumped = nxt_l
    # the merged groups' hops: their cells' hops, by next cell, capacity per switch
    rep = np.r_[np.arange(NC), np.zeros(X, np.int64)]
    mptr_ptr = np.zeros(X + 1, np.int64)
    if X:
        mc = np.flatnonzero(merged >= 0)
        order = mc[np.argsort(merged[mc], kind="stable")]
        mx = merged[order] - NC
        first = np.searchsorted(mx, np.arange(X))
        rep[NC:] = order[first]
        r, hop = rows_of(cells.ptr, order)
        xm = mx[r]
        key, inv = np.unique(xm * NC + v[hop], return_inverse=True)
        inv = inv.reshape(-1)
        sw = np.bincount(mx, weights=cells.size[order], minlength=X)
        tot = np.bincount(inv, weights=cells.cap[hop] * cells.size[hu[hop]], minlength=key.size)
        kx = key // NC
        np.cumsum(np.bincount(kx, minlength=X), out=mptr_ptr[1:])
        m_nxt, m_cap = key % NC, tot / sw[kx]
        n_b = pb.shape[0]
        m_pair = n_b + np.arange(key.size)
        # a merged pair's bundle: every cable of its cells' pairs to that cell, by capacity
        pp = cells.port_pair
        pair_x = np.full(cells.n_pairs, -1, np.int64)
        pair_x[cells.pair[hop]] = m_pair[inv] - n_b
        pk = pair_x[pp]
        ports = np.flatnonzero(pk >= 0)
        pcap = net.port_cap[ports]
        tot_p = np.bincount(pk[ports], weights=pcap, minlength=key.size)
        extra = csr_matrix((pcap / tot_p[pk[ports]], (pk[ports], ports)),
                           shape=(key.size, pb.shape[1]))
        pb = sp_vstack([pb, extra]).tocsr()
    else:
        m_nxt = m_cap = np.empty(0)
        m_pair = np.empty(0, np.int64)
    ptr = np.r_[cells.ptr, cells.ptr[-1] + mptr_ptr[1:]]
    return Nodes(n=NC + X, n_cells=NC, ptr=ptr,
                 nxt=np.r_[cells.nxt, m_nxt].astype(np.int64),
                 cap=np.r_[cells.cap, m_cap], pair=np.r_[cells.pair, m_pair].astype(np.int64),
                 rep=rep, merged=merged, lumped=lumped, pb=pb)


def _valid_capacity(valid: np.ndarray, capq: np.ndarray, ptr: np.ndarray, cells: np.ndarray
                    ) -> np.ndarray:
    """Per destination group and each of ``cells``: the capacity units over its hops valid
    for the group (``valid``: groups x hops; hops CSR by cell in ``ptr``)."""
    deg = ptr[cells + 1] - ptr[cells]
    _, hop = rows_of(ptr, cells)
    G = valid.shape[0]
    out = np.zeros((G, cells.size), np.int64)
    some = deg > 0
    if hop.size:
        at = (np.cumsum(deg) - deg)[some]
        cap_h = capq[hop]
        cap_h = cap_h.astype(np.int32 if cap_h.max() < 2**31 else np.int64)
        # a few groups at a time: all at once is a (groups x hops) array of 8-byte integers
        # (80 MB at 131,072 GPUs), which cost four times the sums in fresh memory
        for g in range(0, G, 8):
            part = np.where(valid[g:g + 8, hop], cap_h, 0)
            out[g:g + 8, some] = np.add.reduceat(part, at, axis=1, dtype=np.int64)
    return out
