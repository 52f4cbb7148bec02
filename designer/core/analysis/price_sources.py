"""Where each compared design's network prices come from, line by line.

A premium between two columns is only as good as the prices under it, and gear prices are
seldom published: some are street prices with a date, some are assumptions. Each bill-of-
materials line is listed with its vendor, unit price, the source of that price (the catalog
figure, a price book or the project), its date and confidence, and each column says what share
of its capex rests on sourced prices.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.analysis.comparison import Comparison
from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import DesignerError
from designer.core.solver import Result

TEXT_SOURCE_CHARS = 96  # a source as the table prints it; the JSON has it whole
TAGS = {"catalog": "sourced", "assumption": "assumed", "book": "price book",
        "project": "set in the project"}


@dataclass(frozen=True)
class PriceRow:
    category: str
    catalog_id: str
    name: str
    vendor: str
    qty: int
    unit_usd: float
    total_usd: float
    kind: str  # catalog (sourced) | assumption | book | project
    source: str
    date: str
    confidence: str  # H, M, L; "" for a price book or the project's own price

    @property
    def sourced(self) -> bool:
        return self.kind != "assumption"

    def to_json(self) -> dict:
        return {"category": self.category, "catalog_id": self.catalog_id, "name": self.name,
                "vendor": self.vendor, "qty": self.qty, "unit_usd": round(self.unit_usd, 2),
                "total_usd": round(self.total_usd, 2), "kind": self.kind,
                "source": self.source, "date": self.date, "confidence": self.confidence}


def price_rows(result: Result, catalog: Catalog) -> tuple[PriceRow, ...]:
    """One row per network bill-of-materials line (servers are compute, not listed)."""
    rows = []
    for line in result.bom.lines:
        if not line.qty and not line.total_usd:  # a note line (e.g. racks not placed yet)
            continue
        vendor, confidence = "", ""
        try:
            item = catalog.get(line.catalog_id) if line.catalog_id else None
        except DesignerError:
            item = None
        if item is not None:
            vendor = item.vendor
            fig = item.figure_for("price_usd")
            if fig is not None and line.price_kind in ("catalog", "assumption"):
                confidence = fig.confidence
        rows.append(PriceRow(line.category, line.catalog_id, line.item, vendor, line.qty,
                             line.unit_usd, line.total_usd, line.price_kind,
                             line.price_source or "no source given", line.price_date,
                             confidence))
    return tuple(rows)


def sourced_share(rows: tuple[PriceRow, ...]) -> float:
    """Share of the capex whose unit prices are sourced (not assumptions)."""
    total = sum(r.total_usd for r in rows)
    return sum(r.total_usd for r in rows if r.sourced) / total if total > 0 else 0.0


def column_rows(cmp: Comparison, catalog: Catalog | None = None
                ) -> list[tuple[str, tuple[PriceRow, ...]]]:
    """(column label, its rows) for every compared design that was solved. ``catalog``: the
    base catalog the comparison used (default: the built-in one)."""
    catalog = catalog if catalog is not None else builtin_catalog()
    out = []
    for d in cmp.designs:
        if d.result is None or d.project is None:
            continue
        out.append((d.label, price_rows(d.result, d.project.catalog(catalog))))
    return out


def price_sources_json(cmp: Comparison, catalog: Catalog) -> dict:
    return {label: {"sourced_share": round(sourced_share(rows), 6),
                    "lines": [r.to_json() for r in rows]}
            for label, rows in column_rows(cmp, catalog)}


def _short_name(text: str, width: int = 28) -> str:
    text = text.removesuffix(" (estimate)")
    return text if len(text) <= width else text[:width - 3] + "..."


def _short(text: str) -> str:
    return text if len(text) <= TEXT_SOURCE_CHARS else text[:TEXT_SOURCE_CHARS - 3] + "..."


def price_sources_text(cmp: Comparison, catalog: Catalog) -> str:
    """Per column: each line's item, vendor, unit price and the source of that price."""
    out = ["Price sources (each column's network bill; --json has every source whole)"]
    for label, rows in column_rows(cmp, catalog):
        out.append(f"  {label}: ${sum(r.total_usd for r in rows):,.0f}, "
                   f"{sourced_share(rows):.0%} of it at sourced prices")
        # a line without a catalog id (racks, PDUs, cords, a spare) is named by its item
        names = [r.catalog_id or _short_name(r.name) for r in rows]
        id_w = max((len(n) for n in names), default=0)
        vendor_w = max((len(r.vendor) for r in rows), default=0)
        for r, name in zip(rows, names, strict=True):
            when = ", ".join(x for x in (r.date, r.confidence) if x)
            tag = TAGS.get(r.kind, r.kind)
            out.append(f"    {name:<{id_w}}  {r.vendor:<{vendor_w}}  "
                       f"${r.unit_usd:>9,.0f}  [{tag}{': ' + when if when else ''}] "
                       f"{_short(r.source)}")
    return "\n".join(out)
