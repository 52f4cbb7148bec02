"""The streaming xlsx writer: what openpyxl reads back is what was written."""

from __future__ import annotations

import math

import openpyxl
import pytest

from designer.core.writers import xlsx_stream as xs
from designer.core.writers.xlsx_stream import StreamColumn, StreamSheet, write_workbook


def test_round_trip_types_styles_and_layout(tmp_path):
    cols = (StreamColumn("Name", 20), StreamColumn("Count", 8, "int"),
            StreamColumn("Length", 8, "dec"))
    rows = [("leaf-1", 3, 2.5), ("=1+1", 4, 10.0), ("#REF!", 0, math.nan), ("a & <b>", 7, 1e-3),
            (" padded ", -1, 3.0)]
    path = tmp_path / "t.xlsx"
    write_workbook(path, [StreamSheet("Data", cols, rows, total=len(rows)),
                          StreamSheet("Notes", cols[:1], [("x",)], preamble=[("Title", xs.TITLE)],
                                      filter=False)], title="T")
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == ["Data", "Notes"]
    ws = wb["Data"]
    assert [c.value for c in ws[1]] == ["Name", "Count", "Length"]
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref == "A1:C6"
    assert ws.column_dimensions["A"].width == 20
    got = [tuple(c.value for c in row) for row in ws.iter_rows(min_row=2)]
    assert got[0] == ("leaf-1", 3, 2.5)
    assert got[1][0] == "=1+1" and ws["A3"].data_type == "s" and ws["A3"].quotePrefix
    assert got[2][0] == "#REF!" and ws["A4"].data_type == "s" and got[2][2] is None
    assert got[3] == ("a & <b>", 7, 0.001)
    assert got[4][0] == " padded "
    assert ws["B2"].number_format == "#,##0"
    notes = wb["Notes"]
    assert notes["A1"].value == "Title" and notes["A3"].value == "Name"
    assert notes.freeze_panes == "A4"


def test_long_tables_continue_on_more_sheets(tmp_path, monkeypatch):
    monkeypatch.setattr(xs, "MAX_ROWS", 10)
    rows = [(f"r{i}", i) for i in range(20)]
    path = tmp_path / "t.xlsx"
    cols = (StreamColumn("Name"), StreamColumn("N", kind="int"))
    write_workbook(path, [StreamSheet("Cables", cols, rows)])
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == ["Cables", "Cables (2)", "Cables (3)"]
    values = [r[1] for ws in wb for r in ws.iter_rows(min_row=2, values_only=True)]
    assert values == list(range(20))


def test_unwritable_place_is_a_clear_error(tmp_path):
    from designer.core.writers.output import ExportError

    with pytest.raises(ExportError, match="does not exist"):
        write_workbook(tmp_path / "no" / "t.xlsx", [StreamSheet("A", (StreamColumn("x"),), [])])


def test_printed_sheet_headings_start_pages(tmp_path):
    cols = (StreamColumn("Rack", 10), StreamColumn("U", 5))
    rows = [xs.Heading("Rack A1"), ("A1", 1), ("A1", 2), xs.Heading("=Rack B & C"), ("B1", 7)]
    path = tmp_path / "p.xlsx"
    write_workbook(path, [StreamSheet("Plan", cols, rows, filter=False,
                                      printed=xs.Printed("Plan: R&D"))])
    ws = openpyxl.load_workbook(path)["Plan"]
    assert [c.value for c in ws[1]] == ["Rack", "U"]
    assert ws.print_title_rows.replace("$", "") == "1:1" and ws.freeze_panes == "A2"
    assert ws.auto_filter.ref is None
    # a page break before every heading but the first: after row 4, the heading on row 5
    assert [b.id for b in ws.row_breaks.brk] == [4]
    assert ws["A5"].value == "=Rack B & C" and ws["A5"].data_type == "s"
    assert ws["A2"].font.b and ws["A2"].font.sz == 12 and ws["A2"].fill.fgColor.rgb.endswith(
        "EEF2F7")
    assert [c.value for c in ws[6]] == ["B1", 7]
    assert ws.oddHeader.center.text == "Plan: R&&D"  # '&' doubled: printed as written
    assert ws.oddFooter.center.text == "Page &P of &N"
    assert ws.page_setup.orientation == "landscape" and ws.page_setup.paperSize == 9
    assert ws.print_options.gridLines
