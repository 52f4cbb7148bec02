"""The TCO sheet of the BOM workbook (live formulas) and the report's decision page."""

from __future__ import annotations

import re

import pytest
from openpyxl import load_workbook

from designer.core.analysis.estimates import estimate
from designer.core.analysis.workload import DecisionSettings, Economics
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.paths import projects_dir
from designer.core.solver import solve
from designer.core.writers.jobs import export_bom
from designer.core.writers.report import report_data

REF = re.compile(r"(?:(\w+)!)?\$?([A-Z]+)\$?(\d+)")


def evaluate(wb, sheet: str, cell: str, overrides: dict | None = None) -> float:
    """A small evaluator for the workbook's arithmetic formulas (+ - * / and SUM)."""
    overrides = overrides or {}
    key = f"{sheet}!{cell}"
    if key in overrides:
        return overrides[key]
    v = wb[sheet][cell].value
    if not (isinstance(v, str) and v.startswith("=")):
        return float(v or 0)

    def ref(m: re.Match) -> str:
        return repr(evaluate(wb, m.group(1) or sheet, m.group(2) + m.group(3), overrides))

    expr = v[1:]
    expr = re.sub(r"SUM\(([A-Z]+)(\d+):([A-Z]+)(\d+)\)", lambda m: "(" + "+".join(
        f"{m.group(1)}{r}" for r in range(int(m.group(2)), int(m.group(4)) + 1)) + ")", expr)
    expr = expr.replace("SUM(", "(").replace(",", "+")
    return float(eval(REF.sub(ref, expr)))  # our own arithmetic formulas only


@pytest.fixture(scope="module")
def ndr():
    p = load_project(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json")
    p = p.evolve(decision=DecisionSettings(economics=Economics(
        years=4, usd_per_kwh=0.12, tuning_weeks=6, tuning_usd_per_week=20_000)))
    return p, solve(p)


def test_tco_sheet_formulas_match_the_core(ndr, tmp_path):
    p, r = ndr
    cat = p.catalog(builtin_catalog())
    path = tmp_path / "bom.xlsx"
    export_bom(p, cat, path, result=r)
    wb = load_workbook(path)
    ws = wb["TCO"]
    labels = {ws.cell(i, 1).value: f"B{i}" for i in range(1, ws.max_row + 1)}
    t = estimate(p, r, catalog=cat).tco
    assert str(ws[labels["Capex (network BOM)"]].value).startswith("=BOM!F")
    assert evaluate(wb, "TCO", labels["TCO"]) == pytest.approx(t.total_usd, rel=1e-6)
    assert evaluate(wb, "TCO", labels["Cost per useful GPU-hour"]) == \
        pytest.approx(t.usd_per_useful_gpu_hour, rel=1e-6)
    assert evaluate(wb, "TCO", labels["InfiniBand tuning and validation (one-off)"]) == 120_000
    # live: another number of years moves the total by the yearly costs
    years = labels["Years"]
    more = evaluate(wb, "TCO", labels["TCO"], {f"TCO!{years}": 5.0})
    yearly = t.energy_usd_per_year + t.support_usd_per_year + t.space_usd_per_year
    assert more - t.total_usd == pytest.approx(yearly, rel=1e-6)


def test_report_has_the_decision_page(ndr):
    p, r = ndr
    data = report_data(p, p.catalog(builtin_catalog()), r, today="2026-01-01")
    titles = [s.title for s in data.summary]
    assert "Decision analysis: workload and step" in titles
    assert any(t.startswith("TCO over 4 years") for t in titles)
    rec = next(s for s in data.summary if s.title.startswith("Recommendation"))
    assert len(rec.facts) >= 9 and all(f.note for f in rec.facts[:-1])  # each rule: a source
