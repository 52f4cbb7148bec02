"""Orderable part numbers: the catalog's items carry the manufacturer's part number with its
source, the BOM (CSV, xlsx, report) and the cabling plan show them, and a price book adds the
supplier's SKU and lead time. Items without a part number say "not known"."""

from __future__ import annotations

import csv
import json

import openpyxl
import pytest

from designer.core.catalog import NOT_KNOWN, builtin_catalog, parse_catalog_bytes
from designer.core.errors import CatalogError
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.sources import PriceBook
from designer.core.sources.edit import with_price_book
from designer.core.sources.pricebook_io import book_from_rows
from designer.core.writers import jobs
from designer.core.writers.cabling import cabling_plan

CAT = builtin_catalog()

# NVIDIA's orderable part numbers, as its product specifications (docs.nvidia.com/networking)
# and the DGX SuperPOD reference architecture name them
KNOWN = {
    "qm9700": "MQM9700-NS2F",
    "osfp-2x400g-sr8": "MMA4Z00-NS",
    "osfp-2x400g-dr8": "MMS4X00-NS",
    "osfp-2x400g-2xfr4": "MMS4X50-NM",
    "osfp-400g-sr4": "MMA4Z00-NS400",
    "osfp-400g-dr4": "MMS4X00-NS400",
    "dac-2x400g": "MCP4Y10-Nxxx",
    "connectx-7": "MCX75310AAS-NEAT",
}


@pytest.fixture(scope="module")
def ib():
    p = generate(params_from_dict("rail", {"sus": 1}))
    cat = p.catalog(CAT)
    return p, cat, solve(p, catalog=cat)


@pytest.mark.parametrize("gear_id,part", sorted(KNOWN.items()))
def test_nvidia_parts_carry_their_published_part_numbers(gear_id, part):
    item = CAT.get(gear_id)
    assert item.part_number == part
    f = item.figure_for("part_number")
    assert f is not None and f.source.strip() and f.confidence in ("H", "M")
    assert part.split("-")[0] in f.what


def test_every_part_number_names_its_source_and_items_without_say_not_known():
    with_pn = [i for i in CAT if i.part_number]
    assert len(with_pn) >= 15
    for item in with_pn:
        assert item.part_number_source() not in ("", "no source given"), item.id
    without = [i for i in CAT if not i.part_number]
    assert without, "some catalog items have no known part number"
    for item in without:
        assert item.part_number_text == NOT_KNOWN
    # no two items claim the same part number (a quote keyed by it would be ambiguous)
    numbers = [i.part_number for i in with_pn]
    assert len(numbers) == len(set(numbers))


def test_an_item_without_a_part_number_still_loads():
    # a user catalog (or a newer item) written before the field existed
    data = (b'{"items": [{"kind": "switch", "id": "my-leaf", "name": "My leaf", '
            b'"cages": 32, "modes": [{"ports": 64, "speed_gbps": 400, "techs": ["eth"]}], '
            b'"latency_ns": 600, "power_w": 700, "price_usd": 30000}]}')
    item = parse_catalog_bytes(data, "user.json").items[0]
    assert item.part_number == "" and item.part_number_text == NOT_KNOWN
    assert item.part_number_source() == ""


def test_a_part_number_with_spaces_or_controls_is_refused():
    for bad in ("MQM 9700", "MQM9700\n", "-leading"):
        item = {"kind": "nic", "id": "n", "name": "N", "part_number": bad,
                "modes": [{"ports": 1, "speed_gbps": 400, "techs": ["eth"]}],
                "latency_ns": 600, "power_w": 20, "price_usd": 1000}
        data = json.dumps({"items": [item]}).encode()
        with pytest.raises(CatalogError, match="part_number"):
            parse_catalog_bytes(data, "user.json")


def test_bom_lines_carry_vendor_and_part_number(ib):
    _p, _cat, r = ib
    by_id = {x.catalog_id: x for x in r.bom.lines}
    assert by_id["qm9700"].part_number == "MQM9700-NS2F"
    assert by_id["qm9700"].vendor == "NVIDIA"
    assert "reference architecture" in by_id["qm9700"].part_source
    js = by_id["connectx-7"].to_json()
    assert js["part_number"] == "MCX75310AAS-NEAT" and js["vendor"] == "NVIDIA"


def test_csv_and_xlsx_show_part_numbers_and_not_known(tmp_path):
    p = generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}))
    cat = p.catalog(CAT)
    r = solve(p, catalog=cat)
    path = tmp_path / "bom.csv"
    jobs.export_bom(p, cat, path, result=r)
    rows = {row["Catalog id"]: row for row in csv.DictReader(path.open(encoding="utf-8"))}
    assert rows["connectx-7"]["Part number"] == "MCX75310AAS-NEAT"
    assert rows["sn5600"]["Part number"] == NOT_KNOWN  # the ordering table was not read
    assert "Ordering Information" in rows["sn5600"]["Part number source"]
    x = tmp_path / "bom.xlsx"
    jobs.export_bom(p, cat, x, result=r)
    ws = openpyxl.load_workbook(x)["BOM"]
    head = [ws.cell(row=4, column=c).value for c in range(1, 13)]
    assert head[7:] == ["Vendor", "Part number", "Supplier SKU", "Lead time",
                        "Part number source"]
    cells = {ws.cell(row=i, column=3).value: ws.cell(row=i, column=9).value
             for i in range(5, ws.max_row + 1)}
    assert cells["connectx-7"] == "MCX75310AAS-NEAT" and cells["sn5600"] == NOT_KNOWN
    # the price columns did not move: totals are still quantity x unit price
    r0 = next(i for i in range(5, ws.max_row + 1) if ws.cell(row=i, column=3).value == "sn5600")
    assert ws.cell(row=r0, column=6).value == f"=D{r0}*E{r0}"


def test_price_book_adds_sku_and_lead_time_by_manufacturer_part_number():
    rows = [["Part number", "Supplier SKU", "Unit price", "Lead time"],
            ["MQM9700-NS2F", "ACME-IB-64", "31000", "6-8 weeks"],
            ["mcp4y10-n002", "ACME-DAC-2M", "290", "in stock"],  # a length code of Nxxx
            ["connectx-7", "", "1700", ""]]
    got = book_from_rows(rows, CAT, name="Acme")
    b = got.book
    assert b.prices == {"qm9700": 31000.0, "dac-2x400g": 290.0, "connectx-7": 1700.0}
    assert b.skus == {"qm9700": "ACME-IB-64", "dac-2x400g": "ACME-DAC-2M"}
    assert b.lead_times == {"qm9700": "6-8 weeks", "dac-2x400g": "in stock"}
    assert any("SKU" in line for line in got.preview())


def test_sku_alone_still_names_the_part_as_before():
    # a quote whose only id column is "SKU" (read as the part id before SKUs had a column)
    got = book_from_rows([["SKU", "Price"], ["qm9700", "30000"]], CAT, name="old")
    assert got.book.prices == {"qm9700": 30000.0} and got.book.skus == {}


def test_old_price_book_without_skus_loads():
    b = PriceBook.model_validate({"name": "q", "currency": "USD", "usd_per_unit": 1.0,
                                  "date": "", "source": "", "prices": {"qm9700": 1.0}})
    assert b.skus == {} and b.lead_times == {}


def test_bom_and_report_show_the_books_sku_and_lead_time(ib, tmp_path):
    p, _cat, _r = ib
    book = PriceBook(name="Acme", prices={"qm9700": 31000}, skus={"qm9700": "ACME-IB-64"},
                     lead_times={"qm9700": "6-8 weeks"})
    p = with_price_book(p, book, CAT)
    cat = p.catalog(CAT)
    r = solve(p, catalog=cat)
    line = next(x for x in r.bom.lines if x.catalog_id == "qm9700")
    assert (line.sku, line.lead_time, line.unit_usd) == ("ACME-IB-64", "6-8 weeks", 31000)
    path = tmp_path / "bom.csv"
    jobs.export_bom(p, cat, path, result=r)
    row = next(x for x in csv.DictReader(path.open(encoding="utf-8"))
               if x["Catalog id"] == "qm9700")
    assert (row["Supplier SKU"], row["Lead time"]) == ("ACME-IB-64", "6-8 weeks")
    from designer.core.writers.html_report import report_html
    from designer.core.writers.report import report_data

    html = report_html(report_data(p, cat, r))
    assert "MQM9700-NS2F (SKU ACME-IB-64, 6-8 weeks)" in html


def test_cabling_plan_names_the_part_of_every_optic_and_cable(ib):
    p, cat, r = ib
    plan = cabling_plan(p, cat, r.media, r.bom.cable_id)
    rows = list(plan.rows())
    head = list(plan.header)
    ia, ic, iz = (head.index(h) for h in ("A-side optic", "Cable / fibre", "Z-side optic"))
    pa, pc, pz = (head.index(h) for h in ("A-side optic part", "Cable / fibre part",
                                          "Z-side optic part"))
    seen = set()
    for row in rows:
        for i, j in ((ia, pa), (ic, pc), (iz, pz)):
            if row[i]:
                assert row[j] == CAT.get(row[i]).part_number_text
                seen.add(row[j])
            else:
                assert row[j] == ""
    assert "MMA4Z00-NS" in seen or "MMS4X00-NS" in seen
