"""Moving a device to another rack or U: the one edit of the floor plan (the window's drag).

Refused with ``PlacementError`` (nothing changes) when the rack does not exist, the device
would reach past the top, or the U are taken; a rack pushed over its power limit is allowed
and reported as a problem, as a planner may mean to fix it by moving something else.
"""

from __future__ import annotations

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.physical.errors import NoFloorPlan, PlacementError
from designer.core.physical.floor import FloorPlan, Slot
from designer.core.physical.placement import model_size


def occupied(floor: FloorPlan, project: Project, catalog: Catalog, rack: str,
             skip: str | None = None) -> np.ndarray:
    """U taken in ``rack`` (bool per U, index 0 = U1), without device ``skip``."""
    r = next((x for _, _, x in floor.racks() if x.name == rack), None)
    if r is None:
        raise PlacementError(f"there is no rack '{rack}' in the floor plan")
    taken = np.zeros(floor.rack_u(r), bool)
    fabric = project.fabric
    # the other networks' devices stand in racks too (a management switch at the top)
    others = {d.id: d.model for net in (project.networks or {}).values() for d in net.devices}
    sizes: dict = {}
    for dev, s in floor.placement.items():
        if s.rack != rack or dev == skip:
            continue
        if dev in fabric.index:
            ru, _ = model_size(catalog, fabric.devices[fabric.index[dev]].model)
        elif dev in others:
            from designer.core.physical.network_racks import net_size

            ru = net_size(others[dev], catalog, sizes).ru
        else:
            continue
        taken[s.u - 1: s.u - 1 + ru] = True
    return taken

def move_device(project: Project, catalog: Catalog, device_id: str, rack: str,
                u: int | None = None) -> Project:
    """``project`` with ``device_id`` in ``rack`` at lowest U ``u`` (None: the highest free
    place below the reserved U, as switches are mounted; else the lowest free place)."""
    phys = project.physical
    if phys is None or phys.floor is None:
        raise NoFloorPlan("the project has no floor plan to move devices in")
    floor = phys.floor
    if device_id not in project.fabric.index:
        raise PlacementError(f"there is no device '{device_id}'")
    i = project.fabric.index[device_id]
    ru, _ = model_size(catalog, project.fabric.devices[i].model)
    taken = occupied(floor, project, catalog, rack, skip=device_id)
    height = taken.size
    name = project.fabric.devices[i].name
    if u is None:
        usable = height - floor.geometry.reserved_u  # keep the management switch's U free
        free = [s for s in range(1, usable - ru + 2) if not taken[s - 1: s - 1 + ru].any()]
        if not free:
            raise PlacementError(f"rack {rack} has no {ru}U free for {name}")
        u = free[-1] if project.fabric.devices[i].role.is_switch else free[0]
    if u < 1 or u + ru - 1 > height:
        raise PlacementError(f"{name} ({ru}U) does not fit at U{u} of the {height}U rack {rack}")
    if taken[u - 1: u - 1 + ru].any():
        raise PlacementError(f"U{u}-U{u + ru - 1} of rack {rack} are taken")
    new = floor.moved(device_id, Slot(rack=rack, u=u))
    # the fabric is unchanged and the plan checked: no need to validate the whole project
    return project.model_copy(update={"physical": phys.model_copy(update={"floor": new})})
