"""The BOM's rack count of a design not yet placed (``rack_count.py``) is the default floor
plan's, without making the plan: across generated kinds and sizes, and on every bundled
example, whose bill totals stay what they were."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.generators import GeneratorError, generate, params_from_dict
from designer.core.physical.placement import default_floor
from designer.core.physical.rack_count import default_rack_count
from designer.core.physical.sections import for_new_design
from designer.core.solver import solve
from tests._paths import PROJECTS

CAT = builtin_catalog()

# each bundled example's bill total, as the plan-built rack count gave it
TOTALS_USD = {
    "amd-mi355x-1024-roce-400": 8_448_070.0,
    "b300-2-plane-roce-800": 15_745_352.0,
    "b300-superpod-4su-ib-xdr": 18_074_160.0,
    "dgx-h100-superpod-3su-ufm": 6_757_888.0,
    "dgx-superpod-4su-ib-ndr": 8_723_232.0,
    "dgx-superpod-4su-roce-400": 9_392_160.0,
    "dgx-superpod-64su-ib-ndr": 196_432_400.0,
    "dragonfly-1056-gpus": 15_138_596.0,
    "gb200-nvl72-superpod-4su-ib-ndr": 28_083_992.0,
    "k-ary-fat-tree-k8": 1_717_880.0,
    "roce-fat-tree-24k-oversubscribed": 320_079_744.0,
}


def _plan_racks(project, catalog) -> int:
    return len(default_floor(project, catalog).racks())


@pytest.mark.parametrize("name", sorted(TOTALS_USD))
def test_bundled_examples_count_and_total_unchanged(name: str) -> None:
    project = load_project(PROJECTS / f"{name}.fabric.json", CAT)
    cat = project.catalog(CAT)
    assert default_rack_count(project, cat) == _plan_racks(project, cat)
    assert solve(project, catalog=CAT).bom.total_usd == TOTALS_USD[name]


SERVERS = ["dgx-h100", "dgx-b200", "dgx-b300", "hgx-h100-oem", "gpu-server-8", "mi355x-8",
           "gb200-nvl72", "gb300-nvl72"]


@st.composite
def designs(draw):
    kind = draw(st.sampled_from(["rail", "fat-tree", "dragonfly", "rail-only"]))
    values: dict = {"gear": draw(st.sampled_from(["ib-ndr", "roce-400", "ib-xdr"]))}
    if kind == "rail":
        values["sus"] = draw(st.integers(1, 6))
        if draw(st.booleans()):
            values["servers_per_su"] = draw(st.integers(1, 40))
        if draw(st.booleans()):
            values["tiers"] = 3  # pods of SUs: a pod's spines get a row of their own
    elif kind == "fat-tree":
        values["gpus"] = draw(st.sampled_from([64, 128, 512, 1024, 2048]))
        values["placement"] = draw(st.sampled_from(["rail", "tor"]))
    elif kind == "dragonfly":
        values["groups"] = draw(st.integers(2, 8))
    else:
        values["gpus"] = draw(st.sampled_from([64, 256, 1024]))
    if draw(st.booleans()):
        values["server"] = draw(st.sampled_from(SERVERS))
    return kind, values


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(designs())
def test_count_equals_the_plans_racks(design) -> None:
    kind, values = design
    try:
        project = generate(params_from_dict(kind, values), CAT)
    except (GeneratorError, ValueError):
        return  # a combination the generators refuse: nothing to count
    assert default_rack_count(project, CAT) == _plan_racks(project, CAT)
    fresh = for_new_design(project)
    assert default_rack_count(fresh, CAT) == _plan_racks(fresh, CAT)


def test_switch_only_and_empty_fabrics() -> None:
    project = generate(params_from_dict("rail", {"sus": 2}), CAT)
    servers = {d.id for d in project.fabric.devices if d.role.value == "gpu-server"}
    only = project.with_fabric(project.fabric.remove_devices(servers))
    assert default_rack_count(only, CAT) == _plan_racks(only, CAT) > 0
    empty = project.with_fabric(project.fabric.remove_devices(
        {d.id for d in project.fabric.devices}))
    assert default_rack_count(empty, CAT) == 0


def test_a_row_whose_last_part_holds_only_cdus_is_planned() -> None:
    # two dragonfly groups of liquid-cooled servers: each row runs past 16 racks and its
    # last part is CDUs alone, which the plan once failed on (no device to read a pod from)
    project = generate(params_from_dict(
        "dragonfly", {"gear": "roce-400", "groups": 2, "server": "mi355x-8"}), CAT)
    plan = default_floor(project, CAT)
    parts = [row for row in plan.rows if all(r.kind == "cdu" for r in row.racks)]
    assert parts, "the case this pins: a part of a row with only CDUs"
    assert default_rack_count(project, CAT) == len(plan.racks())
