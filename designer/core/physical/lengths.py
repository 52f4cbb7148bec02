"""Every cable's length from where its two devices sit.

* Same rack: the vertical distance between the two devices plus the in-rack slack.
* Different racks: up from the device to the overhead tray, along the trays (Manhattan: along
  the row, then across the rows), down to the other device, plus the between-rack slack. The
  trays run above the tallest rack of the floor (``FloorPlan.tray_height_m``) and above every
  device placed, so a taller rack lengthens the runs it sits on, and no cable is ever ordered
  shorter than the straight line between its ends.

The measured run is then rounded up to the next length sold (``Geometry.sold_lengths_m``;
past the longest, to whole 10 m), so the cheapest medium that reaches follows from the cable
one actually orders. A cable with an end off the floor has no length here (NaN) and keeps the
layer default. All of it is numpy over the cables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Fabric
from designer.core.physical.floor import FloorPlan, Geometry
from designer.core.physical.placement import Sizes, device_sizes


@dataclass(frozen=True, eq=False)
class Positions:
    """Per device: rack index (into ``FloorPlan.racks()``, -1 off the floor), lowest U, and
    the point cables leave from (x along the rows, y across them, z height), in metres."""

    rack: np.ndarray
    u: np.ndarray
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    sizes: Sizes
    tray_m: float = 0.0  # height of the overhead trays on this floor

    @property
    def placed(self) -> np.ndarray:
        return self.rack >= 0


def rack_xy(floor: FloorPlan) -> tuple[np.ndarray, np.ndarray]:
    """The centre of every rack's footprint, in ``floor.racks()`` order."""
    g = floor.geometry
    racks = floor.racks()
    row = np.array([i for i, _, _ in racks], np.float64)
    col = np.array([j for _, j, _ in racks], np.float64)
    return (col + 0.5) * g.rack_width_m, row * (g.rack_depth_m + g.aisle_m) + g.rack_depth_m / 2


def positions(floor: FloorPlan, fabric: Fabric, catalog: Catalog,
              sizes: Sizes | None = None) -> Positions:
    sizes = sizes if sizes is not None else device_sizes(fabric, catalog)
    index = {r.name: k for k, (_, _, r) in enumerate(floor.racks())}
    n = len(fabric.devices)
    rack = np.full(n, -1, np.int64)
    u = np.zeros(n, np.int64)
    place = floor.placement
    for i, d in enumerate(fabric.devices):
        s = place.get(d.id)
        if s is not None:
            rack[i] = index[s.rack]
            u[i] = s.u
    rx, ry = rack_xy(floor)
    g = floor.geometry
    ok = rack >= 0
    safe = np.where(ok, rack, 0)
    x = np.where(ok, rx[safe] if rx.size else 0.0, np.nan)
    y = np.where(ok, ry[safe] if ry.size else 0.0, np.nan)
    # ports leave from the middle of the device's height
    z = np.where(ok, g.rack_base_m + (u - 1 + sizes.ru / 2) * g.u_height_m, np.nan)
    # a device placed past its rack's top (a problem the plan reports) still gets a real run
    top = g.rack_base_m + (u[ok] - 1 + sizes.ru[ok]) * g.u_height_m
    tray = max(floor.tray_height_m(),
               float(top.max()) + g.tray_above_rack_m if top.size else 0.0)
    return Positions(rack, u, x, y, z, sizes, tray)


def raw_lengths(g: Geometry, pos: Positions, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Measured run of each cable a[i]-b[i] before rounding (NaN when an end is off the floor)."""
    za, zb = pos.z[a], pos.z[b]
    same = pos.rack[a] == pos.rack[b]
    in_rack = np.abs(za - zb) + g.in_rack_slack_m
    tray = pos.tray_m or g.tray_height_m
    across = (np.abs(pos.x[a] - pos.x[b]) + np.abs(pos.y[a] - pos.y[b])
              + (tray - za) + (tray - zb) + g.between_rack_slack_m)
    out = np.where(same, in_rack, across)
    out[(pos.rack[a] < 0) | (pos.rack[b] < 0)] = np.nan
    return out


def round_to_sold(g: Geometry, length: np.ndarray) -> np.ndarray:
    """Up to the next sold length; past the longest, up to whole 10 m. NaN stays NaN."""
    sold = np.asarray(sorted(g.sold_lengths_m), np.float64)
    safe = np.nan_to_num(length, nan=0.0)
    k = np.searchsorted(sold, safe - 1e-9, side="left")
    beyond = k >= sold.size
    out = np.where(beyond, np.ceil(safe / 10.0 - 1e-9) * 10.0, sold[np.minimum(k, sold.size - 1)])
    return np.where(np.isnan(length), np.nan, out)


def straight_distance(pos: Positions, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The straight line between the two ends (no cable is shorter)."""
    return np.sqrt((pos.x[a] - pos.x[b]) ** 2 + (pos.y[a] - pos.y[b]) ** 2
                   + (pos.z[a] - pos.z[b]) ** 2)


def cable_lengths(floor: FloorPlan, fabric: Fabric, catalog: Catalog, a: np.ndarray,
                  b: np.ndarray, pos: Positions | None = None) -> np.ndarray:
    """The length to order for each cable a[i]-b[i] (device indices), NaN off the floor."""
    pos = pos if pos is not None else positions(floor, fabric, catalog)
    return round_to_sold(floor.geometry, raw_lengths(floor.geometry, pos, a, b))


def planned_lengths(project, catalog: Catalog, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The solver's hook: lengths from the project's floor plan, or None without one."""
    phys = project.physical
    if phys is None or phys.floor is None or not phys.floor.placement:
        return None
    return cable_lengths(phys.floor, project.fabric, catalog, a, b)


def length_distribution(length: np.ndarray, layer: np.ndarray,
                        layers: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """Per layer: cables per length (metres as text, shortest first)."""
    out: dict[str, dict[str, int]] = {}
    for k, name in enumerate(layers):
        sel = length[layer == k]
        if not sel.size:
            continue
        vals, counts = np.unique(np.round(sel, 2), return_counts=True)
        out[name] = {f"{v:g}": int(c) for v, c in zip(vals.tolist(), counts.tolist(),
                                                        strict=True)}
    return out
