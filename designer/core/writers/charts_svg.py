"""Small bar charts as standalone SVG text, for the design report (no plotting library).

Each chart is a fixed-size SVG with a title, labelled bars and a light value grid; colours
follow the app's muted palette so printed reports stay readable in grey.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from designer.core.writers.safety import markup_text

BAR = "#2D6DA3"
BAR_ALT = "#7A54B4"
WARN = "#C62828"
GRID = "#E3E7EC"
AXIS = "#8893A0"
TEXT = "#1D2530"
MUTED = "#5D6876"
FONT = "font-family:'DejaVu Sans',Arial,Helvetica,sans-serif"


def svg_text(text: str) -> str:
    return markup_text(text)


def nice_max(value: float) -> float:
    """A round axis top at or above ``value`` (1, 2, 2.5, 5 x a power of ten)."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power * 1.0000001:
            return step * power
    return 10 * power


def _ticks(top: float, n: int = 4) -> list[float]:
    return [top * i / n for i in range(n + 1)]


def _short(value: float) -> str:
    """1.2k, 3.4M: three significant figures, the unit chosen after rounding (999,600 reads
    1M, not 1e+03k)."""
    a = abs(float(f"{value:.3g}"))
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if a >= size:
            return f"{value / size:.3g}{unit}"
    return f"{value:.3g}"


def svg_head(width: int, height: int, title: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{svg_text(title)}" style="{FONT}">',
        f'<rect width="{width}" height="{height}" fill="#FFFFFF"/>',
        f'<text x="8" y="18" font-size="13" font-weight="bold" fill="{TEXT}">'
        f'{svg_text(title)}</text>',
    ]


def column_chart(
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    *,
    x_title: str = "",
    y_title: str = "",
    value_format: str = "{:.3g}",
    colors: Sequence[str] | None = None,
    reference: float | None = None,
    reference_label: str = "",
    width: int = 320,
    height: int = 220,
    y_max: float | None = None,
    value_labels: Sequence[str] | None = None,
) -> str:
    """Vertical bars, one per label, value written above each bar; ``y_max`` caps the axis
    (100 for percentages); ``value_labels`` writes those texts instead of ``value_format``'s
    (the same rounding as the text that quotes them)."""
    out = svg_head(width, height, title)
    left, right, top, bottom = 46, 10, 34, 38 if x_title else 24
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max([*values, reference or 0, 0])
    y_top = nice_max(peak * 1.08 if peak else 1)
    if y_max is not None and peak <= y_max:
        y_top = min(y_top, y_max)
    for tick in _ticks(y_top):
        y = top + plot_h - plot_h * tick / y_top
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
                   f'stroke="{GRID}" stroke-width="1"/>')
        out.append(f'<text x="{left - 4}" y="{y + 3.5:.1f}" font-size="9" fill="{MUTED}" '
                   f'text-anchor="end">{_short(tick)}</text>')
    n = max(len(values), 1)
    slot = plot_w / n
    bar_w = min(slot * 0.7, 48)
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        h = plot_h * (value / y_top) if y_top else 0
        x = left + slot * i + (slot - bar_w) / 2
        y = top + plot_h - h
        color = colors[i] if colors else BAR
        out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                   f'fill="{color}" rx="1.5"/>')
        if n <= 16:
            text = value_labels[i] if value_labels else value_format.format(value)
            if not value_labels and 0 < value < 0.05 and value_format.endswith("%"):
                text = "<0.1%"  # a sliver, not nothing
            out.append(f'<text x="{x + bar_w / 2:.1f}" y="{y - 3:.1f}" font-size="9" '
                       f'fill="{TEXT}" text-anchor="middle">{svg_text(text)}</text>')
        if n <= 24 or i % math.ceil(n / 24) == 0:
            out.append(f'<text x="{left + slot * i + slot / 2:.1f}" y="{top + plot_h + 12:.1f}" '
                       f'font-size="9" fill="{MUTED}" text-anchor="middle">'
                       f'{svg_text(label)}</text>')
    if reference is not None and y_top:
        y = top + plot_h - plot_h * reference / y_top
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
                   f'stroke="{WARN}" stroke-width="1" stroke-dasharray="4 3"/>')
        if reference_label:  # a legend above the plot, clear of the bars' labels
            out.append(f'<text x="{left + plot_w}" y="{top - 6}" font-size="9" fill="{WARN}" '
                       f'text-anchor="end">- - {svg_text(reference_label)}</text>')
    out.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
               f'stroke="{AXIS}" stroke-width="1"/>')
    if x_title:
        out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" font-size="10" '
                   f'fill="{MUTED}" text-anchor="middle">{svg_text(x_title)}</text>')
    if y_title:
        out.append(f'<text x="12" y="{top + plot_h / 2:.1f}" font-size="10" fill="{MUTED}" '
                   f'text-anchor="middle" transform="rotate(-90 12 {top + plot_h / 2:.1f})">'
                   f"{svg_text(y_title)}</text>")
    out.append("</svg>")
    return "".join(out)


def bar_chart(
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    *,
    value_format: str = "{:,.0f}",
    width: int = 320,
    height: int | None = None,
    color: str = BAR,
) -> str:
    """Horizontal bars, largest first as given; labels left, values right of the bars."""
    n = max(len(values), 1)
    row = 22
    height = height or 34 + row * n + 10
    out = svg_head(width, height, title)
    label_w = min(max((len(s) for s in labels), default=4) * 6.2 + 8, width * 0.42)
    value_w = max((len(value_format.format(v)) for v in values), default=4) * 6.4 + 8
    left = label_w
    plot_w = width - left - value_w - 6
    peak = max([*values, 0]) or 1
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = 32 + row * i
        w = plot_w * value / peak
        out.append(f'<text x="{left - 6:.1f}" y="{y + 13}" font-size="10" fill="{TEXT}" '
                   f'text-anchor="end">{svg_text(label)}</text>')
        out.append(f'<rect x="{left:.1f}" y="{y + 3}" width="{max(w, 0.5):.1f}" height="{row - 8}" '
                   f'fill="{color}" rx="1.5"/>')
        out.append(f'<text x="{left + w + 4:.1f}" y="{y + 13}" font-size="10" fill="{TEXT}">'
                   f"{svg_text(value_format.format(value))}</text>")
    out.append("</svg>")
    return "".join(out)
