"""One plane of a generated fabric, and its assembly into a Fabric over P planes.

A generator builds the switches of a single plane and says where every endpoint (a server's
NIC port of that plane) plugs in; the assembly replicates that plane P times (each GPU has one
NIC port per plane, or shares one) and turns the arrays into devices and link bundles in one
pass. Servers of a rack-scale system get the ``domain`` label of their rack, in order.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

from designer.core.generators.gear import GearChoice
from designer.core.links import LinkTable
from designer.core.model import Device, Fabric, Role

ROW_DY = 260.0  # vertical distance between tiers on the canvas
PLANE_DY = 200.0  # extra gap between planes stacked on one side of the servers


@dataclass
class LinkChunk:
    """Bundles between two device arrays of the same plane (plane-local switch indices)."""

    a: np.ndarray
    a_port: np.ndarray
    b: np.ndarray
    b_port: np.ndarray
    count: np.ndarray
    speed_gbps: int
    layer: str
    length_m: float = float("nan")


@dataclass
class SwitchRow:
    """Switches of one role in one plane, laid out in one row."""

    role: Role
    ids: list[str]
    groups: list[dict[str, int]]
    x: np.ndarray
    model: str
    speed_gbps: int
    tier: int  # 1 leaf/router, 2 spine, 3 core (rows are drawn upwards by tier)
    dy: np.ndarray | None = None  # extra vertical offset per switch (grids of groups)


@dataclass
class Plane:
    rows: list[SwitchRow]
    links: list[LinkChunk]
    # endpoint e (NIC port e % E of server e // E in this plane) plugs into switch
    # attach_sw[e] (index over all rows, in order) at attach_port[e]
    attach_sw: np.ndarray
    attach_port: np.ndarray
    attach_length_m: float = float("nan")
    appliances: list[tuple[str, dict[str, int], float]] = field(default_factory=list)
    # appliance ports: (appliance index, appliance port, switch, switch port)
    appliance_links: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    appliance_model: str = "ufm-appliance"

    @property
    def n_switches(self) -> int:
        return sum(len(r.ids) for r in self.rows)

    def row_offsets(self) -> list[int]:
        out, acc = [], 0
        for r in self.rows:
            out.append(acc)
            acc += len(r.ids)
        return out


@dataclass
class Servers:
    ids: list[str]
    groups: list[dict[str, int]]
    x: np.ndarray
    dy: np.ndarray | None = None


def _plane_prefix(p: int, planes: int) -> str:
    return f"p{p + 1}-" if planes > 1 else ""


def plane_y(tier: int, p: int, planes: int, tiers: int, below: float = 0.0) -> float:
    """Even planes above the servers, odd planes below them (past the ``below`` deep block
    of server rows), further planes further out."""
    side = -1.0 if p % 2 == 0 else 1.0
    stack = p // 2
    offset = side * (tier * ROW_DY + stack * (tiers * ROW_DY + PLANE_DY))
    return offset + below if side > 0 else offset


def assemble(plane: Plane, servers: Servers, gear: GearChoice) -> Fabric:
    """Devices and links for ``gear.planes`` copies of ``plane`` sharing ``servers``."""
    planes = gear.planes
    E = gear.endpoints_per_server
    tiers = max(r.tier for r in plane.rows)
    n_servers = len(servers.ids)
    devices = server_devices(servers, gear)
    below = float(servers.dy.max()) if servers.dy is not None and servers.dy.size else 0.0
    chunks: list[LinkTable] = []
    n_sw = plane.n_switches
    n_app = len(plane.appliances)
    per_plane = n_sw + n_app
    ep = np.arange(plane.attach_sw.shape[0], dtype=np.int64)
    for p in range(planes):
        prefix = _plane_prefix(p, planes)
        base = n_servers + p * per_plane
        for row in plane.rows:
            y0 = plane_y(row.tier, p, planes, tiers, below)
            devices += switch_block(row, prefix, y0, {"plane": p + 1} if planes > 1 else {})
        for name, grp, x in plane.appliances:
            g = dict(grp)
            if planes > 1:
                g["plane"] = p + 1
            devices.append(Device.model_validate({
                "id": prefix + name,
                "name": prefix + name,
                "model": plane.appliance_model,
                "role": "appliance",
                "groups": g,
                "x": float(x),
                "y": plane_y(0, p, planes, tiers, below) * 0.5 if planes > 1 else 0.0,
            }))
        # endpoint e of server e // E, NIC port e % E, plane p -> server port (e%E)*P + p + 1
        chunks.append(
            LinkTable(
                a=(ep // E).astype(np.int32),
                a_port=((ep % E) * planes + p + 1).astype(np.int32),
                b=(base + plane.attach_sw).astype(np.int32),
                b_port=plane.attach_port,
                count=1,
                speed_gbps=gear.endpoint_speed,
                length_m=plane.attach_length_m,
            )
        )
        if plane.appliance_links is not None:
            app, app_port, sw, sw_port = plane.appliance_links
            chunks.append(
                LinkTable(
                    a=(base + n_sw + app).astype(np.int32),
                    a_port=app_port,
                    b=(base + sw).astype(np.int32),
                    b_port=sw_port,
                    count=1,
                    speed_gbps=gear.endpoint_speed,
                    length_m=plane.attach_length_m,
                )
            )
        for ch in plane.links:
            chunks.append(
                LinkTable(
                    a=(base + ch.a).astype(np.int32),
                    a_port=ch.a_port,
                    b=(base + ch.b).astype(np.int32),
                    b_port=ch.b_port,
                    count=ch.count,
                    speed_gbps=ch.speed_gbps,
                    length_m=ch.length_m,
                )
            )
    return Fabric(devices=tuple(devices), links=LinkTable.concat(chunks))


def server_devices(servers: Servers, gear: GearChoice) -> list[Device]:
    """The servers (or trays) as devices: a tray of a domain that spans several trays is
    labelled with its domain (``gear.domain_servers`` consecutive trays a domain); the NIC,
    its count and its port speed are written only where they differ from the catalog's."""
    extra: dict[str, object] = {}
    if gear.nic_id != gear.server.nic:
        extra["nic"] = gear.nic_id
    if gear.nics is not None:
        extra["nics"] = gear.nics
    if gear.nic_mode.speed_gbps != gear.nic.modes[0].speed_gbps:  # not the NIC's first mode
        extra["port_speed_gbps"] = gear.nic_mode.speed_gbps
    groups = domain_groups(servers.groups, gear.domain_servers)
    dy = servers.dy if servers.dy is not None else np.zeros(len(servers.ids))
    return Device.block(servers.ids, groups, servers.x, dy, model=gear.server.id,
                        role=Role.GPU_SERVER, **extra)


def domain_groups(groups: list[dict[str, int]], T: int) -> list[dict[str, int]]:
    """Trays' group labels with their domain (``T`` consecutive trays a domain): one dict a
    domain, shared by its trays, when they carry the same labels (a rack in one unit), else
    one dict a tray."""
    if T == 1:
        return groups
    n = len(groups)
    index = (np.arange(n) // T).tolist()
    firsts = groups[::T]
    if all(map(operator.eq, groups, map(firsts.__getitem__, index))):
        per_domain = [g | {"domain": j + 1} for j, g in enumerate(firsts)]
        return list(map(per_domain.__getitem__, index))
    return [g | {"domain": j + 1} for g, j in zip(groups, index, strict=True)]


def switch_block(row: SwitchRow, prefix: str, y0: float, extra: dict[str, int]) -> list[Device]:
    """The devices of one switch row in one copy of a plane (ids prefixed with the copy's
    ``prefix``, ``extra`` group labels added)."""
    ids = [prefix + sid for sid in row.ids] if prefix else row.ids
    groups = [g | extra for g in row.groups] if extra else row.groups
    y = y0 + (row.dy if row.dy is not None else np.zeros(len(row.ids)))
    return Device.block(ids, groups, row.x, y, model=row.model, role=row.role,
                        port_speed_gbps=row.speed_gbps)


def compose_ids(heads: list[str], tails: list[str], head: np.ndarray,
                tail: np.ndarray) -> list[str]:
    """``heads[head[i]] + tails[tail[i]]`` for every i: ids of tens of thousands of servers
    from a few hundred distinct parts, in C-level maps (a format string each took three
    times as long)."""
    return list(map(str.__add__, map(heads.__getitem__, head.tolist()),
                    map(tails.__getitem__, tail.tolist())))


def spread(n: int, start: float, width: float) -> np.ndarray:
    """``n`` x positions evenly over ``[start, start + width]`` (centred when n is 1)."""
    if n <= 0:
        return np.empty(0)
    if n == 1:
        return np.array([start + width / 2.0])
    return start + np.arange(n) * (width / (n - 1))
