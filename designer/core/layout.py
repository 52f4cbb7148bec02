"""Re-arranging a design on the canvas (positions only; wiring never changes).

Generated fabrics put every scalable unit or pod side by side in one row, which is faithful
but very wide: 64 SUs are about 170 times wider than tall, so the whole design never reads
on a screen. ``arrange_compact`` wraps the top-level groups (pods, else SUs, else dragonfly
groups) into rows so the design is about as wide as a screen is, and spreads the devices
that belong to no group (a core tier) over the new width, keeping their order.
"""

from __future__ import annotations

import math

import numpy as np

from designer.core.errors import FabricError
from designer.core.model import Fabric

UNIT_LEVELS = ("pod", "su", "group")
HALF_WIDTH = {"gpu-server": 25.0, "appliance": 25.0}  # other devices: switches
SWITCH_HALF_WIDTH = 42.0


def arrange_compact(fabric: Fabric, aspect: float = 1.8) -> dict[str, tuple[float, float]]:
    """New (x, y) of the devices that move; raises FabricError when there is nothing to wrap."""
    devices = fabric.devices
    if any("plane" in d.groups for d in devices):
        raise FabricError(
            "multi-plane designs keep their planes above and below the servers; arrange each "
            "plane by hand"
        )
    level = next(
        (lv for lv in UNIT_LEVELS if sum(lv in d.groups for d in devices) >= len(devices) / 2),
        None,
    )
    if level is None:
        raise FabricError("the design has no pods, SUs or groups to arrange")
    n = len(devices)
    xs = np.fromiter((d.x for d in devices), float, n)
    ys = np.fromiter((d.y for d in devices), float, n)
    half = np.array([HALF_WIDTH.get(d.role.value, SWITCH_HALF_WIDTH) for d in devices])
    unit = np.array([d.groups.get(level, -1) for d in devices], dtype=np.int64)
    labels = np.unique(unit[unit >= 0])
    if labels.size < 2:
        raise FabricError(f"the design has a single {level}; nothing to wrap")
    grouped = unit >= 0
    slot = np.searchsorted(labels, unit[grouped])
    x0, y0 = np.full(labels.size, np.inf), np.full(labels.size, np.inf)
    x1, y1 = np.full(labels.size, -np.inf), np.full(labels.size, -np.inf)
    np.minimum.at(x0, slot, (xs - half)[grouped])
    np.maximum.at(x1, slot, (xs + half)[grouped])
    np.minimum.at(y0, slot, ys[grouped])
    np.maximum.at(y1, slot, ys[grouped])
    order = np.argsort(x0, kind="stable")
    w = float((x1 - x0).max())
    h = float((y1 - y0).max()) + 60.0
    gap_x = max(400.0, 0.08 * w)
    gap_y = max(400.0, h)  # room for the titles of the groups below
    k = labels.size
    cols = int(np.clip(round(math.sqrt(k * (h + gap_y) * aspect / (w + gap_x))), 1, k))
    if cols >= k:
        raise FabricError("the design is already compact")
    rank = np.empty(k, dtype=np.int64)
    rank[order] = np.arange(k)
    col, row = rank % cols, rank // cols
    dx_unit = col * (w + gap_x) - (x0 - x0.min())
    dy_unit = row * (h + gap_y) + (y0.min() - y0)  # rows line up on their top edge
    loose = unit < 0
    if loose.any():  # keep a tier above the groups (a core) clear of the first row's titles
        clearance = float(y0.min() - ys[loose].max())
        dy_unit += max(0.0, gap_y - clearance)
    new_x, new_y = xs.copy(), ys.copy()
    new_x[grouped] = xs[grouped] + dx_unit[slot]
    new_y[grouped] = ys[grouped] + dy_unit[slot]
    # devices outside the groups (a core tier): same order, over the new width
    if loose.any():
        lo, hi = float(xs[loose].min()), float(xs[loose].max())
        width = cols * w + (cols - 1) * gap_x
        left = float(x0.min())
        if hi > lo:
            new_x[loose] = left + (xs[loose] - lo) / (hi - lo) * (width - 2 * SWITCH_HALF_WIDTH)
            new_x[loose] += SWITCH_HALF_WIDTH
    moved = (np.abs(new_x - xs) > 1e-6) | (np.abs(new_y - ys) > 1e-6)
    return {
        devices[i].id: (round(float(new_x[i]), 1), round(float(new_y[i]), 1))
        for i in np.flatnonzero(moved).tolist()
    }


WIDE = 8.0  # wider than this many times its height: generated designs are arranged compactly


def compact_if_wide(project, aspect: float = WIDE):
    """``project`` arranged compactly when its devices spread more than ``aspect`` times
    wider than tall (64 SUs side by side are about 170 times), else ``project`` itself.
    Generated designs go through this in the window, so Fit shows a readable block rather
    than a strip one percent of the view high."""
    from designer.core.editing import bounds, move_devices

    box = bounds(project.fabric)
    if box is None:
        return project
    w, h = box[2] - box[0], box[3] - box[1]
    if h <= 0 or w / h <= aspect:
        return project
    try:
        positions = arrange_compact(project.fabric)
    except FabricError:  # multi-plane, a single group, already compact: leave it
        return project
    return move_devices(project, positions)
