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
from designer.core.generators import generate, params_from_dict
from designer.core.networks.generate import with_networks
from designer.core.networks.solve import solve_networks
from designer.core.solver import solve
from designer.core.writers import jobs
from designer.core.writers.bom_rows import HEADER, bom_table

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
    from designer.core.writers.report import report_data

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


# --- spares, cords, PDUs and prices of the other networks ------------------------------------

def _with_extras(p, **on):
    from designer.core.physical.floor import BomExtras, Physical

    phys = p.physical or Physical()
    return p.evolve(physical=phys.model_copy(update={"extras": BomExtras(**on)}))


def test_spares_policy_applies_per_network(design):
    from designer.core.physical.spares import DEFAULT_RULES

    p = _with_extras(design[0], spares=True)
    nets = solve_networks(p, CAT)
    plain = design[2]
    for name, n in nets.items():
        spares = {x.item: x for x in n.lines if x.category == "spares"}
        expected = {}
        for x in plain[name].lines:
            rule = DEFAULT_RULES.get(x.category)
            if rule is not None and rule.quantity(x.qty):
                expected[f"Spare: {x.item} ({rule.label})"] = (rule.quantity(x.qty), x)
        assert set(spares) == set(expected), name
        for item, (qty, x) in expected.items():
            assert spares[item].qty == qty
            assert spares[item].part_number == x.part_number  # orderable like the original
        # storage nodes have no rule of the policy: no spare node
        assert not any("storage node" in i for i in spares)
        extra = sum(x.total_usd for x in spares.values())
        assert n.cost_usd == pytest.approx(plain[name].cost_usd + extra)
    # the BOM labels each network's spares section with its network
    t = bom_table(design[1], nets)
    labels = {s.label for s in t.sections if s.category == "spares"}
    assert {f"Spares · {LABELS[k]}" for k in nets} <= labels


def test_cords_per_network_and_a_note_for_unplaced_switches(design):
    p = _with_extras(design[0], power_cords=True, racks_and_pdus=True)
    nets = solve_networks(p, CAT)
    for name, n in nets.items():
        net = p.networks[name]
        cords = sum(x.qty for x in n.lines if x.item.startswith("Power cord"))
        # every device here draws under a C13 cord's 1.84 kW: one cord on each of the A and B
        # feeds
        assert cords == 2 * len(net.devices), name
        note = [x for x in n.lines if x.item.startswith("Note:")]
        assert len(note) == 1 and note[0].qty == 0 and note[0].total_usd == 0
        assert f"{len(net.devices):,} devices" in note[0].item
    off = solve_networks(_with_extras(design[0], spares=True), CAT)
    assert not any(x.item.startswith(("Note:", "Power cord")) for n in off.values()
                   for x in n.lines)


def test_the_oob_network_replaces_the_per_rack_management_estimate(design):
    p = _with_extras(design[0], management_network=True)
    r = solve(p, catalog=p.catalog(CAT))
    assert not any(x.category == "management" and "management switch" in x.item
                   for x in r.bom.lines)
    alone = generate(params_from_dict("rail", {"sus": 1}))
    r2 = solve(_with_extras(alone, management_network=True), catalog=CAT)
    assert any("management switch" in x.item for x in r2.bom.lines)


def test_price_books_and_project_prices_reach_network_gear(design):
    from designer.core.sources.model import PriceBook, Sources

    p = design[0]
    book = PriceBook(name="quote", currency="EUR", usd_per_unit=1.1, date="2026-11-01",
                     prices={"qsfp112-400g-sr4": 500.0, "sn5600": 40_000.0},
                     skus={"qsfp112-400g-sr4": "ACME-400SR4"}, lead_times={"sn5600": "6 w"})
    p = p.evolve(sources=Sources(price_books=(book,)),
                 overrides=p.overrides.model_copy(update={"prices": {"sn2201": 7_000.0}}))
    cat = p.catalog(CAT)  # a project price for network-only gear does not break the catalog
    nets = solve_networks(p, cat)
    lines = {(k, x.catalog_id): x for k, n in nets.items() for x in n.lines}
    optic = lines[("frontend", "qsfp112-400g-sr4")]
    assert optic.unit_usd == pytest.approx(550.0) and optic.price_kind == "book"
    assert optic.sku == "ACME-400SR4"
    sw = lines[("storage", "sn5600")]  # a main-catalog switch, priced by the same book
    assert sw.unit_usd == pytest.approx(44_000.0) and sw.lead_time == "6 w"
    mgmt = lines[("oob", "sn2201")]
    assert mgmt.unit_usd == 7_000.0 and mgmt.price_kind == "project"
    assert nets["oob"].cost_usd == pytest.approx(sum(x.total_usd for x in nets["oob"].lines))


def test_a_quote_file_names_network_gear_by_part_number(design, tmp_path):
    from designer.core.sources.edit import with_price_book
    from designer.core.sources.pricebook_io import read_price_book

    p = design[0]
    quote = tmp_path / "quote.csv"
    quote.write_text("part number,unit price,sku,lead time\n"
                     "MSN2201-CB2FC,7100,RES-2201,4 weeks\n"
                     "storage-node-2x400,120000,,\n"
                     "not-a-part,1,,\n", encoding="utf-8")
    got = read_price_book(quote, p.catalog(CAT))
    assert set(got.book.prices) == {"sn2201", "storage-node-2x400"}
    assert [s for _, s in got.skipped] == ["not-a-part"]
    p = with_price_book(p, got.book, CAT)
    nets = solve_networks(p, p.catalog(CAT))
    mgmt = next(x for x in nets["oob"].lines if x.catalog_id == "sn2201")
    assert (mgmt.unit_usd, mgmt.sku, mgmt.lead_time) == (7100.0, "RES-2201", "4 weeks")
    node = next(x for x in nets["storage"].lines if x.catalog_id == "storage-node-2x400")
    assert node.unit_usd == 120_000.0 and node.price_kind == "book"
