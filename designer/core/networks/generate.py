"""Generate the extra networks from a project's back-end servers by their reference layouts.

- front-end (in-band, north-south): each server's front-end ports (two, on two leaves) into a
  leaf/spine of Ethernet switches at a stated oversubscription (default 2:1: user, in-band
  management and data-loading traffic is far below the compute fabric's; an assumption the
  user edits with ``oversubscription``);
- storage: the servers' storage ports and the storage nodes into a non-blocking leaf/spine;
  nodes = ceil(GPUs x read GB/s per GPU / a node's read GB/s) unless a count is given;
- out-of-band: one 48-port 1GbE management switch (or more when the ports need them) per rack
  or pair of racks for the servers' BMCs, more for the management ports of every switch and
  storage node, each with two 100G uplinks to a leaf/spine aggregation.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from designer.core.catalog import Catalog, ServerSpec, builtin_catalog
from designer.core.errors import CatalogError, GeneratorError
from designer.core.model import Project, Role
from designer.core.networks.gear import part, server_ports
from designer.core.networks.leafspine import Built, leaf_spine
from designer.core.networks.model import NetDevice, NetLinks, Network
from designer.core.networks.names import EXTRA_NETWORKS

# 8-GPU servers per rack: the DGX SuperPOD H100 reference architecture racks four DGX H100
# systems to a rack (its SU: 32 nodes in 8 racks); a rack-scale system is its own rack
SERVERS_PER_RACK = 4
# the read rate a GDS-enabled application should reach per DGX H100 node over the storage
# fabric (DGX SuperPOD H100 RA, storage fabric section: "over 40 GBps"), per GPU
REFERENCE_READ_GBYTES_S_PER_GPU = 40.0 / 8
DEFAULTS: dict[str, dict[str, Any]] = {
    "frontend": {"switch": "sn5600", "switch_gbps": 400, "oversubscription": 2.0,
                 "ports_per_server": None, "gbps": None},
    "storage": {"switch": "sn5600", "switch_gbps": 400, "oversubscription": 1.0,
                "ports_per_server": None, "gbps": None, "node": "storage-node-2x400",
                "storage_nodes": None, "read_gbytes_s_per_gpu": 1.0},
    "oob": {"switch": "sn2201", "servers_per_rack": None, "racks_per_switch": 1,
            "aggregation": "sn4600c", "uplinks": 2},
}
OPTIC, FIBRE, COPPER, UPLINK_OPTIC = "qsfp112-400g-sr4", "mmf-mpo12", "cat6a-rj45", \
    "qsfp28-100g-sr4"


def _servers(project: Project, cat: Catalog) -> list[tuple[str, ServerSpec]]:
    out = []
    for d in project.fabric.devices:
        if d.role is Role.GPU_SERVER:
            try:
                g = cat.get(d.model)
            except CatalogError:
                continue
            if isinstance(g, ServerSpec) and g.gpus:
                out.append((d.id, g))
    if not out:
        raise GeneratorError("the design has no GPU servers to build other networks for")
    return out


def _params(kind: str, given: dict[str, Any] | None) -> dict[str, Any]:
    p = dict(DEFAULTS[kind])
    for k, v in (given or {}).items():
        if k == RESOLVED:
            continue  # what a saved network resolved its automatic values to
        if k not in p:
            raise GeneratorError(f"{kind}: unknown parameter '{k}' (known: {', '.join(p)})")
        p[k] = v
    return p


# a saved network's parameters keep what was asked (None: automatic) and, under this key,
# what the automatic ones came to; generating again from the former follows a changed design
RESOLVED = "resolved"


def _network(kind: str, params: dict[str, Any], out: Built,
             asked: dict[str, Any] | None = None) -> Network:
    if asked is not None:
        params = {**asked, RESOLVED: {k: v for k, v in params.items() if asked.get(k) != v}}
    return Network(
        kind=kind, params=params,
        devices=tuple(NetDevice(id=i, model=m, tier=t, group=g) for i, m, t, g in out.devices),
        links=NetLinks(a=tuple(out.a), a_port=tuple(out.a_port), b=tuple(out.b),
                       b_port=tuple(out.b_port), gbps=tuple(out.gbps),
                       cable=tuple(out.cable), optic=tuple(out.optic)))


def _whole(value: Any, name: str, lo: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < lo or value > 1_000_000:
        raise GeneratorError(f"{name}: a whole number from {lo}, got {value!r}")
    return value


def _ratio(value: Any, name: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or not 1 <= value <= 64:
        raise GeneratorError(f"{name}: a number from 1 to 64, got {value!r}")
    return float(value)


def frontend(project: Project, cat: Catalog, given: dict[str, Any] | None = None) -> Network:
    p = _params("frontend", given)
    asked = dict(p)
    servers = _servers(project, cat)
    ports = server_ports(servers[0][1].id)
    p["ports_per_server"] = _whole(p["ports_per_server"] or ports.frontend_ports,
                                   "frontend.ports_per_server")
    p["gbps"] = _whole(p["gbps"] or ports.frontend_gbps, "frontend.gbps")
    sw = part(str(p["switch"]), cat, p["switch_gbps"])
    out = Built()
    leaf_spine(out, "fe", [s for s, _ in servers], p["ports_per_server"],
               [p["gbps"]] * len(servers), sw.id, sw.ports, sw.port_gbps,
               _ratio(p["oversubscription"], "frontend.oversubscription"), FIBRE, OPTIC,
               "front-end network")
    return _network("frontend", p, out, asked)


def storage(project: Project, cat: Catalog, given: dict[str, Any] | None = None) -> Network:
    p = _params("storage", given)
    asked = dict(p)
    servers = _servers(project, cat)
    ports = server_ports(servers[0][1].id)
    p["ports_per_server"] = _whole(p["ports_per_server"] or ports.storage_ports,
                                   "storage.ports_per_server")
    p["gbps"] = _whole(p["gbps"] or ports.storage_gbps, "storage.gbps")
    node = part(str(p["node"]), cat)
    if not node.read_gbytes_s:
        raise GeneratorError(f"storage.node: '{node.id}' is no storage node")
    gpus = sum(g.gpus for _, g in servers)
    per_gpu = p["read_gbytes_s_per_gpu"]
    if not isinstance(per_gpu, int | float) or isinstance(per_gpu, bool) or \
            not 0 < per_gpu <= 1000:
        raise GeneratorError(f"storage.read_gbytes_s_per_gpu: a number above 0 up to 1000, "
                             f"got {per_gpu!r}")
    if p["storage_nodes"] is None:
        p["storage_nodes"] = max(1, math.ceil(gpus * per_gpu / node.read_gbytes_s - 1e-9))
    nodes = _whole(p["storage_nodes"], "storage.storage_nodes")
    sw = part(str(p["switch"]), cat, p["switch_gbps"])
    out = Built()
    node_ids = [f"stor-node-{i + 1}" for i in range(nodes)]
    # nodes first on their own leaves (a node's ports land on different leaves like a
    # server's), then the servers
    ends = node_ids + [s for s, _ in servers]
    rates = [node.port_gbps] * nodes + [p["gbps"]] * len(servers)
    leaf_spine(out, "st", ends, p["ports_per_server"], rates, sw.id, sw.ports, sw.port_gbps,
               _ratio(p["oversubscription"], "storage.oversubscription"), FIBRE, OPTIC,
               "storage network")
    out.devices[:0] = [(n, node.id, "storage-node", 0) for n in node_ids]
    return _network("storage", p, out, asked)


def oob(project: Project, cat: Catalog, given: dict[str, Any] | None = None,
        others: dict[str, Network] | None = None) -> Network:
    """The management network; ``others`` are the extra networks whose switches and storage
    nodes it also reaches."""
    p = _params("oob", given)
    asked = dict(p)
    servers = _servers(project, cat)
    first = servers[0][1]
    per_rack = p["servers_per_rack"] or (first.domain_servers if first.rack_scale
                                         else SERVERS_PER_RACK)
    p["servers_per_rack"] = _whole(per_rack, "oob.servers_per_rack")
    racks_per = _whole(p["racks_per_switch"], "oob.racks_per_switch")
    if racks_per > 2:
        raise GeneratorError("oob.racks_per_switch: 1 (a switch per rack) or 2 (per pair)")
    uplinks = _whole(p["uplinks"], "oob.uplinks")
    sw = part(str(p["switch"]), cat)
    agg = part(str(p["aggregation"]), cat)
    if not sw.uplinks or uplinks > sw.uplinks:
        raise GeneratorError(f"oob.uplinks: '{sw.id}' has {sw.uplinks} uplink ports")
    bmc = server_ports(first.id).oob_ports or 1
    out = Built()
    access: list[str] = []

    def fill(group: int, ends: list[tuple[str, int]]) -> None:
        """Access switches for one rack group, their ports filled in order."""
        for k in range(math.ceil(len(ends) / sw.ports)):
            name = f"oob-{group + 1}-{k + 1}"
            out.devices.append((name, sw.id, "access", group))
            access.append(name)
            for port, (dev, dev_port) in enumerate(ends[k * sw.ports:(k + 1) * sw.ports]):
                out.link(dev, dev_port, name, port, sw.port_gbps, COPPER, "")

    per_group = p["servers_per_rack"] * racks_per
    for g in range(math.ceil(len(servers) / per_group)):
        fill(g, [(s, j) for s, _ in servers[g * per_group:(g + 1) * per_group]
                 for j in range(bmc)])
    # every switch's and storage node's management port, in network racks after the servers
    managed = [d.id for d in project.fabric.devices if d.role is not Role.GPU_SERVER]
    for net in (others or {}).values():
        managed += [d.id for d in net.devices]
    groups = math.ceil(len(servers) / per_group)
    for k in range(math.ceil(len(managed) / sw.ports)):
        fill(groups + k, [(m, 0) for m in managed[k * sw.ports:(k + 1) * sw.ports]])
    leaf_spine(out, "oob-agg", access, uplinks, [sw.uplink_gbps] * len(access), agg.id,
               agg.ports, agg.port_gbps, 1.0, FIBRE, UPLINK_OPTIC,
               "out-of-band aggregation", first_endpoint_port=sw.ports)
    return _network("oob", p, out, asked)


def with_networks(project: Project, names: tuple[str, ...] | list[str],
                  catalog: Catalog | None = None,
                  params: dict[str, dict[str, Any]] | None = None) -> Project:
    """``project`` with the extra networks ``names`` generated (others it had are kept unless
    named again); ``params`` per network override the defaults."""
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    params = params or {}
    for n in list(names) + list(params):
        if n not in EXTRA_NETWORKS:
            raise GeneratorError(f"unknown network '{n}' (known: {', '.join(EXTRA_NETWORKS)})")
    nets = dict(project.networks or {})
    if "frontend" in names:
        nets["frontend"] = frontend(project, cat, params.get("frontend"))
    if "storage" in names:
        nets["storage"] = storage(project, cat, params.get("storage"))
    if "oob" in names:
        others = {k: v for k, v in nets.items() if k != "oob"}
        nets["oob"] = oob(project, cat, params.get("oob"), others)
    ordered = {k: nets[k] for k in EXTRA_NETWORKS if k in nets}
    return project.evolve(networks=ordered or None)


def regenerate_networks(project: Project, networks: dict[str, Network],
                        catalog: Catalog | None = None) -> Project:
    """``project`` (a design generated again) with ``networks`` generated again from its
    servers by the parameters they were asked with."""
    params = {k: {p: v for p, v in n.params.items() if p != RESOLVED}
              for k, n in networks.items()}
    return with_networks(project.model_copy(update={"networks": None}), tuple(networks),
                         catalog, params)


def gpu_count(project: Project, cat: Catalog) -> tuple[int, Counter]:
    """GPUs of the back-end's servers, and servers per model."""
    servers = _servers(project, cat)
    return sum(g.gpus for _, g in servers), Counter(g.id for _, g in servers)
