"""A per-tier summary of a design as standalone SVG: one box per switch tier (core at the top,
GPU servers at the bottom) with its switch count and models, and the cables between tiers.

A large design's drawing shows boxes of boxes; this says in one look what is built: how many
switches of which kind sit in each tier and how many cables join each pair of tiers. Built from
``Result.to_json()`` (its ``switches``, ``links``, ``oversubscription`` keys), so it agrees with
every other figure of the report; the switch models per tier come from the project.
"""

from __future__ import annotations

from collections.abc import Mapping

from designer.core.writers.charts_svg import AXIS, MUTED, TEXT, svg_head, svg_text

TIER_ORDER = ("core", "spine", "leaf", "router")  # top to bottom; servers go below
FILL = {"core": "#E8EEF7", "spine": "#E3EDF8", "leaf": "#EAF3EA", "router": "#F3ECF8",
        "servers": "#F4F7FA"}
STROKE = {"core": "#1F3B5C", "spine": "#2D6DA3", "leaf": "#2E7D32", "router": "#7A54B4",
          "servers": "#5D6876"}
SAME_TIER = {"local", "global"}  # dragonfly: links inside the router tier


def _tiers(data: Mapping) -> list[str]:
    by_tier = (data.get("switches") or {}).get("by_tier") or {}
    known = [t for t in TIER_ORDER if by_tier.get(t)]
    others = [t for t in by_tier if t not in TIER_ORDER and by_tier.get(t)]
    return known + others


def _layer_ends(layer: str, tiers: list[str]) -> tuple[str, str] | None:
    """The two rows a link layer joins: 'endpoint-leaf' -> (servers, leaf)."""
    parts = layer.split("-")
    if len(parts) != 2:
        return None
    a, b = ("servers" if p == "endpoint" else p for p in parts)
    rows = {*tiers, "servers"}
    if a in rows and b in rows:
        return a, b
    return None


def tier_diagram(data: Mapping, models: Mapping[str, list[str]] | None = None,
                 title: str = "The fabric tier by tier", width: int = 330) -> str:
    """The SVG text of the per-tier summary; ``models`` names the switch models of each tier."""
    tiers = _tiers(data)
    rows = [*tiers, "servers"]
    box_h, gap, top = 38, 34, 30
    height = top + len(rows) * box_h + (len(rows) - 1) * gap + 24
    out = svg_head(width, height, title)
    by_tier = (data.get("switches") or {}).get("by_tier") or {}
    over = (data.get("oversubscription") or {}).get("by_tier") or {}
    layers = (data.get("links") or {}).get("by_layer") or {}
    models = models or {}
    beside: dict[str, list[str]] = {}
    for layer, count in layers.items():
        if layer in SAME_TIER and tiers and int(count or 0):
            beside.setdefault(tiers[-1], []).append(f"{int(count):,} {layer}")
    box_w = width * 0.74
    x0 = (width - box_w) / 2
    y_of: dict[str, float] = {}
    for i, row in enumerate(rows):
        y = top + i * (box_h + gap)
        y_of[row] = y
        inside = ""
        if row == "servers":
            main = (f"{int(data.get('servers') or 0):,} GPU servers · "
                    f"{int(data.get('gpus') or 0):,} GPUs")
            sub = ""
        else:
            main = f"{int(by_tier.get(row) or 0):,} {row} switches"
            ratio = (over.get(row) or {}).get("ratio")
            sub = ", ".join(models.get(row, [])) if models.get(row) else ""
            if ratio:
                sub = (sub + " · " if sub else "") + f"down:up {ratio}"
        inside = " + ".join(beside[row]) + " cables inside" if beside.get(row) else ""
        # dragonfly: the cables that stay inside the tier on a third line
        h_box = box_h + (12 if inside else 0)
        out.append(f'<rect x="{x0:.1f}" y="{y:.1f}" width="{box_w:.1f}" height="{h_box}" '
                   f'rx="5" fill="{FILL.get(row, "#F4F7FA")}" '
                   f'stroke="{STROKE.get(row, AXIS)}" stroke-width="1.4"/>')
        cy = y + (16 if sub else box_h / 2 + 4)
        out.append(f'<text x="{width / 2:.1f}" y="{cy:.1f}" font-size="11" font-weight="bold" '
                   f'fill="{TEXT}" text-anchor="middle">{svg_text(main)}</text>')
        for k, line in enumerate(t for t in (sub, inside) if t):
            out.append(f'<text x="{width / 2:.1f}" y="{y + 30 + 12 * k:.1f}" font-size="9" '
                       f'fill="{MUTED}" text-anchor="middle">{svg_text(line)}</text>')
    # cables between rows: a line and its count in the gap (same-tier layers: in the box)
    for layer, count in layers.items():
        n = int(count or 0)
        if not n:
            continue
        if layer in SAME_TIER:
            continue
        ends = _layer_ends(layer, tiers)
        if ends is None:
            continue
        upper, lower = sorted(ends, key=rows.index)
        y1 = y_of[upper] + box_h + (12 if beside.get(upper) else 0)
        y2 = y_of[lower]
        out.append(f'<line x1="{width / 2:.1f}" y1="{y1:.1f}" x2="{width / 2:.1f}" '
                   f'y2="{y2:.1f}" stroke="{AXIS}" stroke-width="2"/>')
        out.append(f'<text x="{width / 2 + 6:.1f}" y="{(y1 + y2) / 2 + 4:.1f}" font-size="9.5" '
                   f'fill="{TEXT}">{svg_text(f"{n:,} cables ({layer})")}</text>')
    out.append("</svg>")
    return "\n".join(out)
