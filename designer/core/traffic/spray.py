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

Delivery over the destination GPU's NICs needs to know at which switch a flow arrives (a
GPU with NICs in two planes arrives in the plane it left by): the share of a state's traffic
that ends at each of its destination class's switches pulls back up the chain the same way,
and a flow's arrival is its entry times that.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix, diags
from scipy.sparse import vstack as sp_vstack

from designer.core.traffic.maxmin import Sparse, combine, gather_rows
from designer.core.traffic.network import UNREACHABLE, Network, nearest, rows_of, shares
from designer.core.traffic.quotient import cells_of
from designer.core.traffic.routing import Routed, RoutingError

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


def _step(m: _Blocks | csr_matrix, idx: np.ndarray, val: np.ndarray, n: int) -> Sparse:
    """``M^T v`` for a sparse ``v`` (indices, values), read off ``M``'s rows."""
    cols, w = m.gather(idx, val) if isinstance(m, _Blocks) else gather_rows(m, idx, val)
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
    b: csr_matrix  # flows x states
    t: _Blocks  # states x states (one hop)
    t_t: _Blocks  # its transpose, by rows too (a CSC product scatters: slower)
    e: _Blocks  # states x bundles (the parallel cables from one switch to the next)
    e_t: _Blocks
    pb: csr_matrix  # bundles x ports: a bundle's traffic over its cables, by capacity
    pb_t: csr_matrix
    depth: int

    @property
    def reached(self) -> np.ndarray:
        return self.nic.reached

    @property
    def n_states(self) -> int:
        return self.t.shape[0]

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """``A v``: per flow, the share-weighted sum of ``v`` over the links it crosses."""
        vi = np.flatnonzero(v[: self.n_ports])
        if vi.size * SPARSE_SHARE <= self.n_ports:
            return self._matvec_sparse(v, vi)
        z = self.e @ (self.pb @ v[: self.n_ports])
        acc = z.copy()
        for _ in range(self.depth):
            z = self.t @ z
            if not z.any():
                break
            acc += z
        return self.b @ acc + self._nic_matvec(v)

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
        return self._walk(self.t_t, *_step(self.e_t, bi, bv, S))

    def _down(self, flows: np.ndarray, x: np.ndarray) -> Sparse:
        """The switch ports the spray of these flows crosses, with the load of ``x`` each:
        from their entry states down the chain."""
        S, n_b = self.n_states, self.pb.shape[0]
        ai, av = self._walk(self.t, *_step(self.b, flows, x, S))
        bi, bv = _step(self.e, ai, av, n_b)
        return _step(self.pb, bi, bv, self.n_ports)

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
        if ports.size:
            si, sv = self._up(ports, np.ones(ports.size))
            out.append(gather_rows(self._b_t, si[sv > 0])[0])
        return np.concatenate(out)

    def spread(self, flows: np.ndarray, x: np.ndarray) -> Sparse:
        """Per link, the load of these flows carrying ``x`` each: (links, Gb/s)."""
        pi, pv = self._down(flows, x)
        ni, nv = gather_rows(self._nic_by_flow, flows, x)
        return combine(np.concatenate([pi, ni + self.n_ports]), np.concatenate([pv, nv]),
                       self.n_links)

    @functools.cached_property
    def _b_t(self) -> csr_matrix:
        b = self.b.copy()
        b.eliminate_zeros()
        return b.T.tocsr()

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
        t = self._t_csr
        e = sp_vstack(self.e.blocks).tocsr() if self.e.blocks else csr_matrix(self.e.shape)
        # entries per state, then per flow, as an upper bound before any product is made:
        # a bundle's ports are its own, so a state's row of ``E pb`` has the sum of its
        # bundles' port counts (a matrix-vector product; the product itself can hold tens
        # of millions of entries on a large fat tree, which then stays factored)
        e_pattern = e.copy()
        e_pattern.sum_duplicates()  # two hops of a state into one bundle: one row entry
        e_pattern.data = np.ones_like(e_pattern.data)
        per = e_pattern @ np.diff(self.pb.indptr).astype(np.float64)
        tot = per.copy()
        pattern = t.copy()
        pattern.data = np.ones_like(pattern.data)
        for _ in range(self.depth):
            per = pattern @ per
            if not per.any():
                break
            tot += per
        bp = self.b.copy()
        bp.data = np.ones_like(bp.data)
        if float((bp @ tot).sum()) + self.nic.flow.size > limit:
            return None
        ep = e @ self.pb
        z = ep
        acc = ep.copy()
        for _ in range(self.depth):
            z = (t @ z).tocsr()
            if not z.nnz:
                break
            acc = acc + z
        a = (self.b @ acc).tocoo()
        keep = a.data > 0
        return Routed(
            flow=np.concatenate([a.row[keep].astype(np.int64), self.nic.flow]),
            link=np.concatenate([a.col[keep].astype(np.int64), self.nic.link]),
            frac=np.concatenate([a.data[keep], self.nic.frac]),
            reached=self.reached,
        )

    @functools.cached_property
    def _t_csr(self) -> csr_matrix:
        if not self.t.blocks:
            return csr_matrix(self.t.shape)
        return sp_vstack(self.t.blocks).tocsr()

    def rmatvec(self, x: np.ndarray) -> np.ndarray:
        """``A^T x``: per link, the load of flows carrying ``x`` each."""
        fi = np.flatnonzero(x)
        if fi.size * SPARSE_SHARE <= x.size:
            return self._rmatvec_sparse(x, fi)
        m = self.b.T @ x
        acc = m.copy()
        for _ in range(self.depth):
            m = self.t_t @ m
            if not m.any():
                break
            acc += m
        out = np.zeros(self.n_links)
        out[: self.n_ports] = self.pb_t @ (self.e_t @ acc)
        out += np.bincount(self.nic.link, weights=self.nic.frac * x[self.nic.flow],
                           minlength=self.n_links)
        return out


def spray_op(net: Network, src: np.ndarray, dst: np.ndarray) -> SprayOp:
    """The factored spray of flows ``src[i] -> dst[i]`` (``applies`` must hold)."""
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
    start = net.att_switch[at].astype(np.int64) * C + dcls[fr]

    # the chain walks (cell, destination class) states: cells of switches the spray cannot
    # tell apart (quotient.py), so a state splits over the next cells by a member's capacity
    # into each, and a cell pair's load over its cables by capacity (``pb``)
    P = net.n_ports
    cells = cells_of(net)
    steps = C * int(cells.nxt.size)
    if steps > SPRAY_STEPS_LIMIT:
        # each (switch group, destination class) state is held with its hops: past this the
        # walk needs gigabytes (a 131,072-GPU fat tree with balanced striping, whose spines
        # are all unlike: 950 million, about 20 GB)
        raise RoutingError(
            f"adaptive (spray) routing on this design: {C:,} destination classes over "
            f"{cells.nxt.size:,} hops between groups of alike switches, {steps / 1e6:,.0f} "
            f"million steps, past the {SPRAY_STEPS_LIMIT / 1e6:,.0f} million that fit in "
            "memory (its switches have little symmetry to fold); use --routing ecmp, or a "
            "design with uniform striping (generate --striping uniform)")
    crep = cells.rep
    n_b = cells.n_pairs
    pb = csr_matrix((cells.port_share, (cells.port_pair, np.arange(P))), shape=(n_b, P))
    start = cells.cell[net.att_switch[at]].astype(np.int64) * C + dcls[fr]

    # the state graph, level by level from the start states (each state expanded once).
    # States are numbered level by level as found, so the hops come out grouped by their
    # state and the matrices are laid out directly (sorting tens of millions of entries
    # into CSR costs more than the walk); found states are marked in a dense cell x class
    # table (np.unique on millions of keys too); 32-bit keys when they fit (memory)
    S = c.n_switches
    NC = cells.n
    kt = np.int32 if NC * C < 2**31 else np.int64
    number = np.full(NC * C, -1, kt)
    frontier = np.unique(start)
    number[frontier] = np.arange(frontier.size)
    found = [frontier]
    n_states = frontier.size
    t_from, t_bundle, t_to, t_share = [], [], [], []
    # the longest chain of hops: the farthest start from its destination (states reached
    # later are nearer, and a start already seen is not expanded twice)
    depth = int(table[dcls[fr], net.att_switch[at]].max(initial=0))
    while frontier.size:
        u, dc = frontier // C, frontier % C
        dh = table[dc, crep[u]]
        move = (dh > 0) & (dh < UNREACHABLE)
        frontier, u, dc, dh = frontier[move], u[move], dc[move], dh[move]
        if not frontier.size:
            break
        fresh = np.zeros(NC * C, bool)
        n_cand = cells.ptr[u + 1] - cells.ptr[u]
        cs = np.cumsum(n_cand)
        cuts = np.searchsorted(cs, np.arange(_CHUNK, cs[-1], _CHUNK))
        edges = np.unique(np.r_[0, cuts, frontier.size])
        for lo, hi in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True):
            r, hop = rows_of(cells.ptr, u[lo:hi])
            nxt = cells.nxt[hop]
            good = table[dc[lo:hi][r], crep[nxt]] == dh[lo:hi][r] - 1
            r, hop, nxt = r[good], hop[good], nxt[good]
            if not r.size:
                continue
            cap = cells.cap[hop]
            share = cap / np.bincount(r, weights=cap, minlength=hi - lo)[r]
            to = nxt.astype(np.int64) * C + dc[lo:hi][r]
            t_from.append(number[frontier[lo:hi][r]])
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
    ts = _cat(t_share, np.float64)
    tb = _cat(t_bundle, np.int32)
    for chunks in (t_from, t_to, t_share, t_bundle):  # memory: the copies are made
        chunks.clear()
    b = csr_matrix((sh, (fr, number[start])), shape=(F, n_states))
    t = _Blocks.of_rows(tf, tt, ts, (n_states, n_states))
    t_t = _Blocks.of_any(tt, tf, ts, (n_states, n_states))
    e = _Blocks.of_rows(tf, tb, ts, (n_states, n_b))
    e_t = _Blocks.of_any(tb, tf, ts, (n_b, n_states))

    # arrival: which of its destination class's switches each flow ends at (one, unless
    # the class has NICs on several switches), pulled back up the chain from the last hop
    cl = c.classes
    slot_key = np.unique(np.repeat(np.arange(cl.n), np.diff(cl.ptr)) * S + cl.att_switch)
    slot_first = np.searchsorted(slot_key, np.arange(cl.n) * S)
    K = int(np.diff(np.r_[slot_first, slot_key.size]).max(initial=1))
    keys = np.concatenate(found)  # in state-number order
    ku, kd = crep[keys // C], keys % C  # a cell with GPUs attached is one switch
    term = np.flatnonzero(table[kd, ku] == 0)
    slot = np.searchsorted(slot_key, kd[term] * S + ku[term]) - slot_first[kd[term]]
    z = np.zeros((n_states, K))
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
        b = diags(reached.astype(np.float64)) @ b

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
    return SprayOp(net.n_links, net.n_ports, nic, b, t, t_t, e, e_t, pb, pb.T.tocsr(), depth)


def _cat(xs: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(xs) if xs else np.empty(0, dtype)
