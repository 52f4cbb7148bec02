"""The design report: a self-contained HTML page a manager can read in a few minutes.

It opens with the design at a glance (headline figures, the topology: a drawing and a per-tier
summary, then charts), then the key facts, problems and the bill of materials by category, and
on pages of their own the assumptions behind the numbers. Everything is
inline (styles, SVG charts), so the file can be mailed or printed as it is; page breaks and an
A4 page size are set for printing. The layout uses tables rather than CSS grid so the same
HTML also renders in simpler engines (Qt's rich text, which makes the PDF).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from designer.core.writers.bom_rows import BomTable, order_cells, price_source_text
from designer.core.writers.facts import Fact, FactSection
from designer.core.writers.safety import markup_text

# chart name, title, svg text
Chart = tuple[str, str, str]


@dataclass(frozen=True)
class ReportData:
    title: str
    subtitle: str
    headline: Sequence[tuple[str, str, str]]  # (label, value, detail)
    summary: Sequence[FactSection]
    charts: Sequence[Chart]
    problems: Sequence[dict]  # {"severity", "code", "message", "devices"}
    bom: BomTable
    assumptions: Sequence[FactSection]
    notes: str = ""
    tiers: str = ""  # SVG: the per-tier summary diagram (tier_diagram.py)
    # port maps of the first switches: (switch name, rows of port_map.HEADER), and how many
    # switches the design has (the cabling workbook has every one)
    port_maps: Sequence[tuple[str, Sequence[tuple]]] = ()
    switches: int = 0


# attributes as well as CSS: Qt's rich-text engine (the PDF) reads these, browsers the CSS
TABLE = 'width="100%" cellspacing="0" cellpadding="4"'


def _e(text: object) -> str:
    return markup_text(text)


def fmt_value(fact: Fact) -> str:
    v = fact.value
    if v is None:
        return ""
    k = fact.kind
    try:
        if k == "int":
            return f"{int(v):,}"
        if k == "dec":
            return f"{float(v):,.1f}"
        if k == "dec2":
            return f"{float(v):,.2f}"
        if k == "usd":
            return f"${float(v):,.0f}"
        if k == "usd2":
            return f"${float(v):,.2f}"
        if k == "pct":
            return f"{float(v) * 100:.1f}%"
    except (TypeError, ValueError):
        return str(v)
    return str(v)


def usd(v: float) -> str:
    return f"${v:,.0f}"


TABLE_PX = 690.0  # a table's width on an A4 page at 96 dpi (the PDF lays out in these)
HEADER_CHAR_PX = 7.4  # a bold 8.5 pt DejaVu Sans character, wide ones counted in
BODY_CHAR_PX = 6.6  # a regular 8.5 pt character (digits are 6.3)
CELL_PAD_PX = 16.0  # a grid cell's left and right padding (see ``_padded``)


def column_widths(header: Sequence[str], rows: Sequence[Sequence[str]],
                  wrap_at: int = 34, least: int = 7,
                  one_line: Sequence[int] = ()) -> list[int]:
    """Column widths in percent, from what the cells hold: each column gets room in
    proportion to its longest text (a long text wraps, so counted up to ``wrap_at``
    characters), but never less than its header's longest word needs (a header must not
    break inside a word: "Latenc/y"), nor, for the ``one_line`` columns (numbers), than their
    longest cell needs, nor ``least`` percent. Qt's rich text (the PDF) sizes columns badly
    from content alone (ids and numbers ran into the next column) and widens a column whose
    one-line cells do not fit, which shifts tables meant to line up."""
    # Qt shares out the table's width less every cell's padding, then pads each cell
    room = max(TABLE_PX - CELL_PAD_PX * len(header), 1.0)
    need, floor = [], []
    for i, title in enumerate(header):
        longest = max((len(str(r[i])) for r in rows if i < len(r)), default=0)
        need.append(max(min(longest, wrap_at), 3) + 3.0)  # + 3: the gap
        word = max((len(w) for w in str(title).split()), default=0)
        px = word * HEADER_CHAR_PX
        if i in one_line:
            px = max(px, longest * BODY_CHAR_PX)
        floor.append(max(float(least), math.ceil((px + CELL_PAD_PX) / room * 100)))
    if sum(floor) >= 100:  # more than fits: each keeps its share of the floors
        share = [100 * f / sum(floor) for f in floor]
    else:
        # widths in proportion to need, raised to each floor; the rest share what is left
        fixed: set[int] = set()
        while True:
            left = 100 - sum(floor[i] for i in fixed)
            free = sum(need[i] for i in range(len(need)) if i not in fixed) or 1.0
            low = {i for i in range(len(need))
                   if i not in fixed and left * need[i] / free < floor[i]}
            if not low:
                break
            fixed |= low
        share = [floor[i] if i in fixed else left * need[i] / free for i in range(len(need))]
    widths = [max(1, round(x)) for x in share]
    widths[int(max(range(len(widths)), key=lambda i: widths[i]))] -= sum(widths) - 100
    return widths


CSS = """
@page { size: A4; margin: 14mm 13mm 16mm 13mm; }
body { font-family: 'DejaVu Sans', Arial, Helvetica, sans-serif; color: #1d2530;
       font-size: 10pt; line-height: 1.35; margin: 0 auto; max-width: 190mm; }
h1 { font-size: 19pt; margin: 0 0 2pt 0; color: #1f3b5c; }
h2 { font-size: 13pt; color: #1f3b5c; border-bottom: 1.5pt solid #1f3b5c;
     padding-bottom: 2pt; margin: 16pt 0 7pt 0; }
h3 { font-size: 10.5pt; color: #1f3b5c; margin: 10pt 0 4pt 0; }
h4 { font-size: 9pt; color: #1d2530; margin: 6pt 0 1pt 0; }
.sub { color: #5d6876; margin: 0 0 10pt 0; }
.newpage { page-break-before: always; }
table { border-collapse: collapse; width: 100%; }
table.cards { border-collapse: separate; border-spacing: 5pt; }
table.cards td { width: 33%; border: 1pt solid #d5dce5; background: #f4f7fa;
                 padding: 6pt 8pt; vertical-align: top; }
.card-label { color: #5d6876; font-size: 8.5pt; }
.card-value { font-size: 15pt; font-weight: bold; color: #1f3b5c; }
.card-detail { color: #5d6876; font-size: 8.5pt; }
table.facts td { padding: 2.5pt 6pt; border-bottom: 0.5pt solid #e3e7ec; vertical-align: top; }
table.facts td.v { text-align: right; font-weight: bold; }
table.facts td.n { white-space: nowrap; }
table.facts td.d { color: #5d6876; }
table.grid th { background: #1f3b5c; color: #ffffff; text-align: left; padding: 3pt 5pt;
                font-size: 8.5pt; }
table.grid td { padding: 2.5pt 5pt; border-bottom: 0.5pt solid #e3e7ec; font-size: 8.5pt;
                vertical-align: top; }
table.grid td.n { text-align: right; white-space: nowrap; }
table.grid th.n { text-align: right; }
tr.subtotal td { background: #eef2f7; font-weight: bold; }
tr.total td { background: #c9d7e8; font-weight: bold; border-top: 1pt solid #8899aa; }
table.charts td { width: 50%; padding: 4pt; vertical-align: top; text-align: center; }
.sev-error { color: #c62828; font-weight: bold; }
.sev-warning { color: #b26a00; font-weight: bold; }
.sev-info { color: #2d6da3; font-weight: bold; }
.ok { color: #2e7d32; font-weight: bold; }
.muted { color: #5d6876; font-size: 8.5pt; }
"""


def _cards(headline: Sequence[tuple[str, str, str]]) -> str:
    rows = []
    for i in range(0, len(headline), 3):
        cells = "".join(
            f'<td><div class="card-label">{_e(label)}</div>'
            f'<div class="card-value">{_e(value)}</div>'
            f'<div class="card-detail">{_e(detail)}</div></td>'
            for label, value, detail in headline[i:i + 3]
        )
        rows.append(f"<tr>{cells}</tr>")
    table = 'width="100%" cellspacing="5" cellpadding="6"'
    return f'<table class="cards" {table}>{"".join(rows)}</table>'


def _facts(section: FactSection) -> str:
    """One section of key facts. Every section's table has the same column widths and only
    numbers are kept on one line (a long text wraps in its column), so the value columns of
    all sections line up."""
    rows = "".join(
        f'<tr><td width="34%">{_e(f.label)}</td>'
        f'<td class="v{"" if f.kind == "text" else " n"}" width="24%">{_e(fmt_value(f))}'
        f"{(' ' + _e(f.detail)) if f.detail and f.kind != 'text' else ''}</td>"
        f'<td width="3%"></td><td class="d" width="39%">'
        f'{_e(f.note or (f.detail if f.kind == "text" else ""))}</td></tr>'
        for f in section.facts
    )
    return f'<h3>{_e(section.title)}</h3><table class="facts" {TABLE}>{rows}</table>'


def _charts(charts: Sequence[Chart], image: Callable[[Chart], str] | None) -> str:
    cells = [image(c) if image else c[2] for c in charts]
    rows = []
    for i in range(0, len(cells), 2):
        pair = cells[i:i + 2] + ([""] if len(cells[i:i + 2]) == 1 else [])
        rows.append("<tr>" + "".join(f'<td width="50%" align="center">{c}</td>' for c in pair)
                    + "</tr>")
    return f'<table class="charts" {TABLE}>{"".join(rows)}</table>'


def _padded(html: str) -> str:
    """Grid cells with their padding inline and in px: Qt's rich text (the PDF) reads cell
    padding only in px (a class's padding in pt came out as none), so a right-aligned number
    touched the text of the next column."""
    return (html.replace("<td", '<td style="padding: 3px 10px 3px 6px"')
            .replace("<th", '<th style="padding: 4px 10px 4px 6px"'))


def _problems(problems: Sequence[dict]) -> str:
    if not problems:
        return '<p class="ok">No wiring problems found.</p>'
    rows = []
    for p in problems:
        sev = str(p.get("severity", "info"))
        devices = list(p.get("devices") or [])
        shown = ", ".join(devices[:8]) + (f" and {len(devices) - 8:,} more"
                                          if len(devices) > 8 else "")
        rows.append(
            f'<tr><td class="sev-{_e(sev)}">{_e(sev.upper())}</td>'
            f"<td>{_e(p.get('message', ''))}</td><td class=\"muted\">{_e(shown)}</td></tr>"
        )
    return _padded(f'<table class="grid" {TABLE}><tr><th width="12%">Severity</th>'
                   '<th width="58%">Problem</th><th width="30%">Devices</th></tr>'
                   + "".join(rows) + "</table>")


def _part(x) -> str:
    """What to order a line by: the vendor's part number (and the supplier's SKU when a price
    book gives one), "not known" for a catalog part without one."""
    _vendor, part, sku, lead, _src = order_cells(x)
    extra = ", ".join(t for t in (f"SKU {sku}" if sku else "", lead) if t)
    return f"{part} ({extra})" if extra else part


def _catalog_id(x) -> str:
    return f'<br><span class="muted">{_e(x.catalog_id)}</span>' if x.catalog_id else ""


PANEL_COLUMNS = 8  # ports a row of the report's port map, as a front panel reads


def _port_maps(data: ReportData) -> str:
    """One switch of each role drawn as its front panel: ports in order, eight a row, each
    with the device and port its cable reaches (the cabling workbook lists every switch)."""
    out = ['<div class="page"><h2>Port maps</h2>'
           f'<p class="muted">One switch of each role, ports in front-panel order (cage/lane '
           f"on twin-port cages), each with the device and port at the far end of its cable. "
           f"The cabling workbook's port map sheets list all {data.switches:,} switches with "
           f"cable labels and optics.</p>"]
    for name, rows in data.port_maps:
        cells = [f"<b>{_e(r[1])}</b><br>{_e(r[2])}" + (f" {_e(r[3])}" if r[3] else "")
                 for r in rows]
        trs = []
        for k in range(0, len(cells), PANEL_COLUMNS):
            part = cells[k:k + PANEL_COLUMNS]
            part += [""] * (PANEL_COLUMNS - len(part))
            trs.append("<tr>" + "".join(f'<td class="muted">{c}</td>' for c in part)
                       + "</tr>")
        out.append(f"<h4>{_e(name)}</h4>"
                   + _padded(f'<table class="grid" {TABLE}>{"".join(trs)}</table>'))
    return "".join(out) + "</div>"


def _bom(table: BomTable) -> str:
    """The BOM: one table per section under a heading of its own (so a section's name never
    sits alone at a page foot), all with the same column widths, wide enough for every
    section's numbers on one line, so they read as one table."""
    head = ("Item", "Part number", "Qty", "Unit price", "Line total", "Price source")
    cells = [(x.item, _part(x), f"{x.qty:,}", usd(x.unit_usd), usd(x.total_usd),
              price_source_text(x))
             for sec in table.sections for x in sec.lines]
    cells.append(("", "", "", "", usd(table.total_usd), ""))
    w = column_widths(head, cells, one_line=(2, 3, 4))
    num = ' class="n"'

    def wd(i: int, first: bool) -> str:  # the first row of each table sets its widths
        return f' width="{w[i]}%"' if first else ""

    out = [f'<table class="grid" {TABLE}><tr>'
           + "".join(f'<th{wd(i, True)}{num if 2 <= i <= 4 else ""}>{_e(h)}</th>'
                     for i, h in enumerate(head)) + "</tr></table>"]
    for s in table.sections:
        rows = [f'<h4>{_e(s.label)}</h4><table class="grid" {TABLE}>']
        for k, x in enumerate(s.lines):
            f = k == 0
            rows.append(
                f"<tr><td{wd(0, f)}>{_e(x.item)}</td><td{wd(1, f)}>{_e(_part(x))}"
                f'{_catalog_id(x)}</td>'
                f'<td{wd(2, f)} class="n">{x.qty:,}</td>'
                f'<td{wd(3, f)} class="n">{usd(x.unit_usd)}</td>'
                f'<td{wd(4, f)} class="n">{usd(x.total_usd)}</td>'
                f'<td{wd(5, f)} class="muted">{_e(price_source_text(x))}</td></tr>'
            )
        rows.append(f'<tr class="subtotal"><td colspan="4">Subtotal: {_e(s.label)}</td>'
                    f'<td class="n">{usd(s.total_usd)}</td><td></td></tr></table>')
        out.append("".join(rows))
    out.append(f'<table class="grid" {TABLE}>'
               f'<tr class="total"><td colspan="4" width="{sum(w[:4])}%">Grand total</td>'
               f'<td class="n" width="{w[4]}%">{usd(table.total_usd)}</td>'
               f'<td width="{w[5]}%"></td></tr>'
               f'<tr><td colspan="4">Per GPU ({table.gpus:,} GPUs)</td>'
               f'<td class="n">{usd(table.per_gpu_usd)}</td><td></td></tr></table>')
    return _padded("".join(out))


def _assumption_table(section: FactSection) -> str:
    num = ' class="n"'
    n_cols = sum(1 for i, c in enumerate(section.columns) if c or i < 4)
    texts = [[f.label, fmt_value(f), f.detail or "", f.note or "", f.extra or ""][:n_cols]
             for f in section.facts]
    w = column_widths(section.columns[:n_cols], texts, one_line=(1,))
    head = "".join(f'<th width="{w[i]}%"{num if i == 1 else ""}>{_e(c)}</th>'
                   for i, c in enumerate(section.columns[:n_cols]))
    rows = []
    for cells in texts:
        rows.append("<tr>" + "".join(
            f"<td{num if i == 1 else ''}>{_e(c)}</td>" for i, c in enumerate(cells)
        ) + "</tr>")
    return (f'<h3>{_e(section.title)}</h3>'
            + _padded(f'<table class="grid" {TABLE}><tr>{head}</tr>' + "".join(rows) + "</table>"))


def _topology(data: ReportData, image: Callable[[Chart], str] | None, picture: str) -> str:
    """The drawing of the design (when the caller can draw it) beside the per-tier summary."""
    cells = []
    if picture:
        cells.append(picture)
    if data.tiers:
        chart: Chart = ("tiers", "The fabric tier by tier", data.tiers)
        cells.append(image(chart) if image else data.tiers)
    if not cells:
        return ""
    width = 100 // len(cells)
    row = "".join(f'<td width="{width}%" align="center" valign="middle">{c}</td>' for c in cells)
    return f'<h2>Topology</h2><table class="charts" {TABLE}><tr>{row}</tr></table>'



def report_html(data: ReportData, image: Callable[[Chart], str] | None = None,
                picture: str = "") -> str:
    """The whole report. ``image`` turns a chart into HTML (default: the inline SVG);
    ``picture`` is HTML of a drawing of the design (the PDF draws it as the window does).

    The sections flow one after the other (a page break before the key facts left half of
    page 1 blank); only the assumptions, a reference part, start a page of their own."""
    notes = (f'<h3>Notes</h3><p>{_e(data.notes)}</p>' if data.notes.strip() else "")
    page1 = (
        f'<div class="page"><h1>{_e(data.title)}</h1><p class="sub">{_e(data.subtitle)}</p>'
        f"{_cards(data.headline)}{_topology(data, image, picture)}"
        f"<h2>Figures</h2>{_charts(data.charts, image)}</div>"
    )
    page2 = (
        '<div class="page"><h2>Key facts</h2>'
        f"{''.join(_facts(s) for s in data.summary)}{notes}"
        f"<h2>Problems</h2>{_problems(data.problems)}"
        f"<h2>Bill of materials</h2>"
        f'<p class="muted">Prices are estimates unless a price book or the project sets them '
        f"(each line names its source); the BOM spreadsheet lets a buyer enter quotes and "
        f"recomputes every total.</p>{_bom(data.bom)}</div>"
    )
    page3 = (
        '<div class="page"><h2 class="newpage">Assumptions</h2>'
        + "".join(_assumption_table(s) for s in data.assumptions) + "</div>"
    )
    if data.port_maps:
        page3 += _port_maps(data)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{_e(data.title)}</title><style>{CSS}</style></head><body>"
        f"{page1}{page2}{page3}</body></html>\n"
    )


def headline(facts: dict[str, Fact], data: dict,
             message: str = "4 KiB") -> list[tuple[str, str, str]]:
    """The six cards at the top of the report."""
    bis = data.get("bisection") or {}
    over = data.get("oversubscription") or {}
    lat = data.get("latency_us") or {}
    bom = data.get("bom") or {}
    frac = bis.get("fraction_of_full")
    return [
        ("GPUs", f"{int(data.get('gpus') or 0):,}",
         f"{int(data.get('servers') or 0):,} servers, "
         f"{int((data.get('switches') or {}).get('total') or 0):,} switches"),
        ("Bisection per GPU", f"{float(bis.get('per_gpu_gbps') or 0):,.0f} Gb/s",
         f"{float(frac or 0) * 100:.1f}% of full, "  # as the key facts write it
         f"{float(bis.get('gbps') or 0) / 1000:,.1f} Tb/s in all"),
        ("Oversubscription (worst)", over.get("worst_ratio", "n/a"),
         ", ".join(f"{k} {v['ratio']}" for k, v in (over.get("by_tier") or {}).items())
         or "no switch tiers"),
        # p50, as the window's metrics show it
        ("Latency, GPU to GPU (p50)", f"{float(lat.get('p50') or 0):.2f} µs",
         f"median, idle and static, for a {message} message; "
         f"p99 {float(lat.get('p99') or 0):.2f} µs"),
        ("Total cost (estimate)", usd(float(bom.get("total_usd") or 0)),
         f"{usd(float(bom.get('per_gpu_usd') or 0))} per GPU"),
        ("Power", f"{float(data.get('power_w') or 0) / 1000:,.1f} kW",
         f"switches, NICs and optics; {float(data.get('rack_units') or 0):,.0f} U of switches"),
    ]
