"""The printable installable cabling plan: an xlsx set up for paper.

Two sheets, each printed landscape, fitted to the page width, with the header row repeated on
every page and one section per rack starting on a new page: "Cabling plan" (every cable, at
the rack it starts from) and "Labels" (one label per cable end, under the rack of that end,
to print and stick on). openpyxl's write-only mode keeps memory flat on large plans.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Iterator

from openpyxl import Workbook
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.properties import PageSetupProperties

from designer.core.physical.install import HEADER, LABEL_HEADER, InstallPlan
from designer.core.writers.csv_writer import write_csv
from designer.core.writers.output import write_bytes
from designer.core.writers.safety import xlsx_header_text
from designer.core.writers.xlsx import (
    HEADER_FILL,
    HEADER_FONT,
    SECTION_FONT,
    SUBTOTAL_FILL,
    text_cell,
)

WIDTHS = (10, 5, 22, 7, 10, 5, 22, 7, 11, 18, 20, 20, 20, 11)
LABEL_WIDTHS = (12, 48, 48, 11, 18)
SECTION_FILL = SUBTOTAL_FILL


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
        c = text_cell(ws, h)
        c.font, c.fill = HEADER_FONT, HEADER_FILL
        c.alignment = Alignment(vertical="center", wrap_text=True)
        row.append(c)
    ws.append(row)


def _section(ws, text: str) -> None:
    c = text_cell(ws, text)
    c.font, c.fill = SECTION_FONT, SECTION_FILL
    ws.append([c])


def _printed_sheet(wb: Workbook, name: str, heading: str, widths: tuple[int, ...],
                   names: tuple[str, ...], sections: Iterator[tuple[str, Iterable[tuple]]],
                   done: Callable[[int], None]) -> None:
    """One sheet for paper: ``heading`` on every page, ``names`` as the repeated header
    row, each (title, rows) section from a new page; ``done(n)`` after n rows."""
    ws = wb.create_sheet(name)
    _page_setup(ws, widths)
    ws.oddHeader.center.text = xlsx_header_text(heading)
    ws.oddFooter.center.text = "Page &P of &N"
    _header(ws, names)
    row = 1
    for k, (title, rows) in enumerate(sections):
        if k:
            ws.row_breaks.append(Break(id=row))
        _section(ws, title)
        n = 0
        for r in rows:
            # every value through the guard: a name starting with '=' stays text
            ws.append([text_cell(ws, v) if isinstance(v, str) else v for v in r])
            n += 1
        row += 1 + n
        done(n)


def install_xlsx_bytes(plan: InstallPlan,
                       progress: Callable[[int, int], None] | None = None) -> bytes:
    wb = Workbook(write_only=True)
    rows = list(plan.rows())
    total = len(rows) * 2  # a label per cable end: the labels are half the work
    done = 0

    def advance(weight: float) -> Callable[[int], None]:
        def step(n: int) -> None:
            nonlocal done
            done += int(n * weight)
            if progress is not None:
                progress(done, total)
        return step

    _printed_sheet(wb, "Cabling plan", f"Cabling plan: {plan.project_name}", WIDTHS, HEADER,
                   ((f"Rack {rack}: {len(rng):,} cable(s) start here", rows[rng.start:rng.stop])
                    for rack, rng in plan.sections()), advance(1.0))
    _printed_sheet(wb, "Labels", f"Cable labels: {plan.project_name}", LABEL_WIDTHS,
                   LABEL_HEADER,
                   ((f"Rack {rack}: {len(rng):,} label(s)", plan.label_rows(rng))
                    for rack, rng in plan.label_sections()), advance(0.5))
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def write_install_xlsx(plan: InstallPlan, path: str | os.PathLike[str],
                       progress: Callable[[int, int], None] | None = None) -> None:
    write_bytes(path, install_xlsx_bytes(plan, progress))


def write_install_csv(plan: InstallPlan, path: str | os.PathLike[str]) -> None:
    write_csv(path, HEADER, plan.rows())

