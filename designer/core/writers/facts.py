"""Labelled figures shared by the BOM workbook's Summary and Assumptions sheets and the report.

A ``Fact`` is one line: a label, a value (or several, for small tables), a number kind and a
note. The assumptions come from the project and the catalog (where each price and latency
figure comes from, and how sure it is), so a buyer can see what to check before ordering.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from designer.core.catalog import Catalog, MediumSpec, NicSpec, SwitchSpec
from designer.core.errors import DesignerError
from designer.core.model import Project
from designer.core.sources.apply import price_origin
from designer.core.sources.figures import IDLE_STATIC, latency_figures
from designer.core.transport.choice import transport_of

CONFIDENCE = {"H": "high (primary source)", "M": "medium (secondary source)",
              "L": "low (estimate)"}


@dataclass(frozen=True)
class Fact:
    """One row: label, value, then up to three text columns (unit or id, note or source,
    confidence). Every section uses the same five columns so sheets line up."""

    label: str
    value: object = None
    kind: str = "text"  # text | int | dec | dec2 | usd | usd2 (cents) | pct
    detail: str = ""
    note: str = ""
    extra: str = ""
    key: str = ""  # stable name for cross-references (formulas, tests)
    strong: bool = False

    def with_value(self, value: object) -> Fact:
        return replace(self, value=value)


@dataclass(frozen=True)
class FactSection:
    title: str
    facts: tuple[Fact, ...]
    columns: tuple[str, ...] = ()  # a header row when the section is a table


def _figure(item, words: Iterable[str]) -> tuple[str, str]:
    """(source, confidence label) of the item's figure about one of ``words``."""
    for f in getattr(item, "figures", ()):
        what = f.what.lower()
        if any(w in what for w in words):
            return f.source, CONFIDENCE.get(f.confidence, f.confidence)
    return "", ""


def price_facts(project: Project, catalog: Catalog, catalog_ids: Iterable[str]) -> FactSection:
    """Each priced item's unit price and where it comes from: a price book, the project, the
    catalog's dated source, or an assumption with its reasoning."""
    facts = []
    for gear_id in dict.fromkeys(catalog_ids):
        if gear_id not in catalog:
            continue
        item = catalog.get(gear_id)
        o = price_origin(project, catalog, gear_id)
        source = o.label + (f" ({o.date})" if o.date and o.kind != "book" else "")
        if o.kind == "assumption":
            source = f"{o.detail or o.label}" + (f" ({o.date})" if o.date else "")
        f = item.figure_for("price_usd")
        conf = {"book": "quoted", "project": "as entered", "assumption": "assumption"}.get(
            o.kind, CONFIDENCE.get(f.confidence, "") if f else "")
        facts.append(Fact(item.name, item.price_usd, "usd", gear_id, source, conf))
    books = ", ".join(b.label for b in project.sources.price_books)
    title = ("Prices (estimates unless quoted: replace them with quotes)" if not books else
             f"Prices (quoted in {books}; the rest are estimates)")
    return FactSection(title, tuple(facts), ("Item", "Unit price (USD)", "Catalog id",
                                             "Source", "Confidence"))


def length_facts(project: Project) -> FactSection:
    a = project.analysis
    facts = [
        Fact(f"Cable length, {layer}", length, "dec", "m",
             "used where a link has no length of its own")
        for layer, length in a.default_length_m.items()
    ]
    facts.append(Fact("Signal propagation", a.propagation_ns_per_m, "dec", "ns per m"))
    facts.append(Fact("Message size for latency", a.message_bytes, "int", "bytes",
                      "adds serialisation time at each link's speed"))
    return FactSection("Lengths and latency settings (editable in the project)", tuple(facts),
                       ("Setting", "Value", "Unit", "Note", ""))


def latency_facts(project: Project, catalog: Catalog,
                  figures: list[dict] | None = None) -> FactSection:
    """Per-hop switch and per-end NIC latency of the gear the design uses: value, split,
    source or measurement, and which are assumptions. ``figures``: the solver's list
    (``latency_us.assumptions.figures``); without it, every technology of the gear used."""
    if figures is None:
        used: list[tuple[str, str]] = []
        for d in project.fabric.devices:
            if d.model not in catalog:
                continue
            item = catalog.get(d.model)
            nic_id = d.nic or getattr(item, "nic", None)
            for t in ([item] if isinstance(item, SwitchSpec) else []) + (
                    [catalog.get(nic_id)] if nic_id and nic_id in catalog else []):
                if isinstance(t, SwitchSpec | NicSpec):
                    used += [(t.id, tech) for tech in t.techs]
        figures = latency_figures(project, catalog, used)
    facts = [Fact("What these are", None, "text", "", IDLE_STATIC)]
    for f in figures:
        o = f["origin"]
        parts = f.get("parts_ns")
        split = (", ".join(f"{k.replace('_', '/')} {v:,.0f}" for k, v in parts.items())
                 if parts else "")
        where = f"{f['kind']}, {f['tech_label']}" + (f" (split ns: {split})" if split else "")
        note = (o["detail"] if o["kind"] == "assumption" else o["label"]) or o["label"]
        if o.get("date"):
            note += f" ({o['date']})"
        status = {"assumption": "assumption", "measured": "measured"}.get(o["kind"], "sourced")
        facts.append(Fact(f["name"], f["ns"], "int", where, note, status))
    return FactSection("Latency figures used (small message, idle fabric)", tuple(facts),
                       ("Gear", "Latency (ns)", "Where", "Source or reasoning", "Status"))


def media_rule_facts(catalog: Catalog) -> FactSection:
    reach = sorted({(m.medium_class, m.reach_m) for m in catalog.of_kind(
        "cable", "transceiver") if isinstance(m, MediumSpec)})
    longest: dict[str, float] = {}
    for cls, r in reach:
        longest[cls] = max(longest.get(cls, 0.0), r)
    labels = {"dac": "Passive copper (DAC)", "acc": "Active copper (ACC)",
              "mmf": "Multimode optics", "smf": "Single-mode optics"}
    facts = [Fact(labels.get(c, c), longest[c], "dec", "m", "longest reach in the catalog")
             for c in ("dac", "acc", "mmf", "smf") if c in longest]
    facts.append(Fact("Choice", None, "text", "",
                      "the cheapest medium whose reach covers the cable's length; a twin-port "
                      "module serves the two ports of a cage (a switch's, or a server's twin-"
                      "port NIC cage); a twin or splitter copper cable carries two links"))
    return FactSection("Cables and optics", tuple(facts),
                       ("Medium", "Reach", "Unit", "Note", ""))


def assumption_sections(project: Project, catalog: Catalog,
                        catalog_ids: Iterable[str],
                        latency_figures_used: list[dict] | None = None) -> list[FactSection]:
    return [
        price_facts(project, catalog, catalog_ids),
        media_rule_facts(catalog),
        length_facts(project),
        latency_facts(project, catalog, latency_figures_used),
    ]


# --- the design's figures, from the solver Result's stable JSON keys ------------------------


def message_label(project: Project) -> str:
    n = project.analysis.message_bytes
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,} B"


def histogram_pairs(hist: dict[str, int] | None) -> list[tuple[int, float]]:
    """(value, count) pairs, ascending, of a histogram as the Result's JSON writes it
    (``{"1": 7936, "3": 253952}``)."""
    return sorted((int(k), float(v)) for k, v in (hist or {}).items() if v)


def profile_label(project: Project, catalog: Catalog | None) -> str:
    """The gear profile as people read it ("InfiniBand NDR (ib-ndr)"), its id alone when the
    catalog does not know it."""
    if catalog is not None:
        try:
            return f"{catalog.profile(project.profile).name} ({project.profile})"
        except DesignerError:
            pass
    return project.profile


def summary_sections(project: Project, data: dict, *, app_version: str,
                     date: str, catalog: Catalog | None = None) -> list[FactSection]:
    """The Summary sheet and the report's key figures, from ``Result.to_json()``."""
    g = data.get
    sw = g("switches") or {}
    bis = g("bisection") or {}
    over = g("oversubscription") or {}
    lat = g("latency_us") or {}
    hops = g("hops") or {}
    bom = g("bom") or {}
    gpus = int(g("gpus") or 0)
    by_tier = sw.get("by_tier") or {}
    design = [
        Fact("Design", project.name, key="name", strong=True),
        Fact("Gear profile", profile_label(project, catalog), key="profile"),
        Fact("Transport", transport_of(project, catalog).name, key="transport",
             note="chosen for this design" if project.transport else "the gear profile's"),
        Fact("GPUs", gpus, "int", key="gpus"),
        Fact("GPU servers", int(g("servers") or 0), "int", key="servers"),
        Fact("Switches", int(sw.get("total") or 0), "int",
             note=", ".join(f"{v:,} {k}" for k, v in by_tier.items()), key="switches"),
        Fact("Links (port to port)", int((g("links") or {}).get("total") or 0), "int",
             note=", ".join(f"{v:,} {k}" for k, v in
                              ((g("links") or {}).get("by_layer") or {}).items()),
             key="links"),
        Fact("Physical cables", int((g("cables") or {}).get("total") or 0), "int",
             note=", ".join(f"{v:,} {k}" for k, v in
                            ((g("cables") or {}).get("by_layer") or {}).items()),
             key="cables"),
    ]
    ports = g("ports") or {}
    if ports.get("total"):
        unused = float(ports.get("stranded_usd") or 0)
        design.append(Fact(
            "Switch ports used", float(ports.get("utilisation") or 0), "pct",
            note=f"{int(ports['used']):,} of {int(ports['total']):,}"
            + (f"; ${unused:,.0f} of switch price unused" if unused else ""),
            key="ports"))
    fraction = bis.get("fraction_of_full")
    performance = [
        Fact("Bisection bandwidth", (bis.get("gbps") or 0) / 1000, "dec", "Tb/s",
             f"{'proven exact' if bis.get('exact') else 'upper bound'} ({bis.get('method', '')})",
             key="bisection_tbps", strong=True),
        Fact("Bisection per GPU", bis.get("per_gpu_gbps") or 0, "dec", "Gb/s",
             key="bisection_per_gpu"),
        Fact("Fraction of full bisection", fraction if fraction is not None else 0, "pct",
             key="bisection_fraction"),
    ]
    rf = g("rail_forwarding")
    if rf:  # rail-only: the figure once the scale-up domains forward between rails
        performance.append(Fact(
            "Bisection with forwarding", float(rf.get("bisection_gbps") or 0) / 1000, "dec",
            "Tb/s", f"rail-only, {rf.get('rails')} rails joined through the scale-up domains: "
            f"{float(rf.get('fraction_of_full') or 0):.1%} of full; a uniform all-to-all "
            f"takes {float(rf.get('all_to_all_overhead') or 0):.1%} longer for the NVLink hop "
            f"({rf.get('source', '')})", key="rail_forwarding"))
    performance += [
        Fact("Oversubscription, worst end to end", over.get("worst_ratio", "n/a"), "text",
             note=("per tier: " + ", ".join(f"{k} {v['ratio']}" for k, v in
                                            (over.get("by_tier") or {}).items())
                   + (f"; blocking: {', '.join(over['blocking_tiers'])}"
                      if over.get("blocking_tiers") else "")
                   + (f"; dragonfly global {over['global_cut']['text']}: "
                      f"{over['global_cut']['basis']}" if over.get("global_cut") else "")),
             key="oversubscription"),
        Fact("Switch hops between GPUs", f"{hops.get('min', 0)}-{hops.get('max', 0)}", "text",
             note=f"mean {float(hops.get('mean') or 0):.2f}", key="hops"),
        # p50 first, as the window shows it; the rest of the distribution is in the note
        Fact("Latency, p50 (median)", float(lat.get("p50") or 0), "dec2", "µs",
             f"idle, static paths; p99 {float(lat.get('p99') or 0):.2f}, max "
             f"{float(lat.get('max') or 0):.2f}, min {float(lat.get('min') or 0):.2f}, mean "
             f"{float(lat.get('mean') or 0):.2f} µs, for a {message_label(project)} message",
             key="latency_p50"),
    ]
    cost = [
        Fact("Total cost", float(bom.get("total_usd") or 0), "usd", "estimate",
             "follows the BOM sheet", key="total_usd", strong=True),
        Fact("Cost per GPU", float(bom.get("per_gpu_usd") or 0), "usd", key="per_gpu_usd"),
        Fact("Power (switches, NICs, optics)", float(g("power_w") or 0) / 1000, "dec", "kW",
             key="power_kw"),
        Fact("Rack units (switches, appliances)", float(g("rack_units") or 0), "dec", "U",
             key="rack_units"),
    ]
    problems = g("problems") or []
    errors = sum(1 for p in problems if p.get("severity") == "error")
    about = [
        Fact("Problems found", len(problems), "int",
             note=f"{errors} error(s)" if problems else "none", key="problems"),
        Fact("Date", date, key="date"),
        Fact("Fabric Designer version", app_version, key="version"),
    ]
    return [
        FactSection("Design", tuple(design)),
        FactSection("Performance", tuple(performance)),
        FactSection("Cost and power", tuple(cost)),
        FactSection("About this file", tuple(about)),
    ]
