"""Optics are counted per cage: the links that share a device's cage and an item share items
of ``per_item`` links each (a twin-port 1.6T module serves two 800G links of one cage). The
fast count (a table of cages) and its fallback (sorted keys) must both give the plain count."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import designer.core.solver.bom as bom
from designer.core.solver.bom import count_items


def _plain(dev, cage, item, per_item) -> Counter:
    links: Counter = Counter()
    for d, c, i in zip(dev.tolist(), cage.tolist(), item.tolist(), strict=True):
        if i >= 0:
            links[(d, c, i)] += 1
    out: Counter = Counter()
    for (_d, _c, i), n in links.items():
        out[i] += -(-n // int(per_item[i]))
    return out


ends = st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 9), min_size=n, max_size=n),
    st.lists(st.integers(0, 5), min_size=n, max_size=n),
    st.lists(st.integers(-1, 2), min_size=n, max_size=n),
    st.lists(st.integers(1, 4), min_size=3, max_size=3),
))


@settings(max_examples=200, deadline=None)
@given(ends, st.booleans())
def test_count_equals_the_plain_count(data, dense):
    dev, cage, item, per = (np.array(x, np.int64) for x in data)
    limit = bom.DENSE_CAGES if dense else 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bom, "DENSE_CAGES", limit)
        assert count_items(dev, cage, item, per) == _plain(dev, cage, item, per)


def test_a_cage_of_two_items_is_counted_per_item():
    """A hand-made design may put links of two media in one cage: each item is counted."""
    dev, cage = np.zeros(3, np.int64), np.zeros(3, np.int64)
    item, per = np.array([0, 1, 0]), np.array([2, 1])
    assert count_items(dev, cage, item, per) == Counter({0: 1, 1: 1})


def test_twin_port_modules_at_rack_scale():
    """GB300 NVL72 on Quantum-X800, 576 GPUs: each Q3400 cage takes two 800G links in one
    twin-port 1.6T module, each tray NIC port its own 800G module (NVIDIA B300 XDR SuperPOD
    RA: 1.6T twin-port switch optics, 800G single-port at the NIC)."""
    from designer.core.generators import generate, params_from_dict
    from designer.core.solver import solve

    r = solve(generate(params_from_dict("rail", {"gpus": 576, "gear": "gb300-ib-xdr"})))
    qty = {line.catalog_id: line.qty for line in r.bom.lines}
    switch_ends = 576 + 2 * 576  # leaf down-links, and both ends of the leaf-spine links
    assert qty["osfp-2x800g-dr8"] == switch_ends // 2
    assert qty["osfp-800g-dr4-xdr"] == 576
