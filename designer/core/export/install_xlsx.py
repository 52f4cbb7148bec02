"""The printable installable cabling plan: an xlsx set up for paper.

Two sheets, each printed landscape, fitted to the page width, with the header row repeated on
every page and one section per rack starting on a new page: "Cabling plan" (every cable, at
the rack it starts from) and "Labels" (one label per cable end, under the rack of that end,
to print and stick on). openpyxl's write-only mode keeps memory flat on large plans.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.properties import PageSetupProperties

from designer.core.export.csv_writer import write_csv
from designer.core.export.output import write_bytes
from designer.core.export.safety import xlsx_text
from designer.core.physical.install import HEADER, LABEL_HEADER, InstallPlan

WIDTHS = (10, 5, 22, 7, 10, 5, 22, 7, 11, 18, 20, 20, 20, 11)
LABEL_WIDTHS = (12, 48, 48, 11, 18)
HEADER_FONT = Font(name="Calibri", bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="1F3B5C")
SECTION_FONT = Font(name="Calibri", bold=True, size=12, color="1F3B5C")
SECTION_FILL = PatternFill("solid", fgColor="EEF2F7")


def _page_setup(ws, widths: tuple[int, ...]) -> None:
    for i, w in enumerate(widths, start=1):
        ws.column_dimensions[get_column_letter(i)].width = w
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = "9"  # A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0  # as many pages tall as needed
    ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
    ws.print_title_rows = "1:1"
    ws.freeze_panes = "A2"
    ws.print_options.gridLines = True


def _header(ws, names: tuple[str, ...]) -> None:
    row = []
    for h in names:
        c = WriteOnlyCell(ws, value=h)
        c.font, c.fill = HEADER_FONT, HEADER_FILL
        c.alignment = Alignment(vertical="center", wrap_text=True)
        row.append(c)
    ws.append(row)


def _section(ws, text: str) -> None:
    c = WriteOnlyCell(ws, value=xlsx_text(text))
    c.font, c.fill = SECTION_FONT, SECTION_FILL
    ws.append([c])


def _cell(v):
    return xlsx_text(v) if isinstance(v, str) else v


def install_xlsx_bytes(plan: InstallPlan,
                       progress: Callable[[int, int], None] | None = None) -> bytes:
    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Cabling plan")
    _page_setup(ws, WIDTHS)
    ws.oddHeader.center.text = f"Cabling plan: {plan.project_name}"
    ws.oddFooter.center.text = "Page &P of &N"
    _header(ws, HEADER)
    row = 1
    rows = list(plan.rows())
    total = len(rows) * 2
    done = 0
    for k, (rack, rng) in enumerate(plan.sections()):
        if k:
            ws.row_breaks.append(Break(id=row))
        _section(ws, f"Rack {rack}: {len(rng):,} cable(s) start here")
        row += 1
        for r in rows[rng.start:rng.stop]:
            ws.append([_cell(v) for v in r])
        row += len(rng)
        done += len(rng)
        if progress is not None:
            progress(done, total)
    ls = wb.create_sheet("Labels")
    _page_setup(ls, LABEL_WIDTHS)
    ls.oddHeader.center.text = f"Cable labels: {plan.project_name}"
    ls.oddFooter.center.text = "Page &P of &N"
    _header(ls, LABEL_HEADER)
    row = 1
    for k, (rack, rng) in enumerate(plan.label_sections()):
        if k:
            ls.row_breaks.append(Break(id=row))
        _section(ls, f"Rack {rack}: {len(rng):,} label(s)")
        row += 1
        for r in plan.label_rows(rng):
            ls.append([_cell(v) for v in r])
        row += len(rng)
        done += len(rng) // 2
        if progress is not None:
            progress(done, total)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def write_install_xlsx(plan: InstallPlan, path: str | os.PathLike[str],
                       progress: Callable[[int, int], None] | None = None) -> None:
    write_bytes(path, install_xlsx_bytes(plan, progress))


def write_install_csv(plan: InstallPlan, path: str | os.PathLike[str]) -> None:
    write_csv(path, HEADER, plan.rows())

