"""The bill of materials of a design with other networks: a network column, a subtotal per
network as a formula, and totals LibreOffice recalculates to the solver's figures."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess

import openpyxl
import pytest

from designer.core.catalog import builtin_catalog
from designer.core.export import jobs
from designer.core.export.bom_rows import HEADER, bom_table
from designer.core.generators import generate, params_from_dict
from designer.core.networks.generate import with_networks
from designer.core.networks.solve import solve_networks
from designer.core.solver import solve

CAT = builtin_catalog()
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
LABELS = {"backend": "Back-end (compute)", "frontend": "Front-end (in-band)",
          "storage": "Storage", "oob": "Out-of-band management"}


@pytest.fixture(scope="module")
def design():
    p = with_networks(generate(params_from_dict("rail", {"sus": 1})),
                      ("frontend", "storage", "oob"))
    return p, solve(p, catalog=CAT), solve_networks(p, CAT)


def test_table_marks_every_line_with_its_network(design):
    _, r, nets = design
    t = bom_table(r, nets)
    assert t.networks == ("backend", "frontend", "storage", "oob")
    assert t.header == (*HEADER, "Network")
    assert t.network_total("backend") == pytest.approx(r.bom.total_usd)
    for name, n in nets.items():
        assert t.network_total(name) == pytest.approx(n.cost_usd)
    assert t.total_usd == pytest.approx(r.bom.total_usd + sum(n.cost_usd for n in nets.values()))
    # the storage nodes are a section of the storage network
    assert any(s.network == "storage" and s.category == "storage" for s in t.sections)
    # without networks the table is as before: no column, no network marks
    plain = bom_table(r)
    assert plain.header == HEADER and not plain.networks


def test_csv_has_the_network_column(design, tmp_path):
    p, r, _ = design
    path = tmp_path / "bom.csv"
    jobs.export_bom(p, p.catalog(CAT), path, result=r)
    rows = list(csv.reader(path.open(encoding="utf-8")))
    assert rows[0][-1] == "Network"
    assert {row[-1] for row in rows[1:]} == {"backend", "frontend", "storage", "oob"}


def test_xlsx_subtotals_per_network_are_formulas(design, tmp_path):
    p, r, _ = design
    path = tmp_path / "bom.xlsx"
    jobs.export_bom(p, p.catalog(CAT), path, result=r)
    ws = openpyxl.load_workbook(path)["BOM"]
    assert ws["M4"].value == "Network"
    found = {}
    for row in range(5, ws.max_row + 1):
        b = ws[f"B{row}"].value or ""
        if b.startswith("Network subtotal: "):
            found[b.removeprefix("Network subtotal: ")] = row
            assert str(ws[f"F{row}"].value).startswith("=SUM(F")
    assert list(found) == [LABELS[k] for k in ("backend", "frontend", "storage", "oob")]


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed (Debian: "
                    "libreoffice-calc-nogui); the recalculation check needs it")
def test_libreoffice_recalculates_each_network_subtotal(design, tmp_path):
    p, r, nets = design
    src = tmp_path / "bom.xlsx"
    jobs.export_bom(p, p.catalog(CAT), src, result=r)
    env = dict(os.environ, HOME=str(tmp_path))
    subprocess.run([SOFFICE, "--headless", "--norestore", "--convert-to",
                    "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,"
                    "false,-1", "--outdir", str(tmp_path / "out"), str(src)], env=env,
                   check=True, capture_output=True, timeout=300)
    rows = list(csv.reader((tmp_path / "out" / "bom-BOM.csv").open(encoding="utf-8")))
    got = {row[1].removeprefix("Network subtotal: "): float(row[5]) for row in rows
           if len(row) > 5 and row[1].startswith("Network subtotal: ")}
    assert got[LABELS["backend"]] == pytest.approx(r.bom.total_usd, abs=0.5)
    for name, n in nets.items():
        assert got[LABELS[name]] == pytest.approx(n.cost_usd, abs=0.5)
    grand = next(row for row in rows if len(row) > 5 and row[1] == "Grand total")
    assert float(grand[5]) == pytest.approx(sum(got.values()), abs=0.5)


def test_report_has_a_section_per_network_and_their_bom(design):
    from designer.core.export.report import report_data

    p, r, nets = design
    data = report_data(p, p.catalog(CAT), r, today="2026-11-28")
    titles = [s.title for s in data.summary]
    assert titles[-3:] == ["Network: Front-end (in-band)", "Network: Storage",
                           "Network: Out-of-band management"]
    storage = {f.label: f for f in data.summary[-2].facts}
    assert storage["Storage nodes"].value == nets["storage"].storage["nodes"]
    assert "reference 5.0 GB/s per GPU" in storage["Read per GPU (GB/s)"].detail
    cost = {f.key: f.value for s in data.summary for f in s.facts if f.key}
    assert cost["oob_cost_usd"] == round(nets["oob"].cost_usd)
    assert data.bom.networks == ("backend", "frontend", "storage", "oob")
    assert any(s.label == "Switches · Storage" for s in data.bom.sections)
