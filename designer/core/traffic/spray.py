"""Adaptive routing (the fluid model) for per-GPU patterns without listing every path.

``route_spray`` follows each flow over every shortest next hop, so a flow crossing a 3-tier
fat tree spreads over thousands of links and a permutation on 16,384 GPUs lists tens of
millions of (flow, link) entries. The rule that avoids this: at a switch the spray splits by
the ports that bring the traffic closer to its destination class, in proportion to their
capacity, whatever flow it belongs to. So the spray is a Markov chain on *states* (switch,
destination class), the same for every flow that passes through one, and the flow-link
incidence factors as

    A = N + B (I + T + T^2 + ...) E

with ``N`` the flow's own NIC links, ``B`` (flow x state) how each flow enters the fabric
(its GPU's nearest NICs, by capacity), ``T`` (state x state) the split at one hop and ``E``
(state x port) the ports that split uses. The state graph is acyclic (the distance to the
destination falls by one per hop), so the sum stops after the fabric's depth. Loads
(``A^T x``) push aggregated demand down that graph, and "which flows cross these links"
(``A y``) pulls back up it: sparse products over states, never per path. The numbers are the
same as ``route_spray``'s (a test checks): the same splits, summed in another order.

Switches the spray cannot tell apart (the aggregation switches of a pod, the spines) are
merged into cells first (quotient.py), so the states are (cell, destination class): traffic
spreads evenly over a cell's members, and a 65,536-GPU fat tree's chain has thousands of
states per destination fewer.

Where even that chain would not fit (balanced striping makes every spine unlike: 951 million
steps at 131,072 GPUs) the spray is split (split.py): a far part over (place, group of
destination classes) states, where destinations still look alike and a pod's aggregation
switches are merged, and this chain for the rest, which each flow enters where its far
traffic leaves off. ``A`` is then the sum of the two parts' products, the same sums again.

Delivery over the destination GPU's NICs needs to know at which switch a flow arrives (a
GPU with NICs in two planes arrives in the plane it left by): the share of a state's traffic
that ends at each of its destination class's switches pulls back up the chain the same way,
and a flow's arrival is its entry times that.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, replace

import numpy as np
from scipy.sparse import csr_matrix, diags
from scipy.sparse import vstack as sp_vstack

from designer.core.traffic.maxmin import Sparse, add_sparse, combine, gather_rows
from designer.core.traffic.network import UNREACHABLE, Network, nearest, rows_of, shares
from designer.core.traffic.quotient import Cells, cells_of
from designer.core.traffic.routing import Routed, RoutingError
from designer.core.traffic.split import Far, Nodes, far_nodes, far_states

_CHUNK = 500_000  # candidate ports expanded at a time: bounds memory, and np.repeat holds
# the GIL for its whole call (4 M entries: ~90 ms the GUI thread could not run)


def applies(net: Network, dst: np.ndarray) -> bool:
    """True when every destination GPU belongs to a class (is attached to the fabric)."""
    if net.c.classes.n == 0 or dst.size == 0:
        return False
    return bool((net.c.gpu_class[dst] >= 0).all())


BLOCK_NNZ = 250_000  # entries per row block of the products (see _Blocks)
# (group of alike switches, destination class) hops the spray's state graph may hold: the
# 65,536-GPU fat tree with balanced striping has 35 million (0.4 GB peak)
SPRAY_STEPS_LIMIT = 80_000_000
# plain-chain steps from which the split is tried (taken when its own bound is smaller): at
# 65,536 GPUs with balanced striping (35 million steps) it takes half the CPU and 0.25 GB
# instead of 0.40; below, the plain chain costs about as much (131,072 GPUs with uniform
# striping, 6.7 million steps: 0.86-1.19 s plain, 0.93-1.32 s split) or less
SPLIT_FROM = 20_000_000
# (far state, exit) pairs of a split spray's exit distributions, held dense (8 bytes each):
# 45,713 x 72 on the 131,072-GPU balanced fat tree
EXIT_TABLE_MAX = 30_000_000


class _Blocks:
    """A CSR matrix as row blocks of about ``BLOCK_NNZ`` entries. scipy's sparse product holds
    the GIL for its whole call: one product over millions of entries (30-200 ms measured at
    16,384 GPUs on a busy machine) would stall the window's thread however the work is
    threaded; block by block the interpreter can switch between them."""

    def __init__(self, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
                 shape: tuple[int, int]) -> None:
        self.shape = shape
        cuts = np.searchsorted(indptr, np.arange(BLOCK_NNZ, indptr[-1], BLOCK_NNZ))
        edges = np.unique(np.r_[0, cuts, shape[0]]).tolist()
        self.starts = np.asarray(edges[:-1], np.int64)
        self.blocks = [
            csr_matrix((data[indptr[lo]:indptr[hi]], indices[indptr[lo]:indptr[hi]],
                        indptr[lo:hi + 1] - indptr[lo]), shape=(hi - lo, shape[1]))
            for lo, hi in itertools.pairwise(edges)]

    @classmethod
    def of_rows(cls, rows: np.ndarray, cols: np.ndarray, data: np.ndarray,
                shape: tuple[int, int]) -> _Blocks:
        """From entries whose ``rows`` are non-decreasing (no sort needed)."""
        ptr = np.zeros(shape[0] + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=shape[0]), out=ptr[1:])
        return cls(data, cols, ptr, shape)

    @classmethod
    def of_any(cls, rows: np.ndarray, cols: np.ndarray, data: np.ndarray,
               shape: tuple[int, int]) -> _Blocks:
        """From entries in any order: a stable argsort by row (numpy's sort lets other
        threads run, where scipy's COO-to-CSR conversion does not)."""
        o = np.argsort(rows, kind="stable")
        return cls.of_rows(rows[o], cols[o], data[o], shape)

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        if not self.blocks:
            return np.zeros(self.shape[0])
        return np.concatenate([blk @ x for blk in self.blocks])

    def gather(self, rows: np.ndarray, val: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The entries of ``rows`` (sorted), each row's scaled by its ``val``: (column, weight)
        pairs, columns repeated where rows share them."""
        if not self.blocks or not rows.size:
            return np.empty(0, np.int64), np.empty(0)
        which = np.searchsorted(self.starts, rows, side="right") - 1
        bounds = np.searchsorted(which, np.arange(len(self.blocks) + 1))
        cols, weights = [], []
        for k, (lo, hi) in enumerate(itertools.pairwise(bounds.tolist())):
            if lo < hi:
                c, w = gather_rows(self.blocks[k], rows[lo:hi] - self.starts[k], val[lo:hi])
                cols.append(c)
                weights.append(w)
        return np.concatenate(cols), np.concatenate(weights)


class _Entry:
    """Where flows enter the per-class states of a split spray (flows x states), held
    factored: ``direct`` (a csr matrix) for flows whose start is not far, plus each flow's
    far entries ``fb`` (flows x far states) times their exit distribution ``q`` (far states
    x exit cells of the state's destination group) onto the per-class state ``nmap[class,
    exit]`` of the flow's own class. Written out it would hold each flow's every exit (72
    per flow on a 131,072-GPU fat tree: 9 million entries); products read it on the fly."""

    _ROWS = 16_384  # far entries expanded at a time (memory)

    def __init__(self, direct: csr_matrix, fb: csr_matrix, q: np.ndarray, nmap: np.ndarray,
                 cls: np.ndarray) -> None:
        self.direct = direct
        self.shape = direct.shape
        coo = fb.tocoo()
        self.ef = coo.row.astype(np.int64)
        self.es = coo.col.astype(np.int64)
        self.ev = coo.data
        self.q = q
        self.nmap = nmap  # class x exit -> state (-1: none)
        self.cls = cls  # per flow
        self._fptr = np.zeros(self.shape[0] + 1, np.int64)
        np.cumsum(np.bincount(self.ef, minlength=self.shape[0]), out=self._fptr[1:])

    def _weights(self, idx: np.ndarray):
        """Far entries ``idx`` a block at a time: (entries, weights per exit)."""
        for lo in range(0, idx.size, self._ROWS):
            i = idx[lo:lo + self._ROWS]
            yield i, self.q[self.es[i]] * self.ev[i][:, None]

    def _chunks(self, idx: np.ndarray):
        """As ``_weights``, with each weight's state: (entries, states, weights); a state of
        -1 (no such exit for the class) is to be read as zero and written nowhere."""
        for i, w in self._weights(idx):
            yield i, self.nmap[self.cls[self.ef[i]]], w

    def __matmul__(self, y: np.ndarray) -> np.ndarray:
        out = self.direct @ y
        ypad = np.concatenate([y, np.zeros((1, *y.shape[1:]))])  # state -1 reads 0
        # each class's exits read once (classes x exits): an entry then reads its class's
        # row, in place of a scattered read of every exit's state
        by_class = ypad[self.nmap]
        for i, w in self._weights(np.arange(self.ef.size)):
            yc = by_class[self.cls[self.ef[i]]]
            if y.ndim == 1:
                np.add.at(out, self.ef[i], (w * yc).sum(axis=1))
            else:
                np.add.at(out, self.ef[i], np.einsum("ej,ejk->ek", w, yc))
        return out

    def rmatvec(self, x: np.ndarray) -> np.ndarray:
        """``J^T x``: per state, the load of flows carrying ``x`` each."""
        out = self.direct.T @ x
        n_cls, width = self.nmap.shape
        flat = self.nmap.ravel()
        mapped = flat >= 0
        to = flat[mapped]  # one state per (class, exit): ``nmap`` holds each state once
        for i, w in self._weights(np.flatnonzero(x[self.ef])):
            # summed per (class, exit), in the entries' order: each state's own sum
            at = (self.cls[self.ef[i]] * width)[:, None] + np.arange(width)
            z = np.bincount(at.ravel(), weights=(w * x[self.ef[i]][:, None]).ravel(),
                            minlength=n_cls * width)
            out[to] += z[mapped]
        return out

    def ones_matvec(self, y: np.ndarray) -> float:
        """The sum over flows of ``y`` over each flow's entries (the pattern of ``J``)."""
        d = self.direct.copy()
        d.data = np.ones_like(d.data)
        tot = float((d @ y).sum())
        ypad = np.r_[y, 0.0]
        for _, st, w in self._chunks(np.arange(self.ef.size)):
            tot += float(((w > 0) * ypad[st]).sum())
        return tot

    def gather(self, flows: np.ndarray, x: np.ndarray) -> Sparse:
        """The entries of ``flows`` (sorted) scaled by ``x``: (state, weight) pairs."""
        c0, w0 = gather_rows(self.direct, flows, x)
        which, pos = rows_of(self._fptr, flows)
        cols, ws = [c0], [w0]
        for lo in range(0, pos.size, self._ROWS):
            i, k = pos[lo:lo + self._ROWS], which[lo:lo + self._ROWS]
            st = self.nmap[self.cls[self.ef[i]]]
            w = self.q[self.es[i]] * (self.ev[i] * x[k])[:, None]
            keep = (st >= 0) & (w > 0)
            cols.append(st[keep])
            ws.append(w[keep])
        return np.concatenate(cols), np.concatenate(ws)

    @functools.cached_property
    def _direct_t(self) -> csr_matrix:
        return _transposed(self.direct)

    @functools.cached_property
    def _by_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Far entries by class (CSR), and each state's (class, exit)."""
        c = self.cls[self.ef]
        order = np.argsort(c, kind="stable")
        ptr = np.zeros(self.nmap.shape[0] + 1, np.int64)
        np.cumsum(np.bincount(c, minlength=self.nmap.shape[0]), out=ptr[1:])
        where = np.full(self.shape[1], -1, np.int64)
        ok = self.nmap >= 0
        where[self.nmap[ok]] = np.flatnonzero(ok)
        return order, ptr, where

    def touching(self, states: np.ndarray) -> np.ndarray:
        """The flows with an entry at any of ``states`` (repeats allowed)."""
        out = [gather_rows(self._direct_t, states)[0]]
        order, ptr, where = self._by_state
        at = where[states]
        at = at[at >= 0]
        if at.size:
            c, j = at // self.nmap.shape[1], at % self.nmap.shape[1]
            r, pos = rows_of(ptr, c)
            e = order[pos]
            out.append(self.ef[e[self.q[self.es[e], j[r]] > 0]])
        return np.concatenate(out)

    def masked(self, keep: np.ndarray) -> _Entry:
        """Flows not in ``keep`` carry nothing."""
        k = keep.astype(np.float64)
        fb = csr_matrix((self.ev * k[self.ef], (self.ef, self.es)),
                        shape=(self.shape[0], self.q.shape[0]))
        return _Entry(diags(k) @ self.direct, fb, self.q, self.nmap, self.cls)

    def tocsr(self) -> csr_matrix:
        """Written out (small designs: the incidence being listed)."""
        rows, cols, vals = [], [], []
        for i, st, w in self._chunks(np.arange(self.ef.size)):
            keep = (st >= 0) & (w > 0)
            rows.append(np.broadcast_to(self.ef[i][:, None], st.shape)[keep])
            cols.append(st[keep])
            vals.append(w[keep])
        far = csr_matrix((_cat(vals, np.float64), (_cat(rows, np.int64), _cat(cols, np.int64))),
                         shape=self.shape)
        return (self.direct + far).tocsr()


class HeldFar:
    """The far part's loads of a filling, held (``maxmin.HeldLoads``). A round's frozen
    flows climb over most of the fabric (about 34,000 port groups a round on the 131,072-GPU
    balanced fat tree) while a few hundred links are on the filling's short list. A round's
    far loads come as a vector over the rows of ``E pb`` (a few thousand): the listed
    columns are read off at once, summed as the whole product sums them (row by row, in the
    same order: the same bits), and the vector is added to what is owed; the owed loads
    reach every other port group in one product when the list is drawn again."""

    def __init__(self, ep: csr_matrix) -> None:
        self.ep = ep  # rows of e x port groups
        self.ep_t = ep.T.tocsr()
        R = ep.shape[0]
        self.gone = np.zeros(R)  # growth freed per row, owed
        self.used = np.zeros(R)  # the same times each round's level
        self.owed = False
        self.cols = np.empty(0, np.int64)
        self.ep_cols = ep[:, self.cols].tocsr()
        self.last: Sparse = (np.empty(0, np.int64), np.empty(0))

    def watch(self, links: np.ndarray) -> None:
        self.cols = links[links < self.ep.shape[1]]
        self.ep_cols = self.ep[:, self.cols].tocsr()
        self.ep_cols.sort_indices()

    def hold(self, rows: np.ndarray, val: np.ndarray) -> None:
        self.last = (rows, val)

    def take(self, level: float) -> Sparse:
        rows, val = self.last
        self.last = (np.empty(0, np.int64), np.empty(0))
        if not rows.size:
            return self.last
        self.gone[rows] += val  # rows distinct: ``combine``'s
        self.used[rows] += val * level
        self.owed = True
        ci, cv = _step(self.ep_cols, rows, val, self.cols.size)
        return self.cols[ci], cv

    def release(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.owed:
            z = np.empty(0, np.int64)
            return z, np.empty(0), np.empty(0)
        gone, used = self.ep_t @ self.gone, self.ep_t @ self.used
        gone[self.cols] = 0.0  # the watched links had theirs round by round
        used[self.cols] = 0.0
        links = np.flatnonzero((gone != 0) | (used != 0))
        self.gone[:] = 0.0
        self.used[:] = 0.0
        self.owed = False
        return links, gone[links], used[links]


def _step(m: _Blocks | csr_matrix | _Entry, idx: np.ndarray, val: np.ndarray, n: int
          ) -> Sparse:
    """``M^T v`` for a sparse ``v`` (indices, values), read off ``M``'s rows."""
    cols, w = (gather_rows(m, idx, val) if isinstance(m, csr_matrix) else m.gather(idx, val))
    return combine(cols, w, n)


LISTED_MAX = 6_000_000  # (flow, link) entries up to which the incidence is written out
SPARSE_SHARE = 8  # a vector with at most 1/8 of its entries non-zero takes the sparse path


@dataclass(frozen=True, eq=False)
class SprayOp:
    """The incidence ``A`` (flows x links, share of a flow's rate on each link) in factored
    form. ``nic`` holds the NIC entries of ``A`` as a plain ``Routed`` (the ideal fabric
    only needs those); ``reached`` marks flows with a path."""

    n_links: int
    n_ports: int
    nic: Routed
    b: csr_matrix | _Entry  # flows x states
    t: _Blocks  # states x states (one hop)
    t_t: _Blocks  # its transpose, by rows too (a CSC product scatters: slower)
    e: _Blocks  # states x bundles (the parallel cables from one switch to the next)
    e_t: _Blocks
    pb: csr_matrix  # bundles x ports: a bundle's traffic over its cables, by capacity
    pb_t: csr_matrix
    depth: int
    # the destination-free part of a split spray (split.py): its states are (group of alike
    # switches, group of destination classes), its entries ``b`` too; this op's own states
    # then hold the rest, entered where the far part leaves off. ``A`` is the sum of both.
    far: SprayOp | None = None
    # states whose hops load the same bundles by the same shares share one row of ``e``
    # (a far place's climb is the same for every destination group): states x rows
    e_rows: csr_matrix | None = None
    e_rows_t: csr_matrix | None = None
    port_group: np.ndarray | None = None  # after ``grouped``: the group of each switch port
    # after ``grouped``: ``E pb`` (rows of ``e`` x port groups), a round's loads to the ports
    # in one sum (a group's bundles are few, so it holds about as many entries as ``e``)
    ep: csr_matrix | None = None

    @property
    def reached(self) -> np.ndarray:
        return self.nic.reached

    @property
    def n_states(self) -> int:
        return self.t.shape[0]

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """``A v``: per flow, the share-weighted sum of ``v`` over the links it crosses."""
        out = self._own_matvec(v)
        if self.far is not None:
            out += self.far._own_matvec(v)  # its NIC part is empty
        return out

    def _own_matvec(self, v: np.ndarray) -> np.ndarray:
        vi = np.flatnonzero(v[: self.n_ports])
        if vi.size * SPARSE_SHARE <= self.n_ports:
            return self._matvec_sparse(v, vi)
        z = self.e @ (self.pb @ v[: self.n_ports])
        if self.e_rows is not None:
            z = self.e_rows @ z
        acc = z.copy()
        for _ in range(self.depth):
            z = self.t @ z
            if not z.any():
                break
            acc += z
        return self.b @ acc + self._nic_matvec(v)

    def on_links(self) -> np.ndarray:
        """Per flow: whether it crosses any link (``matvec`` of ones is positive). A flow
        with a path leaves its GPU over a NIC, so the NIC entries answer for nearly all;
        the whole product only when some reached flow has none."""
        has = np.bincount(self.nic.flow, weights=self.nic.frac,
                          minlength=self.reached.size) > 0
        if (self.reached & ~has).any():
            has = self.matvec(np.ones(self.n_links)) > 0
        return has

    def _nic_matvec(self, v: np.ndarray) -> np.ndarray:
        return np.bincount(self.nic.flow, weights=self.nic.frac * v[self.nic.link],
                           minlength=self.reached.size)

    def _walk(self, hop: _Blocks, si: np.ndarray, sv: np.ndarray) -> Sparse:
        """A sparse vector over states plus its images after every hop of the chain
        (``hop``: ``t`` walks down towards the destinations, ``t_t`` up from them)."""
        parts_i, parts_v = [si], [sv]
        for _ in range(self.depth):
            if not si.size:
                break
            si, sv = _step(hop, si, sv, self.n_states)
            parts_i.append(si)
            parts_v.append(sv)
        return combine(np.concatenate(parts_i), np.concatenate(parts_v), self.n_states)

    def _up(self, ports: np.ndarray, val: np.ndarray) -> Sparse:
        """The states whose spray crosses these switch ports, with the share-weighted sum
        of ``val`` over them: from the states that use the ports up the chain."""
        n_b, S = self.pb.shape[0], self.n_states
        bi, bv = _step(self.pb_t, ports, val, n_b)
        if self.e_rows is None:
            return self._walk(self.t_t, *_step(self.e_t, bi, bv, S))
        ri, rv = _step(self.e_t, bi, bv, self.e.shape[0])
        return self._walk(self.t_t, *_step(self.e_rows_t, ri, rv, S))

    def _down(self, flows: np.ndarray, x: np.ndarray) -> Sparse:
        """The switch ports the spray of these flows crosses, with the load of ``x`` each:
        from their entry states down the chain."""
        bi, bv = self._down_bundles(flows, x)
        return _step(self.pb, bi, bv, self.n_ports)

    def _down_bundles(self, flows: np.ndarray, x: np.ndarray) -> Sparse:
        return self._bundles(*self._walk(self.t, *_step(self.b, flows, x, self.n_states)))

    def _bundles(self, ai: np.ndarray, av: np.ndarray) -> Sparse:
        """The bundles these states' loads cross, with their loads."""
        if self.e_rows is not None:
            ai, av = _step(self.e_rows, ai, av, self.e.shape[0])
        return _step(self.e, ai, av, self.pb.shape[0])

    def _matvec_sparse(self, v: np.ndarray, vi: np.ndarray) -> np.ndarray:
        """``matvec`` when few links carry ``v``: up the chain from the states that use
        them only (the same sums as the dense products, in another order)."""
        si, sv = self._up(vi, v[vi])
        acc = np.zeros(self.n_states)
        acc[si] = sv
        return self.b @ acc + self._nic_matvec(v)

    def _rmatvec_sparse(self, x: np.ndarray, fi: np.ndarray) -> np.ndarray:
        """``rmatvec`` when few flows carry ``x``: down the chain from their entry states
        only."""
        pi, pv = self._down(fi, x[fi])
        out = np.zeros(self.n_links)
        out[pi] = pv
        out += np.bincount(self.nic.link, weights=self.nic.frac * x[self.nic.flow],
                           minlength=self.n_links)
        return out

    def flows_touching(self, links: np.ndarray) -> np.ndarray:
        """The flows whose spray crosses any of ``links`` (repeats allowed)."""
        ports = links[links < self.n_ports]
        out = [gather_rows(self._nic_by_link, links[links >= self.n_ports] - self.n_ports)[0]]
        for part in self._parts():
            if ports.size:
                si, sv = part._up(ports, np.ones(ports.size))
                if isinstance(part.b, _Entry):
                    out.append(part.b.touching(si[sv > 0]))
                else:
                    out.append(gather_rows(part._b_t, si[sv > 0])[0])
        return np.concatenate(out)

    def spread(self, flows: np.ndarray, x: np.ndarray, held: HeldFar | None = None
               ) -> Sparse:
        """Per link, the load of these flows carrying ``x`` each: (links, Gb/s). ``held``
        (from ``held_loads``): the far part's loads are left out and given to it instead."""
        P = self.n_ports
        ni, nv = gather_rows(self._nic_by_flow, flows, x)
        idx, val, summed = [ni + P], [nv], []
        for part in self._parts():
            ai, av = part._walk(part.t, *_step(part.b, flows, x, part.n_states))
            if part.ep is not None:  # grouped: a part's ports summed on their own
                if part.e_rows is not None:
                    ai, av = _step(part.e_rows, ai, av, part.e.shape[0])
                if held is not None and part is self.far:
                    held.hold(ai, av)
                    continue
                summed.append(_step(part.ep, ai, av, P))
                continue
            # bundles summed (a merged group's bundle is met from every destination group),
            # the ports left for the one sum over links: a pass over millions less a round
            bi, bv = part._bundles(ai, av)
            pi, pv = gather_rows(part.pb, bi, bv)
            idx.append(pi)
            val.append(pv)
        out = combine(np.concatenate(idx), np.concatenate(val), self.n_links)
        for si, sv in summed:
            # the far part's tens of thousands of ports meet the near part's few hundred:
            # merged in place of a second sort
            out = add_sparse(si, sv, *out)
        return out

    def _parts(self) -> tuple[SprayOp, ...]:
        return (self,) if self.far is None else (self, self.far)

    def held_loads(self) -> HeldFar | None:
        """After ``grouped``: the far part's loads, held for the filling (``HeldFar``)."""
        far = self.far
        if far is None or far.ep is None or far.e_rows is None:
            return None
        return HeldFar(far.ep)

    def grouped(self, cap: np.ndarray) -> tuple[SprayOp, np.ndarray]:
        """This op over groups of switch ports that always fill together, with their
        capacities: ports reached through the same bundles (each port's share of a bundle is
        its part of the bundle's capacity) carry loads in proportion to their capacity, so
        where ``cap`` is in that proportion too their utilisations are equal at every round
        of filling, and the filling can hold them as one link (a merged group's cables to a
        spine: 5.7 ports per group on the 131,072-GPU balanced fat tree). The rates are the
        same; a round updates fewer links."""
        P = self.n_ports
        parts = self._parts()
        if self.far is None:  # one bundle per port: nothing to group
            return self, cap
        rows, cols, off = [], [], 0
        for part in parts:
            used = np.zeros(part.pb.shape[0], bool)
            for blk in part.e.blocks:
                used[blk.indices] = True
            ids = np.flatnonzero(used)
            sub = part.pb[ids].tocoo()
            rows.append(sub.col.astype(np.int64))
            cols.append(off + ids[sub.row])
            off += part.pb.shape[0]
        port, bundle = np.concatenate(rows), np.concatenate(cols)
        pat = csr_matrix((np.ones(port.size), (port, bundle)), shape=(P, off))
        pat.sum_duplicates()
        group, first = _alike_rows(pat)
        # capacities in proportion to the ports' shares of their first bundle, or apart
        share = np.zeros(P)
        has = np.diff(pat.indptr) > 0
        fb = np.full(P, -1, np.int64)
        fb[has] = pat.indices[pat.indptr[:-1][has]]
        for part_off, part in zip(np.cumsum([0] + [p.pb.shape[0] for p in parts])[:-1],
                                  parts, strict=True):
            mine = has & (fb >= part_off) & (fb < part_off + part.pb.shape[0])
            pb_c = part.pb.tocsc()
            idx = np.flatnonzero(mine)
            share[idx] = np.asarray(pb_c[fb[idx] - part_off, idx]).reshape(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(share > 0, cap[:P] / share, 0.0)
        ref = ratio[first[group]]
        off_ratio = ~np.isclose(ratio, ref, rtol=1e-12, atol=0.0)
        if off_ratio.any():  # not in proportion: those groups' ports stand alone
            split = np.isin(group, np.unique(group[off_ratio]))
            group = np.where(split, group.max() + 1 + np.arange(P), group)
            _, group = np.unique(group, return_inverse=True)
            group = group.reshape(-1)
        n_g = int(group.max()) + 1 if P else 0
        m = csr_matrix((np.ones(P), (np.arange(P), group)), shape=(P, n_g))
        n_nic = self.n_links - P
        cap_g = np.concatenate([np.bincount(group, weights=cap[:P], minlength=n_g), cap[P:]])

        def regroup(part: SprayOp, nic: Routed) -> SprayOp:
            pb = (part.pb @ m).tocsr()
            ep = (part._e_own @ pb).tocsr()
            ep.sum_duplicates()
            return replace(part, n_links=n_g + n_nic, n_ports=n_g, nic=nic, pb=pb,
                           pb_t=pb.T.tocsr(), ep=ep)

        n = self.nic
        nic = Routed(flow=n.flow, link=n.link - P + n_g, frac=n.frac, reached=n.reached)
        far = regroup(self.far, self.far.nic)
        return replace(regroup(self, nic), far=far, port_group=group), cap_g

    @functools.cached_property
    def _b_t(self) -> csr_matrix:
        return _transposed(self.b)

    @functools.cached_property
    def _nic_by_link(self) -> csr_matrix:
        """NIC entries by NIC link (rows from link ``n_ports``), columns flows."""
        n = self.nic
        m = csr_matrix((n.frac, (n.link - self.n_ports, n.flow)),
                       shape=(self.n_links - self.n_ports, self.reached.size))
        m.eliminate_zeros()
        return m

    @functools.cached_property
    def _nic_by_flow(self) -> csr_matrix:
        n = self.nic
        return csr_matrix((n.frac, (n.flow, n.link - self.n_ports)),
                          shape=(self.reached.size, self.n_links - self.n_ports))

    def listed(self, max_entries: int | None = None) -> Routed | None:
        """The incidence written out, ``A = N + B (I + T + T^2 + ...) E pb`` as (flow, link,
        share) triplets, when it has at most ``max_entries`` entries (``None`` else). Few
        paths per flow (a dragonfly's minimal routes: one or a few per pair) make it small,
        and filling on it costs a few array operations a round where the factored form walks
        the chain up and down: a random permutation on the 262,656-GPU dragonfly has 89,011
        fair-share levels, a round each. A fat tree's spray crosses thousands of links per
        flow: it stays factored."""
        limit = LISTED_MAX if max_entries is None else max_entries
        parts = self._parts()
        total = float(self.nic.flow.size)
        for part in reversed(parts):  # the far part's bound is the cheaper: first
            total += part._bound()
            if total > limit:
                return None
        a = parts[0]._written()
        if len(parts) > 1:  # a flow's far and near parts can share a link: summed
            a = (a.tocsr() + parts[1]._written().tocsr()).tocoo()
        keep = a.data > 0
        return Routed(
            flow=np.concatenate([a.row[keep].astype(np.int64), self.nic.flow]),
            link=np.concatenate([a.col[keep].astype(np.int64), self.nic.link]),
            frac=np.concatenate([a.data[keep], self.nic.frac]),
            reached=self.reached,
        )

    @functools.cached_property
    def _e_own(self) -> csr_matrix:
        """``e`` in one matrix (its rows: the states', or a far part's alike rows)."""
        return sp_vstack(self.e.blocks).tocsr() if self.e.blocks else csr_matrix(self.e.shape)

    @functools.cached_property
    def _e_csr(self) -> csr_matrix:
        e = self._e_own
        return e if self.e_rows is None else (self.e_rows @ e).tocsr()

    def _bound(self) -> float:
        """An upper bound on the switch-port entries of ``B (I + T + ...) E pb``, before any
        product is made: a bundle's ports are its own, so a state's row of ``E pb`` has the
        sum of its bundles' port counts (a matrix-vector product; the product itself can
        hold tens of millions of entries on a large fat tree, which then stays factored)."""
        e_pattern = self._e_own.copy()
        e_pattern.sum_duplicates()  # two hops of a state into one bundle: one row entry
        e_pattern.data = np.ones_like(e_pattern.data)
        per = e_pattern @ np.diff(self.pb.indptr).astype(np.float64)
        if self.e_rows is not None:  # states sharing a row of ``e``
            per = self.e_rows @ per
        tot = per.copy()
        pattern = self._t_csr.copy()
        pattern.data = np.ones_like(pattern.data)
        for _ in range(self.depth):
            per = pattern @ per
            if not per.any():
                break
            tot += per
        if isinstance(self.b, _Entry):
            return self.b.ones_matvec(tot)
        bp = self.b.copy()
        bp.data = np.ones_like(bp.data)
        return float((bp @ tot).sum())

    def _written(self):
        """``B (I + T + ...) E pb`` as a sparse matrix (flows x switch ports)."""
        t = self._t_csr
        ep = self._e_csr @ self.pb
        z = ep
        acc = ep.copy()
        for _ in range(self.depth):
            z = (t @ z).tocsr()
            if not z.nnz:
                break
            acc = acc + z
        b = self.b.tocsr() if isinstance(self.b, _Entry) else self.b
        return (b @ acc).tocoo()

    @functools.cached_property
    def _t_csr(self) -> csr_matrix:
        if not self.t.blocks:
            return csr_matrix(self.t.shape)
        return sp_vstack(self.t.blocks).tocsr()

    def rmatvec(self, x: np.ndarray) -> np.ndarray:
        """``A^T x``: per link, the load of flows carrying ``x`` each."""
        out = self._own_rmatvec(x)
        if self.far is not None:
            out[: self.n_ports] += self.far._own_rmatvec(x)[: self.n_ports]
        return out

    def _own_rmatvec(self, x: np.ndarray) -> np.ndarray:
        fi = np.flatnonzero(x)
        if fi.size * SPARSE_SHARE <= x.size:
            return self._rmatvec_sparse(x, fi)
        m = self.b.rmatvec(x) if isinstance(self.b, _Entry) else self.b.T @ x
        acc = m.copy()
        for _ in range(self.depth):
            m = self.t_t @ m
            if not m.any():
                break
            acc += m
        out = np.zeros(self.n_links)
        if self.e_rows is not None:
            acc = self.e_rows_t @ acc
        out[: self.n_ports] = self.pb_t @ (self.e_t @ acc)
        out += np.bincount(self.nic.link, weights=self.nic.frac * x[self.nic.flow],
                           minlength=self.n_links)
        return out




@dataclass
class _Walk:
    """The states a walk found (``keys``, in their numbers' order; ``number`` of each key)
    and its hops: ``tf`` -> ``tt`` (state numbers), ``tb`` the cell pair, ``ts`` the share;
    ``x*`` the hops that leave the walk (to a cell ``xc``, not a state of it)."""

    number: np.ndarray
    keys: np.ndarray
    tf: np.ndarray
    tt: np.ndarray
    tb: np.ndarray
    ts: np.ndarray
    xf: np.ndarray
    xb: np.ndarray
    xc: np.ndarray
    xs: np.ndarray

    @property
    def n(self) -> int:
        return int(self.keys.size)


def _walk(cells: Cells | Nodes, K: int, start: np.ndarray, dist, valid, inside=None,
          node=None) -> _Walk:
    """The state graph of states ``cell * K + k`` from ``start``, level by level (each state
    expanded once): ``dist(cell, k)`` a state's distance, ``valid(k, next cell, distance)``
    the hops that bring it one nearer, split by capacity; ``inside(k, next cell)`` (all when
    ``None``) whether the next state belongs to this walk, else the hop leaves it;
    ``node(k, next cell)`` the place of the next state (the cell itself when ``None``).

    States are numbered level by level as found, so the hops come out grouped by their
    state and the matrices are laid out directly (sorting tens of millions of entries into
    CSR costs more than the walk); found states are marked in a dense cell x k table
    (np.unique on millions of keys too); 32-bit keys when they fit (memory)."""
    NC = cells.n
    kt = np.int32 if NC * K < 2**31 else np.int64
    number = np.full(NC * K, -1, kt)
    mark = np.zeros(NC * K, bool)
    mark[start] = True
    frontier = np.flatnonzero(mark)  # distinct, sorted (np.unique sorts millions: slower)
    del mark
    number[frontier] = np.arange(frontier.size)
    found = [frontier]
    n_states = frontier.size
    t_from, t_bundle, t_to, t_share = [], [], [], []
    x_from, x_bundle, x_cell, x_share = [], [], [], []
    while frontier.size:
        u, k = frontier // K, frontier % K
        dh = dist(u, k)
        move = (dh > 0) & (dh < UNREACHABLE)
        frontier, u, k, dh = frontier[move], u[move], k[move], dh[move]
        if not frontier.size:
            break
        fresh = np.zeros(NC * K, bool)
        n_cand = cells.ptr[u + 1] - cells.ptr[u]
        cs = np.cumsum(n_cand)
        cuts = np.searchsorted(cs, np.arange(_CHUNK, cs[-1], _CHUNK))
        edges = np.unique(np.r_[0, cuts, frontier.size])
        for lo, hi in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True):
            r, hop = rows_of(cells.ptr, u[lo:hi])
            nxt = cells.nxt[hop]
            kr = k[lo:hi][r]
            good = valid(kr, nxt, dh[lo:hi][r])
            r, hop, nxt, kr = r[good], hop[good], nxt[good], kr[good]
            if not r.size:
                continue
            cap = cells.cap[hop]
            share = cap / np.bincount(r, weights=cap, minlength=hi - lo)[r]
            frm = number[frontier[lo:hi][r]]
            if inside is not None:
                out = ~inside(kr, nxt)
                x_from.append(frm[out])
                x_bundle.append(cells.pair[hop[out]].astype(np.int32))
                x_cell.append(nxt[out])
                x_share.append(share[out])
                frm, hop, nxt, kr, share = (a[~out] for a in (frm, hop, nxt, kr, share))
            to = (nxt.astype(np.int64) if node is None else node(kr, nxt)) * K + kr
            t_from.append(frm)
            t_bundle.append(cells.pair[hop].astype(np.int32))
            t_to.append(to.astype(kt))
            t_share.append(share)
            fresh[to] = True
        fresh &= number < 0
        frontier = np.flatnonzero(fresh)
        number[frontier] = np.arange(n_states, n_states + frontier.size)
        n_states += frontier.size
        found.append(frontier)
    tf = _cat(t_from, kt)  # non-decreasing: states expand in their numbers' order
    tt = number[_cat(t_to, kt)]
    for chunks in (t_from, t_to):  # memory: the copies are made
        chunks.clear()
    return _Walk(number, np.concatenate(found), tf, tt, _cat(t_bundle, np.int32),
                 _cat(t_share, np.float64), _cat(x_from, kt), _cat(x_bundle, np.int32),
                 _cat(x_cell, np.int64), _cat(x_share, np.float64))


def _chain(w: _Walk, n_b: int, extra: bool = False
           ) -> tuple[_Blocks, _Blocks, _Blocks, _Blocks, csr_matrix | None]:
    """``t``, its transpose, ``e`` and its transpose of a walk (``extra``: the far part,
    whose hops that leave the walk load their cables too, and whose alike rows of ``e`` are
    kept once: the last item maps states to them)."""
    S = w.n
    if extra:
        # a merged group is entered over each of its cells' cables: one hop in ``t`` (the
        # cables stay apart in ``e``); 20 times fewer entries on a pod's leaves
        m = csr_matrix((w.ts, (w.tf, w.tt)), shape=(S, S))
        m.sum_duplicates()
        tf = np.repeat(np.arange(S), np.diff(m.indptr))
        t = _Blocks(m.data, m.indices, m.indptr, (S, S))
        t_t = _Blocks.of_any(m.indices, tf, m.data, (S, S))
    else:
        t = _Blocks.of_rows(w.tf, w.tt, w.ts, (S, S))
        t_t = _Blocks.of_any(w.tt, w.tf, w.ts, (S, S))
    if extra:
        ef, eb, es = (np.concatenate(p) for p in ((w.tf, w.xf), (w.tb, w.xb), (w.ts, w.xs)))
        m = csr_matrix((es, (ef, eb)), shape=(S, n_b))
        m.sum_duplicates()
        rows, first = _alike_rows(m)
        R = first.size
        sub = m[first]
        rf = np.repeat(np.arange(R), np.diff(sub.indptr))
        e = _Blocks(sub.data, sub.indices, sub.indptr, (R, n_b))
        e_rows = csr_matrix((np.ones(S), (np.arange(S), rows)), shape=(S, R))
        return t, t_t, e, _Blocks.of_any(sub.indices, rf, sub.data, (n_b, R)), e_rows
    ef, eb, es = w.tf, w.tb, w.ts
    e = _Blocks.of_rows(ef, eb, es, (S, n_b))
    return t, t_t, e, _Blocks.of_any(eb, ef, es, (n_b, S)), None


_ALIKE_BLOCK = 1 << 18  # entries compared at a time


def _alike_rows(m: csr_matrix, probe: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``m`` (canonical CSR) with the same entries: each row's class, and the first
    row of each class (classes in the order of their first rows). Grouped by the product of
    each row with one fixed random vector (alike rows, summed in the same order, give the
    same bits), then compared entry by entry with their class's first row: a collision
    splits them back apart. The product is one pass over the entries; a hash of every entry
    was five times the work. ``probe``: another vector (a test forces collisions)."""
    S = m.shape[0]
    n = np.diff(m.indptr)
    if probe is None:
        probe = np.random.default_rng(0x5EED).random(m.shape[1]) + 0.5
    _, rows = np.unique(m @ probe, return_inverse=True)
    rows = rows.reshape(-1)
    first = np.full(int(rows.max(initial=-1)) + 1, S, np.int64)
    np.minimum.at(first, rows, np.arange(S))
    rep = first[rows]
    bad = n != n[rep]
    # each entry against the same place in its class's first row, a block of rows at a time
    # (the index arrays of millions of entries at once cost more in fresh memory than the
    # comparisons)
    shift = np.where(bad, 0, m.indptr[rep] - m.indptr[:-1])
    ends = np.searchsorted(m.indptr, np.arange(_ALIKE_BLOCK, m.indices.size, _ALIKE_BLOCK))
    for r0, r1 in itertools.pairwise([0, *np.unique(ends).tolist(), S]):
        p0, p1 = int(m.indptr[r0]), int(m.indptr[r1])
        at = np.arange(p0, p1) + np.repeat(shift[r0:r1], n[r0:r1])
        diff = (m.indices[p0:p1] != m.indices[at]) | (m.data[p0:p1] != m.data[at])
        if diff.any():  # never seen: a row of its own
            bad[r0 + np.repeat(np.arange(r1 - r0), n[r0:r1])[diff]] = True
    # classes numbered by their first rows: the order does not hang on the probe
    _, first, rows = np.unique(np.where(bad, np.arange(S), rep), return_index=True,
                               return_inverse=True)
    return rows.reshape(-1), first


def _refuse(C: int, cells: Cells, steps: float) -> RoutingError:
    # each (switch group, destination class) state is held with its hops: past the limit
    # the walk needs gigabytes
    return RoutingError(
        f"adaptive (spray) routing on this design: {C:,} destination classes over "
        f"{cells.nxt.size:,} hops between groups of alike switches, {steps / 1e6:,.0f} "
        f"million steps, past the {SPRAY_STEPS_LIMIT / 1e6:,.0f} million that fit in "
        "memory (its switches have little symmetry to fold); use --routing ecmp, or a "
        "design with uniform striping (generate --striping uniform)")


def spray_op(net: Network, src: np.ndarray, dst: np.ndarray,
             split: bool | None = None) -> SprayOp:
    """The factored spray of flows ``src[i] -> dst[i]`` (``applies`` must hold).
    ``split``: whether the destination-free far part is taken apart (split.py); by default
    on large designs where it is smaller than the plain chain. The numbers are the same
    either way."""
    c = net.c
    C = max(c.classes.n, 1)
    F = src.size
    dcls = c.gpu_class[dst].astype(np.int64)
    table = net.dist_by_class
    # leaving the GPU: its NICs nearest the destination class, by capacity (as route_spray)
    rep, att = net.attachments(src)
    ok = nearest(rep, table[dcls[rep], net.att_switch[att]], F)
    share = shares(rep, np.where(ok, net.att_cap[att], 0.0), F)
    fr, at, sh = rep[ok], att[ok], share[ok]
    reached = np.bincount(fr, minlength=F) > 0

    # the chain walks (cell, destination class) states: cells of switches the spray cannot
    # tell apart (quotient.py), so a state splits over the next cells by a member's capacity
    # into each, and a cell pair's load over its cables by capacity (``pb``)
    P = net.n_ports
    cells = cells_of(net)
    steps = C * int(cells.nxt.size)
    far = None
    if split or (split is None and steps > min(SPLIT_FROM, SPRAY_STEPS_LIMIT)):
        far = far_states(net, cells)
        if far is not None and split is None:
            # the far chain's hops, and the per-class rest: every hop of a cell that is not
            # far for a class, for each class (a bound: only valid hops are walked); taken
            # when smaller than the plain chain and within the limit
            deg = np.diff(cells.ptr)
            per_group = ((~far.far) * deg[None, :]).sum(axis=1)
            bound = far.hops(cells) + float(per_group[far.group].sum())
            if bound < steps and bound <= SPRAY_STEPS_LIMIT:
                steps = bound
            else:
                far = None
    if far is None and steps > SPRAY_STEPS_LIMIT:
        raise _refuse(C, cells, steps)
    crep = cells.rep
    n_b = cells.n_pairs
    pb = csr_matrix((cells.port_share, (cells.port_pair, np.arange(P))), shape=(n_b, P))
    ucell = cells.cell[net.att_switch[at]].astype(np.int64)
    d_at = table[dcls[fr], net.att_switch[at]]
    depth = int(d_at[d_at < UNREACHABLE].max(initial=0))

    def dist(u, k):
        return table[k, crep[u]]

    def valid(k, v, dh):
        return table[k, crep[v]] == dh - 1

    far_op = None
    if far is None:
        w = _walk(cells, C, ucell * C + dcls[fr], dist, valid)
        b = csr_matrix((sh, (fr, w.number[ucell * C + dcls[fr]])), shape=(F, w.n))
    else:
        g = far.group[dcls[fr]]
        in_far = far.far[g, ucell] & (d_at > 0)
        b, far_op, w = _split(cells, C, far, F, fr, ucell, dcls, g, sh, in_far, dist, valid,
                              net, pb)
    t, t_t, e, e_t, _ = _chain(w, n_b)

    # arrival: which of its destination class's switches each flow ends at (one, unless
    # the class has NICs on several switches), pulled back up the chain from the last hop
    S = c.n_switches
    cl = c.classes
    slot_key = np.unique(np.repeat(np.arange(cl.n), np.diff(cl.ptr)) * S + cl.att_switch)
    slot_first = np.searchsorted(slot_key, np.arange(cl.n) * S)
    K = int(np.diff(np.r_[slot_first, slot_key.size]).max(initial=1))
    ku, kd = crep[w.keys // C], w.keys % C  # a cell with GPUs attached is one switch
    term = np.flatnonzero(table[kd, ku] == 0)
    slot = np.searchsorted(slot_key, kd[term] * S + ku[term]) - slot_first[kd[term]]
    z = np.zeros((w.n, K))
    z[term, slot] = 1.0
    arr = z.copy()
    for _ in range(depth):
        z = t @ z
        if not z.any():
            break
        arr += z
    arrive = b @ arr  # flows x K
    reached &= arrive.sum(axis=1) > 0.999
    if not reached.all():  # a flow without a path carries nothing (as route_spray drops it)
        keep = diags(reached.astype(np.float64))
        b = b.masked(reached) if isinstance(b, _Entry) else keep @ b
        if far_op is not None:
            far_op = replace(far_op, nic=_no_nic(reached), b=keep @ far_op.b)

    # NIC entries: up over the start NICs; down over the destination GPU's NICs on the
    # switch it arrives at, by capacity
    rep, datt = net.attachments(dst)
    k = (np.searchsorted(slot_key, dcls[rep] * S + net.att_switch[datt])
         - slot_first[dcls[rep]])
    mass = arrive[rep, np.minimum(k, K - 1)]
    dsh = mass * shares(rep * K + k, net.att_cap[datt], F * K)
    keep = reached[rep] & (dsh > 0)
    up = reached[fr]
    nic = Routed(
        flow=np.concatenate([fr[up], rep[keep]]),
        link=np.concatenate([net.nic_up(at[up]), net.nic_down(datt[keep])]),
        frac=np.concatenate([sh[up], dsh[keep]]),
        reached=reached,
    )
    return SprayOp(net.n_links, P, nic, b, t, t_t, e, e_t, pb, pb.T.tocsr(), depth,
                   far_op)


def _no_nic(reached: np.ndarray) -> Routed:
    z = np.empty(0, np.int64)
    return Routed(flow=z, link=z, frac=np.empty(0), reached=reached)


def _split(cells: Cells, C: int, far: Far, F: int, fr: np.ndarray, ucell: np.ndarray,
           dcls: np.ndarray, g: np.ndarray, sh: np.ndarray, in_far: np.ndarray, dist, valid,
           net: Network, pb: csr_matrix) -> tuple[_Entry, SprayOp, _Walk]:
    """The far part's op, and the per-class rest: its walk and entries (flows x its states:
    the flows' own starts that are not far, and where their far traffic leaves off)."""
    G = far.n
    nodes = far_nodes(net, cells, far, pb)
    fk = nodes.node(g[in_far], ucell[in_far]) * G + g[in_far]
    # the distance shared by all the group's classes at a cell, -1 where they differ: one
    # look-up a hop where the least and the most were two
    alike = np.where(far.lo == far.hi, far.lo, np.int16(-1))
    fw = _walk(nodes, G, fk, lambda u, k: far.dist[k, nodes.rep[u]],
               lambda k, v, dh: alike[k, v] == dh - 1,
               lambda k, v: far.far[k, v], nodes.node)
    fb = csr_matrix((sh[in_far], (fr[in_far], fw.number[fk])), shape=(F, fw.n))
    t, t_t, e, e_t, e_rows = _chain(fw, nodes.pb.shape[0], extra=True)
    sdist = far.dist[fw.keys % G, nodes.rep[fw.keys // G]]
    fdepth = int(sdist.max(initial=0))
    far_op = SprayOp(net.n_links, net.n_ports, _no_nic(np.ones(F, bool)), fb, t, t_t, e, e_t,
                     nodes.pb, nodes.pb.T.tocsr(), fdepth, e_rows=e_rows,
                     e_rows_t=e_rows.T.tocsr())

    # where each far state's traffic leaves the far part: per state, a distribution over
    # its group's exit cells (columns numbered within the group), pulled back up the far
    # chain in order of distance (a hop leads one nearer: the next state is done first)
    xg = fw.keys[fw.xf] % G
    xkey, xcol = np.unique(xg * cells.n + fw.xc, return_inverse=True)
    xcol = xcol.reshape(-1)
    first = np.searchsorted(xkey, np.arange(G) * cells.n)
    xcol = xcol - first[xg]
    width = int(np.diff(np.r_[first, xkey.size]).max(initial=1))
    if fw.n * width > EXIT_TABLE_MAX:  # the exit distributions would not fit either
        raise _refuse(C, cells, float(fw.n) * width)
    exits = np.bincount(fw.xf.astype(np.int64) * width + xcol, weights=fw.xs,
                        minlength=fw.n * width).reshape(fw.n, width)
    tcsr = csr_matrix((fw.ts, (fw.tf, fw.tt)), shape=(fw.n, fw.n))
    for dval in np.unique(sdist):
        rows = np.flatnonzero(sdist == dval)
        exits[rows] += tcsr[rows] @ exits
    del tcsr
    # the per-class states the far part leaves into: (exit cell, class) for each class
    # with a flow whose far start reaches that exit
    fcoo = fb.tocoo()
    ef, es = fcoo.row.astype(np.int64), fcoo.col.astype(np.int64)
    starts_of = csr_matrix((np.ones(ef.size), (dcls[ef], es)), shape=(C, fw.n))
    need = starts_of @ (exits > 0).astype(np.float64)  # classes x exits: flows reaching it
    xd, xj = np.nonzero(need)
    del need
    jk = (xkey[first[far.group[xd]] + xj] % cells.n) * C + xd

    # the per-class walk from the flows' other starts and from the far part's exits
    nk = ucell[~in_far] * C + dcls[fr[~in_far]]
    w = _walk(cells, C, np.concatenate([nk, jk]), dist, valid)
    nmap = np.full((C, width), -1, np.int64)
    nmap[xd, xj] = w.number[jk]
    direct = csr_matrix((sh[~in_far], (fr[~in_far], w.number[nk])), shape=(F, w.n))
    return _Entry(direct, fb, exits, nmap, dcls), far_op, w


def _transposed(m: csr_matrix) -> csr_matrix:
    """``m``'s transpose by rows, without its explicit zeros (a flow asking nothing)."""
    m = m.copy()
    m.eliminate_zeros()
    return m.T.tocsr()


def _cat(xs: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(xs) if xs else np.empty(0, dtype)
