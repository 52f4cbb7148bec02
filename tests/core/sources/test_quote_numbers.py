"""Supplier quotes are read by the locale the file shows, or refused naming the cell: never a
price a thousand times too small without a word. What would be imported is shown first."""

from __future__ import annotations

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from designer.core.sources.apply import SourcesError
from designer.core.sources.numbers import AmbiguousNumber, Cell, read_numbers
from designer.core.sources.pricebook_io import book_from_rows, read_price_book

CAT = builtin_catalog()
# The quote: ';' separators, '1.750,00' with a decimal comma, '31.500' in thousands.
EUROPEAN = "Part ID;Unit price;Currency\nsn5600;31.500;USD\nconnectx-7;1.750,00;USD\n" \
           "osfp-2x400g-sr8;1.900;USD\n"


def _read(texts, **kw):
    return read_numbers([Cell(f"row {i + 2}", t) for i, t in enumerate(texts)], **kw)


def test_the_european_quote_reads_in_thousands(tmp_path):
    f = tmp_path / "eu.csv"
    f.write_text(EUROPEAN)
    got = read_price_book(f, CAT)
    # read cell by cell these were 31.5, 1750 and 1.9: the BOM fell by about $1.5M
    assert got.book.prices == {"sn5600": 31500.0, "connectx-7": 1750.0,
                               "osfp-2x400g-sr8": 1900.0}
    assert got.numbers.startswith("decimal comma, as") and "'1.750,00'" in got.numbers
    assert not got.suspects


@pytest.mark.parametrize(("texts", "expect", "shown_by"), [
    (["1,234.50", "31,500"], [1234.5, 31500.0], "decimal point"),
    (["1.234,50", "31.500"], [1234.5, 31500.0], "decimal comma"),
    (["2.5", "1,750"], [2.5, 1750.0], "decimal point"),
    (["2,5", "1.750"], [2.5, 1750.0], "decimal comma"),
    (["1.234.567", "1.750"], [1234567.0, 1750.0], "decimal comma"),
    (["1 234,50", "99"], [1234.5, 99.0], "decimal comma"),  # a space groups thousands
    (["1'234.50", "10"], [1234.5, 10.0], "decimal point"),  # Swiss
    (["$1,750.00", "USD 20"], [1750.0, 20.0], "decimal point"),
    (["0.500", "7"], [0.5, 7.0], "decimal point"),  # '0.500' is no thousands grouping
])
def test_one_cell_that_reads_one_way_decides_the_column(texts, expect, shown_by):
    r = _read(texts)
    assert list(r.values) == expect and r.why.startswith(shown_by)


def test_an_ambiguous_column_is_refused_naming_the_cell_and_both_readings():
    with pytest.raises(AmbiguousNumber) as e:
        _read(["31.500", "1.750"])
    msg = str(e.value)
    assert "row 2" in msg and "'31.500'" in msg and "31.50 with a decimal point" in msg
    assert "31,500.00 with a decimal comma" in msg and "--decimal" in msg


def test_the_users_mark_or_the_csv_separator_settles_an_ambiguous_column():
    assert _read(["31.500"], decimal=",").values == (31500.0,)
    assert _read(["31.500"], decimal=".").values == (31.5,)
    assert _read(["31.500"], field_separator=";").values == (31500.0,)
    assert _read(["31,500"], field_separator=",").values == (31500.0,)
    with pytest.raises(AmbiguousNumber):
        _read(["31.500"], field_separator="\t")  # a tab says nothing about the locale


def test_mixed_locales_are_refused_naming_both_cells():
    with pytest.raises(SourcesError, match=r"row 2 '1,234.50' has a decimal point, row 3 "
                                           r"'1.234,50' a decimal comma"):
        _read(["1,234.50", "1.234,50"])


@pytest.mark.parametrize("text", ["1_000", "١٢٣", "1²", "inf", "nan", "1e3", "-5", "(5)",
                                  "12,34,56", "1.2.3,4,5", "", "abc", "1,,000"])
def test_what_is_not_a_price_is_refused(text):
    with pytest.raises(SourcesError, match="row 2"):
        _read([text])


def test_a_currency_sign_must_agree_with_the_book():
    assert _read(["€1.750,00"]).currency == "EUR"
    with pytest.raises(SourcesError, match="is in €, but the book's currency is USD"):
        _read(["€1.750,00"], currency="USD")
    with pytest.raises(SourcesError, match="could be CNY, JPY"):
        _read(["¥100"])


@given(st.integers(0, 10**9 - 1), st.integers(0, 99), st.sampled_from([".", ","]),
       st.sampled_from([",", ".", " ", ""]))
def test_a_written_price_reads_back_exactly_with_its_locale(whole, cents, mark, group):
    """Any price written the way one locale writes it reads back as that price when the
    column shows the locale (here a cell with decimals does)."""
    if group == mark:
        return
    digits = f"{whole:,}".replace(",", "\0").replace("\0", group)
    text = f"{digits}{mark}{cents:02d}"
    r = _read([text, f"1{mark}25"])
    assert r.values[0] == pytest.approx(whole + cents / 100)


def test_duplicate_parts_with_two_prices_are_refused():
    rows = [["part id", "unit price"], ["qm9700", "100"], ["QM9700", "200"]]
    with pytest.raises(SourcesError, match="priced twice, '100' in row 2 and '200' in row 3"):
        book_from_rows(rows, CAT, name="x")


def test_workbook_numbers_are_typed_and_text_cells_still_read_by_locale(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["part id", "unit price"])
    ws.append(["qm9700", 31500])  # a number cell: no locale to misread
    ws.append(["sn5600", "1.750,00"])  # text: read by the locale it shows
    f = tmp_path / "q.xlsx"
    wb.save(f)
    got = read_price_book(f, CAT)
    assert got.book.prices == {"qm9700": 31500.0, "sn5600": 1750.0}


@pytest.mark.parametrize("rate", ["0", "-1", "nan", "inf", "1e308", "1e-9", "²"])
def test_a_currency_rate_no_currency_has_is_refused(tmp_path, capsys, rate):
    f = tmp_path / "p.fabric.json"
    save_project(generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"})), f)
    q = tmp_path / "q.csv"
    q.write_text("part id,unit price,currency\nsn5600,50000,XYZ\n")
    with pytest.raises(SystemExit) as e:
        main(["prices", "import", str(f), str(q), "--usd-rate", rate])
    assert e.value.code == 2 and "--usd-rate" in capsys.readouterr().err
    with pytest.raises(SourcesError, match="not a currency's"):
        book_from_rows([["part id", "unit price"], ["sn5600", "1"]], CAT, name="x",
                       currency="XYZ", usd_per_unit=0.0)


def test_preview_shows_every_price_and_marks_the_far_ones_then_saves_nothing(tmp_path, capsys):
    f = tmp_path / "p.fabric.json"
    save_project(generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"})), f)
    q = tmp_path / "q.csv"
    q.write_text("part id,unit price\nsn5600,58.8\nconnectx-7,\"1,800.00\"\n")
    assert main(["prices", "import", str(f), str(q), "--preview"]) == 0
    out = capsys.readouterr().out
    assert "numbers: decimal point, as" in out and "nothing saved (--preview)" in out
    sn = next(line for line in out.splitlines() if "sn5600" in line)
    assert "58.80" in sn and "58,800.00" in sn and "! 1,000x below the price in use" in sn
    assert "check 1 price(s) marked '!'" in out
    assert load_project(f).sources.price_books == ()
    # without --preview the same table is printed and the book applied
    assert main(["prices", "import", str(f), str(q)]) == 0
    assert "imported price book 'q'" in capsys.readouterr().out
    assert load_project(f).sources.price_books[0].prices["sn5600"] == 58.8


def test_cli_ambiguous_quote_names_the_cell_and_decimal_settles_it(tmp_path, capsys):
    f = tmp_path / "p.fabric.json"
    save_project(generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"})), f)
    q = tmp_path / "q.csv"
    q.write_text("part id\tunit price\nsn5600\t31.500\n")
    assert main(["prices", "import", str(f), str(q)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "row 2: unit price '31.500'" in err
    assert main(["prices", "import", str(f), str(q), "--decimal", ","]) == 0
    assert load_project(f).sources.price_books[0].prices["sn5600"] == 31500.0
