"""Lines that pass over a collapsed box they do not end at.

A collapsed group is an opaque box drawn above the lines, which is right for the lines that
end at it (they meet its edge) and wrong for a line that only passes: a core tier's links to
the pods of a second row vanish behind the pods of the first. Such lines go on a layer above
the boxes, cut at the edges of the boxes they end at so that they do not run over those.

Pure numpy (Liang-Barsky clipping of every line against every box at once); a grouped view
has tens of boxes and lines, so the pairwise arrays stay small, and views with more pairs
than ``MAX_PAIRS`` keep every line below the boxes rather than spend the time.
"""

from __future__ import annotations

import numpy as np

MAX_PAIRS = 2_000_000


def _entry_exit(seg: np.ndarray, rects: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each line (S, 4: x0, y0, x1, y1) enters and leaves each rect (B, 4: x, y, w, h),
    as fractions along the line (S, B); entry > exit where it misses."""
    x0, y0 = seg[:, 0:1], seg[:, 1:2]
    dx, dy = seg[:, 2:3] - x0, seg[:, 3:4] - y0
    left, top = rects[:, 0], rects[:, 1]
    right, bottom = left + rects[:, 2], top + rects[:, 3]
    t_in = np.zeros((len(seg), len(rects)))
    t_out = np.ones((len(seg), len(rects)))
    with np.errstate(divide="ignore", invalid="ignore"):
        for d, lo, hi, start in ((dx, left, right, x0), (dy, top, bottom, y0)):
            a = (lo - start) / d
            b = (hi - start) / d
            near, far = np.minimum(a, b), np.maximum(a, b)
            flat = np.broadcast_to(d == 0, t_in.shape)
            inside = (start >= lo) & (start <= hi)
            near = np.where(flat, np.where(inside, -np.inf, np.inf), near)
            far = np.where(flat, np.where(inside, np.inf, -np.inf), far)
            t_in = np.maximum(t_in, near)
            t_out = np.minimum(t_out, far)
    return t_in, t_out


def over_boxes(seg: np.ndarray, rects: np.ndarray, own_a: np.ndarray, own_b: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """(mask, clipped): which lines cross a box other than their own ends' (``own_a`` /
    ``own_b``: the box each end is, -1 for a device), and those lines cut to start and end
    at the edges of their own boxes."""
    n = len(seg)
    mask = np.zeros(n, dtype=bool)
    clipped = seg.copy()
    if n == 0 or len(rects) == 0 or n * len(rects) > MAX_PAIRS:
        return mask, clipped
    t_in, t_out = _entry_exit(seg, rects)
    hit = t_in < t_out
    rows = np.arange(n)
    has_a, has_b = own_a >= 0, own_b >= 0
    hit[rows[has_a], own_a[has_a]] = False
    hit[rows[has_b], own_b[has_b]] = False
    mask = hit.any(axis=1)
    start = np.zeros(n)
    end = np.ones(n)
    start[has_a] = t_out[rows[has_a], own_a[has_a]]  # leaves its own box here
    end[has_b] = t_in[rows[has_b], own_b[has_b]]  # and enters the other end's here
    ok = start < end
    d = seg[:, 2:4] - seg[:, 0:2]
    cut = np.column_stack([seg[:, 0:2] + d * start[:, None], seg[:, 0:2] + d * end[:, None]])
    clipped[ok] = cut[ok]
    mask &= ok
    return mask, clipped
