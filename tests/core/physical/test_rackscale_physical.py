"""Racks of rack-scale systems on the floor (120-230 kW, liquid-cooled, with CDUs), rows
against their power budget, and a rack failure that takes its whole domain."""

from __future__ import annotations

import pytest

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.physical.floor import Geometry
from designer.core.physical.summary import floor_summary, with_floor
from designer.core.solver import solve
from designer.core.solver.compile import compile_project
from designer.core.traffic.failures import FailureError, n_minus_1, what_if

CAT = builtin_catalog()


def nvl72(gpus=1152, gear="gb200-ib-ndr", **more):
    return generate(params_from_dict("rail", {"gpus": gpus, "gear": gear, **more}))


def test_each_rack_scale_domain_is_a_liquid_rack_with_its_switch_trays():
    p = with_floor(nvl72(), CAT)
    s = floor_summary(p, CAT)
    racks = [r for r in s.usage.to_json() if r["scale_up_domains"]]
    assert len(racks) == 16  # one rack per NVL72
    tray = CAT.scale_up_switch("nvlink5-switch-tray")
    spec = CAT.server("gb200-nvl72")
    for r in racks:
        assert r["cooling"] == "liquid" and r["kw_limit"] == spec.scale_up.rack_kw
        # 18 trays and 9 switch trays, power shelves in U: all inside the rack
        assert r["devices"] == 18
        assert r["kw"] == pytest.approx(18 * spec.power_w / 1000 + 9 * tray.power_w / 1000)
        assert r["u_used"] == 18 + 9 + spec.scale_up.other_u
        assert 120 >= r["kw"] >= 100 and r["kw"] <= r["kw_limit"]
    assert not [x for x in s.problems if x.code.startswith("rack-")]


@pytest.mark.parametrize(("gear", "low", "high"), [
    ("gb200-ib-ndr", 100, 132), ("gb300-ib-xdr", 120, 142), ("vr-ib-xdr", 180, 230)])
def test_rack_power_within_the_published_range(gear, low, high):
    """GB200 about 120 kW, GB300 up to 142 kW (NVIDIA Enterprise RA), Vera Rubin 180-230 kW."""
    s = floor_summary(with_floor(nvl72(576, gear), CAT), CAT)
    kws = {r["kw"] for r in s.usage.to_json() if r["scale_up_domains"]}
    assert all(low <= k <= high for k in kws), kws


def test_cdus_per_row_n_plus_1_in_floor_and_bom():
    p = with_floor(nvl72(), CAT)
    s = floor_summary(p, CAT)
    cdu = CAT.cdu("cdu-inrow-1350")
    for row in s.rows:
        if row.liquid_kw:
            assert row.cdus == -(-row.liquid_kw // cdu.capacity_kw) + 1
    cdus = {r["rack"] for r in s.usage.to_json() if r["kind"] == "cdu"}
    assert len(cdus) == 4  # two SU rows of 900 kW: one unit each and a spare
    lines = {x.catalog_id: x.qty for x in solve(p).bom.compute_lines}
    assert lines["cdu-inrow-1350"] == 4
    # a design without a floor plan counts the same from its rows of liquid gear
    assert {x.catalog_id: x.qty for x in solve(nvl72()).bom.compute_lines}[
        "cdu-inrow-1350"] == 4
    # air-cooled servers need none
    assert "cdu-inrow-1350" not in {x.catalog_id for x in solve(generate(params_from_dict(
        "rail", {"sus": 1}))).bom.compute_lines}


def test_row_budget_is_checked():
    tight = with_floor(nvl72(), CAT, geometry=Geometry(row_kw=900.0))
    probs = {x.code: x for x in solve(tight).problems}
    assert "row-power" in probs and "of 900.0 kW" in probs["row-power"].message
    roomy = with_floor(nvl72(), CAT, geometry=Geometry(row_kw=1200.0))  # the SU's 1.2 MW
    assert "row-power" not in {x.code for x in solve(roomy).problems}


def test_liquid_gear_in_an_air_rack_is_an_error():
    p = with_floor(generate(params_from_dict("rail", {"gpus": 512, "gear": "amd-roce-400"})),
                   CAT)
    floor = p.physical.floor
    rows = tuple(r.model_copy(update={"racks": tuple(k.model_copy(update={"cooling": "air"})
                                                     for k in r.racks)}) for r in floor.rows)
    p = p.evolve(physical=p.physical.model_copy(
        update={"floor": floor.model_copy(update={"rows": rows})}))
    assert "liquid-in-air-rack" in {x.code for x in solve(p).problems}


def test_a_rack_failure_takes_its_whole_domain_and_is_priced():
    c = compile_project(nvl72(576, "gb300-ib-xdr"), CAT)
    w = what_if(c, ["rack:3"], usd_per_gpu_hour=2.0)
    assert w.stranded_gpus == 72 and w.nic_links_lost == 72
    assert w.money_per_day_usd == pytest.approx(72 * 24 * 2.0)
    rows = n_minus_1(c, "rack", usd_per_gpu_hour=2.0)
    assert len(rows) == 1 and rows[0].members == 8  # eight alike racks, one answer
    assert rows[0].result.stranded_gpus == 72
    with pytest.raises(FailureError, match=r"numbered 1\.\.8"):
        what_if(c, ["rack:9"])
