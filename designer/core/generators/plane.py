"""One plane of a generated fabric, and its assembly into a Fabric over P planes.

A generator builds the switches of a single plane and says where every endpoint (a server's
NIC port of that plane) plugs in; the assembly replicates that plane P times (each GPU has one
NIC port per plane, or shares one) and turns the arrays into devices and link bundles in one
pass. Servers of a rack-scale system get the ``domain`` label of their rack, in order.
"""

from __future__ import annotations

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
    T = gear.domain_servers
    tiers = max(r.tier for r in plane.rows)
    n_servers = len(servers.ids)
    server_extra: dict[str, object] = {}
    if gear.nic_id != gear.server.nic:
        server_extra["nic"] = gear.nic_id
    if gear.nics is not None:
        server_extra["nics"] = gear.nics
    if gear.nic_mode.speed_gbps != gear.nic.modes[0].speed_gbps:  # not the NIC's first mode
        server_extra["port_speed_gbps"] = gear.nic_mode.speed_gbps

    server_dy = servers.dy if servers.dy is not None else np.zeros(len(servers.ids))
    below = float(server_dy.max()) if server_dy.size else 0.0
    raw: list[dict] = [
        {
            "id": sid,
            "name": sid,
            "model": gear.server.id,
            "role": "gpu-server",
            "groups": grp if T == 1 else grp | {"domain": k // T + 1},
            "x": float(x),
            "y": float(dy),
            **server_extra,
        }
        for k, (sid, grp, x, dy) in enumerate(zip(
            servers.ids, servers.groups, servers.x.tolist(), server_dy.tolist(), strict=True
        ))
    ]
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
            speed = row.speed_gbps
            dys = row.dy.tolist() if row.dy is not None else [0.0] * len(row.ids)
            for sid, grp, x, dy in zip(row.ids, row.groups, row.x.tolist(), dys, strict=True):
                y = y0 + dy
                g = dict(grp)
                if planes > 1:
                    g["plane"] = p + 1
                raw.append(
                    {
                        "id": prefix + sid,
                        "name": prefix + sid,
                        "model": row.model,
                        "role": row.role.value,
                        "groups": g,
                        "x": float(x),
                        "y": y,
                        "port_speed_gbps": speed,
                    }
                )
        for name, grp, x in plane.appliances:
            g = dict(grp)
            if planes > 1:
                g["plane"] = p + 1
            raw.append(
                {
                    "id": prefix + name,
                    "name": prefix + name,
                    "model": plane.appliance_model,
                    "role": "appliance",
                    "groups": g,
                    "x": float(x),
                    "y": plane_y(0, p, planes, tiers, below) * 0.5 if planes > 1 else 0.0,
                }
            )
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
    return Fabric(devices=build_devices(raw), links=LinkTable.concat(chunks))


def build_devices(raw: list[dict]) -> tuple[Device, ...]:
    """Devices of generated rows: the first row of each shape (model, role, group keys,
    fields) is validated in full, so a wrong type or an id the pattern refuses fails there;
    the rest, made by the same numpy code, are built as validated ones (``Device.trusted``):
    at 131,040 GPUs in NVL72 trays that is 37,752 devices, whose validation one by one took
    longer than generating the whole design of 8-GPU servers."""
    return Device.trusted(raw)


def spread(n: int, start: float, width: float) -> np.ndarray:
    """``n`` x positions evenly over ``[start, start + width]`` (centred when n is 1)."""
    if n <= 0:
        return np.empty(0)
    if n == 1:
        return np.array([start + width / 2.0])
    return start + np.arange(n) * (width / (n - 1))
