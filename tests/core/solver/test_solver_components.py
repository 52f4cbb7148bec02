"""Graph searches in numpy (solver/components.py, solver/layered.py) against scipy's."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, dijkstra

from designer.core.catalog import builtin_catalog
from designer.core.solver.compile import HOP_WEIGHT, compile_project
from designer.core.solver.components import connected_labels, csr_labels
from designer.core.solver.layered import layered_distances
from tests.core.solver_cases import edited_small_fabrics


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 60), data=st.data())
def test_the_same_components_as_scipy(n, data):
    m = data.draw(st.integers(0, 3 * n))
    a = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    b = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), np.int64)
    g = csr_matrix((np.ones(m), (a, b)), shape=(n, n))
    want_n, want = connected_components(g, directed=False)
    got_n, got = connected_labels(n, a, b)
    assert got_n == want_n
    assert (got == want).all()  # numbered alike: by each component's lowest node
    sym = (g + g.T).tocsr()
    assert (csr_labels(sym.indptr, sym.indices)[1] == want).all()


def test_a_long_path_in_reverse_order_is_one_component():
    n = 5000  # the worst order for hooking by smallest root: still O(log n) shortcuts
    nodes = np.arange(n)[::-1]
    count, labels = connected_labels(n, nodes[:-1], nodes[1:])
    assert count == 1 and (labels == 0).all()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(project=edited_small_fabrics(), data=st.data())
def test_layered_search_is_dijkstra_on_the_hop_weighted_graph(project, data):
    """Fewest switches, then least latency: the hops stage's weights, searched level by level,
    give what Dijkstra gives on them."""
    c = compile_project(project, project.catalog(builtin_catalog()))
    S = c.n_switches
    if S == 0:
        return
    lat = c.adj_prop_ns + c.switch_ns[c.sw][c.indices]
    g = csr_matrix((HOP_WEIGHT + lat, c.indices, c.indptr), shape=(S, S))
    src = np.array(data.draw(st.lists(st.integers(0, S - 1), min_size=1, max_size=5)))
    got = layered_distances(c.indptr, c.indices, lat, src)
    want = np.atleast_2d(dijkstra(g, directed=True, indices=src))
    assert got is not None
    assert (np.isinf(got) == np.isinf(want)).all()
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-12)


def test_latency_past_one_hop_weight_is_left_to_dijkstra():
    indptr, indices = np.array([0, 1, 2]), np.array([1, 0])
    assert layered_distances(indptr, indices, np.array([2e9, 2e9]), np.array([0])) is None
