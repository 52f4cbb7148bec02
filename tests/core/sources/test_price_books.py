"""Price books: a supplier's quote overrides the catalog for one project, and the BOM says
which price came from which book."""

from __future__ import annotations

import json

import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from designer.core.model import Overrides
from designer.core.solver import solve
from designer.core.sources import PriceBook
from designer.core.sources.apply import SourcesError, price_origin
from designer.core.sources.edit import with_price_book
from designer.core.sources.pricebook_io import book_from_rows, read_price_book

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def pod():
    return generate(params_from_dict("rail", {"sus": 2}))


def _line(r, gear_id):
    return next(x for x in r.bom.lines if x.catalog_id == gear_id)


def test_csv_quote_overrides_the_catalog_and_is_named(tmp_path, pod):
    f = tmp_path / "q.csv"
    f.write_text("Part ID,Unit Price,Currency,Date\nqm9700,\"31,500.00\",USD,2026-10-01\n"
                 "SUPPORT-3Y,9999,USD,2026-10-01\nOSFP-2X400G-SR8,$1750,USD,2026-09-30\n")
    got = read_price_book(f, CAT)
    assert got.book.prices == {"qm9700": 31500.0, "osfp-2x400g-sr8": 1750.0}
    assert got.book.date == "2026-10-01" and got.book.name == "q"
    assert got.skipped == ((3, "SUPPORT-3Y"),)
    p = with_price_book(pod, got.book, CAT)
    r = solve(p)
    sw = _line(r, "qm9700")
    assert sw.unit_usd == 31500.0 and sw.price_kind == "book" and "'q'" in sw.price_source
    assert _line(r, "connectx-7").price_kind in ("catalog", "assumption")
    by = r.bom.to_json()["usd_by_price_source"]
    assert by[sw.price_source] == pytest.approx(sw.total_usd + _line(
        r, "osfp-2x400g-sr8").total_usd)
    assert sum(by.values()) == pytest.approx(r.bom.total_usd)


def test_xlsx_quote_in_euros_needs_a_rate(tmp_path, pod):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Quote 17 from Acme"])
    ws.append(["part id", "unit price", "currency", "date"])
    ws.append(["qm9700", 30000, "EUR", "2026-11-02"])
    f = tmp_path / "acme.xlsx"
    wb.save(f)
    with pytest.raises(SourcesError, match=r"currency.*--usd-rate"):
        read_price_book(f, CAT)
    got = read_price_book(f, CAT, usd_per_unit=1.1, name="Acme 17")
    p = with_price_book(pod, got.book, CAT)
    assert _line(solve(p), "qm9700").unit_usd == pytest.approx(33000.0)


@pytest.mark.parametrize("rows, message", [
    ([["id", "cost"], ["qm9700", "1"]], "no header row"),
    ([["part id", "unit price"], ["qm9700", "abc"]], r"row 2: unit price 'abc'"),
    ([["part id", "unit price", "currency"], ["qm9700", "1", "USD"],
      ["sn5600", "1", "EUR"]], "one currency"),
    ([["part id", "unit price"], ["nothing-known", "1"]], "no prices for catalog parts"),
    ([["part id", "unit price", "date"], ["qm9700", "1", "soon"]], r"row 2: date 'soon'"),
])
def test_bad_quotes_name_the_field(rows, message):
    with pytest.raises(SourcesError, match=message):
        book_from_rows(rows, CAT, name="x")


def test_precedence_catalog_then_books_then_the_projects_own_price(pod):
    a = PriceBook(name="a", prices={"qm9700": 30000})
    b = PriceBook(name="b", prices={"qm9700": 29000}, date="2026-11")
    p = with_price_book(with_price_book(pod, a, CAT), b, CAT)
    assert _line(solve(p), "qm9700").unit_usd == 29000  # the later book wins
    assert price_origin(p, p.catalog(CAT), "qm9700").label.startswith("price book 'b'")
    own = p.model_copy(update={"overrides": Overrides(prices={"qm9700": 100.0},
                                                      gear=p.overrides.gear)})
    line = _line(solve(own), "qm9700")
    assert line.unit_usd == 100 and line.price_kind == "project"


def test_books_are_saved_with_the_project(tmp_path, pod):
    p = with_price_book(pod, PriceBook(name="q", currency="EUR", usd_per_unit=1.1,
                                       date="2026-11-02", prices={"qm9700": 30000}), CAT)
    f = tmp_path / "p.fabric.json"
    save_project(p, f)
    back = load_project(f, CAT)
    assert back.sources == p.sources
    assert _line(solve(back), "qm9700").unit_usd == pytest.approx(33000)


def test_cli_import_list_remove_and_one_run_books(tmp_path, capsys):
    f = tmp_path / "pod.fabric.json"
    main(["generate", "rail", "--sus", "1", "-o", str(f)])
    q = tmp_path / "quote.csv"
    q.write_text("part id;unit price;currency\nqm9700;20000;USD\n")
    assert main(["prices", "import", str(f), str(q), "--name", "Q1", "--date",
                 "2026-11-20"]) == 0
    assert main(["prices", "list", str(f)]) == 0
    assert "Q1: 1 prices, USD, dated 2026-11-20" in capsys.readouterr().out
    capsys.readouterr()
    main(["solve", str(f), "--json"])
    line = next(x for x in json.loads(capsys.readouterr().out)["bom"]["lines"]
                if x["catalog_id"] == "qm9700")
    assert line["unit_usd"] == 20000 and line["price_source"]["kind"] == "book"
    assert main(["prices", "remove", str(f), "Q1"]) == 0
    capsys.readouterr()
    # --price-book applies for one run only
    main(["solve", str(f), "--json", "--price-book", str(q)])
    d = json.loads(capsys.readouterr().out)
    assert next(x for x in d["bom"]["lines"] if x["catalog_id"] == "qm9700")["unit_usd"] == 20000
    assert load_project(f, CAT).sources.price_books == ()
    out = tmp_path / "bom.csv"
    assert main(["export", "bom", str(f), "-o", str(out), "--price-book", str(q)]) == 0


def test_cli_refuses_a_bad_book_with_one_line(tmp_path, capsys):
    f = tmp_path / "pod.fabric.json"
    main(["generate", "rail", "--sus", "1", "-o", str(f)])
    q = tmp_path / "quote.csv"
    q.write_text("part,price,currency\nqm9700,100,GBP\n")
    capsys.readouterr()
    assert main(["prices", "import", str(f), str(q)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("designer: ") and "--usd-rate" in err and "Traceback" not in err


IDS = ["qm9700", "sn5600", "connectx-7", "osfp-2x400g-sr8"]


@settings(max_examples=60, deadline=None)
@given(books=st.lists(st.dictionaries(st.sampled_from(IDS), st.integers(1, 10**6), max_size=4),
                      max_size=4),
       own=st.dictionaries(st.sampled_from(IDS), st.integers(1, 10**6), max_size=2))
def test_the_last_book_wins_and_the_projects_own_price_wins_over_all(books, own):
    p = generate(params_from_dict("rail", {"sus": 1, "servers_per_su": 4}))
    for k, prices in enumerate(books):
        p = with_price_book(p, PriceBook(name=f"b{k}", prices=prices), CAT)
    p = p.model_copy(update={"overrides": Overrides(prices=own, gear=p.overrides.gear)})
    cat = p.catalog(CAT)
    for gear_id in IDS:
        expect = CAT.price(gear_id)
        kind = "catalog-or-assumption"
        for prices in books:
            if gear_id in prices:
                expect, kind = prices[gear_id], "book"
        if gear_id in own:
            expect, kind = own[gear_id], "project"
        assert cat.price(gear_id) == expect
        origin = price_origin(p, cat, gear_id).kind
        assert origin == kind or (kind == "catalog-or-assumption"
                                  and origin in ("catalog", "assumption"))
