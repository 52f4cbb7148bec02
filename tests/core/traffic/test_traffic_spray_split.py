"""The split adaptive spray (split.py): a far part per (place, group of destination classes)
and the per-class rest, against the per-class chain and the path-listing spray.

With balanced striping a fat tree's spines are all unlike (each meets the pods by other
aggregation switches), so the per-class chain cannot fold them and a 131,072-GPU design
needs 951 million steps; the split sums the traffic of destinations that are still alike
and merges a pod's aggregation switches where their far traffic is even. It only regroups
the same sums, so every figure must be the listed spray's (to float rounding: 1e-9
relative here).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from designer.core.traffic import load as load_mod
from designer.core.traffic import run_load
from designer.core.traffic import split as split_mod
from designer.core.traffic import spray as spray_mod
from designer.core.traffic.network import build_network
from designer.core.traffic.patterns import make_pattern
from designer.core.traffic.quotient import cells_of
from designer.core.traffic.split import far_nodes, far_states
from designer.core.traffic.spray import spray_op
from tests.core.traffic.spray_checks import agrees, listed

PATTERNS = ("permutation", "ring", "incast", "bisection")


@functools.cache
def _balanced():
    """A 200-GPU 3-tier fat tree, balanced striping (the default): radix 12 leaves five
    pods of unequal reach to eleven spines, so no two switches above the leaves are alike."""
    p = generate(params_from_dict("fat-tree", {"gpus": 200, "tiers": 3, "radix": 12,
                                               "gpus_per_server": 4}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    return c, build_network(c)


def test_balanced_fat_tree_split_agrees_with_the_plain_chain():
    c, net = _balanced()
    cells = cells_of(net)
    assert cells.n == c.n_switches  # nothing folds: every spine unlike
    far = far_states(net, cells)
    pb = csr_matrix((cells.port_share, (cells.port_pair, np.arange(net.n_ports))),
                    shape=(cells.n_pairs, net.n_ports))
    nodes = far_nodes(net, cells, far, pb)
    assert nodes.n > nodes.n_cells and nodes.lumped.any()  # pods' aggregation merged
    for pattern in PATTERNS:
        p = make_pattern(c, pattern, 5)
        routed, a = listed(net, p.src, p.dst)
        split = spray_op(net, p.src, p.dst, split=True)
        plain = spray_op(net, p.src, p.dst, split=False)
        assert split.far is not None and plain.far is None
        agrees(split, routed, a, 5, net.link_cap.astype(np.float64))
        x = np.random.default_rng(1).random(p.src.size)
        np.testing.assert_allclose(split.rmatvec(x), plain.rmatvec(x), rtol=1e-9, atol=1e-12)


def test_unlike_spines_carry_unequal_loads_and_the_split_follows():
    """Spines meet the pods by different aggregation switches, so under a permutation the
    links above the aggregation carry unequal loads: a split that spread a merged group's
    traffic evenly over the spines (as if they were alike) would get them wrong."""
    c, net = _balanced()
    p = make_pattern(c, "permutation", 2)
    _, a = listed(net, p.src, p.dst)
    load = spray_op(net, p.src, p.dst, split=True).rmatvec(np.ones(p.src.size))
    want = a.T @ np.ones(p.src.size)
    np.testing.assert_allclose(load, want, rtol=1e-9, atol=1e-12)
    layer = np.asarray(net.layers)[net.link_layer[: net.n_ports]]
    top = want[: net.n_ports][layer == layer[np.argmax(want[: net.n_ports])]]
    used = top[top > 0]
    assert used.size > 1 and used.max() > used.min() * (1 + 1e-6)


def test_load_results_match_with_the_split(monkeypatch):
    """The whole load figures (rates, completion, utilisation, queueing) with the split,
    against listing every path: the fill rounds' sparse paths run over both parts."""
    c, net = _balanced()
    for pattern in PATTERNS:
        with monkeypatch.context() as m:
            m.setattr(load_mod, "spray_op", functools.partial(spray_op, split=True))
            m.setattr(spray_mod, "LISTED_MAX", 0)  # factored, not written out
            fast = run_load(c, pattern, "adaptive", seed=3, net=net)
        with monkeypatch.context() as m:
            m.setattr(load_mod, "applies", lambda *_: False)
            slow = run_load(c, pattern, "adaptive", seed=3, net=net)
        np.testing.assert_allclose(fast.t, slow.t, rtol=1e-9, atol=1e-12)
        assert fast.slowdown == pytest.approx(slow.slowdown, rel=1e-9)
        assert fast.max_utilisation == pytest.approx(slow.max_utilisation, rel=1e-9, abs=1e-12)
        assert fast.by_tier == pytest.approx(slow.by_tier, rel=1e-9, abs=1e-12)
        assert fast.tail.p99_us == pytest.approx(slow.tail.p99_us, rel=1e-9, abs=1e-12)


def test_split_taken_on_large_designs_and_past_the_limit(monkeypatch):
    """By default the split is tried on large designs (taken where it is the smaller) and
    where the per-class chain would not fit; the design then runs instead of being refused,
    with the same figures."""
    c, net = _balanced()
    p = make_pattern(c, "permutation", 0)
    plain = spray_op(net, p.src, p.dst)
    assert plain.far is None  # small: the per-class chain
    x = np.random.default_rng(0).random(p.src.size)
    cells = cells_of(net)
    with monkeypatch.context() as m:
        m.setattr(spray_mod, "SPRAY_STEPS_LIMIT", c.classes.n * cells.nxt.size - 1)
        split = spray_op(net, p.src, p.dst)
    assert split.far is not None
    np.testing.assert_allclose(split.rmatvec(x), plain.rmatvec(x), rtol=1e-9, atol=1e-12)
    with monkeypatch.context() as m:
        m.setattr(spray_mod, "SPLIT_FROM", 0)
        assert spray_op(net, p.src, p.dst).far is not None


def test_links_that_fill_together_are_filled_as_one(monkeypatch):
    """Ports reached through the same bundles fill at the same round; the filling holds them
    as one link and finds the same rates. A capacity out of proportion (a port halved)
    splits its group apart, and the rates still follow the ports."""
    from designer.core.traffic.maxmin import max_min_fair_op

    c, net = _balanced()
    p = make_pattern(c, "permutation", 4)
    op = spray_op(net, p.src, p.dst, split=True)
    demand = net.line_rate[p.src] * p.demand
    cap = net.link_cap.astype(np.float64)
    on, cap_on = op.grouped(cap)
    assert on.n_ports < op.n_ports and cap_on.sum() == pytest.approx(cap.sum())
    size = np.bincount(on.port_group)
    assert size.max() >= 2
    halved = cap.copy()
    halved[np.flatnonzero(size[on.port_group] >= 2)[0]] *= 0.5
    for caps in (cap, halved):
        fast = max_min_fair_op(op, demand, caps, op.reached)
        with monkeypatch.context() as m:
            m.setattr(spray_mod.SprayOp, "grouped", lambda self, cc: (self, cc))
            slow = max_min_fair_op(op, demand, caps, op.reached)
        np.testing.assert_allclose(fast.t, slow.t, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(fast.load, slow.load, rtol=1e-9, atol=1e-9)
    assert op.grouped(halved)[0].n_ports > on.n_ports


def test_a_split_past_memory_is_refused_in_words(monkeypatch):
    """The split is the last step before refusing: where its own tables would not fit
    either, the spray is refused in one line as before (what to use instead)."""
    from designer.core.traffic.routing import RoutingError

    c, net = _balanced()
    p = make_pattern(c, "permutation", 0)
    monkeypatch.setattr(spray_mod, "EXIT_TABLE_MAX", 10)
    with pytest.raises(RoutingError, match=r"million steps.*--routing ecmp"):
        spray_op(net, p.src, p.dst, split=True)
    monkeypatch.setattr(spray_mod, "EXIT_TABLE_MAX", 10**9)
    monkeypatch.setattr(spray_mod, "SPRAY_STEPS_LIMIT", 10)
    with pytest.raises(RoutingError, match=r"million steps.*--routing ecmp"):
        run_load(c, "permutation", "adaptive", net=net)


def _random_rows(data, n_rows: int, n_cols: int) -> csr_matrix:
    """Rows drawn from a few distinct ones, so that many repeat (as the far part's climbs
    do from every destination group)."""
    kinds = data.draw(st.integers(1, 6))
    base = []
    for _ in range(kinds):
        cols = data.draw(st.lists(st.integers(0, n_cols - 1), max_size=5, unique=True))
        vals = data.draw(st.lists(st.sampled_from([0.25, 0.5, 1.0, 1.5, 1 / 3]),
                                  min_size=len(cols), max_size=len(cols)))
        base.append(dict(zip(cols, vals, strict=True)))
    pick = data.draw(st.lists(st.integers(0, kinds - 1), min_size=n_rows, max_size=n_rows))
    r = [i for i, k in enumerate(pick) for _ in base[k]]
    c = [col for k in pick for col in base[k]]
    v = [val for k in pick for val in base[k].values()]
    m = csr_matrix((v, (r, c)), shape=(n_rows, n_cols))
    m.sum_duplicates()
    return m


@given(data=st.data(), n_rows=st.integers(1, 40), n_cols=st.integers(1, 12),
       collide=st.booleans())
@settings(max_examples=120, deadline=None)
def test_alike_rows_are_exactly_the_rows_with_equal_entries(data, n_rows, n_cols, collide):
    """Rows are grouped by their product with a probe vector, then checked entry by entry.
    With the random probe the classes are exactly the distinct rows; with a zero probe every
    row collides, and the check must still split every unlike row off (a class never holds
    two different rows), whatever blocks of entries it compares at a time. Classes come in
    the order of their first rows either way."""
    m = _random_rows(data, n_rows, n_cols)
    probe = np.zeros(n_cols) if collide else None
    block = spray_mod._ALIKE_BLOCK
    spray_mod._ALIKE_BLOCK = data.draw(st.sampled_from([1, 3, 7, block]))  # blocks of rows
    try:
        rows, first = spray_mod._alike_rows(m, probe)
    finally:
        spray_mod._ALIKE_BLOCK = block
    dense = m.toarray()
    for r in range(n_rows):
        assert np.array_equal(dense[r], dense[first[rows[r]]])  # alike its class's first
        assert first[rows[r]] <= r
    assert np.all(np.diff(first) > 0)
    assert np.array_equal(rows[first], np.arange(first.size))
    if not collide:
        distinct = np.unique(dense, axis=0).shape[0]
        assert first.size == distinct


@given(deg=st.lists(st.integers(0, 4), min_size=1, max_size=12), groups=st.integers(1, 4),
       data=st.data())
@settings(max_examples=80, deadline=None)
def test_valid_capacity_sums_each_cells_valid_hops(deg, groups, data):
    """A merged group of cells stands for a destination group only when its cells send the
    same capacity over the hops valid for it: per (group, cell), the capacity units of the
    cell's valid hops, cells without hops included (zero)."""
    ptr = np.r_[0, np.cumsum(deg)]
    H = int(ptr[-1])
    capq = np.array(data.draw(st.lists(st.integers(1, 800_000), min_size=H, max_size=H)),
                    np.int64)
    valid = np.array(data.draw(st.lists(st.booleans(), min_size=groups * H,
                                        max_size=groups * H)), bool).reshape(groups, H)
    cells = np.array(data.draw(st.lists(st.integers(0, len(deg) - 1), min_size=1,
                                        max_size=len(deg), unique=True)), np.int64)
    got = split_mod._valid_capacity(valid, capq, ptr, cells)
    for g in range(groups):
        for j, c in enumerate(cells.tolist()):
            hops = range(ptr[c], ptr[c + 1])
            assert got[g, j] == sum(int(capq[h]) for h in hops if valid[g, h])


@pytest.mark.parametrize("short", [1, 4, 64])
def test_far_loads_held_off_the_short_list_give_the_same_rates(monkeypatch, short):
    """The filling gets the far part's loads for its short list of lowest links round by
    round and the rest when the list is drawn again (``HeldFar``). With a short list of
    one to 64 links (the design has hundreds), most far loads are held for many rounds and
    released at the redraws: the rates must be those of the listed spray's filling."""
    from designer.core.traffic import maxmin
    from designer.core.traffic.spray import HeldFar

    c, net = _balanced()
    releases = []
    release = HeldFar.release
    monkeypatch.setattr(HeldFar, "release", lambda self: releases.append(1) or release(self))
    monkeypatch.setattr(maxmin, "CANDIDATES_MIN", short)
    for pattern in ("permutation", "bisection"):
        p = make_pattern(c, pattern, 7)
        op = spray_op(net, p.src, p.dst, split=True)
        demand = net.line_rate[p.src] * p.demand
        cap = net.link_cap.astype(np.float64)
        routed, _ = listed(net, p.src, p.dst)
        slow = maxmin.max_min_fair(routed.flow, routed.link, routed.frac, demand, cap,
                                   routed.reached)
        assert isinstance(op.grouped(cap)[0].held_loads(), HeldFar)
        releases.clear()
        fast = maxmin.max_min_fair_op(op, demand, cap, op.reached)
        assert fast.rounds > 2 and len(releases) > 2
        np.testing.assert_allclose(fast.t, slow.t, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(fast.load, slow.load, rtol=1e-9, atol=1e-9)


def test_flows_on_links_are_those_with_a_positive_row():
    """``on_links`` answers from the NIC entries (every flow with a path leaves its GPU over
    a NIC) and falls back to the whole product when a reached flow has none: either way,
    the flows whose row of the incidence sums above zero."""
    from dataclasses import replace

    from designer.core.traffic.routing import Routed

    c, net = _balanced()
    for pattern in PATTERNS:
        p = make_pattern(c, pattern, 3)
        op = spray_op(net, p.src, p.dst, split=True)
        want = op.matvec(np.ones(net.n_links)) > 0
        assert np.array_equal(op.on_links(), want) and want.any()
        # the NIC entries of one flow gone: its chain still crosses links
        f = int(np.flatnonzero(want)[0])
        n = op.nic
        keep = n.flow != f
        bare = replace(op, nic=Routed(flow=n.flow[keep], link=n.link[keep], frac=n.frac[keep],
                                      reached=n.reached))
        assert np.array_equal(bare.on_links(), bare.matvec(np.ones(net.n_links)) > 0)
        assert bare.on_links()[f]
