"""Each rack's fill (U) and power against its limits, and the problems when one is exceeded.

Counted with numpy over the placed devices: U used and kW per rack by ``bincount``, overlaps
by sorting the devices of each rack by their lowest U.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.physical.floor import FloorPlan
from designer.core.physical.lengths import Positions, positions
from designer.core.problems import MAX_NAMED_DEVICES, Problem, Severity


@dataclass(frozen=True, eq=False)
class RackUsage:
    """Per rack (``FloorPlan.racks()`` order): names, kinds, limits, what is used."""

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    rows: np.ndarray  # row index
    cols: np.ndarray  # place in the row
    cap_u: np.ndarray
    cap_kw: np.ndarray
    used_u: np.ndarray
    used_kw: np.ndarray
    devices: np.ndarray  # devices in the rack

    def to_json(self) -> list[dict]:
        return [
            {"rack": n, "kind": k, "row": int(r), "u_used": int(u), "u": int(cu),
             "kw": round(float(w), 2), "kw_limit": round(float(cw), 2), "devices": int(d)}
            for n, k, r, u, cu, w, cw, d in zip(
                self.names, self.kinds, self.rows.tolist(), self.used_u.tolist(),
                self.cap_u.tolist(), self.used_kw.tolist(), self.cap_kw.tolist(),
                self.devices.tolist(), strict=True)
        ]


def rack_usage(floor: FloorPlan, pos: Positions) -> RackUsage:
    racks = floor.racks()
    k = len(racks)
    placed = pos.placed
    r = pos.rack[placed]
    return RackUsage(
        names=tuple(x.name for _, _, x in racks),
        kinds=tuple(x.kind for _, _, x in racks),
        rows=np.array([i for i, _, _ in racks], np.int64),
        cols=np.array([j for _, j, _ in racks], np.int64),
        cap_u=np.array([floor.rack_u(x) for _, _, x in racks], np.int64),
        cap_kw=np.array([floor.rack_kw(x) for _, _, x in racks], np.float64),
        used_u=np.bincount(r, weights=pos.sizes.ru[placed], minlength=k).astype(np.int64),
        used_kw=np.bincount(r, weights=pos.sizes.kw[placed], minlength=k),
        devices=np.bincount(r, minlength=k).astype(np.int64),
    )


def floor_problems(project: Project, catalog: Catalog) -> list[Problem]:
    """Racks over their power or height, devices overlapping or past the top, devices off
    the floor (their cables keep the layer's default length)."""
    phys = project.physical
    if phys is None or phys.floor is None:
        return []
    floor = phys.floor
    fabric = project.fabric
    pos = positions(floor, fabric, catalog)
    use = rack_usage(floor, pos)
    ids = [d.id for d in fabric.devices]
    out: list[Problem] = []

    def in_racks(mask: np.ndarray) -> tuple[str, ...]:
        sel = np.flatnonzero(pos.placed & mask[np.maximum(pos.rack, 0)])
        return tuple(ids[i] for i in sel[:MAX_NAMED_DEVICES].tolist())

    hot = use.used_kw > use.cap_kw + 1e-9
    if hot.any():
        worst = int(np.argmax(use.used_kw - use.cap_kw))
        out.append(Problem(
            Severity.ERROR, "rack-power",
            f"{int(hot.sum())} rack(s) draw more than their power limit (worst: "
            f"{use.names[worst]}, {use.used_kw[worst]:.1f} kW of {use.cap_kw[worst]:.1f} kW)",
            in_racks(hot)))
    full = use.used_u > use.cap_u
    if full.any():
        worst = int(np.argmax(use.used_u - use.cap_u))
        out.append(Problem(
            Severity.ERROR, "rack-height",
            f"{int(full.sum())} rack(s) hold more than their height (worst: {use.names[worst]}, "
            f"{use.used_u[worst]}U in {use.cap_u[worst]}U)", in_racks(full)))
    placed = np.flatnonzero(pos.placed)
    top = pos.u[placed] + pos.sizes.ru[placed] - 1
    past = placed[top > use.cap_u[pos.rack[placed]]]
    order = placed[np.lexsort((pos.u[placed], pos.rack[placed]))]
    end = pos.u[order] + pos.sizes.ru[order]
    clash = (pos.rack[order][1:] == pos.rack[order][:-1]) & (pos.u[order][1:] < end[:-1])
    over = np.unique(np.r_[order[1:][clash], order[:-1][clash]])
    if over.size:
        out.append(Problem(
            Severity.ERROR, "rack-overlap",
            f"{over.size:,} device(s) share rack units with another device",
            tuple(ids[i] for i in over[:MAX_NAMED_DEVICES].tolist())))
    if past.size:
        out.append(Problem(
            Severity.ERROR, "rack-top",
            f"{past.size:,} device(s) reach past the top of their rack",
            tuple(ids[i] for i in past[:MAX_NAMED_DEVICES].tolist())))
    off = np.flatnonzero(~pos.placed)
    if off.size:
        out.append(Problem(
            Severity.WARNING, "not-on-floor",
            f"{off.size:,} device(s) have no rack in the floor plan; their cables use the "
            "layer's default length ('designer floor FILE --place' places them)",
            tuple(ids[i] for i in off[:MAX_NAMED_DEVICES].tolist())))
    return out
