"""Adding a rack-scale system to a design by hand: all its trays at once, in a rack of their
own (a fresh ``domain`` label), stacked where it is dropped."""

from __future__ import annotations

from designer.core.catalog import Catalog, ServerSpec
from designer.core.editing import new_device
from designer.core.errors import FabricError
from designer.core.model import Project, Role
from designer.core.scaleup.domains import DOMAIN_KEY

TRAY_DY = 22.0  # between trays on the canvas, as the generators stack them


def is_rack_scale(catalog: Catalog, gear_id: str) -> bool:
    spec = catalog.get(gear_id) if gear_id in catalog else None
    return isinstance(spec, ServerSpec) and spec.domain_servers > 1


def next_domain(project: Project) -> int:
    """A ``domain`` label no device of the design carries."""
    used = [d.groups.get(DOMAIN_KEY, 0) for d in project.fabric.devices]
    return max(used, default=0) + 1


def add_system(project: Project, catalog: Catalog, gear_id: str, x: float,
               y: float) -> tuple[Project, tuple[str, ...]]:
    """``project`` with a whole rack of ``gear_id`` (18 trays of an NVL72) at (x, y); the new
    tray ids, top to bottom."""
    spec = catalog.server(gear_id, "palette")
    if spec.domain_servers < 2:
        raise FabricError(f"'{gear_id}' is not a rack-scale system")
    label = next_domain(project)
    taken = set(project.fabric.index)
    devices = []
    for k in range(spec.domain_servers):
        dev = new_device(project, catalog, gear_id, x, y + k * TRAY_DY, Role.GPU_SERVER,
                         taken=taken)
        tray_id = f"rack{label}-tray{k + 1:02d}"
        if tray_id in taken:
            tray_id = dev.id
        dev = dev.model_copy(update={"id": tray_id, "name": tray_id,
                                     "groups": {DOMAIN_KEY: label}})
        taken.add(dev.id)
        devices.append(dev)
    return project.with_fabric(project.fabric.add(tuple(devices))), tuple(d.id for d in devices)
