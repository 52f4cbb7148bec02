"""Apply a project's sources to the catalog, and say where each price and latency came from.

Order of precedence, weakest first: the catalog's estimate, price books in the order they
were imported, the project's own per-item price (typed in the BOM). Latency: the catalog's
figure, then the project's measurement for that technology.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.catalog import Catalog, GearItem, NicSpec, Ported, SwitchSpec
from designer.core.errors import CatalogError
from designer.core.sources.model import LatencyMeasurement, Sources


class SourcesError(CatalogError):
    """A price book or a latency measurement that cannot be used; the message names it.
    (A kind of catalog error: both change the figures the catalog gives a project.)"""


@dataclass(frozen=True)
class Origin:
    """Where one figure comes from."""

    kind: str  # catalog | assumption | book | project | measured
    label: str  # a short line for tables: the source, the book, "set in this project"
    date: str = ""
    detail: str = ""  # the reasoning of an assumption, the source's own words

    def to_json(self) -> dict:
        return {"kind": self.kind, "label": self.label, "date": self.date,
                "detail": self.detail}


def price_origin(project, catalog: Catalog, gear_id: str) -> Origin:
    """Where the unit price the BOM uses for ``gear_id`` comes from."""
    if gear_id in project.overrides.prices:
        return Origin("project", "set in this project")
    for book in reversed(project.sources.price_books):
        if gear_id in book.prices:
            rate = "" if book.currency == "USD" else \
                f"{book.prices[gear_id]:,.2f} {book.currency} at {book.usd_per_unit:g} USD"
            return Origin("book", book.label, book.date, rate or book.source)
    if gear_id not in catalog:
        return Origin("assumption", "unknown gear")
    f = catalog.get(gear_id).figure_for("price_usd")
    if f is None:
        return Origin("assumption", "no source given")
    return Origin("assumption" if f.assumption else "catalog", f.source, f.date, f.what)


def supplier_terms(project, gear_id: str) -> tuple[str, str]:
    """(supplier SKU, lead time) of ``gear_id`` from the latest price book that gives each
    ("" when none does)."""
    sku = lead = ""
    for book in reversed(project.sources.price_books):
        sku = sku or book.skus.get(gear_id, "")
        lead = lead or book.lead_times.get(gear_id, "")
        if sku and lead:
            break
    return sku, lead


def apply_sources(catalog: Catalog, sources: Sources, profile: str = "",
                  propagation_ns_per_m: float = 5.0) -> Catalog:
    """``catalog`` with the book prices and the measured latencies in place."""
    if sources.empty:
        return catalog
    prices: dict[str, float] = {}
    for book in sources.price_books:
        for gear_id in book.prices:
            if gear_id in catalog:  # a book may name gear a user catalog no longer has
                prices[gear_id] = book.usd(gear_id)
    cat = catalog.with_prices(prices) if prices else catalog
    changed: dict[str, GearItem] = {}
    for m in sources.latency:
        for item_id, item in _latency_changes(cat, m, profile, propagation_ns_per_m).items():
            changed[item_id] = item
            cat = cat.with_items([item])
    return cat


def _with_latency(item: Ported, tech: str, ns: float) -> Ported:
    modes = tuple(
        m.model_copy(update={"latency_ns": float(ns), "latency_parts": None})
        if tech in m.techs else m for m in item.modes)
    return item.model_copy(update={"modes": modes})


def _latency_changes(cat: Catalog, m: LatencyMeasurement, profile: str,
                     prop_ns_per_m: float) -> dict[str, GearItem]:
    out: dict[str, GearItem] = {}
    for sw_id, ns in m.switch_ns.items():
        sw = cat.switch(sw_id, f"measured switch latency for {m.tech}")
        if m.tech not in sw.techs:
            raise SourcesError(f"measured switch latency: {sw_id} does not run {m.tech}")
        out[sw_id] = _with_latency(sw, m.tech, ns)
    per_end = nic_per_end_ns(cat, m, profile, prop_ns_per_m)
    if per_end is not None:
        for nic in cat.of_kind("nic"):
            if isinstance(nic, NicSpec) and m.tech in nic.techs:
                out[nic.id] = _with_latency(nic, m.tech, per_end)
    return out


def measured_switch_model(cat: Catalog, m: LatencyMeasurement, profile: str) -> str | None:
    """The switch the measured path crossed: as given, else the gear profile's (or the
    first profile of the measurement's technology)."""
    if m.switch_model:
        return m.switch_model
    profiles = cat.profiles
    p = profiles.get(profile)
    if p is None or p.tech != m.tech:
        p = next((x for x in profiles.values() if x.tech == m.tech), None)
    return p.switch if p else None


def nic_per_end_ns(cat: Catalog, m: LatencyMeasurement, profile: str = "",
                   prop_ns_per_m: float = 5.0) -> float | None:
    """The per-end NIC latency a measurement gives: its own ``nic_ns``, or what is left of
    the one-way end-to-end figure after the switches it crossed, its cable and the
    serialisation of its message (cut-through: once), halved."""
    if m.nic_ns is not None:
        return float(m.nic_ns)
    if m.end_to_end_us is None:
        return None
    hop_ns = 0.0
    if m.switches:
        model = measured_switch_model(cat, m, profile)
        if model is None:
            raise SourcesError(f"measured latency for {m.tech}: name the switch_model the "
                               "measured path crossed")
        hop_ns = m.switch_ns.get(model, cat.switch(model, "measured latency").latency_for(
            m.tech))
    speed = m.speed_gbps or _default_speed(cat, m.tech, profile)
    ser_ns = m.message_bytes * 8.0 / speed if speed else 0.0
    rest = m.end_to_end_us * 1000.0 - m.switches * hop_ns - m.cable_m * prop_ns_per_m - ser_ns
    if rest < 0:
        raise SourcesError(
            f"end_to_end_us: {m.end_to_end_us:g} us is less than the {m.switches} switch(es), "
            f"{m.cable_m:g} m of cable and the message's serialisation alone "
            f"({(m.end_to_end_us * 1000 - rest) / 1000:.3f} us)")
    return rest / 2.0


def _default_speed(cat: Catalog, tech: str, profile: str) -> int:
    p = cat.profiles.get(profile)
    if p is None or p.tech != tech:
        p = next((x for x in cat.profiles.values() if x.tech == tech), None)
    return p.nic_speed_gbps if p else 400


def latency_origin(project, catalog: Catalog, item: GearItem, tech: str) -> Origin:
    """Where the latency the solver uses for ``item`` running ``tech`` comes from."""
    for m in project.sources.latency:
        if m.tech != tech:
            continue
        if isinstance(item, SwitchSpec) and item.id in m.switch_ns:
            return Origin("measured", _measured_label(m), m.date, m.note)
        if isinstance(item, NicSpec) and (m.nic_ns is not None or m.end_to_end_us is not None):
            how = ("per end, measured" if m.nic_ns is not None else
                   f"per end, from {m.end_to_end_us:g} us one way across {m.switches} "
                   f"switch(es) and {m.message_bytes:,} B")
            return Origin("measured", _measured_label(m), m.date, how)
    f = item.figure_for("latency_ns", tech)
    if f is None:
        return Origin("assumption", "no source given")
    return Origin("assumption" if f.assumption else "catalog", f.source, f.date, f.what)


def _measured_label(m: LatencyMeasurement) -> str:
    return f"measured in this project ({m.tool})" if m.tool else "measured in this project"
