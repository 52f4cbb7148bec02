"""What a device may become and what it is joined to: the choices the inspector offers (model,
role, port mode) and its neighbours with the cables to each. Rules about a design, so they live
in the core, where the command line and tests reach them too."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import TECH_LABELS, Catalog, ServerSpec, SwitchSpec
from designer.core.editing import roles_for
from designer.core.errors import DesignerError
from designer.core.model import Fabric, Role

NEIGHBOURS_SHOWN = 500  # a list longer than this is read by its count, not row by row


@dataclass(frozen=True)
class DeviceChoices:
    models: tuple[tuple[str, str], ...]  # (catalog id, name) the device may be swapped for
    model: str  # its current model (listed even when the catalog no longer has it)
    roles: tuple[Role, ...]
    modes: tuple[tuple[str, int], ...]  # ("64 x 400G (InfiniBand)", 400) per port speed
    mode: int | None  # the port speed it runs at


def device_choices(fabric: Fabric, i: int, catalog: Catalog) -> DeviceChoices:
    """The models, roles and port modes device ``i`` may take: a switch any switch, a GPU
    server any server with GPUs, another server any without."""
    d = fabric.devices[i]
    try:
        spec = catalog.get(d.model)
    except DesignerError:
        spec = None
    kind = "switch" if d.role.is_switch else "server"
    models = [(g.id, g.name) for g in catalog.of_kind(kind)
              if not (kind == "server" and isinstance(g, ServerSpec)
                      and bool(g.gpus) != (d.role == Role.GPU_SERVER))]
    if d.model not in {m for m, _ in models}:
        models.append((d.model, d.model))
    roles = tuple(roles_for(spec)) if spec is not None else (d.role,)
    modes = []
    if isinstance(spec, SwitchSpec):
        modes = list(spec.modes)
    elif isinstance(spec, ServerSpec):
        modes = list(catalog.nic(d.nic or spec.nic).modes)
    shown: list[tuple[str, int]] = []
    for m in modes:
        if m.speed_gbps in {s for _, s in shown}:
            continue
        techs = "/".join(TECH_LABELS.get(t, t) for mm in modes
                         if mm.speed_gbps == m.speed_gbps for t in mm.techs)
        ports = m.ports * (d.nics or spec.nics) if isinstance(spec, ServerSpec) else m.ports
        shown.append((f"{ports} x {m.speed_gbps}G ({techs})", m.speed_gbps))
    mode = (d.port_speed_gbps or modes[0].speed_gbps) if modes else None
    return DeviceChoices(tuple(models), d.model, roles, tuple(shown), mode)


@dataclass(frozen=True)
class Neighbour:
    device: str  # its id
    name: str
    cables: int  # links between the two, counted as the fabric counts them
    speed_gbps: int  # the fastest of them


def neighbours(fabric: Fabric, i: int, limit: int = NEIGHBOURS_SHOWN
               ) -> tuple[list[Neighbour], int]:
    """Device ``i``'s neighbours, in device order, at most ``limit`` of them, and how many
    there are in all."""
    links = fabric.links
    idx = np.flatnonzero((links.a == i) | (links.b == i))
    if not idx.size:
        return [], 0
    other = np.where(links.a[idx] == i, links.b[idx], links.a[idx])
    uniq, inv = np.unique(other, return_inverse=True)
    counts = np.bincount(inv, weights=links.count[idx]).astype(int)
    speeds = np.zeros(uniq.size, np.int64)
    np.maximum.at(speeds, inv, links.speed_gbps[idx])
    out = [Neighbour(fabric.devices[j].id, fabric.devices[j].name, c, s)
           for j, c, s in zip(uniq[:limit].tolist(), counts[:limit].tolist(),
                              speeds[:limit].tolist(), strict=True)]
    return out, int(uniq.size)
