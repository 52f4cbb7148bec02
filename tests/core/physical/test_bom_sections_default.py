"""A new design's bill carries racks, power and spares as sections of its own, in the totals;
each is switched off per project (saved) or on the command line; a file saved before keeps
its totals exactly."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from designer.core.model import Project
from designer.core.physical.sections import (
    NEW_DESIGN,
    NOTE_UNPLACED,
    SECTIONS,
    for_new_design,
    new_physical,
    parse_sections,
)
from designer.core.physical.summary import with_floor
from designer.core.solver import solve
from tests._paths import DATA, PROJECTS

CAT = builtin_catalog()
# the DGX H100 3 SU example as bundled before new designs carried these sections: its
# total as every build before printed it (no racks, power or spares lines)
BUNDLED_BEFORE = DATA / "bundled_2026_dgx_h100_3su.fabric.json"
BUNDLED_BEFORE_USD = 6_129_840.0


def _usd_by_category(result) -> Counter:
    c: Counter = Counter()
    for line in result.bom.lines:
        c[line.category] += line.total_usd
    return c


def test_a_file_saved_before_keeps_its_total_exactly():
    p = load_project(BUNDLED_BEFORE, CAT)
    assert p.physical is None
    r = solve(p, catalog=p.catalog(CAT))
    assert r.bom.total_usd == BUNDLED_BEFORE_USD
    assert not {"racks", "power", "spares"} & set(_usd_by_category(r))


def test_the_bundled_example_now_carries_the_sections_in_its_total():
    old = load_project(BUNDLED_BEFORE, CAT)
    new = load_project(PROJECTS / "dgx-h100-superpod-3su-ufm.fabric.json", CAT)
    assert new.fabric.index == old.fabric.index  # same design, a fuller bill
    r = solve(new, catalog=new.catalog(CAT))
    by = _usd_by_category(r)
    assert by["racks"] > 0 and by["power"] > 0 and by["spares"] > 0
    assert r.bom.total_usd == pytest.approx(
        BUNDLED_BEFORE_USD + by["racks"] + by["power"] + by["spares"])
    # racks not placed: the PDUs are a fixed count and the bill says so in one line
    notes = [x for x in r.bom.lines if x.item.startswith(NOTE_UNPLACED)]
    assert len(notes) == 1 and notes[0].qty == 0 and notes[0].total_usd == 0


def test_new_design_sections_and_switching_off():
    p = generate(params_from_dict("rail", {"sus": 1}))
    assert p.physical is None  # the generator alone stays as it was (sweeps, tests)
    on = for_new_design(p)
    x = on.physical.extras
    assert x.racks_and_pdus and x.power_cords and x.spares and x.cable_management
    assert not (x.support or x.subnet_manager or x.management_network)
    off = for_new_design(p, off=["spares", "racks"])
    assert off.physical.extras.power_cords
    assert not off.physical.extras.spares and not off.physical.extras.racks_and_pdus
    assert new_physical().extras == x
    assert set(NEW_DESIGN) <= set(SECTIONS)
    with pytest.raises(ValueError, match="'sparez' is no section"):
        parse_sections("racks,sparez")


def test_placed_racks_size_the_pdus_and_drop_the_note():
    p = for_new_design(generate(params_from_dict("rail", {"sus": 1})))
    cat = p.catalog(CAT)
    before = solve(p, catalog=cat)
    placed = with_floor(p, cat)
    after = solve(placed, catalog=cat)
    assert any(x.item.startswith(NOTE_UNPLACED) for x in before.bom.lines)
    assert not any(x.item.startswith(NOTE_UNPLACED) for x in after.bom.lines)
    assert any("kW continuous" in x.item for x in after.bom.lines)


def test_generate_on_by_default_off_on_the_command_line(tmp_path, capsys):
    a, b = tmp_path / "a.fabric.json", tmp_path / "b.fabric.json"
    assert main(["generate", "rail", "--sus", "1", "-o", str(a)]) == 0
    assert main(["generate", "rail", "--sus", "1", "--bom-off", "spares,power-cords",
                 "-o", str(b)]) == 0
    xa = load_project(a, CAT).physical.extras
    xb = load_project(b, CAT).physical.extras
    assert xa.spares and xa.power_cords and xa.racks_and_pdus
    assert not xb.spares and not xb.power_cords and xb.racks_and_pdus
    capsys.readouterr()
    assert main(["solve", str(a), "--json"]) == 0
    cats = {x["category"] for x in json.loads(capsys.readouterr().out)["bom"]["lines"]}
    assert {"racks", "power", "spares"} <= cats
    # switched off in the project (saved): gone from the totals
    assert main(["bom-lines", str(a), "--off", "spares,racks,power-cords"]) == 0
    capsys.readouterr()
    assert main(["solve", str(a), "--json"]) == 0
    cats = {x["category"] for x in json.loads(capsys.readouterr().out)["bom"]["lines"]}
    assert not {"racks", "power", "spares"} & cats


def test_generate_refuses_an_unknown_section(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["generate", "rail", "--sus", "1", "--bom-off", "spare", "-o",
              str(tmp_path / "x.fabric.json")])
    assert exc.value.code == 2
    assert "'spare' is no section" in capsys.readouterr().err


def test_a_blank_project_without_physical_saves_as_before(tmp_path):
    path = tmp_path / "blank.fabric.json"
    save_project(Project(), path)
    assert json.loads(path.read_text())["physical"] is None
