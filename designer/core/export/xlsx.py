"""Thin xlsx writing on openpyxl: typed cells, tables with headers, atomic save.

Workbooks are built in write-only mode (rows streamed, little memory: a cabling plan of 200,000
cables stays fast). Text is always written as a string cell, never guessed into a formula; a
formula is written only when the exporter passes a ``Formula``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from designer.core.export.output import write_bytes
from designer.core.export.safety import is_formula_like, xlsx_text

# Number formats
USD = '"$"#,##0.00'
USD_WHOLE = '"$"#,##0'
INTEGER = "#,##0"
DECIMAL = "#,##0.0"
DECIMAL2 = "#,##0.00"
PERCENT = "0.0%"

MAX_ROWS = 1_048_576  # rows of one sheet in Excel and LibreOffice
PROGRESS_EVERY = 5000

# progress(done, total): a writer reports how far it got; it may raise to cancel
Progress = Callable[[int, int], None]

HEADER_FONT = Font(bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="1F3B5C")
SUBTOTAL_FILL = PatternFill("solid", fgColor="E8EEF5")
TOTAL_FILL = PatternFill("solid", fgColor="C9D7E8")
TITLE_FONT = Font(bold=True, size=14)
BOLD = Font(bold=True)
MUTED = Font(italic=True, color="555555")
_THIN = Side(style="thin", color="8899AA")
TOP_RULE = Border(top=_THIN)
WRAP = Alignment(wrap_text=True, vertical="top")


@dataclass(frozen=True)
class Formula:
    """A spreadsheet formula the exporter builds (``=D5*E5``), never user text."""

    text: str

    def __post_init__(self) -> None:
        if not self.text.startswith("="):
            raise ValueError(f"a formula starts with '=': {self.text!r}")


@dataclass(frozen=True)
class Column:
    header: str
    width: float = 12
    number_format: str | None = None
    wrap: bool = False


def new_workbook() -> Workbook:
    return Workbook(write_only=True)


def cell(
    ws: WriteOnlyWorksheet,
    value: object,
    *,
    number_format: str | None = None,
    font: Font | None = None,
    fill: PatternFill | None = None,
    border: Border | None = None,
    alignment: Alignment | None = None,
) -> WriteOnlyCell:
    """One styled cell; ``str`` is always text, ``Formula`` always a formula."""
    if isinstance(value, Formula):
        c = WriteOnlyCell(ws, value=value.text)
    elif isinstance(value, str):
        text = xlsx_text(value)
        c = WriteOnlyCell(ws, value=text)
        # openpyxl turns "=..." into a formula and "#REF!" into an error: force a string,
        # and mark risky text with the quote prefix so it stays text when edited
        c.data_type = "s"
        if is_formula_like(text):
            c.quotePrefix = True
    else:
        c = WriteOnlyCell(ws, value=value)
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


def set_columns(ws: WriteOnlyWorksheet, columns: Sequence[Column]) -> None:
    for i, col in enumerate(columns, start=1):
        ws.column_dimensions[get_column_letter(i)].width = col.width


def header_row(ws: WriteOnlyWorksheet, columns: Sequence[Column]) -> list[WriteOnlyCell]:
    return [
        cell(ws, c.header, font=HEADER_FONT, fill=HEADER_FILL,
             alignment=Alignment(vertical="center", wrap_text=True))
        for c in columns
    ]


def table_sheet(
    wb: Workbook,
    title: str,
    columns: Sequence[Column],
    rows: Iterable[Sequence[object]],
    *,
    max_rows: int = MAX_ROWS,
    progress: Progress | None = None,
    total: int = 0,
) -> int:
    """Write a plain table (header, frozen, filterable), continuing on more sheets when it
    outgrows one. Returns the number of data rows written. ``progress(done, total)`` is
    called every few thousand rows and may raise to stop."""
    formats = [c.number_format for c in columns]
    wraps = [WRAP if c.wrap else None for c in columns]
    per_sheet = max_rows - 1
    written = 0
    sheet_no = 0
    ws = None
    in_sheet = 0

    def start_sheet() -> WriteOnlyWorksheet:
        nonlocal sheet_no
        sheet_no += 1
        name = title if sheet_no == 1 else f"{title} ({sheet_no})"
        s = wb.create_sheet(name[:31])
        set_columns(s, columns)
        s.freeze_panes = "A2"
        s.append(header_row(s, columns))
        return s

    for row in rows:
        if ws is None or in_sheet == per_sheet:
            if ws is not None:
                _filter(ws, len(columns), in_sheet)
            ws = start_sheet()
            in_sheet = 0
        ws.append([
            cell(ws, v, number_format=f, alignment=w) if (f or w or isinstance(v, str)) else v
            for v, f, w in zip(row, formats, wraps, strict=True)
        ])
        in_sheet += 1
        written += 1
        if progress is not None and written % PROGRESS_EVERY == 0:
            progress(written, total)
    if ws is None:
        ws = start_sheet()
    _filter(ws, len(columns), in_sheet)
    return written


def _filter(ws: WriteOnlyWorksheet, n_columns: int, n_rows: int) -> None:
    ws.auto_filter.ref = f"A1:{get_column_letter(n_columns)}{max(n_rows + 1, 1)}"


def save_workbook(wb: Workbook, path: str | os.PathLike[str]) -> None:
    buf = io.BytesIO()
    wb.save(buf)
    write_bytes(path, buf.getvalue())
