"""BOM exports read back with openpyxl and csv, and checked against the solver's Result."""

from __future__ import annotations

import csv

import openpyxl
import pytest

from designer.cli.main import main
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.writers import jobs
from tests.core.export_helpers import Sheets


@pytest.fixture(scope="module")
def design(catalog):
    # NVIDIA DGX H100 SuperPOD RA Table 4 shape, 1 SU: 31 nodes and a UFM appliance
    project = generate(params_from_dict("rail", {"sus": 1, "reserve_leaf_ports": 4}))
    cat = project.catalog(catalog)
    return project, cat, solve(project, catalog=cat)


def bom_rows(ws):
    """(row, catalog id, qty, unit) of every BOM line, found by its catalog id column."""
    out = []
    for r in range(5, ws.max_row + 1):
        cid, qty = ws[f"C{r}"].value, ws[f"D{r}"].value
        if cid and isinstance(qty, int):
            out.append((r, cid, qty, ws[f"E{r}"].value))
    return out


def test_xlsx_lines_formulas_and_totals_match_the_solver(design, tmp_path):
    project, cat, result = design
    path = tmp_path / "bom.xlsx"
    jobs.export_bom(project, cat, path, result=result)
    wb = openpyxl.load_workbook(path)
    # TCO: the decision analysis' sheet (its own tests: test_analysis_exports.py)
    assert wb.sheetnames == ["Summary", "BOM", "Assumptions", "TCO"]
    ws = wb["BOM"]
    sheets = Sheets(wb)
    rows = bom_rows(ws)
    network = rows[: len(result.bom.lines)]
    assert [(c, q, u) for _, c, q, u in network] == [
        (x.catalog_id, x.qty, x.unit_usd) for x in result.bom.lines
    ]
    for (r, *_), line in zip(network, result.bom.lines, strict=True):
        assert ws[f"F{r}"].data_type == "f" and ws[f"F{r}"].value == f"=D{r}*E{r}"
        assert sheets.value("BOM", f"F{r}") == pytest.approx(line.total_usd)
    # subtotals and the grand total are formulas that add up to the solver's total
    labels = {ws[f"B{r}"].value: r for r in range(5, ws.max_row + 1) if ws[f"B{r}"].value}
    grand = labels["Grand total"]
    assert ws[f"F{grand}"].data_type == "f"
    assert sheets.value("BOM", f"F{grand}") == pytest.approx(result.bom.total_usd)
    subtotal_rows = [r for b, r in labels.items() if str(b).startswith("Subtotal")]
    assert len(subtotal_rows) == len({x.category for x in result.bom.lines})
    assert sum(sheets.value("BOM", f"F{r}") for r in subtotal_rows) == pytest.approx(
        result.bom.total_usd)
    per_gpu = sheets.value("BOM", f"F{grand + 1}")
    assert per_gpu == pytest.approx(result.bom.per_gpu_usd, abs=0.01)
    # GPU servers are listed for information only, outside the total (as the solver does)
    assert [c for _, c, *_ in rows[len(result.bom.lines):]] == [
        x.catalog_id for x in result.bom.compute_lines]

    # a buyer types a quote: every total follows, on the BOM and the Summary sheets
    r, _cid, qty, unit = network[0]
    sheets.set("BOM", f"E{r}", unit / 2)
    assert sheets.value("BOM", f"F{grand}") == pytest.approx(
        result.bom.total_usd - qty * unit / 2)
    summary = wb["Summary"]
    total_cell = next(c for row in summary.iter_rows() for c in row if c.value == "Total cost")
    linked = summary.cell(row=total_cell.row, column=2)
    assert linked.data_type == "f" and linked.value == f"=BOM!F{grand}"
    assert sheets.value("Summary", linked.coordinate) == pytest.approx(
        result.bom.total_usd - qty * unit / 2)


def test_xlsx_reads_well(design, tmp_path):
    project, cat, result = design
    path = tmp_path / "bom.xlsx"
    jobs.export_bom(project, cat, path, result=result)
    wb = openpyxl.load_workbook(path)
    ws = wb["BOM"]
    assert ws.freeze_panes == "A5"
    assert [ws.cell(row=4, column=c).value for c in range(1, 7)] == [
        "Category", "Item", "Catalog id", "Quantity", "Unit price (USD)", "Line total (USD)"]
    assert ws.column_dimensions["B"].width >= 40
    r = bom_rows(ws)[0][0]
    assert "$" in ws[f"E{r}"].number_format and "$" in ws[f"F{r}"].number_format
    summary = {row[0]: row[1] for row in wb["Summary"].iter_rows(values_only=True) if row[0]}
    assert summary["GPUs"] == result.gpus == 248
    assert summary["Gear profile"] == "InfiniBand NDR 400G (ib-ndr)"  # the name, then the id
    assert summary["Bisection bandwidth"] == pytest.approx(result.bisection.gbps / 1000)
    assumptions = [row[2] for row in wb["Assumptions"].iter_rows(values_only=True)]
    for line in result.bom.lines:  # every priced item says where its price comes from
        assert line.catalog_id in assumptions


def test_csv_lines_match_the_solver(design, tmp_path):
    project, cat, result = design
    path = tmp_path / "bom.csv"
    jobs.export_bom(project, cat, path, result=result)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["Catalog id"], int(r["Quantity"]), float(r["Unit price (USD)"]),
             float(r["Line total (USD)"])) for r in rows] == [
        (x.catalog_id, x.qty, x.unit_usd, x.total_usd) for x in result.bom.lines]
    assert sum(float(r["Line total (USD)"]) for r in rows) == pytest.approx(
        result.bom.total_usd)


def test_cli_solves_and_writes(design, tmp_path, capsys):
    out = tmp_path / "b.xlsx"
    project, *_ = design
    from designer.core.fileformat import save_project

    src = tmp_path / "d.fabric.json"
    save_project(project, src)
    assert main(["export", "bom", str(src), "-o", str(out)]) == 0
    assert "BOM lines" in capsys.readouterr().out
    assert main(["export", "bom", str(src), "-o", str(tmp_path / "b.txt")]) == 2
    assert ".xlsx or .csv" in capsys.readouterr().err
