"""The design as NetBox bulk-import CSV tables: the DCIM where operations keep the build.

One table per object type, with the column names of NetBox's import forms (sites,
manufacturers, device roles, device types, racks, devices with rack and position,
interfaces, cables). Objects refer to each other by name, as those forms do, so the files
must be imported in ``IMPORT_ORDER``. Only cabled ports become interfaces (the device types
carry no interface templates). Devices off the floor are imported without rack or position.
The other networks' devices, interfaces and cables follow the back-end's
(``netbox_networks``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.links import MEDIA
from designer.core.model import ROLE_COLORS, ROLE_LABELS, Project
from designer.core.physical.floor import FloorPlan
from designer.core.physical.placement import device_sizes
from designer.core.ports import per_cage_of, port_labels
from designer.core.writers.cabling import unique_names

# Import order: every table refers only to tables before it.
IMPORT_ORDER: tuple[str, ...] = (
    "sites", "manufacturers", "device_roles", "device_types", "racks", "devices",
    "interfaces", "cables",
)
HEADERS: dict[str, tuple[str, ...]] = {
    "sites": ("name", "slug", "status", "description"),
    "manufacturers": ("name", "slug"),
    "device_roles": ("name", "slug", "color"),
    "device_types": ("manufacturer", "model", "slug", "u_height", "is_full_depth", "comments"),
    "racks": ("site", "name", "status", "width", "u_height", "description"),
    "devices": ("name", "role", "manufacturer", "device_type", "status", "site", "rack",
                "position", "face"),
    "interfaces": ("device", "name", "type", "speed", "description"),
    "cables": ("side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type",
               "side_b_name", "type", "status", "label", "length", "length_unit"),
}
# NetBox CableTypeChoices per medium class
CABLE_TYPE = {"dac": "dac-passive", "acc": "dac-active", "mmf": "mmf", "smf": "smf",
              "auto": ""}


def slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:100] or "x"


def interface_type(tech: str, speed_gbps: int) -> str:
    """NetBox InterfaceTypeChoices for a port of this technology and speed."""
    if tech.startswith("ib-"):
        return f"infiniband-{tech[3:]}"
    return {100: "100gbase-x-qsfp28", 200: "200gbase-x-qsfp56", 400: "400gbase-x-osfp",
            800: "800gbase-x-osfp", 1600: "1.6tbase-x-osfp"}.get(speed_gbps, "other")


@dataclass(frozen=True)
class NetboxTables:
    tables: dict[str, list[tuple]]

    def header(self, name: str) -> tuple[str, ...]:
        return HEADERS[name]


def netbox_tables(project: Project, catalog: Catalog, media=None,
                  site: str | None = None) -> NetboxTables:
    """Every table of ``IMPORT_ORDER`` as rows. ``media``: the solver's choice when known."""
    from designer.core.solver.compile import TECHS, compile_project
    from designer.core.solver.media import choose_media

    fabric = project.fabric
    site = site or project.name
    phys = project.physical
    floor: FloorPlan | None = phys.floor if phys is not None else None
    names = unique_names(project)
    sizes = device_sizes(fabric, catalog)
    t: dict[str, list[tuple]] = {k: [] for k in IMPORT_ORDER}
    t["sites"].append((site, slug(site), "planned", "Fabric Designer export"))

    def vendor(model: str) -> str:
        g = catalog.get(model) if model in catalog else None
        return (getattr(g, "vendor", "") or "Generic") if g is not None else "Generic"

    def model_name(model: str) -> str:
        return catalog.get(model).name if model in catalog else model

    models = sorted({d.model for d in fabric.devices})
    ru_of = {d.model: int(sizes.ru[i]) for i, d in enumerate(fabric.devices)}
    for m in sorted({vendor(m) for m in models}):
        t["manufacturers"].append((m, slug(m)))
    for role in sorted({d.role for d in fabric.devices}, key=lambda r: r.value):
        t["device_roles"].append((ROLE_LABELS[role], slug(role.value),
                                  ROLE_COLORS[role.value][1].lstrip("#").lower()))
    for m in models:
        t["device_types"].append((vendor(m), model_name(m), slug(m), ru_of[m], "true",
                                  f"catalog id {m}"))
    if floor is not None:
        for _, _, r in floor.racks():
            t["racks"].append((site, r.name, "planned", 19, floor.rack_u(r),
                               f"{r.kind} rack"))
    for i, d in enumerate(fabric.devices):
        s = floor.placement.get(d.id) if floor is not None else None
        t["devices"].append((names[i], ROLE_LABELS[d.role], vendor(d.model),
                             model_name(d.model), "planned", site,
                             s.rack if s else "", s.u if s else "", "front" if s else ""))
    # interfaces and cables, numpy over the cables
    cat = catalog
    c = compile_project(project, cat)
    m = media if media is not None else choose_media(project, cat, c)
    e = fabric.links.expand()
    a, b = e["a"].astype(np.int64), e["b"].astype(np.int64)
    per_cage = per_cage_of(fabric, cat)
    a_port = port_labels(e["a_port"], per_cage[a])
    b_port = port_labels(e["b_port"], per_cage[b])
    speed = e["speed_gbps"].astype(np.int64)
    tech = np.array(TECHS, dtype=object)[c.cable_tech.astype(np.int64)]
    types = {(x, s): interface_type(x, s) for x, s in set(zip(tech.tolist(), speed.tolist(),
                                                                strict=True))}
    itype = np.array([types[(x, s)] for x, s in zip(tech.tolist(), speed.tolist(),
                                                      strict=True)], dtype=object)
    dev = np.r_[a, b]
    port = np.r_[a_port, b_port]
    order = np.lexsort((np.r_[e["a_port"], e["b_port"]], dev))
    kbps = np.r_[speed, speed] * 1_000_000  # NetBox interface speed is in kb/s
    it = np.r_[itype, itype]
    n_if = order.size
    t["interfaces"] = list(zip(names[dev[order]].tolist(), port[order].tolist(),
                               it[order].tolist(), kbps[order].tolist(), [""] * n_if,
                               strict=True))
    cab_type = np.array([CABLE_TYPE[x] for x in MEDIA], dtype=object)[
        m.medium_class.astype(np.int64)]
    width = max(len(str(a.size)), 5)
    length = np.round(m.length_m.astype(np.float64), 2)
    n = a.size
    t["cables"] = list(zip(
        names[a].tolist(), ["dcim.interface"] * n, a_port.tolist(), names[b].tolist(),
        ["dcim.interface"] * n, b_port.tolist(), cab_type.tolist(), ["planned"] * n,
        [f"C{j:0{width}d}" for j in range(1, n + 1)], length.tolist(), ["m"] * n,
        strict=True))
    if project.networks:  # front-end, storage, out-of-band: after the back-end's rows
        from designer.core.physical.netbox_networks import add_networks

        add_networks(t, project, catalog, floor, site, slug)
    return NetboxTables(t)
