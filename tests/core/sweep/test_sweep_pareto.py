"""The Pareto front against its definition, checked on random point sets."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from designer.core.sweep.pareto import pareto_mask


def dominated_by_definition(v: np.ndarray, senses: list[str]) -> np.ndarray:
    """The plain double loop: row i is dominated when some j is no worse everywhere and
    better somewhere."""
    w = v * np.array([1 if s == "min" else -1 for s in senses])
    out = np.zeros(len(w), dtype=bool)
    for i in range(len(w)):
        for j in range(len(w)):
            if (w[j] <= w[i]).all() and (w[j] < w[i]).any():
                out[i] = True
    return out


@settings(max_examples=40)
@given(arrays(np.int8, st.tuples(st.integers(0, 30), st.integers(1, 3)),
              elements=st.integers(-5, 5)), st.data())
def test_front_matches_the_definition(values, data):
    senses = data.draw(st.lists(st.sampled_from(["min", "max"]), min_size=values.shape[1],
                                max_size=values.shape[1]))
    v = values.astype(float)
    front = pareto_mask(v, senses)
    assert (front == ~dominated_by_definition(v, senses)).all()
    if len(v):
        assert front.any()  # a finite set always has a non-dominated point


@given(arrays(np.float64, st.tuples(st.integers(1, 30), st.just(2)),
              elements=st.floats(0, 100)), st.lists(st.booleans(), min_size=30, max_size=30))
def test_invalid_rows_are_neither_on_the_front_nor_dominate(values, valid):
    ok = np.array(valid[: len(values)])
    front = pareto_mask(values, ["min", "max"], ok)
    assert not front[~ok].any()
    assert (front[ok] == pareto_mask(values[ok], ["min", "max"])).all()


def test_nan_rows_are_left_out_and_chunks_agree():
    rng = np.random.default_rng(0)
    v = rng.random((2500, 2))  # more than one chunk of rows
    v[5] = np.nan
    front = pareto_mask(v, ["min", "min"])
    assert not front[5]
    ok = ~np.isnan(v).any(axis=1)
    sub = v[ok]
    order = np.lexsort((sub[:, 1], sub[:, 0]))  # 2-D front by a sweep over x
    best_y, expected = np.inf, np.zeros(len(sub), dtype=bool)
    for i in order:
        if sub[i, 1] < best_y:
            expected[i], best_y = True, sub[i, 1]
    assert (front[ok] == expected).all()
