"""The latency figures a design uses, each with its value, its split and where it comes from.

One list feeds the solver's JSON (``latency_us.assumptions.figures``), the window's latency
tooltip, the BOM workbook's Assumptions sheet and the report, so they all name the same
assumptions.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.core.catalog import TECH_LABELS, Catalog, NicSpec, SwitchSpec
from designer.core.sources.apply import latency_origin

# Said wherever latency is shown: these are not loaded-fabric figures.
IDLE_STATIC = ("idle, static latency: one small message on an empty fabric along a shortest "
               "path; no queueing, congestion or retransmission")


def latency_figures(project, catalog: Catalog,
                    used: Iterable[tuple[str, str]]) -> list[dict]:
    """One entry per (gear id, technology) in ``used``: switches per hop, NICs per end."""
    out: list[dict] = []
    for gear_id, tech in dict.fromkeys(used):
        if gear_id not in catalog:
            continue
        item = catalog.get(gear_id)
        if isinstance(item, SwitchSpec):
            kind, ns, parts = "switch, per hop", item.latency_for(tech), None
        elif isinstance(item, NicSpec):
            mode = item.mode_of_tech(tech)
            kind = "NIC, per end"
            ns = mode.latency_ns if mode is not None and mode.latency_ns is not None \
                else item.latency_ns
            parts = mode.latency_parts.as_dict() if mode and mode.latency_parts else None
        else:
            continue
        origin = latency_origin(project, catalog, item, tech)
        out.append({
            "gear": gear_id,
            "name": item.name,
            "kind": kind,
            "tech": tech,
            "tech_label": TECH_LABELS.get(tech, tech),
            "ns": float(ns),
            "parts_ns": parts,
            "origin": origin.to_json(),
            "assumption": origin.kind == "assumption",
        })
    return out


def assumption_lines(figures: list[dict]) -> list[str]:
    """Short lines naming each figure that is an assumption, for tooltips and notes."""
    lines = []
    for f in figures:
        if f["assumption"]:
            lines.append(f"{f['name']} ({f['tech_label']}, {f['kind']}): {f['ns']:,.0f} ns, "
                         f"assumed: {f['origin']['detail'] or f['origin']['label']}")
    return lines
