"""Cable lengths come from the floor the plan has: a rack taller than the geometry's default
lifts the overhead trays, and no cable is ordered shorter than the run it takes over them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.physical.floor import Slot
from designer.core.physical.lengths import cable_lengths, positions, straight_distance
from designer.core.physical.summary import with_floor

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def placed():
    p = generate(params_from_dict("rail", {"sus": 2, "servers_per_su": 8, "gear": "roce-400"}))
    cat = p.catalog(CAT)
    p = with_floor(p, cat)
    e = p.fabric.links.expand()
    return p, cat, e["a"].astype(np.int64), e["b"].astype(np.int64)


def _run_over_the_trays(floor, pos, a, b) -> np.ndarray:
    """The run a cable between two racks takes: up to trays above the tallest rack, along,
    and down (same rack: straight up or down), plus the slack; the test's own arithmetic."""
    g = floor.geometry
    tallest = max(floor.rack_u(r) for _, _, r in floor.racks())
    tray = g.rack_base_m + tallest * g.u_height_m + g.tray_above_rack_m
    za, zb = pos.z[a], pos.z[b]
    across = (np.abs(pos.x[a] - pos.x[b]) + np.abs(pos.y[a] - pos.y[b]) + (tray - za)
              + (tray - zb) + g.between_rack_slack_m)
    return np.where(pos.rack[a] == pos.rack[b], np.abs(za - zb) + g.in_rack_slack_m, across)


def _taller(floor, heights: dict[int, int], top: bool):
    """``floor`` with the racks of row ``k`` ``heights[k]`` U tall, every device of a taller
    row lifted to its top when ``top``."""
    rows = list(floor.rows)
    for k, u in heights.items():
        if k < len(rows):
            rows[k] = rows[k].model_copy(update={"racks": tuple(
                r.model_copy(update={"u": u}) for r in rows[k].racks)})
    height = {r.name: floor.rack_u(r) for row in rows for r in row.racks}
    tall = {r.name for k in heights if k < len(rows) for r in rows[k].racks}
    place = {d: Slot(rack=s.rack, u=max(1, height[s.rack] - 3)) if top and s.rack in tall
             else s for d, s in floor.placement.items()}
    return floor.model_copy(update={"rows": tuple(rows), "placement": place})


def test_a_row_of_60u_racks_orders_cables_for_the_trays_above_them(placed):
    p, cat, a, b = placed
    floor = _taller(p.physical.floor, {0: 60}, top=True)
    pos = positions(floor, p.fabric, cat)
    ordered = cable_lengths(floor, p.fabric, cat, a, b, pos)
    need = _run_over_the_trays(floor, pos, a, b)
    # with the trays at the default rack's height, 138 of these cables were ordered 3 m
    # for a run of 3.84 m
    assert not (ordered < need - 1e-9).any()
    assert (ordered >= straight_distance(pos, a, b) - 1e-9).all()


@given(heights=st.dictionaries(st.integers(0, 3), st.integers(1, 60), max_size=4),
       top=st.booleans())
def test_no_cable_is_ordered_shorter_than_its_run(placed, heights, top):
    p, cat, a, b = placed
    floor = _taller(p.physical.floor, heights, top)
    pos = positions(floor, p.fabric, cat)
    ordered = cable_lengths(floor, p.fabric, cat, a, b, pos)
    need = _run_over_the_trays(floor, pos, a, b)
    ok = ~np.isnan(ordered)
    assert (ordered[ok] >= need[ok] - 1e-9).all()
    assert (ordered[ok] >= straight_distance(pos, a, b)[ok] - 1e-9).all()
