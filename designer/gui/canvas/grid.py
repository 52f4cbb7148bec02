"""The canvas grid: positions snap to it; the view draws it and steps the arrow keys by it."""

from __future__ import annotations

GRID = 10.0  # scene units between grid lines


def snap(v: float) -> float:
    return round(v / GRID) * GRID
