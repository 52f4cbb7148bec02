"""The compare report's price sources: per column, each bill line with its vendor and where its
unit price comes from (see ``analysis.price_sources``)."""

from __future__ import annotations

from designer.core.analysis.comparison import Comparison
from designer.core.analysis.price_sources import TAGS, column_rows, sourced_share
from designer.core.catalog import Catalog
from designer.core.writers.html_report import TABLE
from designer.core.writers.safety import markup_text


def price_sources_html(c: Comparison, catalog: Catalog | None = None) -> str:
    parts = ["<h2>Price sources</h2>"]
    for label, rows in column_rows(c, catalog):
        total = sum(r.total_usd for r in rows)
        body = "".join(
            f"<tr><td>{markup_text(r.catalog_id)}</td><td>{markup_text(r.vendor)}</td>"
            f'<td class="n">{r.qty:,}</td><td class="n">${r.unit_usd:,.0f}</td>'
            f"<td>{markup_text(TAGS.get(r.kind, r.kind))}</td><td>{markup_text(r.date)}</td>"
            f"<td>{markup_text(r.confidence)}</td>"
            f'<td class="muted">{markup_text(r.source)}</td></tr>' for r in rows)
        parts.append(
            f"<p><b>{markup_text(label)}</b>: ${total:,.0f}, {sourced_share(rows):.0%} of it at "
            f'sourced prices</p><table class="grid" {TABLE}><tr><th>Item</th><th>Vendor</th>'
            f"<th>Qty</th><th>Unit</th><th>Price</th><th>Date</th><th>Confidence</th>"
            f"<th>Source</th></tr>{body}</table>")
    return "".join(parts)
