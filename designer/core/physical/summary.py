"""What ``designer floor`` prints and the window's Floor tab shows: racks, fill, power, cable
lengths and media per layer, the floor's problems. Also ``with_floor``, the one way a project
gets a plan (the command line and the window both call it)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.links import MEDIA
from designer.core.model import Project
from designer.core.physical.floor import FloorPlan, Geometry, Physical
from designer.core.physical.lengths import length_distribution
from designer.core.physical.liquid import RowUse, row_use
from designer.core.physical.placement import default_floor, place_missing
from designer.core.physical.racks import RackUsage, floor_problems, project_usage
from designer.core.problems import Problem


def with_floor(project: Project, catalog: Catalog, replace: bool = False,
               geometry: Geometry | None = None) -> Project:
    """``project`` with a floor plan: the default one when it has none (or ``replace``),
    else its own with any device added since placed in new racks."""
    phys = project.physical or Physical()
    floor = None if replace else place_missing(project, catalog)
    if floor is None:
        g = geometry or (phys.floor.geometry if phys.floor is not None else None)
        floor = default_floor(project, catalog, g)
    if project.networks:  # their switches and storage nodes stand on the floor too
        from designer.core.physical.network_racks import place_networks

        floor = place_networks(project, catalog, floor)
    return project.evolve(physical=phys.model_copy(update={"floor": floor}))


@dataclass(frozen=True, eq=False)
class FloorSummary:
    floor: FloorPlan
    usage: RackUsage
    rows: tuple[RowUse, ...]
    lengths_by_layer: dict[str, dict[str, int]]
    media_by_layer: dict[str, dict[str, int]]
    problems: tuple[Problem, ...]

    def to_json(self) -> dict:
        u = self.usage
        return {
            "rows": [{"name": r.name, "racks": len(r.racks)} | u.to_json()
                     for r, u in zip(self.floor.rows, self.rows, strict=True)],
            "cdus": sum(r.cdus for r in self.rows),
            "cdus_needed": sum(r.cdus_needed for r in self.rows),
            "racks": len(u.names),
            "placed_devices": len(self.floor.placement),
            "u_used": int(u.used_u.sum()),
            "kw": round(float(u.used_kw.sum()), 2),
            "max_rack_kw": round(float(u.used_kw.max(initial=0.0)), 2),
            "geometry": self.floor.geometry.model_dump(mode="json"),
            "rack_list": u.to_json(),
            "lengths_by_layer_m": self.lengths_by_layer,
            "media_by_layer": self.media_by_layer,
            "problems": [p.to_json() for p in self.problems],
        }


def floor_summary(project: Project, catalog: Catalog, media=None) -> FloorSummary:
    """``media``: the solver's ``MediaPlan`` when the caller has one (else it is chosen here).
    The project must have a floor plan."""
    from designer.core.solver.media import choose_media

    phys = project.physical
    if phys is None or phys.floor is None:
        from designer.core.physical.errors import NoFloorPlan

        raise NoFloorPlan("the project has no floor plan; 'designer floor FILE --place' "
                          "makes one")
    floor = phys.floor
    _, usage = project_usage(project, catalog)
    m = media if media is not None else choose_media(project, catalog)
    by_medium: dict[str, dict[str, int]] = {}
    for k, name in enumerate(m.layers):
        sel = m.medium_class[m.layer == k]
        if sel.size:
            vals, counts = np.unique(sel, return_counts=True)
            by_medium[name] = {(MEDIA[int(v)] if v else "none"): int(c)
                               for v, c in zip(vals.tolist(), counts.tolist(), strict=True)}
    return FloorSummary(
        floor=floor,
        usage=usage,
        rows=tuple(row_use(floor, usage.used_kw, catalog)),
        lengths_by_layer=length_distribution(m.length_m, m.layer, m.layers),
        media_by_layer=by_medium,
        problems=tuple(floor_problems(project, catalog)),
    )
