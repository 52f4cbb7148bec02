"""Checks shared by the spray tests: the factored spray (plain chain or split) against the
path-listing one, product by product, on the sparse paths a filling round takes, and on the
grouped ports the filling runs over."""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

from designer.core.traffic.routing import route_spray


def listed(net, src, dst):
    """The path-listing spray and its incidence (flows x links)."""
    r = route_spray(net, src, dst, net.c.gpu_class[dst])
    return r, csr_matrix((r.frac, (r.flow, r.link)), shape=(src.size, net.n_links))


def agrees(op, routed, a, seed, cap):
    """``op`` gives the incidence ``a`` (of ``routed``) in every product it offers."""
    assert (op.reached == routed.reached).all()
    rng = np.random.default_rng(seed)
    v = rng.random(a.shape[1])
    x = rng.random(a.shape[0])
    # A v and A^T x: the same sums per flow and per link (only the order of additions differs)
    np.testing.assert_allclose(op.matvec(v), a @ v, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(op.rmatvec(x), a.T @ x, rtol=1e-9, atol=1e-9)
    # a filling round's few links and few flows take the sparse paths
    few_links = np.where(rng.random(a.shape[1]) < 0.05, v, 0.0)
    few_flows = np.where(rng.random(a.shape[0]) < 0.05, x, 0.0)
    few_flows[rng.integers(a.shape[0])] = 1.0
    np.testing.assert_allclose(op.matvec(few_links), a @ few_links, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(op.rmatvec(few_flows), a.T @ few_flows, rtol=1e-9, atol=1e-9)
    flows = np.flatnonzero(few_flows)
    links, load = op.spread(flows, few_flows[flows])
    want = a[flows].T @ few_flows[flows]
    np.testing.assert_allclose(np.bincount(links, load, minlength=a.shape[1]), want,
                               rtol=1e-9, atol=1e-9)
    links = np.flatnonzero(few_links)
    crossing = np.unique(a[:, links].nonzero()[0])
    np.testing.assert_array_equal(np.unique(op.flows_touching(links)), crossing)
    _grouped_agrees(op, a, cap, flows, few_flows[flows])
    # written out: the same incidence, entry by entry; the size check counts before
    # writing, so a limit one below what it writes is refused
    w = op.listed(10**9)
    assert w is not None and (w.reached == routed.reached).all()
    written = csr_matrix((w.frac, (w.flow, w.link)), shape=a.shape)
    np.testing.assert_allclose(written.toarray(), a.toarray(), rtol=1e-9, atol=1e-12)
    assert op.listed(0) is None or not a.nnz
    assert w.flow.size == 0 or op.listed(w.flow.size - 1) is None


def _grouped_agrees(op, a, cap, flows, x):
    """Over the port groups the filling holds as one link (ports plus NIC links after
    them), a round's spread is the incidence summed by group: sorted, distinct, non-zero."""
    on, cap_on = op.grouped(cap)
    if on is op:
        return
    P, L = op.n_ports, a.shape[1]
    to = np.concatenate([on.port_group, on.n_ports + np.arange(L - P)])
    merge = csr_matrix((np.ones(L), (np.arange(L), to)), shape=(L, on.n_links))
    np.testing.assert_allclose(cap_on, cap @ merge, rtol=1e-12)
    links, load = on.spread(flows, x)
    assert (np.diff(links) > 0).all() and (load != 0).all()
    want = (a @ merge)[flows].T @ x
    np.testing.assert_allclose(np.bincount(links, load, minlength=on.n_links), want,
                               rtol=1e-9, atol=1e-9)
