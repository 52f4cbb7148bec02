"""Which layer of the fabric each link bundle belongs to, from the roles at its two ends.

Names match the analysis settings' default lengths: endpoint-leaf, leaf-spine, spine-core,
endpoint-router, local and global (dragonfly routers in the same or another group), other.
"""

from __future__ import annotations

import numpy as np

from designer.core.model import Fabric, Role

_CODE = {
    Role.GPU_SERVER.value: 0,
    Role.APPLIANCE.value: 0,
    Role.LEAF.value: 1,
    Role.SPINE.value: 2,
    Role.CORE.value: 3,
    Role.ROUTER.value: 4,
}
_PAIR = {
    (0, 1): "endpoint-leaf",
    (1, 2): "leaf-spine",
    (2, 3): "spine-core",
    (0, 4): "endpoint-router",
}


def link_layers(fabric: Fabric) -> np.ndarray:
    """Layer name of every bundle (object array), vectorised over the link table."""
    links = fabric.links
    if not len(links):
        return np.empty(0, dtype=object)
    code = np.array([_CODE.get(d.role.value, 5) for d in fabric.devices], dtype=np.int8)
    lo = np.minimum(code[links.a], code[links.b])
    hi = np.maximum(code[links.a], code[links.b])
    out = np.full(len(links), "other", dtype=object)
    for (x, y), name in _PAIR.items():
        out[(lo == x) & (hi == y)] = name
    routers = (lo == 4) & (hi == 4)
    if routers.any():
        group = np.array([d.groups.get("group", -1) for d in fabric.devices], dtype=np.int64)
        same = group[links.a] == group[links.b]
        out[routers & same] = "local"
        out[routers & ~same] = "global"
    return out
