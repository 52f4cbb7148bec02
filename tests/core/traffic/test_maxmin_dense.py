"""The dense progressive filling (the cluster replay's small solves) gives the sparse one's
figures bit for bit: the replay's recorded figures depend on every bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.traffic.maxmin import add_sparse, combine, max_min_fair, max_min_fair_dense


@st.composite
def incidences(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    F = draw(st.integers(1, 300))
    L = draw(st.integers(1, 60))
    density = draw(st.floats(0.02, 0.8))
    # loads of every scale, with the round numbers a ring's units give (ties between links)
    values = rng.choice([1.0, 2.0, 400.0, 0.1, 1 / 3, 800.0], (F, L))
    values = np.where(rng.random((F, L)) < 0.5, values, rng.uniform(0.0, 500.0, (F, L)))
    a = np.where(rng.random((F, L)) < density, values, 0.0)
    empty = ~(a > 0).any(axis=1)
    a[empty, rng.integers(0, L, int(empty.sum()))] = 1.0
    cap = rng.choice([400.0, 800.0, 1600.0], L) * rng.uniform(0.01, 1.5)
    return a, cap


@settings(max_examples=200, deadline=None)
@given(incidences())
def test_dense_filling_is_the_sparse_one_bit_for_bit(case):
    a, cap = case
    f, link = np.nonzero(a)
    sparse = max_min_fair(f, link, a[f, link], np.ones(a.shape[0]), cap)
    dense = max_min_fair_dense(a, cap)
    assert np.array_equal(dense.t, sparse.t)
    assert np.array_equal(dense.load, sparse.load)
    assert dense.rounds == sparse.rounds


def test_one_link_sums_in_flow_order():
    """A single link's growth is added flow by flow, not pairwise: with these loads the two
    orders round differently."""
    a = np.array([[1e16]] + [[1.0]] * 8 + [[1e16]])
    f, link = np.nonzero(a)
    cap = np.array([3e16])
    sparse = max_min_fair(f, link, a[f, link], np.ones(a.shape[0]), cap)
    dense = max_min_fair_dense(a, cap)
    assert np.array_equal(dense.load, sparse.load)


def test_the_fair_levels():
    """Two jobs on a 400 Gb/s link asking 400 each, one of them alone on an 800 one: each
    gets half (the textbook max-min split), the link is full."""
    a = np.array([[400.0, 0.0], [400.0, 400.0]])
    fair = max_min_fair_dense(a, np.array([400.0, 800.0]))
    assert fair.t.tolist() == [0.5, 0.5]
    assert fair.load.tolist() == [400.0, 200.0]


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 50_000), m=st.integers(0, 3_000), seed=st.integers(0, 2**16),
       zeros=st.booleans())
def test_combine_sums_equal_columns_as_bincount(n, m, seed, zeros):
    """``combine`` (a kept scratch vector for a few columns of many, bincount otherwise)
    gives bincount's sums bit for bit, columns ascending, zero sums left out, and leaves
    its scratch zero for the next call (two calls in a row, different sizes)."""
    rng = np.random.default_rng(seed)
    for size in (n, max(1, n // 3)):
        cols = rng.integers(0, size, m)
        w = rng.random(m) * rng.choice([1e-300, 1.0, 1e300], m)
        if zeros and m:
            w[rng.random(m) < 0.3] = 0.0
        got_i, got_v = combine(cols, w, size)
        dense = np.bincount(cols, weights=w, minlength=size)
        want = np.flatnonzero(dense)
        assert got_i.tolist() == want.tolist()
        assert got_v.tolist() == dense[want].tolist()


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 5_000), ma=st.integers(0, 400), mb=st.integers(0, 400),
       seed=st.integers(0, 2**16), cancel=st.booleans())
def test_add_sparse_is_the_sum_of_two_sparse_vectors(n, ma, mb, seed, cancel):
    """Two sparse vectors (sorted distinct indices), either the larger, sharing some
    indices or none, some sums cancelling to zero: the dense sum's non-zeros, in order; a
    shared index adds its two values (a + b, the same in either order)."""
    rng = np.random.default_rng(seed)
    ai = np.unique(rng.integers(0, n, ma))
    bi = np.unique(np.concatenate([rng.choice(ai, min(ai.size, mb // 2)) if ai.size else
                                   ai, rng.integers(0, n, mb - mb // 2)]))
    av, bv = rng.random(ai.size) + 0.1, rng.random(bi.size) + 0.1
    if cancel and ai.size:  # a shared index whose values cancel
        shared = np.intersect1d(ai, bi)
        if shared.size:
            bv[np.searchsorted(bi, shared[0])] = -av[np.searchsorted(ai, shared[0])]
    dense = np.zeros(n)
    dense[ai] += av
    dense[bi] += bv
    want = np.flatnonzero(dense)
    for got_i, got_v in (add_sparse(ai, av, bi, bv), add_sparse(bi, bv, ai, av)):
        assert got_i.tolist() == want.tolist()
        assert got_v.tolist() == dense[want].tolist()
