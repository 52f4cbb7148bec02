"""The comparison workbook: one column per design, a delta column against the first for each
other design (live formulas), the workload's collectives' busbw and the break-even."""

from __future__ import annotations

import os

from openpyxl.utils import get_column_letter

from designer.core.analysis.comparison import FIGURES, TEXT_ROWS, Comparison
from designer.core.writers.xlsx import (
    BOLD,
    DECIMAL2,
    MUTED,
    PERCENT,
    SECTION_FONT,
    TITLE_FONT,
    USD,
    Formula,
    header,
    new_workbook,
    put,
    save_workbook,
    set_widths,
)

FORMAT = {"$": USD, "%": PERCENT}


def write_compare_xlsx(cmp: Comparison, path: str | os.PathLike[str]) -> None:
    wb = new_workbook()
    ws = wb.create_sheet("Compare")
    n = len(cmp.designs)
    put(ws, 1, 1, "Designs side by side", font=TITLE_FONT)
    titles = ["Figure", *[d.label for d in cmp.designs],
              *[f"{d.label} - {cmp.designs[0].label}" for d in cmp.designs[1:]]]
    header(ws, 3, titles)
    row = 4
    for key, label in TEXT_ROWS:
        put(ws, row, 1, label)
        for j, d in enumerate(cmp.designs):
            put(ws, row, 2 + j, d.text(key) or "n/a")
        row += 1
    for key, label, unit, _ in FIGURES:
        put(ws, row, 1, f"{label} ({unit})" if unit and unit not in "$%" else label)
        fmt = FORMAT.get(unit, DECIMAL2)
        for j, d in enumerate(cmp.designs):
            v = d.figures.get(key)
            put(ws, row, 2 + j, v if v is not None else "n/a", number_format=fmt)
        for j in range(1, n):
            if all(cmp.designs[k].figures.get(key) is not None for k in (0, j)):
                a, b = get_column_letter(2), get_column_letter(2 + j)
                put(ws, row, 1 + n + j, Formula(f"={b}{row}-{a}{row}"), number_format=fmt)
        row += 1
    row += 1
    put(ws, row, 1, "busbw of the workload's collectives (GB/s, nccl-tests convention)",
        font=SECTION_FONT)
    row += 1
    keys = list(dict.fromkeys(k for d in cmp.designs for k in d.busbw))
    for k in keys:
        put(ws, row, 1, k)
        for j, d in enumerate(cmp.designs):
            put(ws, row, 2 + j, d.busbw.get(k, "n/a"), number_format=DECIMAL2)
        row += 1
    row += 1
    put(ws, row, 1, "Break-even (the dearer fabric pays when its efficiency gain exceeds)",
        font=SECTION_FONT)
    row += 1
    for be in cmp.break_even:
        put(ws, row, 1, f"{be['dearer']} over {be['cheaper']}", font=BOLD)
        put(ws, row, 2, be["delta_tco_usd"], number_format=USD)
        put(ws, row, 3, be["break_even_gain"], number_format=PERCENT)
        put(ws, row, 4, be["efficiency_gain"], number_format=PERCENT)
        put(ws, row, 5, "pays" if be["pays"] else "does not pay")
        row += 1
    for d in cmp.designs:
        routing = f"routing {d.routing.name} (source: {d.routing.source})" if d.routing else ""
        for text in (routing, d.layout, d.error and f"no figures: {d.error}"):
            if text:
                put(ws, row, 1, f"{d.label}: {text}", font=MUTED)
                row += 1
    for text in cmp.notes:
        put(ws, row, 1, text, font=MUTED)
        row += 1
    if cmp.premium:
        put(ws, row, 1, cmp.premium.text(), font=MUTED)
        row += 1
    if cmp.recommendation:
        row += 1
        rec = cmp.recommendation
        head = f"{rec.winner} ({rec.choice})" if rec.winner else rec.choice
        put(ws, row, 1, f"Recommendation: {head}", font=SECTION_FONT)
        row += 1
        for a in rec.assumptions:
            put(ws, row, 1, f"Assumes {a}", font=MUTED)
            row += 1
        for x in rec.sensitivity:
            put(ws, row, 1, "If " + (x.get("text") or f"{x['case']}: {x.get('error', '')}"))
            if "flips" in x:
                put(ws, row, 2, "flips" if x["flips"] else "stays")
            row += 1
        for r in cmp.recommendation.rules:
            put(ws, row, 1, ("fired: " if r.fired else "not fired: ") + r.rule)
            put(ws, row, 2, r.figure)
            put(ws, row, 3, r.source, font=MUTED)
            row += 1
        put(ws, row, 1, cmp.recommendation.break_even, font=MUTED)
    set_widths(ws, [44] + [18] * (2 * n - 1))
    ws.freeze_panes = "B4"
    save_workbook(wb, path)
