"""The design as an InfraGraph Infrastructure (JSON), streamed.

One InfraGraph device per kind of gear in the design: a GPU server is its GPUs (``xpu``), a
scale-up switch joining them (the NVLink domain), its NICs and, when a NIC has several ports,
the ports; a switch is its ASIC and its ports. One instance per role and kind (``leaf``,
``spine``, ``gpu_server`` ...), its devices indexed in the design's order. A link kind per
layer and speed (``gpu_server-leaf_400g``) carries the bandwidth. Every link bundle of the
design (``count`` cables on consecutive ports) is one ``one2one`` edge between port slices,
so the file grows with the design's bundles, not its cables, and is written as it is made:
a 65,536-GPU fat-tree streams in about a second and never holds the whole text.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from designer.core.analysis.gpus import gpu_spec
from designer.core.catalog import Catalog, ServerSpec
from designer.core.infragraph.schema import (
    ASIC,
    NIC,
    PORT,
    SCALE_UP,
    SCHEMA_VERSION,
    XPU,
    safe_name,
    span,
)
from designer.core.model import TIER_OF_ROLE, Project, Role
from designer.core.ports import nic_mode_of, port_layout
from designer.core.writers.stream import write_chunks

EDGE_CHUNK = 4096


@dataclass(frozen=True)
class _Kind:
    """One InfraGraph device: its definition and the component links attach to."""

    name: str
    definition: dict
    endpoint: str  # component name cables attach to
    per_endpoint: int  # design ports per endpoint component (1)
    gpus: int


@dataclass(frozen=True)
class InfraGraphSummary:
    devices: int
    instances: int
    edges: int
    cables: int
    chars: int


def _server_kind(name: str, spec: ServerSpec, nic_name: str, nics: int, ports: int,
                 speed: int) -> _Kind:
    comps: list[dict] = []
    links: list[dict] = [{"name": "pcie", "description": "host PCI Express"}]
    edges: list[dict] = []
    g = spec.gpus
    if g:
        comps.append({"name": XPU, "description": spec.gpu_model or "GPU", "count": g,
                      "choice": "xpu"})
    if g > 1:
        nvl = gpu_spec(spec.gpu_model).nvlink_gbytes_s
        comps.append({"name": SCALE_UP, "description": f"scale-up switch of the {g}-GPU "
                      "NVLink domain", "count": 1, "choice": "switch"})
        links.append({"name": "scale_up", "description": "NVLink, per GPU and direction",
                      "physical": {"bandwidth": {"choice": "gigabytes_per_second",
                                                 "gigabytes_per_second": nvl}}})
        edges.append({"ep1": {"component": XPU}, "ep2": {"component": SCALE_UP},
                      "link": "scale_up", "scheme": "many2many"})
    comps.append({"name": NIC, "description": nic_name, "count": nics, "choice": "nic"})
    per_nic = ports // nics if nics and ports % nics == 0 else 1
    if g and nics % g == 0:
        k = nics // g
        for i in range(g):
            edges.append({"ep1": {"component": f"{XPU}[{i}]"},
                          "ep2": {"component": span(NIC, i * k, k)},
                          "link": "pcie", "scheme": "many2many"})
    elif g:
        edges.append({"ep1": {"component": XPU}, "ep2": {"component": NIC},
                      "link": "pcie", "scheme": "many2many"})
    endpoint = NIC
    if per_nic > 1:
        comps.append({"name": PORT, "description": f"{speed}G port", "count": ports,
                      "choice": "port"})
        links.append({"name": "nic_port", "description": "NIC to its ports"})
        for j in range(nics):
            edges.append({"ep1": {"component": f"{NIC}[{j}]"},
                          "ep2": {"component": span(PORT, j * per_nic, per_nic)},
                          "link": "nic_port", "scheme": "many2many"})
        endpoint = PORT
    definition = {"name": name, "description": spec.name, "components": comps,
                  "links": links, "edges": edges}
    return _Kind(name, definition, endpoint, 1, g)


def _switch_kind(name: str, title: str, ports: int, speed: int) -> _Kind:
    definition = {
        "name": name, "description": title,
        "components": [{"name": ASIC, "description": "switch ASIC", "count": 1,
                        "choice": "switch"},
                       {"name": PORT, "description": f"{speed}G port", "count": ports,
                        "choice": "port"}],
        "links": [{"name": "switch_fabric", "description": "ASIC to its ports"}],
        "edges": [{"ep1": {"component": ASIC}, "ep2": {"component": PORT},
                   "link": "switch_fabric", "scheme": "many2many"}],
    }
    return _Kind(name, definition, PORT, 1, 0)


def _kinds(project: Project, catalog: Catalog) -> tuple[list[_Kind], np.ndarray]:
    """The InfraGraph device of every design device (an index into the returned list)."""
    kinds: list[_Kind] = []
    by_key: dict[tuple, int] = {}
    names: set[str] = set()
    out = np.empty(len(project.fabric.devices), np.int64)
    for i, d in enumerate(project.fabric.devices):
        key = (d.model, d.port_speed_gbps, d.nic, d.nics, d.role.is_switch)
        k = by_key.get(key)
        if k is None:
            lay = port_layout(d, catalog)
            base = safe_name(d.model, "device")
            name = base
            n = 2
            while name in names:  # the same model in another port mode
                name, n = f"{base}_{lay.count}p" if n == 2 else f"{base}_{n}", n + 1
            names.add(name)
            if d.role.is_switch:
                kind = _switch_kind(name, catalog.get(d.model).name, lay.count, lay.speed_gbps)
            else:
                spec = catalog.server(d.model)
                nic_id, nics, _mode = nic_mode_of(d, catalog)
                kind = _server_kind(name, spec, catalog.nic(nic_id).name, nics, lay.count,
                                    lay.speed_gbps)
            k = by_key[key] = len(kinds)
            kinds.append(kind)
        out[i] = k
    return kinds, out


def _role_name(role: Role) -> str:
    return role.value.replace("-", "_")


def infragraph_chunks(project: Project, catalog: Catalog,
                      counts: dict[str, int] | None = None) -> Iterator[str]:
    """The Infrastructure as JSON text chunks; ``counts`` (when given) is filled with the
    numbers of device kinds, instances, edges and cables."""
    fabric = project.fabric
    kinds, kind_of = _kinds(project, catalog)
    roles = [d.role for d in fabric.devices]
    # instances: one per (role, kind), devices indexed in design order
    inst_key: dict[tuple[Role, int], int] = {}
    inst_names: list[str] = []
    inst_count: list[int] = []
    inst_kind: list[int] = []
    inst_of = np.empty(len(roles), np.int64)
    index_of = np.empty(len(roles), np.int64)
    roles_kinds: dict[Role, set[int]] = {}
    for i, r in enumerate(roles):
        roles_kinds.setdefault(r, set()).add(int(kind_of[i]))
    for i, r in enumerate(roles):
        key = (r, int(kind_of[i]))
        j = inst_key.get(key)
        if j is None:
            name = _role_name(r)
            if len(roles_kinds[r]) > 1:
                name = f"{name}_{kinds[key[1]].name}"
            j = inst_key[key] = len(inst_names)
            inst_names.append(name)
            inst_count.append(0)
            inst_kind.append(key[1])
        inst_of[i] = j
        index_of[i] = inst_count[j]
        inst_count[j] += 1

    links = fabric.links
    tier = np.array([TIER_OF_ROLE.get(r, 0) for r in roles], np.int64)
    role_code = np.array([list(Role).index(r) for r in roles], np.int64)
    lo_first = tier[links.a] <= tier[links.b] if len(links) else np.zeros(0, bool)
    ra = np.where(lo_first, role_code[links.a], role_code[links.b])
    rb = np.where(lo_first, role_code[links.b], role_code[links.a])
    speed = links.speed_gbps.astype(np.int64)
    key = (ra * 16 + rb) * 10_000 + speed
    uniq, link_of = np.unique(key, return_inverse=True)
    all_roles = list(Role)
    link_names = []
    link_defs = []
    for k in uniq.tolist():
        pair, s = divmod(k, 10_000)
        a_role, b_role = all_roles[pair // 16], all_roles[pair % 16]
        name = safe_name(f"{a_role.value}-{b_role.value}_{s}g")
        link_names.append(name)
        link_defs.append({"name": name, "description": f"{a_role.label} to "
                          f"{b_role.label.lower()}, {s} Gb/s",
                          "physical": {"bandwidth": {"choice": "gigabits_per_second",
                                                     "gigabits_per_second": s}}})

    used_kinds = sorted(set(inst_kind))
    gpus = sum(kinds[k].gpus * c for k, c in zip(inst_kind, inst_count, strict=True))
    head = {
        "name": safe_name(project.name, "fabric"),
        # the reader takes the gear profile back from here (InfraGraph has no technology)
        "description": f"{project.name}: {gpus:,} GPUs, gear profile {project.profile}; "
        f"InfraGraph schema {SCHEMA_VERSION}",
    }
    yield "{\n"
    yield f'  "name": {json.dumps(head["name"])},\n'
    yield f'  "description": {json.dumps(head["description"])},\n'
    yield '  "devices": ' + json.dumps([kinds[k].definition for k in used_kinds]) + ",\n"
    yield '  "links": ' + json.dumps(link_defs) + ",\n"
    instances = [{"name": inst_names[j], "device": kinds[inst_kind[j]].name,
                  "count": inst_count[j]} for j in range(len(inst_names))]
    yield '  "instances": ' + json.dumps(instances) + ",\n"
    yield '  "edges": ['
    inst_label = np.array(inst_names, dtype=object)
    endpoint = np.array([kinds[k].endpoint for k in range(len(kinds))], dtype=object)
    n = len(links)
    first = True
    for lo in range(0, n, EDGE_CHUNK):
        hi = min(n, lo + EDGE_CHUNK)
        a = links.a[lo:hi]
        b = links.b[lo:hi]
        parts = []
        for ia, xa, ca, pa, ib, xb, cb, pb, c, ln in zip(
            inst_label[inst_of[a]].tolist(), index_of[a].tolist(),
            endpoint[kind_of[a]].tolist(), (links.a_port[lo:hi] - 1).tolist(),
            inst_label[inst_of[b]].tolist(), index_of[b].tolist(),
            endpoint[kind_of[b]].tolist(), (links.b_port[lo:hi] - 1).tolist(),
            links.count[lo:hi].tolist(), link_of[lo:hi].tolist(), strict=True,
        ):
            parts.append(
                f'{"" if first else ","}\n    {{"ep1": {{"instance": "{ia}[{xa}]", '
                f'"component": "{span(ca, pa, c)}"}}, "ep2": {{"instance": "{ib}[{xb}]", '
                f'"component": "{span(cb, pb, c)}"}}, "link": "{link_names[ln]}", '
                f'"scheme": "one2one"}}'
            )
            first = False
        yield "".join(parts)
    yield "\n  ]\n}\n"
    if counts is not None:
        counts.update(devices=len(used_kinds), instances=len(inst_names), edges=n,
                      cables=int(links.count.sum()) if n else 0)


def write_infragraph(project: Project, catalog: Catalog,
                     path: str | os.PathLike[str]) -> InfraGraphSummary:
    """Write the Infrastructure to ``path`` (streamed, atomic)."""
    counts: dict[str, int] = {}
    chars = write_chunks(path, infragraph_chunks(project, catalog, counts))
    return InfraGraphSummary(counts["devices"], counts["instances"], counts["edges"],
                             counts["cables"], chars)
