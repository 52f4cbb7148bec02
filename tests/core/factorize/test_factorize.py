"""Distinct keys in first-seen order and each item's code: what the device table, the canvas's
group chains and its gear columns number their rows by."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from designer.core.factorize import factorize


@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 3) | st.none())))
def test_factorize_equals_first_seen_numbering(keys):
    code: dict = {}
    plain = [code.setdefault(k, len(code)) for k in keys]
    distinct, codes = factorize(keys)
    assert distinct == list(code)
    assert codes.tolist() == plain and codes.dtype.name == "int64"
    assert [distinct[c] for c in codes.tolist()] == keys
