"""Numbers as the analysis panels show them: money, power, bandwidth, ratios.

A unit is chosen by the value as it will be shown, after rounding: 999,960 W is "1.0 MW",
never "1,000.0 kW".
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

MISSING = "–"


def _finite(fmt: Callable[..., str]) -> Callable[..., str]:
    """A formatter that shows a dash for a missing, infinite or NaN value instead of failing
    (rounding an infinity to an integer raises, and a panel must never fail on a figure)."""

    @functools.wraps(fmt)
    def wrapper(x, *args, **kwargs) -> str:
        if x is None or not math.isfinite(float(x)):
            return MISSING
        return fmt(x, *args, **kwargs)

    return wrapper


@_finite
def money(x: float) -> str:
    """$812, $81.2k, $12.35M: short enough for a panel, exact enough to compare."""
    a = abs(x)
    if round(a / 1e6, 2) >= 1000:
        return f"${x / 1e9:,.2f}B"
    if round(a / 1e3, 1) >= 1000:
        return f"${x / 1e6:,.2f}M"
    if a >= 1e4:
        return f"${x / 1e3:,.1f}k"
    return f"${x:,.0f}"


@_finite
def money_exact(x: float) -> str:
    return f"${x:,.2f}" if x != round(x) else f"${x:,.0f}"


@_finite
def power(watts: float) -> str:
    if round(watts / 1e3, 1) >= 1000:
        return f"{watts / 1e6:,.2f} MW"
    if round(watts) >= 1000:
        return f"{watts / 1e3:,.1f} kW"
    return f"{watts:,.0f} W"


@_finite
def tbps(gbps: float) -> str:
    if round(gbps) >= 1000:
        return f"{gbps / 1000:,.1f} Tb/s"
    return f"{gbps:,.0f} Gb/s"


@_finite
def gbps(x: float) -> str:
    return f"{x:,.0f} Gb/s" if round(x, 2) >= 10 else f"{x:,.2f} Gb/s"


@_finite
def percent(fraction: float) -> str:
    p = fraction * 100
    if p >= 99.95 or p == 0:
        return f"{p:.0f}%"
    return f"{p:.1f}%"


@_finite
def number(x: float | None, digits: int = 2) -> str:
    if float(x) == int(x):
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"


@_finite
def micro(us: float | None) -> str:
    return f"{us:,.2f} µs"


@_finite
def seconds(s: float) -> str:
    if s < 1:
        return f"{s * 1000:,.0f} ms"
    return f"{s:,.1f} s"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


@_finite
def money_short(x: float) -> str:
    """Three significant figures: $124M, $44.2M, $6.32M, $812k (chart labels)."""
    x = float(f"{x:.3g}")  # round first: $999.6k is $1.00M, not $1,000k
    a = abs(x)
    for scale, unit in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if a >= scale:
            v = x / scale
            digits = 0 if abs(v) >= 100 else 1 if abs(v) >= 10 else 2
            return f"${v:,.{digits}f}{unit}"
    return f"${x:,.0f}"
