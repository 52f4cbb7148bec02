"""The TCO sheet of the BOM workbook: the assumptions as cells to edit, every total a live
formula, capex linked to the BOM sheet's grand total (a new quote there moves the TCO)."""

from __future__ import annotations

from openpyxl.worksheet.worksheet import Worksheet

from designer.core.analysis.estimates import Estimate
from designer.core.transport.tuning import tuning_label, tuning_name
from designer.core.writers.xlsx import (
    BOLD,
    DECIMAL2,
    INPUT_FILL,
    INTEGER,
    MUTED,
    PERCENT,
    SECTION_FONT,
    TITLE_FONT,
    TOTAL_FILL,
    USD,
    Formula,
    put,
    set_widths,
)


def tco_sheet(ws: Worksheet, est: Estimate, capex_cell: str, power_w: float,
              rack_units: float) -> dict[str, str]:
    """Write the sheet; returns the cell of each named figure (tests read them)."""
    e = est.economics
    line, who = tuning_label(est.transport), tuning_name(est.transport)
    put(ws, 1, 1, "Total cost of ownership", font=TITLE_FONT)
    put(ws, 2, 1, "Shaded cells are assumptions to edit; the rest are formulas.", font=MUTED)
    put(ws, 4, 1, "Assumptions", font=SECTION_FONT)
    inputs = (
        ("years", "Years", e.years, DECIMAL2),
        ("kwh", "$ per kWh", e.usd_per_kwh, DECIMAL2),
        ("pue", "PUE", e.pue, DECIMAL2),
        ("load", "Network load (share of nameplate power)", e.network_load, PERCENT),
        ("support", "Support per year (share of capex)", e.support_fraction, PERCENT),
        ("ru_month", "$ per rack unit per month", e.usd_per_ru_month, USD),
        ("weeks", f"{line}, weeks", e.tuning_weeks, DECIMAL2),
        ("week_usd", f"{who} tuning, $ per week", e.tuning_usd_per_week, USD),
        ("gpus", "GPUs", est.view.gpus, INTEGER),
        ("gpu_hour", "$ per GPU-hour (GPU time, when servers are not in capex)",
         0.0 if e.include_servers else e.gpu_hour_usd, USD),
        ("avail", "Availability", e.availability, PERCENT),
        ("eff", "Efficiency (1 - exposed communication share, from the estimate)",
         est.tco.efficiency, PERCENT),
        ("kw", "Network power, kW (nameplate)", power_w / 1000, DECIMAL2),
        ("ru", "Rack units", rack_units, DECIMAL2),
    )
    cell: dict[str, str] = {}
    row = 5
    for key, label, value, fmt in inputs:
        put(ws, row, 1, label)
        put(ws, row, 2, value, number_format=fmt, fill=INPUT_FILL)
        cell[key] = f"B{row}"
        row += 1
    row += 1
    put(ws, row, 1, "Costs", font=SECTION_FONT)
    row += 1
    c = cell
    formulas = (
        ("capex", "Capex (network BOM)", f"={capex_cell}"),
        ("energy", "Energy per year", f"={c['kw']}*8760*{c['load']}*{c['pue']}*{c['kwh']}"),
        ("support_usd", "Support per year", f"={c['support']}*{{capex}}"),
        ("space", "Space per year", f"={c['ru']}*{c['ru_month']}*12"),
        ("tuning", f"{line} (one-off)", f"={c['weeks']}*{c['week_usd']}"),
        ("total", "TCO", f"={{capex}}+{c['years']}*({{energy}}+{{support_usd}}+{{space}})"
         "+{tuning}"),
        ("gpu_time", "GPU time over the years", f"={c['gpus']}*{c['years']}*8760*{c['gpu_hour']}"),
        ("useful", "Useful GPU-hours",
         f"={c['gpus']}*{c['years']}*8760*{c['avail']}*{c['eff']}"),
        ("per_hour", "Cost per useful GPU-hour", "=({total}+{gpu_time})/{useful}"),
    )
    for key, label, text in formulas:
        strong = key in ("total", "per_hour")
        put(ws, row, 1, label, font=BOLD if strong else None)
        put(ws, row, 2, Formula(text.format(**cell)),
            number_format=INTEGER if key == "useful" else USD,
            fill=TOTAL_FILL if strong else None, font=BOLD if strong else None)
        cell[key] = f"B{row}"
        row += 1
    row += 1
    put(ws, row, 1, "Break-even: a fabric dearer by X pays when its efficiency gain exceeds "
        "X / (GPUs x years x 8,760 x $ per GPU-hour).", font=MUTED)
    set_widths(ws, [62, 20])
    return cell
