"""Each rack's fill (U) and power against its limits, each row's power against its budget, and
the problems when one is exceeded.

Counted with numpy over the placed devices: U used and kW per rack by ``bincount``, overlaps
by sorting the devices of each rack by their lowest U. A rack of a rack-scale system also
holds its scale-up switch trays and power shelves (``liquid.rack_loads``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog, ServerSpec
from designer.core.model import Project
from designer.core.physical.floor import FloorPlan
from designer.core.physical.lengths import Positions, positions
from designer.core.physical.liquid import RackLoads, rack_loads, row_use
from designer.core.problems import MAX_NAMED_DEVICES, Problem, Severity


@dataclass(frozen=True, eq=False)
class RackUsage:
    """Per rack (``FloorPlan.racks()`` order): names, kinds, limits, what is used."""

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    cooling: tuple[str, ...]
    rows: np.ndarray  # row index
    cols: np.ndarray  # place in the row
    cap_u: np.ndarray
    cap_kw: np.ndarray
    used_u: np.ndarray
    used_kw: np.ndarray
    devices: np.ndarray  # devices in the rack
    # U and kW of what is in a rack without being a device (an NVL72's switch trays and
    # shelves, a CDU's pumps), and the rack-scale domains it holds
    loads: RackLoads | None = None

    def to_json(self) -> list[dict]:
        held = self.loads.domains if self.loads is not None else np.zeros(len(self.names))
        return [
            {"rack": n, "kind": k, "cooling": c, "row": int(r), "u_used": int(u), "u": int(cu),
             "kw": round(float(w), 2), "kw_limit": round(float(cw), 2), "devices": int(d),
             "scale_up_domains": int(h)}
            for n, k, c, r, u, cu, w, cw, d, h in zip(
                self.names, self.kinds, self.cooling, self.rows.tolist(), self.used_u.tolist(),
                self.cap_u.tolist(), self.used_kw.tolist(), self.cap_kw.tolist(),
                self.devices.tolist(), np.asarray(held).tolist(), strict=True)
        ]


def rack_usage(floor: FloorPlan, pos: Positions, loads: RackLoads | None = None) -> RackUsage:
    racks = floor.racks()
    k = len(racks)
    placed = pos.placed
    r = pos.rack[placed]
    used_u = np.bincount(r, weights=pos.sizes.ru[placed], minlength=k).astype(np.int64)
    used_kw = np.bincount(r, weights=pos.sizes.kw[placed], minlength=k)
    if loads is not None:
        used_u = used_u + loads.u
        used_kw = used_kw + loads.kw
    return RackUsage(
        names=tuple(x.name for _, _, x in racks),
        kinds=tuple(x.kind for _, _, x in racks),
        cooling=tuple(x.cooling for _, _, x in racks),
        rows=np.array([i for i, _, _ in racks], np.int64),
        cols=np.array([j for _, j, _ in racks], np.int64),
        cap_u=np.array([floor.rack_u(x) for _, _, x in racks], np.int64),
        cap_kw=np.array([floor.rack_kw(x) for _, _, x in racks], np.float64),
        used_u=used_u,
        used_kw=used_kw,
        devices=np.bincount(r, minlength=k).astype(np.int64),
        loads=loads,
    )


def project_usage(project: Project, catalog: Catalog,
                  pos: Positions | None = None) -> tuple[Positions, RackUsage]:
    """Positions and rack usage of the project's floor plan, rack-scale loads included."""
    floor = project.physical.floor  # type: ignore[union-attr]
    pos = pos if pos is not None else positions(floor, project.fabric, catalog)
    loads = rack_loads(floor, project.fabric, catalog, pos.rack)
    use = rack_usage(floor, pos, loads)
    if project.networks:  # the other networks' placed switches and storage nodes
        from dataclasses import replace

        from designer.core.physical.network_racks import network_loads

        net = network_loads(project, catalog, floor)
        if net is not None and net.devices.any():
            use = replace(use, used_u=use.used_u + net.u, used_kw=use.used_kw + net.kw,
                          devices=use.devices + net.devices)
    return pos, use


def floor_problems(project: Project, catalog: Catalog) -> list[Problem]:
    """Racks over their power or height, devices overlapping or past the top, devices off
    the floor (their cables keep the layer's default length)."""
    phys = project.physical
    if phys is None or phys.floor is None:
        return []
    floor = phys.floor
    fabric = project.fabric
    pos, use = project_usage(project, catalog)
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
    out.extend(_row_problems(floor, use, catalog))
    liquid = _liquid_in_air(project, catalog, pos, use)
    if liquid.size:
        out.append(Problem(
            Severity.ERROR, "liquid-in-air-rack",
            f"{liquid.size:,} liquid-cooled device(s) sit in racks without liquid cooling "
            "(set the rack's cooling to liquid, or move them)",
            tuple(ids[i] for i in liquid[:MAX_NAMED_DEVICES].tolist())))
    off = np.flatnonzero(~pos.placed)
    if off.size:
        out.append(Problem(
            Severity.WARNING, "not-on-floor",
            f"{off.size:,} device(s) have no rack in the floor plan; their cables use the "
            "layer's default length ('designer floor FILE --place' places them)",
            tuple(ids[i] for i in off[:MAX_NAMED_DEVICES].tolist())))
    return out


def _row_problems(floor: FloorPlan, use: RackUsage, catalog: Catalog) -> list[Problem]:
    out: list[Problem] = []
    rows = row_use(floor, use.used_kw, catalog)
    over = [r for r in rows if r.budget is not None and r.kw > r.budget + 1e-9]
    if over:
        worst = max(over, key=lambda r: r.kw - (r.budget or 0.0))
        out.append(Problem(
            Severity.ERROR, "row-power",
            f"{len(over)} row(s) draw more than their power budget (worst: {worst.name}, "
            f"{worst.kw:,.1f} kW of {worst.budget:,.1f} kW)"))
    short = [r for r in rows if r.cdus < r.cdus_needed]
    if short:
        r = short[0]
        out.append(Problem(
            Severity.WARNING, "cdu-short",
            f"{len(short)} row(s) have fewer coolant distribution units than their liquid "
            f"heat needs (first: {r.name}, {r.liquid_kw:,.0f} kW needs {r.cdus_needed} with "
            f"the spare, {r.cdus} placed)"))
    return out


def _liquid_in_air(project: Project, catalog: Catalog, pos: Positions,
                   use: RackUsage) -> np.ndarray:
    """Placed devices whose gear is liquid-cooled in racks that are not."""
    models = {d.model for d in project.fabric.devices}
    liquid_models = {m for m in models if m in catalog and isinstance(catalog.get(m), ServerSpec)
                     and catalog.server(m).cooling == "liquid"}
    if not liquid_models:
        return np.empty(0, np.int64)
    is_liquid = np.array([d.model in liquid_models for d in project.fabric.devices], bool)
    air = np.array([c != "liquid" for c in use.cooling] + [False], bool)
    return np.flatnonzero(is_liquid & pos.placed & air[np.where(pos.placed, pos.rack, -1)])
