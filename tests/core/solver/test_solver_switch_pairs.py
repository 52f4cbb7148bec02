"""The switch-pair method (cables of their own lengths) against pair-by-pair references.

Cables given random lengths (as a floor plan does: every cable its own length) break the
symmetry the class-by-class search relies on; the switch-pair method must still give the
exact distribution. The reference runs Dijkstra from every GPU (tests/core/solver_reference).
"""

from __future__ import annotations

from types import SimpleNamespace

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.physical.floor import Physical
from designer.core.physical.placement import default_floor
from designer.core.solver import paths, solve, switch_pairs
from designer.core.solver.compile import HOP_WEIGHT, compile_project
from tests.core.solver_cases import SMALL, base, edited_small_fabrics
from tests.core.solver_reference import assert_paths_match

SOLD_M = (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0)  # few lengths, like a catalog


def _with_lengths(p, seed: int, sold: bool):
    rng = np.random.default_rng(seed)
    n = len(p.fabric.links)
    lengths = rng.choice(SOLD_M, n) if sold else rng.uniform(0.5, 80.0, n)
    links = p.fabric.links.replace(np.arange(n), length_m=lengths)
    return p.with_fabric(p.fabric.with_links(links))


def _solve_forced(p, monkeypatch_like):
    monkeypatch_like.setattr(paths, "SEARCH_ALL_WORK", 0)
    monkeypatch_like.setattr(paths, "FORCE_SWITCH_PAIRS", True)
    return solve(p)


def _check(p, mp):
    c = compile_project(p, p.catalog(builtin_catalog()))
    if not switch_pairs.tables_fit(c):
        return None
    r = _solve_forced(p, mp)
    if switch_pairs.applies(c):
        assert r.path_method.startswith("exact: per attachment switch")
    else:  # GPUs on two cables (two planes): every class's row from the distance table
        assert r.path_method.startswith("every GPU class, from a table")
    return assert_paths_match(r, p)


class _Patch:
    """monkeypatch for hypothesis examples (a function-scoped fixture is not reset per
    example): set attributes, undo on exit."""

    def __init__(self) -> None:
        self.saved: list = []

    def setattr(self, obj, name, value) -> None:
        self.saved.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        for obj, name, value in reversed(self.saved):
            setattr(obj, name, value)


@pytest.mark.parametrize("i", range(len(SMALL)))
def test_generated_small_fabrics_with_sold_lengths(i):
    with _Patch() as mp:
        _check(_with_lengths(base(i), seed=i, sold=True), mp)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_small_fabrics(), st.integers(0, 2**32 - 1), st.booleans())
def test_edited_fabrics_with_random_lengths(p, seed, sold):
    with _Patch() as mp:
        _check(_with_lengths(p, seed, sold), mp)


def test_a_placed_floor_plan_agrees_with_the_class_by_class_search(monkeypatch):
    # a DGX SuperPOD-style rail design placed on the default floor plan: lengths from racks
    cat = builtin_catalog()
    p = generate(params_from_dict("rail", {"sus": 2}))
    p = p.evolve(physical=Physical(floor=default_floor(p, cat)))
    monkeypatch.setattr(paths, "SEARCH_ALL_WORK", 0)
    monkeypatch.setattr(paths, "FORCE_SWITCH_PAIRS", False)
    by_class = solve(p)
    monkeypatch.setattr(paths, "FORCE_SWITCH_PAIRS", True)
    by_pairs = solve(p)
    assert by_pairs.path_method != by_class.path_method
    assert by_pairs.hops.to_json() == by_class.hops.to_json()
    a, b = by_pairs.latency.to_json(), by_class.latency.to_json()
    for k in ("min", "mean", "p50", "p99", "max"):
        assert a[k] == pytest.approx(b[k], abs=2e-4), k
    assert a["histogram"]["pairs"] == b["histogram"]["pairs"]
    assert by_pairs.latency.max_us > by_pairs.latency.p50_us  # lengths spread the tail


def test_two_planes_with_a_floor_plan_read_rows_from_the_distance_table():
    p = generate(params_from_dict(*SMALL[2]))
    cat = p.catalog(builtin_catalog())
    assert (np.diff(compile_project(p, cat).classes.ptr) == 2).all()
    plain = solve(p)
    placed = p.evolve(physical=Physical(floor=default_floor(p, cat)))
    with _Patch() as mp:
        r = _check(placed, mp)
    assert r is not None and r.hops.to_json() == plain.hops.to_json()


def test_lengths_do_not_change_hops_and_default_lengths_keep_the_symmetric_search():
    p = generate(params_from_dict("fat-tree", {"gpus": 16384, "tiers": 3}))
    plain = solve(p)
    assert plain.path_method.startswith("one search per colour")
    placed_p = p.evolve(physical=Physical(floor=default_floor(p, builtin_catalog())))
    placed = solve(placed_p)
    assert placed.path_method.startswith("exact: per attachment switch")
    # every leaf pair is at most four links apart: the min-plus chain, no search
    s = paths.path_stats(compile_project(placed_p, builtin_catalog()))
    assert s.searches == 0 and s.method == placed.path_method
    assert placed.hops.to_json() == plain.hops.to_json()
    assert placed.latency.max_us != plain.latency.max_us


# the distance table alone, on random switch graphs: walks of at most four links by the
# min-plus chain, the rest by a search; compared with Dijkstra from every attachment switch
@st.composite
def switch_graphs(draw):
    n = draw(st.integers(2, 24))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["path", "random", "tree"]))
    if kind == "path":
        g = nx.path_graph(n)
    elif kind == "tree":
        g = nx.random_labeled_tree(n, seed=seed) if n > 1 else nx.empty_graph(n)
    else:
        g = nx.gnp_random_graph(n, draw(st.floats(0.05, 0.6)), seed=seed)
    edges = np.array(list(g.edges()), np.int64).reshape(-1, 2)
    src = np.r_[edges[:, 0], edges[:, 1]]
    dst = np.r_[edges[:, 1], edges[:, 0]]
    prop = np.tile(rng.choice([5.0, 10.0, 25.0, 150.0, 7.5], edges.shape[0]), 2)
    order = np.lexsort((dst, src))
    src, dst, prop = src[order], dst[order], prop[order]
    indptr = np.r_[0, np.cumsum(np.bincount(src, minlength=n))]
    k = draw(st.integers(1, n))
    att = np.sort(rng.choice(n, k, replace=False))
    c = SimpleNamespace(n_switches=n, sw=np.arange(n), adj_src=src, indices=dst,
                        indptr=indptr, adj_prop_ns=prop,
                        switch_ns=rng.choice([100.0, 130.0, 250.0], n))
    return c, att


@settings(max_examples=120, deadline=None)
@given(switch_graphs())
def test_attachment_distances_equal_dijkstra(case):
    c, att = case
    d = switch_pairs.attachment_distances(c, att)
    w = HOP_WEIGHT + c.adj_prop_ns + c.switch_ns[c.indices]
    ref = dijkstra(csr_matrix((w, c.indices, c.indptr), shape=(c.n_switches,) * 2),
                   indices=att)[:, att]
    reach = np.isfinite(ref)
    assert ((d >= 0) == reach).all()
    h = np.floor(ref[reach] / HOP_WEIGHT + 1e-9)
    assert (d[reach] // switch_pairs.HOP_Q == h).all()
    lat = (d[reach] % switch_pairs.HOP_Q) / switch_pairs.Q
    assert lat == pytest.approx(ref[reach] - h * HOP_WEIGHT, abs=1e-3)


def test_a_path_too_long_for_the_integer_table_is_refused():
    # a line of eight switches with 6 km links (30 us each): four links fit under a hop of
    # the table, seven do not, so the method steps aside instead of mixing hops and latency
    n = 8
    src = np.r_[np.arange(n - 1), np.arange(1, n)]
    dst = np.r_[np.arange(1, n), np.arange(n - 1)]
    order = np.lexsort((dst, src))
    c = SimpleNamespace(n_switches=n, sw=np.arange(n), adj_src=src[order], indices=dst[order],
                        indptr=np.r_[0, np.cumsum(np.bincount(src, minlength=n))],
                        adj_prop_ns=np.full(2 * (n - 1), 30_000.0), switch_ns=np.zeros(n))
    with pytest.raises(switch_pairs.OutOfRange):
        switch_pairs.attachment_distances(c, np.array([0, n - 1]))
    near = switch_pairs.attachment_distances(c, np.array([0, 3]))
    assert near[0, 1] == 3 * switch_pairs.HOP_Q + 90_000 * switch_pairs.Q
