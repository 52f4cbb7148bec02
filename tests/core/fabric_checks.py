"""Invariant checks shared by the generator tests (each one can fail on a wrong fabric)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project, Role
from designer.core.ports import port_counts


def layer_of(project: Project) -> np.ndarray:
    """The layer name of every bundle, from the roles (and groups) of its two ends."""
    f = project.fabric
    roles = f.roles
    out = []
    for a, b in zip(f.links.a.tolist(), f.links.b.tolist(), strict=True):
        ra, rb = sorted((roles[a], roles[b]))
        pair = {ra, rb}
        if pair <= {"gpu-server", "appliance", "leaf"}:
            out.append("endpoint-leaf")
        elif pair == {"leaf", "spine"}:
            out.append("leaf-spine")
        elif pair == {"spine", "core"}:
            out.append("spine-core")
        elif "router" in pair and pair & {"gpu-server", "appliance"}:
            out.append("endpoint-router")
        elif pair == {"router"}:
            same = f.devices[a].groups.get("group") == f.devices[b].groups.get("group")
            out.append("local" if same else "global")
        else:
            out.append("other")
    return np.array(out)


def links_by_layer(project: Project) -> dict[str, int]:
    layers = layer_of(project)
    counts = project.fabric.links.count
    return {k: int(counts[layers == k].sum()) for k in np.unique(layers)}


def switches_by_role(project: Project) -> dict[str, int]:
    return dict(Counter(d.role.value for d in project.fabric.devices if d.role.is_switch))


def assert_wiring_invariants(project: Project, catalog: Catalog) -> None:
    f = project.fabric
    cat = project.catalog(catalog)
    dev, port = f.links.port_ends()
    # every port used at most once
    keys = dev * 10_000_000 + port
    assert np.unique(keys).size == keys.size, "a port is used twice"
    # no device uses a port it does not have
    counts = port_counts(f, cat)
    assert (port >= 1).all()
    assert (port <= counts[dev]).all(), "a link lands on a port the device does not have"
    # cables = used ports / 2
    assert f.links.n_cables * 2 == dev.size
    # every server GPU port is connected exactly once (each GPU reaches every plane)
    used = np.bincount(dev, minlength=len(f.devices))
    for i, d in enumerate(f.devices):
        if d.role == Role.GPU_SERVER:
            assert used[i] == counts[i], f"{d.id} has {counts[i] - used[i]} unconnected ports"
