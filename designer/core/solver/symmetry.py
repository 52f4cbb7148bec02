"""Colour refinement: which GPU classes look alike to the rest of the fabric.

Two GPU classes that end with the same colour see the fabric the same way, so in a
generated design (all leaves alike, all dragonfly groups alike) one shortest-path search per
colour stands for all of them. Colour refinement (1-dimensional Weisfeiler-Leman) can merge
vertices that are not truly equivalent, so callers verify on other members of a colour and
fall back to one search per class where they differ.

The graph refined: switches, GPU classes and servers; switch links labelled by capacity and
length, GPU attachments by speed and length, server membership by GPU count (so that
same-server pairs, which are left out of the statistics, are alike too).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

from designer.core.solver.compile import Compiled, mix64

_SEED = np.uint64(0x2545F4914F6CDD1D)


def _q(x: np.ndarray, scale: float = 1000.0) -> np.ndarray:
    return np.round(np.asarray(x, dtype=np.float64) * scale).astype(np.int64).view(np.uint64)


def ball2_sizes(c: Compiled, control=None) -> np.ndarray:
    """Switches within two links of each switch: tells apart switches colour refinement
    cannot (dragonfly routers whose global neighbours' links overlap differently)."""
    S = c.n_switches
    a = csr_matrix((np.ones(c.indices.size), c.indices, c.indptr), shape=(S, S))
    deg = np.diff(c.indptr)
    out = np.zeros(S, np.int64)
    # rows in chunks so no single sparse product runs long (it holds the GIL)
    start = 0
    while start < S:
        work = np.cumsum(deg[start:] * np.maximum(1, deg[start:].mean()))
        stop = start + max(1, int(np.searchsorted(work, 2_000_000)))
        block = a[start:stop]
        two = block @ a + block
        out[start:stop] = np.diff(two.indptr)
        start = stop
        if control is not None:
            control.check()
    return out


def class_colours(c: Compiled, max_rounds: int = 32, control=None,
                  extra: np.ndarray | None = None) -> np.ndarray:
    """A colour id (0..) per GPU class; classes with equal colours are presumed alike.
    ``extra``: an additional per-switch invariant for the initial colours."""
    cl = c.classes
    S, C = c.n_switches, cl.n
    if C == 0:
        return np.empty(0, np.int64)
    n_srv = int(cl.srv_server.max()) + 1 if cl.srv_server.size else 0
    V = S + C + n_srv
    # directed labelled edges
    e_src = [c.adj_src, S + cl.owner, cl.att_switch]
    e_dst = [c.indices, cl.att_switch, S + cl.owner]
    att_lab = mix64(_q(cl.att_cap, 1) ^ mix64(_q(cl.att_prop_ns)))
    sw_lab = mix64(_q(c.adj_cap, 1) ^ mix64(_q(c.adj_prop_ns)))
    e_lab = [sw_lab, att_lab ^ np.uint64(1), att_lab ^ np.uint64(2)]
    if n_srv:
        srv_v = S + C + cl.srv_server
        cls_v = S + cl.srv_class
        lab = mix64(cl.srv_count.astype(np.uint64)) ^ np.uint64(3)
        e_src += [cls_v, srv_v]
        e_dst += [srv_v, cls_v]
        e_lab += [lab, lab ^ np.uint64(4)]
    src = np.concatenate(e_src)
    dst = np.concatenate(e_dst)
    lab = np.concatenate(e_lab)
    order = np.argsort(src, kind="stable")
    src, dst, lab = src[order], dst[order], lab[order]
    starts = np.flatnonzero(np.r_[True, src[1:] != src[:-1]]) if src.size else np.empty(0, int)
    owners = src[starts]
    # initial colours: kind, tier, latency, GPUs, NIC latency
    init = np.zeros(V, np.uint64)
    init[:S] = mix64(c.switch_tier.astype(np.uint64) * np.uint64(7) + _q(c.switch_ns[c.sw]))
    if extra is not None:
        init[:S] = mix64(init[:S] ^ mix64(extra.astype(np.uint64) + np.uint64(17)))
    init[S:S + C] = mix64(
        _q(cl.count, 1) ^ mix64(_q(cl.nic_ns)) ^ mix64(_q(cl.rate, 1) + np.uint64(11))
    )
    if n_srv:
        gpus = np.bincount(cl.srv_server, weights=cl.srv_count, minlength=n_srv)
        init[S + C:] = mix64(_q(gpus, 1) + np.uint64(13))
    colour = np.unique(init, return_inverse=True)[1].reshape(-1).astype(np.uint64)
    n_colours = int(colour.max()) + 1
    for _ in range(max_rounds):
        with np.errstate(over="ignore"):
            key = mix64(lab ^ mix64(colour[dst]))
            acc = np.zeros(V, np.uint64)
            acc2 = np.zeros(V, np.uint64)
            if starts.size:
                acc[owners] = np.add.reduceat(key, starts)
                acc2[owners] = np.add.reduceat(mix64(key ^ _SEED), starts)
            sig = mix64(colour * np.uint64(0x9E3779B1) ^ acc) ^ (acc2 * np.uint64(3))
        new = np.unique(sig, return_inverse=True)[1].reshape(-1).astype(np.uint64)
        k = int(new.max()) + 1
        colour = new
        if control is not None:
            control.check()
        if k == n_colours:
            break
        n_colours = k
    cls_col = colour[S:S + C]
    return np.unique(cls_col, return_inverse=True)[1].reshape(-1).astype(np.int64)
