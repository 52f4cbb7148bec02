"""Thin xlsx helpers on openpyxl for small, formatted workbooks (the BOM).

Text is always written as a string cell, never guessed into a formula; a formula is written
only when the exporter passes a ``Formula`` it built itself. Long plain tables (cabling plans)
use the faster ``xlsx_stream`` writer instead.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass

from openpyxl import Workbook
from openpyxl.cell import Cell, WriteOnlyCell
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from designer.core.writers.output import write_bytes
from designer.core.writers.safety import is_formula_like, xlsx_text

# Number formats
USD = '"$"#,##0.00'
INTEGER = "#,##0"
DECIMAL = "#,##0.0"
DECIMAL2 = "#,##0.00"
PERCENT = "0.0%"

FONT = "Calibri"  # LibreOffice substitutes the metric-compatible Carlito
HEADER_FONT = Font(name=FONT, bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="1F3B5C")
SUBTOTAL_FILL = PatternFill("solid", fgColor="EEF2F7")
TOTAL_FILL = PatternFill("solid", fgColor="C9D7E8")
INPUT_FILL = PatternFill("solid", fgColor="FFF8E1")  # cells a buyer is expected to edit
TITLE_FONT = Font(name=FONT, bold=True, size=14)
SECTION_FONT = Font(name=FONT, bold=True, size=12, color="1F3B5C")
BOLD = Font(name=FONT, bold=True)
MUTED = Font(name=FONT, italic=True, color="555555")
_THIN = Side(style="thin", color="8899AA")
TOP_RULE = Border(top=_THIN)
RIGHT = Alignment(horizontal="right")
LEFT = Alignment(horizontal="left")


@dataclass(frozen=True)
class Formula:
    """A spreadsheet formula the exporter builds (``=D5*E5``), never user text."""

    text: str

    def __post_init__(self) -> None:
        if not self.text.startswith("="):
            raise ValueError(f"a formula starts with '=': {self.text!r}")


def text_value(c: Cell | WriteOnlyCell, value: object) -> None:
    """Give cell ``c`` its value through the guard: ``str`` is always text, ``Formula``
    always a formula, anything else as it is."""
    if isinstance(value, Formula):
        c.value = value.text
    elif isinstance(value, str):
        text = xlsx_text(value)
        c.value = text
        # openpyxl turns "=..." into a formula and "#REF!" into an error: force a string,
        # and mark risky text with the quote prefix so it stays text when someone edits it
        c.data_type = "s"
        if is_formula_like(text):
            c.quotePrefix = True
    else:
        c.value = value


def text_cell(ws: Worksheet, value: object) -> WriteOnlyCell:
    """A cell of a write-only sheet, its value through the guard (see ``text_value``)."""
    c = WriteOnlyCell(ws)
    text_value(c, value)
    return c


def put(
    ws: Worksheet,
    row: int,
    col: int,
    value: object,
    *,
    number_format: str | None = None,
    font: Font | None = None,
    fill: PatternFill | None = None,
    border: Border | None = None,
    alignment: Alignment | None = None,
) -> Cell:
    """Write one cell: ``str`` is always text, ``Formula`` always a formula."""
    c = ws.cell(row=row, column=col)
    text_value(c, value)
    if number_format:
        c.number_format = number_format
    if font:
        c.font = font
    if fill:
        c.fill = fill
    if border:
        c.border = border
    if alignment:
        c.alignment = alignment
    return c


def set_widths(ws: Worksheet, widths: Sequence[float]) -> None:
    for i, w in enumerate(widths, start=1):
        ws.column_dimensions[get_column_letter(i)].width = w


def header(ws: Worksheet, row: int, titles: Sequence[str]) -> None:
    for i, t in enumerate(titles, start=1):
        put(ws, row, i, t, font=HEADER_FONT, fill=HEADER_FILL,
            alignment=Alignment(vertical="center", wrap_text=True))
    ws.row_dimensions[row].height = 30


def new_workbook() -> Workbook:
    wb = Workbook()
    wb.remove(wb.active)
    return wb


def save_workbook(wb: Workbook, path: str | os.PathLike[str]) -> None:
    buf = io.BytesIO()
    wb.save(buf)
    write_bytes(path, buf.getvalue())
