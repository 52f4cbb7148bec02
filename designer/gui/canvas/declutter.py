"""Keeping the canvas's texts apart: group title tabs and cable-count labels never overlap.

Both are placed greedily by priority at the current zoom: each text takes the first of its
candidate places that overlaps nothing placed before it (nor an obstacle); a text with no
free place is hidden (its tooltip still has it). Rectangles are rows of ``(x, y, w, h)``
in one coordinate system; the checks are numpy over everything placed so far, so a few
hundred texts take about a millisecond.
"""

from __future__ import annotations

import numpy as np

GAP = 4.0  # screen px between two texts


def _hits(rect: np.ndarray, placed: np.ndarray, gap: float) -> np.ndarray:
    """Which rows of ``placed`` overlap ``rect`` (with ``gap`` of air between them)."""
    if not len(placed):
        return np.zeros(0, bool)
    x, y, w, h = rect
    return ((placed[:, 0] < x + w + gap) & (placed[:, 0] + placed[:, 2] + gap > x)
            & (placed[:, 1] < y + h + gap) & (placed[:, 1] + placed[:, 3] + gap > y))


def place_tabs(rects: np.ndarray, right_limit: np.ndarray, gap: float = GAP,
               least: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Title tabs in priority order (row 0 first): a tab that overlaps one placed before it
    slides right past it, within its own group (``right_limit``: the furthest its right
    edge may go), narrowed down to ``least`` wide when the room is short (its text is cut);
    when even that does not fit, it is hidden. Returns (x shift, width, shown) per tab."""
    n = len(rects)
    shift = np.zeros(n)
    width = np.asarray(rects, float)[:, 2].copy() if n else np.zeros(0)
    shown = np.ones(n, bool)
    placed = np.empty((0, 4))
    for i in range(n):
        r = rects[i].astype(float).copy()
        for _ in range(len(placed) + 1):  # each slide passes at least one placed tab
            hit = _hits(r, placed, gap)
            if not hit.any():
                break
            r[0] = float((placed[hit, 0] + placed[hit, 2]).max()) + gap
        if r[0] + r[2] > right_limit[i] + 1e-9:
            r[2] = min(r[2], right_limit[i] - r[0])
        if _hits(r, placed, gap).any() or r[2] < max(min(least, width[i]), 1e-9):
            shown[i] = False
            continue
        shift[i] = r[0] - rects[i][0]
        width[i] = r[2]
        placed = np.vstack([placed, r])
    return shift, width, shown


def place_labels(candidates: np.ndarray, obstacles: np.ndarray, gap: float = GAP
                 ) -> np.ndarray:
    """Labels in priority order, each with ``k`` candidate rectangles (``(n, k, 4)``):
    the index of the first candidate that overlaps no obstacle and no label placed before,
    or -1 (hidden)."""
    n = len(candidates)
    choice = np.full(n, -1, np.int64)
    placed = np.empty((0, 4))
    for i in range(n):
        for j, r in enumerate(candidates[i]):
            if _hits(r, obstacles, 0.0).any() or _hits(r, placed, gap).any():
                continue
            choice[i] = j
            placed = np.vstack([placed, r])
            break
    return choice
