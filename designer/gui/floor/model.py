"""What the floor views draw, computed once per project change (no Qt here beyond types).

``FloorData`` holds the plan, each rack's place on the floor, its fill and power, and which
rack every device sits in; the floor view and the rack elevation both read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.physical import FloorPlan, Positions, RackUsage, project_usage, rack_xy


@dataclass(frozen=True, eq=False)
class FloorData:
    floor: FloorPlan
    usage: RackUsage
    pos: Positions
    x: np.ndarray  # rack centres, metres
    y: np.ndarray
    ids: tuple[str, ...]  # device ids, fabric order
    # the other networks' placed devices: (id, rack index, lowest U, U, label)
    others: tuple[tuple[str, int, int, int, str], ...] = ()

    def devices_in(self, rack: int) -> list[int]:
        return np.flatnonzero(self.pos.rack == rack).tolist()

    def others_in(self, rack: int) -> list[tuple[str, int, int, int, str]]:
        return [o for o in self.others if o[1] == rack]

    def rack_index(self, name: str) -> int:
        return self.usage.names.index(name)


def floor_data(project: Project, catalog: Catalog) -> FloorData | None:
    phys = project.physical
    if phys is None or phys.floor is None or not phys.floor.rows:
        return None
    floor = phys.floor
    pos, usage = project_usage(project, catalog)
    x, y = rack_xy(floor)
    return FloorData(floor, usage, pos, x, y, tuple(d.id for d in project.fabric.devices),
                     _others(project, catalog, floor, usage))


def _others(project: Project, catalog: Catalog, floor: FloorPlan,
            usage: RackUsage) -> tuple[tuple[str, int, int, int, str], ...]:
    if not project.networks:
        return ()
    from designer.core.networks import NETWORK_LABELS
    from designer.core.physical import net_size

    index = {n: k for k, n in enumerate(usage.names)}
    sizes: dict = {}
    out = []
    for kind, net in project.networks.items():
        for d in net.devices:
            s = floor.placement.get(d.id)
            if s is not None and s.rack in index:
                out.append((d.id, index[s.rack], s.u, net_size(d.model, catalog, sizes).ru,
                            f"{NETWORK_LABELS[kind]} {d.tier}, {d.model}"))
    return tuple(out)


def heat_colour(fraction: float) -> str:
    """Green (empty) through amber to red (full); past the limit a dark red."""
    if fraction > 1.0 + 1e-9:
        return "#8E1B1B"
    f = max(0.0, min(1.0, fraction))
    # hue 130 (green) -> 0 (red), pale at low use
    hue = int(130 * (1.0 - f))
    sat = int(60 + 150 * f)
    return f"hsv({hue},{sat},235)"
