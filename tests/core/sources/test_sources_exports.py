"""The exports name each price's source and each latency figure's status (issue 11): the BOM
CSV and workbook carry a Price source column, the Assumptions sheet and the report list the
latency figures with sourced / measured / assumption and their reasoning."""

from __future__ import annotations

import csv

import openpyxl
import pytest

from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.sources import PriceBook
from designer.core.sources.edit import with_price_book
from designer.core.writers import jobs


@pytest.fixture(scope="module")
def design(catalog):
    p = generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}))
    p = with_price_book(p, PriceBook(name="Acme Q-117", date="2026-11-02",
                                     prices={"sn5600": 52500}), catalog)
    cat = p.catalog(catalog)
    return p, cat, solve(p, catalog=cat)


def test_bom_csv_names_the_book_and_the_catalog_sources(design, tmp_path):
    p, cat, r = design
    path = tmp_path / "bom.csv"
    jobs.export_bom(p, cat, path, result=r)
    rows = list(csv.reader(path.open()))
    src = rows[0].index("Price source")
    assert src == 6  # the pricing columns come first; what to order follows them
    by_id = {row[2]: row for row in rows[1:]}
    assert by_id["sn5600"][src] == "price book 'Acme Q-117' (USD, 2026-11-02)"
    assert by_id["connectx-7"][src].startswith("assumption")
    assert by_id["osfp-2x400g-sr8"][src] == "reseller listings, 2024-08"


def test_bom_workbook_sources_and_latency_assumptions(design, tmp_path):
    p, cat, r = design
    path = tmp_path / "bom.xlsx"
    jobs.export_bom(p, cat, path, result=r)
    wb = openpyxl.load_workbook(path)
    bom = wb["BOM"]
    assert bom.cell(row=4, column=7).value == "Price source"
    cells = {bom.cell(row=i, column=3).value: bom.cell(row=i, column=7).value
             for i in range(5, bom.max_row + 1)}
    assert "Acme Q-117" in cells["sn5600"]
    text = [" | ".join(str(c.value) for c in row if c.value is not None)
            for row in wb["Assumptions"].iter_rows()]
    # sourced: derived from DeepSeek's same-leaf and cross-leaf latencies (arXiv 2505.09343)
    sn = next(t for t in text if t.startswith("NVIDIA Spectrum-4 SN5600 | 850"))
    assert not sn.endswith("assumption") and "2505.09343" in sn
    assert any("idle, static" in t for t in text)
    price = next(t for t in text if t.startswith("NVIDIA Spectrum-4 SN5600 | 52500"))
    assert "Acme Q-117" in price and price.endswith("quoted")


def test_report_lists_sources_and_assumed_latencies(design, tmp_path):
    p, cat, r = design
    path = tmp_path / "report.html"
    jobs.export_report_html(p, cat, path, result=r)
    html = path.read_text()
    assert "Price source" in html and "price book &#x27;Acme Q-117&#x27;" in html
    assert "Status" in html and "assumption" in html
    assert "NADDOD" in html  # the reasoning behind the RoCE NIC figure
