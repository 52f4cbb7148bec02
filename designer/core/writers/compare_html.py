"""The comparison as a report page (HTML, the design report's style): one column per design,
each other design's difference from the first beside its value, the break-even and the rules,
and where each column's prices come from."""

from __future__ import annotations

import os

from designer.core.analysis.comparison import FIGURES, TEXT_ROWS, Comparison, figure_text
from designer.core.catalog import Catalog
from designer.core.writers.html_report import CSS, TABLE
from designer.core.writers.output import write_bytes
from designer.core.writers.price_sources_html import price_sources_html
from designer.core.writers.safety import markup_text


def compare_html(c: Comparison, title: str = "Designs compared",
                 catalog: Catalog | None = None) -> str:
    cols = c.designs
    head = "<th>Figure</th>" + "".join(f'<th class="n">{markup_text(d.label)}</th>' for d in cols)
    rows = []
    keys = list(dict.fromkeys(k for d in cols for k in d.busbw))
    lines = [(label + (f" ({unit})" if unit and unit not in "$%" else ""),
              [d.figures.get(key) for d in cols], unit) for key, label, unit, _ in FIGURES]
    lines += [(f"busbw {k} (GB/s)", [d.busbw.get(k) for d in cols], "") for k in keys]
    for key, label in TEXT_ROWS:
        rows.append(f"<tr><td>{markup_text(label)}</td>" + "".join(
            f"<td>{markup_text(d.text(key) or '–')}</td>" for d in cols) + "</tr>")
    for label, values, unit in lines:
        cells = []
        for j, v in enumerate(values):
            text = figure_text(v, unit)
            # a difference below the figures' shown precision is no difference to a reader
            if j and v is not None and values[0] is not None \
                    and text != figure_text(values[0], unit):
                d = v - values[0]
                sign = "+" if d > 0 else "−"
                text += f' <span class="muted">({sign}{figure_text(abs(d), unit)})</span>'
            cells.append(f'<td class="n">{text}</td>')
        rows.append(f"<tr><td>{markup_text(label)}</td>{''.join(cells)}</tr>")
    notes = [markup_text(be["text"]) for be in c.break_even]
    notes += [f"{markup_text(d.label)}: routing {markup_text(d.routing.name)} (source: "
              f"{markup_text(d.routing.source)})" for d in cols if d.routing is not None]
    notes += [f"{markup_text(d.label)}: {markup_text(d.layout)}" for d in cols if d.layout]
    notes += [f"{markup_text(d.label)}: no figures: {markup_text(d.error)}" for d in cols
              if d.error]
    notes += [markup_text(n) for n in c.notes]
    if c.premium:
        notes.append(markup_text(c.premium.text()))
    rec = ""
    if c.recommendation:
        r = c.recommendation
        rule_rows = "".join(
            f"<tr><td>{markup_text(x.rule)}</td><td>{'fired' if x.fired else 'not fired'}</td>"
            f"<td>{markup_text(x.figure)}</td><td class=\"muted\">{markup_text(x.source)}</td></tr>"
            for x in r.rules)
        verdict = f"{r.winner} ({r.choice})" if r.winner else r.choice
        extra = "".join(f"<li>Assumes {markup_text(a)}</li>" for a in r.assumptions)
        extra += "".join(f"<li>If {markup_text(x.get('text') or x['case'] + ': ' + x['error'])}"
                         "</li>" for x in r.sensitivity)
        rec = (f"<h2>Recommendation: {markup_text(verdict)}</h2><p>{markup_text(r.break_even)}"
               f"{(' — ' + markup_text(r.note)) if r.note else ''}</p>"
               + (f"<ul>{extra}</ul>" if extra else "") +
               f'<table class="grid" {TABLE}><tr><th>Rule</th><th>Fired</th><th>Figure</th>'
               f"<th>Source</th></tr>{rule_rows}</table>")
    body = (f"<h1>{markup_text(title)}</h1><p class=\"sub\">Differences are against "
            f"{markup_text(cols[0].label)}.</p><table class=\"grid\" {TABLE}><tr>{head}</tr>"
            f"{''.join(rows)}</table><h2>Break-even</h2>"
            + "".join(f"<p>{n}</p>" for n in notes) + rec + price_sources_html(c, catalog))
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{markup_text(title)}"
            f"</title><style>{CSS}</style></head><body>{body}</body></html>")


def write_compare_html(c: Comparison, path: str | os.PathLike[str],
                       catalog: Catalog | None = None) -> None:
    write_bytes(path, compare_html(c, catalog=catalog).encode("utf-8"))
