"""Rack-scale systems and liquid cooling on the floor: what a rack of an NVL72 holds beside its
trays, the coolant distribution units a row needs, and each row's power against its budget.

* A rack-scale domain brings its scale-up switch trays (9 NVLink switch trays of 1U) and its
  power shelves and management switches (``ScaleUp.other_u``) into the rack that holds most of
  its trays: their U and power count in that rack as if they were placed.
* A row's liquid heat (its liquid-cooled racks' kW) needs ``ceil(heat / CDU capacity)`` CDUs
  plus ``Geometry.cdu_spares`` (N+1), standing as ``cdu`` positions in the row.
* A row's kW is every rack's in it, CDUs' pumps included, against the row's budget.

Numpy over devices and racks; the Python loops go over gear models and rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog, CoolingSpec, ServerSpec
from designer.core.model import Fabric
from designer.core.physical.floor import FloorPlan, Geometry


@dataclass(frozen=True, eq=False)
class RackLoads:
    """Per rack (``FloorPlan.racks()`` order): U and kW the floor plan does not place as
    devices (scale-up switch trays, power shelves, CDU pumps), and the rack-scale domains it
    holds."""

    u: np.ndarray  # int64
    kw: np.ndarray  # float64
    domains: np.ndarray  # int64


def _domain_of(fabric: Fabric, catalog: Catalog) -> tuple[np.ndarray, list[ServerSpec]]:
    """A rack-scale domain number per device (-1: none) and each domain's system, from the
    ``domain`` labels of rack-scale trays (model and label together name a domain)."""
    n = len(fabric.devices)
    out = np.full(n, -1, np.int64)
    specs: list[ServerSpec] = []
    seen: dict[tuple[str, int], int] = {}
    rack_scale: dict[str, ServerSpec | None] = {}
    labels = fabric.group_label("domain")  # cached per fabric: most devices have none
    for i in np.flatnonzero(labels).tolist():
        d = fabric.devices[i]
        label = int(labels[i])
        if d.model not in rack_scale:
            spec = catalog.get(d.model) if d.model in catalog else None
            rack_scale[d.model] = (spec if isinstance(spec, ServerSpec) and spec.rack_scale
                                   else None)
        spec = rack_scale[d.model]
        if spec is None:
            continue
        k = seen.setdefault((d.model, label), len(seen))
        if k == len(specs):
            specs.append(spec)
        out[i] = k
    return out, specs


def system_load(spec: ServerSpec, catalog: Catalog) -> tuple[int, float]:
    """(U, kW) a rack-scale system's rack holds beside its trays: its scale-up switch trays,
    power shelves and management switches."""
    su = spec.scale_up
    if su is None:
        return 0, 0.0
    tray_u, tray_kw = 0, 0.0
    if su.switch_tray and su.switch_trays:
        tray = catalog.get(su.switch_tray) if su.switch_tray in catalog else None
        tray_u = math.ceil(float(getattr(tray, "rack_units", 1) or 1))
        tray_kw = float(getattr(tray, "power_w", 0.0) or 0.0) / 1000.0
    return su.switch_trays * tray_u + su.other_u, su.switch_trays * tray_kw


def domain_members(fabric: Fabric, catalog: Catalog
                   ) -> list[tuple[np.ndarray, tuple[float | None, int | None, int, float]]]:
    """Each rack-scale domain's devices (in order) and its rack: (rated kW, U, the U and kW of
    what it holds beside its trays)."""
    dom, specs = _domain_of(fabric, catalog)
    idx = np.flatnonzero(dom >= 0)
    if not idx.size:
        return []
    order = idx[np.argsort(dom[idx], kind="stable")]
    starts = np.r_[0, np.flatnonzero(np.diff(dom[order])) + 1]
    out = []
    for a, b in zip(starts.tolist(), [*starts[1:].tolist(), order.size], strict=True):
        spec = specs[int(dom[order[a]])]
        su = spec.scale_up
        assert su is not None
        u, kw = system_load(spec, catalog)
        out.append((order[a:b], (su.rack_kw, su.rack_u, u, kw)))
    return out


def rack_loads(floor: FloorPlan, fabric: Fabric, catalog: Catalog,
               rack_of: np.ndarray) -> RackLoads:
    """``rack_of``: the rack index of every device (-1 off the floor)."""
    racks = floor.racks()
    k = len(racks)
    u = np.zeros(k, np.int64)
    kw = np.zeros(k, np.float64)
    dom, specs = _domain_of(fabric, catalog)
    held = np.zeros(k, np.int64)
    placed = (dom >= 0) & (rack_of >= 0)
    if placed.any() and specs:
        # the rack holding most of a domain's trays holds its switch trays and shelves
        pair = dom[placed] * k + rack_of[placed]
        counts = np.bincount(pair, minlength=len(specs) * k).reshape(len(specs), k)
        home = np.argmax(counts, axis=1)
        has = counts.max(axis=1) > 0
        for d in np.flatnonzero(has).tolist():
            r = int(home[d])
            du, dkw = system_load(specs[d], catalog)
            u[r] += du
            kw[r] += dkw
            held[r] += 1
    cdu = cdu_spec(floor.geometry, catalog)
    if cdu is not None:
        is_cdu = np.array([x.kind == "cdu" for _, _, x in racks], bool)
        kw[is_cdu] += cdu.power_w / 1000.0
    return RackLoads(u, kw, held)


def cdu_spec(g: Geometry, catalog: Catalog) -> CoolingSpec | None:
    item = catalog.get(g.cdu) if g.cdu in catalog else None
    return item if isinstance(item, CoolingSpec) else None


def cdus_needed(liquid_kw: float, g: Geometry, catalog: Catalog) -> int:
    """CDUs for ``liquid_kw`` of heat in one row: enough capacity, plus the spares (N+1)."""
    spec = cdu_spec(g, catalog)
    if liquid_kw <= 0 or spec is None:
        return 0
    return math.ceil(liquid_kw / spec.capacity_kw - 1e-9) + g.cdu_spares


@dataclass(frozen=True)
class RowUse:
    name: str
    kw: float  # every rack's kW, CDU pumps included
    budget: float | None
    liquid_kw: float  # heat of its liquid-cooled racks
    cdus: int  # CDU positions in the row
    cdus_needed: int

    def to_json(self) -> dict:
        return {"row": self.name, "kw": round(self.kw, 2),
                "kw_budget": None if self.budget is None else round(self.budget, 2),
                "liquid_kw": round(self.liquid_kw, 2), "cdus": self.cdus,
                "cdus_needed": self.cdus_needed}


def row_use(floor: FloorPlan, used_kw: np.ndarray, catalog: Catalog) -> list[RowUse]:
    """Per row: its kW against its budget, its liquid heat and CDUs (``used_kw`` per rack in
    ``floor.racks()`` order)."""
    out: list[RowUse] = []
    k = 0
    for row in floor.rows:
        n = len(row.racks)
        kw = used_kw[k:k + n]
        liquid = float(sum(w for w, r in zip(kw.tolist(), row.racks, strict=True)
                           if r.cooling == "liquid" and r.kind != "cdu"))
        cdus = sum(1 for r in row.racks if r.kind == "cdu")
        out.append(RowUse(row.name, float(kw.sum()), floor.row_kw(row), liquid, cdus,
                          cdus_needed(liquid, floor.geometry, catalog)))
        k += n
    return out


def cdu_count(project, catalog: Catalog, compiled) -> tuple[str, int]:
    """(CDU catalog id, how many) the design needs: the ``cdu`` positions of its floor plan,
    else per scalable-unit row of liquid-cooled gear (the default plan's rows), N+1 each.
    ``compiled``: the solver's arrays of the project (its device table, group labels and
    domains), so nothing loops over devices in Python."""
    phys = project.physical
    floor = phys.floor if phys is not None else None
    g = floor.geometry if floor is not None else Geometry()
    if floor is not None and floor.rows:
        return g.cdu, sum(1 for _, _, r in floor.racks() if r.kind == "cdu")
    c = compiled
    t = c.table
    kw = np.zeros(len(t.choices))
    extra = np.zeros(len(t.choices))  # a rack-scale system's switch trays, once a domain
    for k, (model, *_) in enumerate(t.choices):
        spec = catalog.get(model) if model in catalog else None
        if isinstance(spec, ServerSpec) and spec.cooling == "liquid":
            kw[k] = spec.power_w / 1000.0
            extra[k] = system_load(spec, catalog)[1]
    dev_kw = np.where(c.is_server, kw[t.gear], 0.0)
    if not dev_kw.any():
        return g.cdu, 0
    su = c.groups.get("su")
    row = su if su is not None else np.zeros(dev_kw.size, np.int32)
    dom = c.domains.of_device
    servers = np.flatnonzero(dom >= 0)
    first = np.full(c.domains.count, -1, np.int64)
    first[dom[servers][::-1]] = servers[::-1]
    first = first[first >= 0]
    dev_kw[first] += extra[t.gear[first]]
    heat = np.bincount(row, weights=dev_kw)
    return g.cdu, sum(cdus_needed(float(h), g, catalog) for h in heat if h > 0)
