"""The other networks' devices on the floor plan: where they stand and what they add to racks.

The rules follow the DGX SuperPOD reference architectures' layout:

* an out-of-band management (access) switch stands in the rack of the devices it manages
  (the rack most of its cables reach), in the U kept free at the top of every rack
  (``Geometry.reserved_u``, "the management switch and a patch panel"), highest free U first;
  when that rack has no free U for it, it goes to the network racks below;
* the front-end and storage networks' switches, the management network's aggregation
  switches and the storage nodes go into network racks of a row of their own per network
  (``FE``, ``STOR``, ``OOB``), spines first, filled to the rack's U (less the reserved U) and
  power as the back-end's network racks are.

Each rack's U, kW, device count and power cords then count these devices too
(``network_loads``), so rack problems, PDUs and the floor summary see them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.model import Project
from designer.core.networks.model import NetDevice
from designer.core.physical.floor import FloorPlan, Rack, Row, Slot
from designer.core.physical.placement import device_sizes

ROW_NAME = {"frontend": "FE", "storage": "STOR", "oob": "OOB"}
ORDER = {"spine": 0, "leaf": 1, "access": 2, "storage-node": 3}


@dataclass(frozen=True)
class NetSize:
    ru: int
    kw: float
    inlet: str  # power inlet of its cords ("C14", "C20" or "")
    cords: int


def net_size(model: str, catalog: Catalog, cache: dict[str, NetSize]) -> NetSize:
    """U, kW and cords of a network device's model (unknown gear: 1U, 0 kW, no cords)."""
    if model not in cache:
        from designer.core.networks.gear import network_items, part
        from designer.core.physical.power import device_cords

        try:
            p = part(model, catalog)
            ru, kw = max(1, int(np.ceil(p.rack_units or 0))), p.power_w / 1000.0
        except DesignerError:
            ru, kw = 1, 0.0
        item = network_items().get(model) or (catalog.get(model) if model in catalog
                                              else None)
        c = device_cords(item) if item is not None else None
        cache[model] = NetSize(ru, kw, c.inlet if c else "", c.count if c else 0)
    return cache[model]


def _occupied(project: Project, catalog: Catalog, floor: FloorPlan,
              sizes: dict[str, NetSize]) -> dict[str, list[tuple[int, int]]]:
    """Per rack, the U ranges (first, last) its placed devices take."""
    out: dict[str, list[tuple[int, int]]] = {}
    place = floor.placement
    ru = device_sizes(project.fabric, catalog).ru
    for i, d in enumerate(project.fabric.devices):
        s = place.get(d.id)
        if s is not None:
            out.setdefault(s.rack, []).append((s.u, s.u + int(ru[i]) - 1))
    for net in (project.networks or {}).values():
        for d in net.devices:
            s = place.get(d.id)
            if s is not None:
                out.setdefault(s.rack, []).append(
                    (s.u, s.u + net_size(d.model, catalog, sizes).ru - 1))
    return out


def _top_free(taken: list[tuple[int, int]], height: int, ru: int) -> int | None:
    """The highest U from which ``ru`` U are free in a rack of ``height`` U."""
    for u in range(height - ru + 1, 0, -1):
        if all(u + ru - 1 < a or u > b for a, b in taken):
            return u
    return None


def place_networks(project: Project, catalog: Catalog, floor: FloorPlan) -> FloorPlan:
    """``floor`` with every other network's device that has no slot yet placed (see the
    module docstring); ``floor`` itself when there is none to place."""
    nets = project.networks or {}
    place = floor.placement
    todo = [(kind, d) for kind, net in nets.items() for d in net.devices if d.id not in place]
    if not todo or not floor.rows:
        return floor
    g = floor.geometry
    sizes: dict[str, NetSize] = {}
    occupied = _occupied(project, catalog, floor, sizes)
    height = {r.name: floor.rack_u(r) for _, _, r in floor.racks()}
    new: dict[str, Slot] = {}
    taken = {r.name for _, _, r in floor.racks()} | {row.name for row in floor.rows}
    rows: list[Row] = []

    def pack(kind: str, devs: list) -> None:
        """``devs`` into network racks of a new row of their own."""
        name = ROW_NAME[kind]
        k = 2
        while name in taken or any(x.startswith(f"{name}-") for x in taken):
            name = f"{ROW_NAME[kind]}{k}"
            k += 1
        taken.add(name)
        devs.sort(key=lambda d: (ORDER.get(d.tier, 9), d.group, d.id))
        racks: list[list] = []  # [name, used U, used kW, switches, nodes]
        cap_u = g.rack_u - g.reserved_u
        for d in devs:
            sz = net_size(d.model, catalog, sizes)
            r = racks[-1] if racks else None
            full = r is not None and r[1] and (r[1] + sz.ru > cap_u
                                               or r[2] + sz.kw > g.rack_kw + 1e-9)
            if r is None or full:
                r = [f"{name}-N{len(racks) + 1:02d}", 0, 0.0, [], []]
                racks.append(r)
            r[1] += sz.ru
            r[2] += sz.kw
            (r[4] if d.tier == "storage-node" else r[3]).append((d.id, sz.ru))
        for rname, _u, _kw, switches, nodes in racks:
            u = 1
            for dev, ru in nodes:  # storage nodes from the bottom up
                new[dev] = Slot(rack=rname, u=min(u, g.rack_u))
                occupied.setdefault(rname, []).append((u, u + ru - 1))
                u += ru
            top = cap_u + 1
            for dev, ru in switches:  # switches from the top down, below the reserved U
                top -= ru
                new[dev] = Slot(rack=rname, u=max(top, 1))
                occupied.setdefault(rname, []).append((top, top + ru - 1))
            height[rname] = g.rack_u
        for j in range(0, len(racks), g.racks_per_row):
            part = racks[j:j + g.racks_per_row]
            rows.append(Row(name=name if j == 0 else f"{name}.{j // g.racks_per_row + 1}",
                            racks=tuple(Rack(name=r[0], kind="network") for r in part)))

    # the switches and storage nodes of network racks first: the management switches then
    # follow the devices they manage, wherever those stand
    by_kind: dict[str, list] = {}
    for kind, d in todo:
        if d.tier != "access":
            by_kind.setdefault(kind, []).append(d)
    for kind, devs in by_kind.items():
        pack(kind, devs)
    where = {k: s.rack for k, s in place.items()} | {k: s.rack for k, s in new.items()}
    homeless: dict[str, list] = {}
    for kind in {k for k, d in todo if d.tier == "access"}:
        access = {d.id for d in nets[kind].devices if d.tier == "access"}
        reach: dict[str, Counter] = {}  # per access switch, the racks its cables reach
        for a, b in zip(nets[kind].links.a, nets[kind].links.b, strict=True):
            if a in access and b in where:
                reach.setdefault(a, Counter())[where[b]] += 1
            if b in access and a in where:
                reach.setdefault(b, Counter())[where[a]] += 1
        for d in nets[kind].devices:
            if d.tier != "access" or d.id in place:
                continue
            ru = net_size(d.model, catalog, sizes).ru
            for rack, _n in sorted(reach.get(d.id, Counter()).items(),
                                   key=lambda kv: (-kv[1], kv[0])):
                u = _top_free(occupied.get(rack, []), height[rack], ru)
                if u is not None:
                    new[d.id] = Slot(rack=rack, u=u)
                    occupied.setdefault(rack, []).append((u, u + ru - 1))
                    break
            else:
                homeless.setdefault(kind, []).append(d)
    for kind, devs in homeless.items():  # no free U where they serve: a network rack
        pack(kind, devs)
    return FloorPlan(geometry=g, rows=(*floor.rows, *rows), placement={**place, **new})


@dataclass(frozen=True, eq=False)
class NetLoads:
    """Per rack (``FloorPlan.racks()`` order): what the other networks' devices add."""

    u: np.ndarray
    kw: np.ndarray
    devices: np.ndarray
    c14: np.ndarray  # C13 cords (C14 inlets)
    c20: np.ndarray  # C19 cords (C20 inlets)
    unplaced: int  # their devices without a slot


def placed_network_devices(project: Project, catalog: Catalog, floor: FloorPlan,
                           index: dict[str, int]
                           ) -> Iterator[tuple[NetDevice, Slot | None, int, NetSize]]:
    """Every device of the other networks with its slot, its rack's position in ``index``
    (rack name -> position; -1: not placed) and its size."""
    sizes: dict[str, NetSize] = {}
    for net in project.networks.values():
        for d in net.devices:
            s = floor.placement.get(d.id)
            r = index.get(s.rack, -1) if s is not None else -1
            yield d, s, r, net_size(d.model, catalog, sizes)


def network_loads(project: Project, catalog: Catalog, floor: FloorPlan) -> NetLoads | None:
    """The other networks' placed devices per rack; None when the project has none."""
    if not project.networks:
        return None
    index = {r.name: k for k, (_, _, r) in enumerate(floor.racks())}
    k = len(index)
    u, kw = np.zeros(k, np.int64), np.zeros(k)
    n, c14, c20 = (np.zeros(k, np.int64) for _ in range(3))
    unplaced = 0
    for _d, _s, r, sz in placed_network_devices(project, catalog, floor, index):
        if r < 0:
            unplaced += 1
            continue
        u[r] += sz.ru
        kw[r] += sz.kw
        n[r] += 1
        if sz.inlet == "C14":
            c14[r] += sz.cords
        elif sz.inlet == "C20":
            c20[r] += sz.cords
    return NetLoads(u, kw, n, c14, c20, unplaced)
