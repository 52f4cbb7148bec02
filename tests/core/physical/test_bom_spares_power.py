"""Spares by policy, power cords by connector, PDUs from the placed racks' power, rack and
cable-management items: each a BOM section of its own, in the totals, switchable off."""

from __future__ import annotations

import math
import os
import shutil
import subprocess

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from designer.core.physical.floor import BomExtras
from designer.core.physical.power import CORD_KW, device_cords, pdus_for_rack
from designer.core.physical.spares import (
    DEFAULT_RULES,
    SpareRule,
    SparesError,
    parse_assignment,
    parse_rule,
)
from designer.core.physical.summary import with_floor
from designer.core.solver import solve
from designer.core.writers import jobs
from tests.core.export_helpers import Sheets

CAT = builtin_catalog()
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")


@pytest.fixture(scope="module")
def placed():
    p = generate(params_from_dict("rail", {"sus": 1}))
    return with_floor(p, p.catalog(CAT))


def _with(p, **flags):
    x = BomExtras(**flags)
    return p.evolve(physical=p.physical.model_copy(update={"extras": x}))


# --- the spares policy -------------------------------------------------------------------


def test_rules_round_up_and_read_as_written():
    assert SpareRule(pct=10).quantity(384) == 39  # 38.4 -> 39
    assert SpareRule(pct=10).quantity(10) == 1
    assert SpareRule(count=1, per=32).quantity(12) == 1  # any share of a switch is one
    assert SpareRule(count=1, per=32).quantity(64) == 2
    assert SpareRule(count=1, per=32).quantity(65) == 3
    assert SpareRule(pct=5).quantity(0) == 0
    assert parse_rule("10%") == SpareRule(pct=10)
    assert parse_rule(" 1 per 16 ") == parse_rule("1/16") == SpareRule(count=1, per=16)
    assert set(parse_assignment("optics=8%")) == {"transceiver", "laser"}
    assert set(parse_assignment("cables=1/50")) == {"cable", "fibre"}


@pytest.mark.parametrize("bad", ["10", "abc", "150%", "1/0", "-1%"])
def test_a_rule_that_is_none_is_refused_with_its_text(bad):
    with pytest.raises(SparesError, match="'"):
        parse_rule(bad)


def test_an_unknown_class_is_refused():
    with pytest.raises(SparesError, match="no class of spares"):
        parse_assignment("psu=5%")


@given(st.integers(0, 100_000), st.floats(0, 100, allow_nan=False),
       st.integers(1, 50), st.integers(1, 1000))
def test_spares_cover_the_share_and_never_a_whole_part_more(n, pct, count, per):
    for rule, share in ((SpareRule(pct=pct), n * pct / 100), (SpareRule(count=count, per=per),
                                                               n * count / per)):
        q = rule.quantity(n)
        assert q >= share - 1e-6 and q < share + 1


def test_spares_lines_follow_the_policy_and_carry_part_numbers(placed):
    bom = solve(_with(placed, spares=True)).bom
    by_item = {x.catalog_id: x for x in bom.lines if x.catalog_id}
    spares = [x for x in bom.lines if x.category == "spares"]
    assert spares
    sw = next(x for x in spares if "QM9700" in x.item)
    assert sw.qty == math.ceil(by_item["qm9700"].qty / 32) and "1 per 32" in sw.item
    assert sw.part_number == "MQM9700-NS2F"
    opt = next(x for x in spares if "SR8 multimode transceiver (switch" in x.item)
    assert opt.qty == math.ceil(by_item["osfp-2x400g-sr8"].qty * 0.10)
    assert DEFAULT_RULES["transceiver"].pct == 10.0


def test_a_file_written_before_the_policy_keeps_its_percentages(placed):
    old = {"spares": True, "spares_pct": {"switch": 2.0, "transceiver": 5.0},
           "racks_and_pdus": True, "pdus_per_rack": 2}
    x = BomExtras.model_validate(old)
    assert x.spares_rules == {} and x.pdu_kw is None and not x.cable_management
    p = placed.evolve(physical=placed.physical.model_copy(update={"extras": x}))
    bom = solve(p).bom
    sw = next(x for x in bom.lines if x.category == "spares" and "QM9700" in x.item)
    assert "(2%)" in sw.item
    racks = len(placed.physical.floor.racks())
    assert [x.qty for x in bom.lines if x.category == "power"] == [2 * racks]
    assert [x.qty for x in bom.lines if x.category == "racks"] == [racks]


# --- power cords and PDUs ----------------------------------------------------------------


def test_cords_follow_the_power_and_the_iec_ratings():
    # 230 V x 10 A x 80% = 1.84 kW on a C13 cord; 16 A: 2.94 kW on a C19 cord
    assert CORD_KW["C14"] == pytest.approx(1.84) and CORD_KW["C20"] == pytest.approx(2.944)
    sw = device_cords(CAT.get("qm9700"))  # 750 W: one C13 cord a feed, two feeds
    assert (sw.inlet, sw.count, sw.from_catalog) == ("C14", 2, False)
    dgx = device_cords(CAT.get("dgx-h100"))  # 10.2 kW: 4 C19 cords a feed
    assert (dgx.inlet, dgx.count) == ("C20", 8)
    tray = device_cords(CAT.get("gb200-nvl72"))  # the rack's busbar feeds the trays
    assert (tray.inlet, tray.count) == ("busbar", 0)
    given_psus = CAT.get("qm9700").model_copy(update={"psus": 4, "psu_inlet": "C20"})
    assert device_cords(given_psus) == type(sw)("C20", 4, True)


def test_pdus_cover_power_and_outlets_on_both_feeds():
    assert pdus_for_rack(40.8, 0, 0, 17.7, 24, 12) == 6  # 3 a feed for 40.8 kW
    assert pdus_for_rack(5.0, 60, 0, 17.7, 24, 12) == 4  # 30 C13 cords a feed: 2 PDUs
    assert pdus_for_rack(0.0, 0, 0, 17.7, 24, 12) == 0


def test_power_and_rack_sections_are_in_the_totals_and_switch_off(placed):
    base = solve(placed).bom
    on = solve(_with(placed, racks_and_pdus=True, power_cords=True)).bom
    power = [x for x in on.lines if x.category == "power"]
    racks = [x for x in on.lines if x.category == "racks"]
    names = [x.item for x in power]
    assert any("C19 to C20" in n for n in names) and any("C13 to C14" in n for n in names)
    assert any("PDU" in n for n in names)
    devices = placed.fabric.devices
    c20 = next(x for x in power if "C19 to C20" in x.item)
    assert c20.qty == 8 * sum(d.model == "dgx-h100" for d in devices)
    assert {"Rack, 48U, 600 x 1200 mm (estimate)", "Vertical cable manager, 48U (estimate)",
            "Blanking panel, 1U (estimate)"} <= {x.item for x in racks}
    assert on.total_usd == pytest.approx(
        base.total_usd + sum(x.total_usd for x in power + racks))
    # each switch off: its section leaves the BOM and the total
    off = solve(_with(placed, racks_and_pdus=True, power_cords=False,
                      cable_management=False)).bom
    assert not any("cord" in x.item for x in off.lines)
    assert not any("cable manager" in x.item for x in off.lines)


def test_pdus_follow_the_placed_racks_power(placed):
    from designer.core.physical.racks import project_usage

    x = BomExtras(racks_and_pdus=True)
    bom = solve(_with(placed, racks_and_pdus=True)).bom
    pdu = next(line for line in bom.lines if "PDU" in line.item)
    _pos, use = project_usage(placed, placed.catalog(CAT))
    expect = 0
    for r in range(len(use.names)):
        kw = float(use.used_kw[r])
        expect += 2 * max(1, math.ceil(kw / x.pdu_kw)) if kw > 0 else 0
    # outlets may ask for more than the power alone
    assert pdu.qty >= expect and pdu.qty % 2 == 0


# --- the workbook and the command line ----------------------------------------------------


def _full(tmp_path, placed):
    p = _with(placed, racks_and_pdus=True, power_cords=True, spares=True)
    path = tmp_path / "full.fabric.json"
    save_project(p, path)
    return p, path


def test_workbook_sections_and_totals_recalculate(tmp_path, placed):
    p, _ = _full(tmp_path, placed)
    cat = p.catalog(CAT)
    r = solve(p, catalog=cat)
    out = tmp_path / "bom.xlsx"
    jobs.export_bom(p, cat, out, result=r)
    wb = openpyxl.load_workbook(out)
    ws = wb["BOM"]
    labels = {ws[f"B{i}"].value: i for i in range(5, ws.max_row + 1) if ws[f"B{i}"].value}
    for section in ("Spares", "Power distribution (PDUs, cords)",
                    "Racks and cable management"):
        assert f"Subtotal: {section}" in labels
    sheets = Sheets(wb)
    grand = labels["Grand total"]
    assert sheets.value("BOM", f"F{grand}") == pytest.approx(r.bom.total_usd)
    spare_row = next(i for i in range(5, grand) if ws[f"A{i}"].value == "Spares")
    assert ws[f"I{spare_row}"].value  # a spare names its part number (or "not known")


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed (Debian: "
                    "libreoffice-calc-nogui); the recalculation check needs it")
def test_libreoffice_recalculates_the_sections(tmp_path, placed):
    p, _ = _full(tmp_path, placed)
    cat = p.catalog(CAT)
    r = solve(p, catalog=cat)
    src = tmp_path / "bom.xlsx"
    jobs.export_bom(p, cat, src, result=r)
    env = dict(os.environ, HOME=str(tmp_path))  # a profile of its own
    subprocess.run([SOFFICE, "--headless", "--norestore", "--convert-to",
                    "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,"
                    "false,-1", "--outdir", str(tmp_path / "out"), str(src)], env=env,
                   check=True, capture_output=True, timeout=300)
    import csv

    rows = list(csv.reader((tmp_path / "out" / "bom-BOM.csv").open(encoding="utf-8")))
    grand = next(row for row in rows if len(row) > 5 and row[1] == "Grand total")
    assert float(grand[5]) == pytest.approx(r.bom.total_usd, abs=0.5)
    subtotals = [float(row[5]) for row in rows if len(row) > 5 and
                 row[1].startswith("Subtotal: ")]
    assert sum(subtotals) == pytest.approx(r.bom.total_usd, abs=0.5)


def test_cli_switches_sections_and_sets_the_policy(tmp_path, placed, capsys):
    path = tmp_path / "d.fabric.json"
    save_project(placed, path)
    assert main(["bom-lines", str(path), "--on", "spares,power-cords,racks",
                 "--spares", "optics=8%", "--spares", "switches=1/16"]) == 0
    x = load_project(path).physical.extras
    assert x.spares and x.power_cords and x.racks_and_pdus
    assert x.spares_rules["transceiver"] == SpareRule(pct=8)
    assert x.spares_rules["switch"] == SpareRule(count=1, per=16)
    capsys.readouterr()
    assert main(["bom-lines", str(path), "--off", "power-cords", "--json"]) == 0
    import json

    got = json.loads(capsys.readouterr().out)
    assert got["sections"]["power-cords"] is False and got["spares"]["switch"] == "1 per 16"
    assert main(["bom-lines", str(path), "--spares", "optics=lots"]) == 2
    assert "not a spares rule" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["bom-lines", str(path), "--on", "kettle"])
    assert exc.value.code == 2 and "no section" in capsys.readouterr().err
