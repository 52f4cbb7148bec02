"""Hops and latency over GPU pairs from attachment-switch distances and cable-length counts.

When every GPU attaches by one cable, the path between two GPUs in different servers is
(own cable) + (best path between their two attachment switches) + (peer's cable), plus the
two NICs and serialization at the slower of the two ports. So the whole pair distribution
follows exactly from two small tables:

* ``n[x, k]``: GPUs on attachment switch ``x`` whose (cable, NIC, port speed) is kind ``k``
  (a floor plan sells few cable lengths, so there are few kinds);
* the fewest-switches-then-lowest-latency distance between every two attachment switches.

The second is the costly part once cables have their own lengths: switches that looked alike
no longer are, and a shortest-path search per switch takes seconds at 65,536 GPUs. Instead
it is built as a chain of min-plus products over walks of at most four links, which is exact
for every pair at most four links apart (a walk as short as the fewest hops is a shortest
path, and a hop outweighs any latency):

    D(x, y) = min over s in N(x), s' in N(y) of  w(x, s) + M(s, s') + w(s', y)

where ``M`` is 0 on its diagonal (two links), the direct link (three) or the best two-link
walk (four) between neighbours of attachment switches. Pairs further apart get a
shortest-path search from their row. Distances are integers (1/1000 ns, a hop as 2^27 of
them) so the last and largest product runs on int32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

from designer.core.solver.compile import HOP_WEIGHT, Compiled
from designer.core.solver.components import csr_labels

Q = 1000.0  # integer units per ns
HOP_Q = 1 << 27  # one link in integer units: more than any path's latency (134 us)
UNREACHED = 1 << 30  # at or above: no walk of at most four links
MAX_B = 4096  # neighbours of attachment switches kept in a dense table (134 MB as int64)
MAX_A = 4096  # attachment switches: the distance table is A x A
CHUNK = 500_000  # elements per native call: keeps each GIL hold short
BLOCK = 262_144  # table entries per pass of the pair distribution (a few ms each)


class OutOfRange(Exception):
    """A path's latency does not fit under one hop of the integer table (over 134 us)."""


@dataclass(frozen=True)
class SwitchPairs:
    """What the GPU pair distribution needs: per (hop count, latency) bin, ordered pairs."""

    hops: np.ndarray  # switches traversed
    lat_ns: np.ndarray
    weight: np.ndarray  # ordered GPU pairs in different servers
    unreachable: float  # ordered GPU pairs with no path
    method: str
    searches: int  # shortest-path searches (pairs more than four links apart)


def applies(c: Compiled) -> bool:
    """One cable per GPU, and the distance tables fit (``tables_fit``)."""
    cl = c.classes
    return cl.n > 0 and bool((np.diff(cl.ptr) == 1).all()) and tables_fit(c)


def tables_fit(c: Compiled) -> bool:
    """Tables that fit in memory, and links short enough for the integer distances (a
    four-link walk's latency under a hop: links under 33 us, 6.7 km of fibre)."""
    cl = c.classes
    if cl.n == 0:
        return False
    w = _edge_weights_q(c)
    if w.size and 4 * int((w - HOP_Q).max()) >= HOP_Q:
        return False
    att = np.unique(cl.att_switch)
    if att.size > MAX_A:
        return False
    in_a = np.zeros(c.n_switches, bool)
    in_a[att] = True
    nb = np.unique(c.indices[in_a[c.adj_src]])
    return nb.size <= MAX_B


def work(c: Compiled) -> float:
    """Rough element count of the last product (A x A x neighbours of a switch)."""
    att = np.unique(c.classes.att_switch)
    deg = np.diff(c.indptr)[att]
    return float(att.size) * float(deg.sum())


def _edge_weights_q(c: Compiled) -> np.ndarray:
    """Integer weight of every directed switch link: a hop, its cable, the entered switch."""
    ns = c.switch_ns[c.sw]
    lat = np.round(c.adj_prop_ns * Q) + np.round(ns[c.indices] * Q)
    return HOP_Q + lat.astype(np.int64)


def distances_to(c: Compiled, att: np.ndarray, control=None,
                 stats: dict | None = None) -> np.ndarray:
    """``attachment_distances`` transposed (row = destination), as the min-plus chain
    builds it: int32 unless a path has more than 14 links."""

    def check() -> None:
        if control is not None:
            control.check()

    S = c.n_switches
    nA = att.size
    w = _edge_weights_q(c)
    pa = np.full(S, -1, np.int64)
    pa[att] = np.arange(nA)
    src, dst = c.adj_src, c.indices
    from_a = pa[src] >= 0
    bset = np.unique(dst[from_a])
    nB = bset.size
    pb = np.full(S, -1, np.int64)
    pb[bset] = np.arange(nB)
    ns_q = np.round(c.switch_ns[c.sw] * Q).astype(np.int64)

    # mtab over B x B: 0 (same switch), a direct link, or the best two-link walk
    big = np.int64(1) << 40
    mtab = np.full(nB * nB, big, np.int64)
    mtab[np.arange(nB) * (nB + 1)] = 0
    bb = (pb[src] >= 0) & (pb[dst] >= 0)
    np.minimum.at(mtab, pb[src[bb]] * nB + pb[dst[bb]], w[bb])
    check()
    # two-link walks s -> m -> s' for every switch m: pairs of m's neighbours in B
    to_b = pb[dst] >= 0
    e_m, e_s, e_w = src[to_b], dst[to_b], w[to_b]  # m -> s, sorted by m (CSR order)
    back = e_w - ns_q[e_s] + ns_q[e_m]  # s -> m: same cable, enters m instead of s
    k = np.bincount(e_m, minlength=S)
    start = np.cumsum(k) - k
    reps = k[e_m]
    done = 0
    # edge i pairs with every edge j of the same m: split the i's into chunks of ~CHUNK pairs
    cum = np.cumsum(reps)
    while done < e_m.size:
        stop = int(np.searchsorted(cum, (cum[done - 1] if done else 0) + CHUNK, "right"))
        stop = max(stop, done + 1)
        i = np.repeat(np.arange(done, stop), reps[done:stop])
        first = np.repeat(start[e_m[done:stop]], reps[done:stop])
        off = np.arange(i.size) - np.repeat(np.cumsum(reps[done:stop]) - reps[done:stop],
                                            reps[done:stop])
        j = first + off
        np.minimum.at(mtab, pb[e_s[i]] * nB + pb[e_s[j]], back[i] + e_w[j])
        done = stop
        check()
    mtab = mtab.reshape(nB, nB)

    # Z over A x B: w(x, s) + mtab(s, s'), from the finite entries of mtab row by row
    mr, mc = np.nonzero(mtab < big)
    mv = mtab[mr, mc]
    check()
    mk = np.bincount(mr, minlength=nB)
    mstart = np.cumsum(mk) - mk
    xa, xs, xw = pa[src[from_a]], pb[dst[from_a]], w[from_a]
    reps = mk[xs]
    cum = np.cumsum(reps)
    Z = np.full(nA * nB, big, np.int64)
    done = 0
    while done < xa.size:
        stop = int(np.searchsorted(cum, (cum[done - 1] if done else 0) + CHUNK, "right"))
        stop = max(stop, done + 1)
        r = reps[done:stop]
        i = np.repeat(np.arange(done, stop), r)
        j = np.repeat(mstart[xs[done:stop]], r) + (
            np.arange(i.size) - np.repeat(np.cumsum(r) - r, r))
        np.minimum.at(Z, xa[i] * nB + mc[j], xw[i] + mv[j])
        done = stop
        check()
    # as int32, columns = B (+ one never-reached column for padding), rows contiguous per s'
    Z = Z.reshape(nA, nB)
    ZT = np.full((nB + 1, nA), UNREACHED, np.int32)
    step = max(1, BLOCK // max(nB, 1))
    for lo in range(0, nA, step):
        ZT[:nB, lo:lo + step] = np.minimum(Z[lo:lo + step], UNREACHED).T
        check()
    del Z

    # D(x, y) = min over s' in N(y) of Z(x, s') + w(s', y): padded neighbour lists of y
    into_a = pa[dst] >= 0
    ys, ss, ws = pa[dst[into_a]], pb[src[into_a]], w[into_a]
    order = np.argsort(ys, kind="stable")
    ys, ss, ws = ys[order], ss[order], ws[order]
    deg = np.bincount(ys, minlength=nA)
    width = max(1, int(deg.max()) if deg.size else 1)
    nbr = np.full((nA, width), nB, np.int64)
    nw = np.zeros((nA, width), np.int32)
    col = np.arange(ys.size) - np.repeat(np.cumsum(deg) - deg, deg)
    nbr[ys, col] = ss
    nw[ys, col] = ws
    out = np.empty((nA, nA), np.int32)  # out[y, x]: rows per destination
    step = max(1, BLOCK // max(nA, 1))
    for lo in range(0, nA, step):
        hi = min(nA, lo + step)
        acc = ZT[nbr[lo:hi, 0]] + nw[lo:hi, 0, None]
        for j in range(1, width):
            np.minimum(acc, ZT[nbr[lo:hi, j]] + nw[lo:hi, j, None], out=acc)
        out[lo:hi] = acc
        check()
    del ZT
    # direct links between attachment switches (one link) and each switch to itself
    aa = from_a & into_a
    np.minimum.at(out, (pa[dst[aa]], pa[src[aa]]), w[aa].astype(np.int32))
    out[np.arange(nA), np.arange(nA)] = 0
    out[out >= UNREACHED] = -1

    # pairs further than four links apart: a shortest-path search from their sources
    far = np.flatnonzero((out < 0).any(axis=0))
    if stats is not None:
        stats["searches"] = 0
    if far.size:
        graph = csr_matrix((HOP_WEIGHT + (w - HOP_Q) / Q, c.indices, c.indptr), shape=(S, S))
        from scipy.sparse.csgraph import dijkstra  # brings scipy.linalg: 0.1 s

        _, comp = csr_labels(c.indptr, c.indices)
        ca = comp[att]
        need = far[((out[:, far] < 0) & (ca[:, None] == ca[None, far])).any(axis=0)]
        for lo in range(0, need.size, 12):
            cols = need[lo:lo + 12]
            d = np.atleast_2d(dijkstra(graph, directed=True, indices=att[cols]))[:, att]
            fin = np.isfinite(d)
            d = np.where(fin, d, 0.0)
            h = np.floor(d / HOP_WEIGHT + 1e-9)
            if h.max() * HOP_Q + 2 * HOP_Q >= 2**31 and out.dtype == np.int32:
                out = out.astype(np.int64)  # paths of more than 14 links
            lat = np.round((d - h * HOP_WEIGHT) * Q)
            if (lat >= HOP_Q).any():
                raise OutOfRange
            q = np.where(fin, h * HOP_Q + lat, -1)
            out[:, cols] = q.T.astype(out.dtype)
            if stats is not None:
                stats["searches"] += cols.size
            check()
    return out


def float_distances(c: Compiled, att: np.ndarray, control=None,
                    stats: dict | None = None) -> np.ndarray:
    """``attachment_distances`` in the units of a shortest-path search on the switch graph
    (HOP_WEIGHT per link + ns), inf where no path exists."""
    d = attachment_distances(c, att, control, stats)
    links = d // HOP_Q
    return np.where(d >= 0, links * HOP_WEIGHT + (d - links * HOP_Q) / Q, np.inf)


def attachment_distances(c: Compiled, att: np.ndarray, control=None,
                         stats: dict | None = None) -> np.ndarray:
    """A x A: hops (links) * HOP_Q + latency (1/1000 ns) of the best path from att[i] to
    att[j], counting every switch entered; -1 where no path exists.
    ``stats["searches"]``: shortest-path searches run for pairs more than four links apart."""
    return np.ascontiguousarray(distances_to(c, att, control, stats).T)


def _rows(D: np.ndarray):
    """Row slices of about BLOCK entries: each numpy call on them holds the GIL briefly."""
    step = max(1, BLOCK // max(D.shape[1], 1))
    for lo in range(0, D.shape[0], step):
        yield slice(lo, min(D.shape[0], lo + step))


def _split(D: np.ndarray, add_q: np.ndarray):
    hop = D >> 27  # HOP_Q = 2**27; -1 for no path
    lat = (D & (HOP_Q - 1)).astype(np.int64) + add_q[None, :]
    return hop, lat


def _labels(D: np.ndarray, add_q: np.ndarray, grain: int, check):
    """Distinct (links, latency + add_q[column]) values of the reached entries of ``D``
    (rows = destination) and each entry's label (int32); label T marks no path. A presence
    table over the value range, in steps of ``grain`` (every latency is a multiple of it),
    keeps this to a few passes over the table instead of sorting millions of entries."""
    lo_hi = []
    for r in _rows(D):
        hop, lat = _split(D[r], add_q)
        ok = hop >= 0
        if ok.any():
            lo_hi.append((hop[ok].min(), hop[ok].max(), lat[ok].min(), lat[ok].max()))
        check()
    pid = np.empty(D.shape, np.int32)
    if not lo_hi:
        pid[:] = 0
        return np.empty(0, np.int64), np.empty(0, np.int64), pid
    m = np.array(lo_hi, np.int64)
    h_lo, h_hi, l_lo, l_hi = int(m[:, 0].min()), int(m[:, 1].max()), int(m[:, 2].min()), \
        int(m[:, 3].max())
    width = (l_hi - l_lo) // grain + 1
    size = width * (h_hi - h_lo + 1)
    if size > 16_000_000:
        # values too spread for a table (lengths of every size at a fine step): sort them
        hop, lat = _split(D, add_q)
        reach = hop >= 0
        key = hop * (l_hi + 1) + lat
        vals, ids = np.unique(key[reach], return_inverse=True)
        pid[:] = vals.size
        pid[reach] = ids.reshape(-1)
        return vals // (l_hi + 1), vals % (l_hi + 1), pid

    def slot(r):
        hop, lat = _split(D[r], add_q)
        idx = (hop - h_lo) * width + (lat - l_lo) // grain
        idx[hop < 0] = size  # one more slot: no path
        return idx

    present = np.zeros(size + 1, bool)
    for r in _rows(D):
        present[slot(r)] = True
        check()
    slots = np.flatnonzero(present[:size])
    rank = (np.cumsum(present, dtype=np.int64) - 1).astype(np.int32)
    rank[size] = slots.size
    for r in _rows(D):
        pid[r] = rank[slot(r)]
        check()
    return h_lo + slots // width, l_lo + (slots % width) * grain, pid


def pair_distribution(c: Compiled, same, ser_bits: float, control=None) -> SwitchPairs:
    """The distribution of hops and latency over ordered GPU pairs in different scale-up
    domains. ``same``: classes x classes same-domain pair counts (each GPU with itself
    included)."""
    cl = c.classes
    att_of = cl.att_switch  # one row per class
    att, xa = np.unique(att_of, return_inverse=True)
    xa = xa.reshape(-1)
    nA = att.size
    stats: dict = {}
    D = distances_to(c, att, control, stats)  # D[y, x]: from x to y
    ns_q = np.round(c.switch_ns[c.sw][att] * Q).astype(np.int64)
    # every latency in D is a sum of these: their gcd is an exact step for the value table
    parts = np.r_[_edge_weights_q(c) - HOP_Q, ns_q]
    grain = max(1, int(np.gcd.reduce(parts[parts > 0]))) if (parts > 0).any() else 1

    # kinds of GPU endpoint: own cable + NIC, port speed
    own_q = np.round((cl.att_prop_ns + cl.nic_ns) * Q).astype(np.int64)
    kinds, kind = np.unique(np.stack([own_q, np.round(cl.att_cap * Q).astype(np.int64)]),
                            axis=1, return_inverse=True)
    kind = kind.reshape(-1)
    K = kinds.shape[1]
    cap = kinds[1] / Q
    n = np.bincount(xa * K + kind, weights=cl.count.astype(np.float64),
                    minlength=nA * K).reshape(nA, K)

    # compact (hops, latency) labels of the switch pairs; label T = no path
    # (the latency counts the first switch, x, too)
    def check() -> None:
        if control is not None:
            control.check()

    hop_v, lat_v, pid = _labels(D, ns_q, grain, check)
    T = hop_v.size
    del D
    # per (kind a, kind b, label): sum over switch pairs of n[x, a] * n[y, b], block by block
    # of rows: tab[x, label, b] = sum over y of n[y, b] (one pass per kind), then n[:, a] @ tab
    full = np.zeros((K, T + 1, K))
    rows_per = max(1, min(BLOCK // max(nA, 1), 4_000_000 // ((T + 1) * K)))
    for lo in range(0, nA, rows_per):
        r = slice(lo, min(nA, lo + rows_per))
        k_rows = r.stop - r.start
        base = (np.arange(k_rows, dtype=np.int64) * (T + 1))[:, None] + pid[r]
        tab = np.empty((k_rows * (T + 1), K))
        for b in range(K):
            wb = np.broadcast_to(n[:, b][None, :], base.shape).reshape(-1)
            tab[:, b] = np.bincount(base.reshape(-1), weights=wb, minlength=k_rows * (T + 1))
        full += np.tensordot(n[r], tab.reshape(k_rows, T + 1, K), axes=(0, 0))
        check()
    per = np.ascontiguousarray(full[:, :T, :].transpose(0, 2, 1))  # kind a, kind b, label
    unreachable = float(full[:, T, :].sum())

    # same-domain pairs talk over NVLink: take them out
    s = same.tocoo()
    u, v, cnt = s.row, s.col, s.data.astype(np.float64)
    p = pid[xa[u], xa[v]]
    ok = p < T
    np.subtract.at(per, (kind[u[ok]], kind[v[ok]], p[ok]), cnt[ok])
    unreachable -= float(cnt[~ok].sum())

    hops_t = (hop_v + 1).astype(np.int64)  # switches = links + 1
    lat_t = lat_v / Q
    slow = np.minimum(cap[:, None], cap[None, :])
    ser = np.where(slow > 0, ser_bits / np.maximum(slow, 1e-9), 0.0)
    shift = kinds[0][:, None] / Q + kinds[0][None, :] / Q + ser  # K x K
    lat = (lat_t[None, None, :] + shift[:, :, None]).reshape(-1)
    hops = np.broadcast_to(hops_t, (K, K, T)).reshape(-1)
    return SwitchPairs(hops, lat, per.reshape(-1), unreachable,
                       "exact: per attachment switch counts of cable lengths and a min-plus "
                       "chain between attachment switches", stats.get("searches", 0))
