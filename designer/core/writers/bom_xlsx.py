"""The BOM workbook a buyer opens: Summary, BOM (with live formulas) and Assumptions.

On the BOM sheet every line total is ``=quantity * unit price``, each category ends with a
``SUM`` subtotal, and the grand total adds the subtotals, so a buyer who types their own quote
into a unit price sees every total (and the Summary's cost figures) follow. Unit prices are
shaded as the cells to edit.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openpyxl.worksheet.worksheet import Worksheet

from designer.core.catalog_items import NOT_KNOWN
from designer.core.writers.bom_rows import (
    BomTable,
    category_label,
    order_cells,
    price_source_text,
)
from designer.core.writers.facts import Fact, FactSection
from designer.core.writers.xlsx import (
    BOLD,
    DECIMAL,
    DECIMAL2,
    INPUT_FILL,
    INTEGER,
    LEFT,
    MUTED,
    PERCENT,
    RIGHT,
    SECTION_FONT,
    SUBTOTAL_FILL,
    TITLE_FONT,
    TOP_RULE,
    TOTAL_FILL,
    USD,
    Formula,
    header,
    new_workbook,
    put,
    save_workbook,
    set_widths,
)

if TYPE_CHECKING:
    from designer.core.solver.bom import BomLine


def network_label(name: str) -> str:
    from designer.core.networks import NETWORK_LABELS

    return NETWORK_LABELS.get(name, name)

FORMATS = {"int": INTEGER, "dec": DECIMAL, "dec2": DECIMAL2, "usd": USD, "usd2": USD,
           "pct": PERCENT,
           "text": None}
FIRST_LINE_ROW = 5
LAST_COLUMN = "L"  # the BOM sheet's columns: A-G price the line, H-L say what to order


@dataclass(frozen=True)
class BomLayout:
    """Where the BOM sheet put things (tests and the Summary's formulas refer to it)."""

    line_rows: tuple[int, ...]
    subtotal_rows: tuple[int, ...]
    grand_total_row: int
    per_gpu_row: int
    compute_rows: tuple[int, ...] = ()
    # designs with other networks: the row of each network's subtotal
    network_rows: tuple[tuple[str, int], ...] = ()


def bom_sheet(ws: Worksheet, title: str, table: BomTable) -> BomLayout:
    set_widths(ws, (16, 58, 24, 11, 17, 19, 48, 16, 20, 18, 14, 48, 26))
    put(ws, 1, 1, f"Bill of materials: {title}", font=TITLE_FONT)
    put(ws, 2, 1, "Prices are estimates (see Assumptions). Type your quote into a shaded unit "
                  "price: line totals, subtotals and the grand total follow.", font=MUTED)
    header(ws, 4, table.header)
    last_col = len(table.header)
    ws.freeze_panes = ws.cell(row=FIRST_LINE_ROW, column=1)
    row = FIRST_LINE_ROW
    lines: list[int] = []
    subtotals: list[int] = []
    network_rows: list[tuple[str, int]] = []
    of_network: list[int] = []
    for i, section in enumerate(table.sections):
        first = row
        for x in section.lines:
            _line_row(ws, row, x)
            if table.networks:
                put(ws, row, last_col, network_label(section.network))
            lines.append(row)
            row += 1
        put(ws, row, 2, f"Subtotal: {section.label}", font=BOLD, fill=SUBTOTAL_FILL)
        for col in (1, 3, 4, 5, *range(7, last_col + 1)):
            put(ws, row, col, None, fill=SUBTOTAL_FILL)
        put(ws, row, 6, Formula(f"=SUM(F{first}:F{row - 1})"), number_format=USD, font=BOLD,
            fill=SUBTOTAL_FILL)
        subtotals.append(row)
        of_network.append(row)
        row += 2
        nxt = table.sections[i + 1].network if i + 1 < len(table.sections) else None
        if table.networks and nxt != section.network:
            # a network's subtotal adds its sections' subtotals (not "Subtotal:" itself, so
            # a reader summing those rows does not count a network twice)
            label = network_label(section.network)
            put(ws, row, 2, f"Network subtotal: {label}", font=BOLD, fill=TOTAL_FILL)
            for col in (1, 3, 4, 5, *range(7, last_col)):
                put(ws, row, col, None, fill=TOTAL_FILL)
            put(ws, row, last_col, label, fill=TOTAL_FILL)
            put(ws, row, 6, Formula("=SUM(" + ",".join(f"F{r}" for r in of_network) + ")"),
                number_format=USD, font=BOLD, fill=TOTAL_FILL)
            network_rows.append((section.network, row))
            of_network = []
            row += 2
    grand = row
    put(ws, grand, 2, "Grand total", font=BOLD, fill=TOTAL_FILL, border=TOP_RULE)
    for col in (1, 3, 4, 5, *range(7, last_col + 1)):
        put(ws, grand, col, None, fill=TOTAL_FILL, border=TOP_RULE)
    cells = ",".join(f"F{r}" for r in subtotals) or "0"
    put(ws, grand, 6, Formula(f"=SUM({cells})"), number_format=USD, font=BOLD, fill=TOTAL_FILL,
        border=TOP_RULE)
    per_gpu = grand + 1
    put(ws, per_gpu, 2, f"Per GPU ({table.gpus:,} GPUs)")
    put(ws, per_gpu, 6, Formula(f"=F{grand}/{table.gpus}") if table.gpus else 0,
        number_format=USD)
    compute_rows: list[int] = []
    if table.compute:
        row = per_gpu + 2
        put(ws, row, 1, "For information, not in the total above (compute, not network):",
            font=MUTED)
        for x in table.compute:
            row += 1
            _line_row(ws, row, x)
            compute_rows.append(row)
    end = "M" if table.networks else LAST_COLUMN
    ws.auto_filter.ref = f"A4:{end}{max(lines[-1] if lines else 4, 4)}"
    ws.print_title_rows = "4:4"
    _page(ws)
    return BomLayout(tuple(lines), tuple(subtotals), grand, per_gpu, tuple(compute_rows),
                     tuple(network_rows))


def _line_row(ws: Worksheet, row: int, x: BomLine) -> None:
    """One BOM line: its total is ``quantity * unit price``, and the price is the cell to edit."""
    put(ws, row, 1, category_label(x.category))
    put(ws, row, 2, x.item)
    put(ws, row, 3, x.catalog_id)
    put(ws, row, 4, x.qty, number_format=INTEGER)
    put(ws, row, 5, x.unit_usd, number_format=USD, fill=INPUT_FILL)
    put(ws, row, 6, Formula(f"=D{row}*E{row}"), number_format=USD)
    put(ws, row, 7, price_source_text(x), font=MUTED)
    vendor, part, sku, lead, source = order_cells(x)
    put(ws, row, 8, vendor or None)
    put(ws, row, 9, part or None, font=MUTED if part == NOT_KNOWN else None)
    put(ws, row, 10, sku or None)
    put(ws, row, 11, lead or None)
    put(ws, row, 12, source or None, font=MUTED)


def facts_sheet(ws: Worksheet, title: str, sections: Sequence[FactSection],
                widths: Sequence[float] = (44, 16, 24, 50, 22)) -> dict[str, int]:
    """Label / value / note rows under section headings; returns the row of each fact key."""
    set_widths(ws, widths)
    put(ws, 1, 1, title, font=TITLE_FONT)
    row = 3
    where: dict[str, int] = {}
    for section in sections:
        put(ws, row, 1, section.title, font=SECTION_FONT)
        row += 1
        if section.columns:
            header(ws, row, section.columns)
            row += 1
        for fact in section.facts:
            _fact_row(ws, row, fact)
            if fact.key:
                where[fact.key] = row
            row += 1
        row += 1
    _page(ws)
    return where


def _fact_row(ws: Worksheet, row: int, fact: Fact) -> None:
    strong = BOLD if fact.strong else None
    put(ws, row, 1, fact.label, font=strong)
    # short text sits right like the numbers; long text reads left and spills to the right
    text = fact.kind == "text"
    put(ws, row, 2, fact.value, number_format=FORMATS.get(fact.kind), font=strong,
        alignment=(LEFT if len(str(fact.value)) > 14 else RIGHT) if text else None)
    for col, text in ((3, fact.detail), (4, fact.note), (5, fact.extra)):
        if text:
            put(ws, row, col, text, font=MUTED if col == 4 else None)


def _page(ws: Worksheet) -> None:
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.gridLines = False


def write_bom_xlsx(
    path: str | os.PathLike[str],
    title: str,
    table: BomTable,
    summary: Sequence[FactSection],
    assumptions: Sequence[FactSection],
    tco: tuple | None = None,
) -> BomLayout:
    """Write the workbook. Summary facts keyed ``total_usd`` / ``per_gpu_usd`` become formulas
    on the BOM sheet's totals, so they follow a buyer's edits too."""
    wb = new_workbook()
    ws_summary = wb.create_sheet("Summary")
    ws_bom = wb.create_sheet("BOM")
    ws_assume = wb.create_sheet("Assumptions")
    layout = bom_sheet(ws_bom, title, table)
    linked = {
        "total_usd": Formula(f"=BOM!F{layout.grand_total_row}"),
        "per_gpu_usd": Formula(f"=BOM!F{layout.per_gpu_row}"),
    }
    sections = [
        FactSection(s.title, tuple(
            f.with_value(linked[f.key]) if f.key in linked else f for f in s.facts
        ), s.columns)
        for s in summary
    ]
    facts_sheet(ws_summary, f"Design summary: {title}", sections)
    facts_sheet(ws_assume, "Assumptions behind the figures", assumptions)
    if tco is not None:  # (Estimate, power W, rack units): a TCO sheet with live formulas
        from designer.core.writers.tco_xlsx import tco_sheet

        tco_sheet(wb.create_sheet("TCO"), tco[0], f"BOM!F{layout.grand_total_row}", *tco[1:])
    save_workbook(wb, path)
    return layout
