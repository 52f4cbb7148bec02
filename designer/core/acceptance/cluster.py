"""The built cluster as the acceptance tests see it: nodes, their rails and the leaf each rail
lands on, and the switch hops between two leaves. Read from the design's devices and links
with numpy (one pass over the server cables)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from designer.core.catalog import Catalog
from designer.core.model import Project, Role
from designer.core.ports import port_layout

HOP_CHUNK = 64
# A host name holds letters, digits, '.' and '-' (RFC 1123; no '_', which also separates the
# parts of the perftest result names the scripts write)
_HOST_BAD = re.compile(r"[^A-Za-z0-9.-]+")


@dataclass(frozen=True)
class Cluster:
    nodes: tuple[str, ...]  # host names of the GPU servers, in design order
    node_device: np.ndarray  # device index of each node
    gpus_per_node: int
    rails: int  # NIC ports per node
    ports_per_gpu: int
    port_gbps: int
    tech: str  # "ib" or "eth"
    leaf_of: np.ndarray  # (nodes, rails) device index of the switch on each rail, -1 none
    switch_names: tuple[str, ...]  # by device index ("" for non-switches)

    def hca(self, rail: int) -> str:
        """The HCA name of ``rail`` (0-based), as the as-built import names NIC ports."""
        return f"mlx5_{rail}"

    def hcas(self) -> str:
        return ",".join(self.hca(r) for r in range(self.rails))


def host_name(name: str) -> str:
    """A device name as a host name a hostfile takes (spaces and symbols become '-')."""
    return _HOST_BAD.sub("-", name).strip("-.") or "node"


def host_names(devices) -> tuple[str, ...]:
    """Each device's host name, unique case-insensitively: a name another device already
    took ('gpu 1' after 'gpu-1') gets a short hash of its id, as names.py does for exports,
    so no server is listed twice and none goes untested."""
    taken: set[str] = set()
    out = []
    for d in devices:
        name = host_name(d.name)
        if name.lower() in taken:
            digits = 6
            while True:
                tag = hashlib.sha1(d.id.encode("utf-8", "surrogatepass")).hexdigest()[:digits]
                cand = f"{name[:56]}-{tag}"
                if cand.lower() not in taken or digits >= 40:
                    break
                digits += 2
            name = cand if cand.lower() not in taken else f"{name[:50]}-{len(out)}"
        taken.add(name.lower())
        out.append(name)
    return tuple(out)


def cluster_of(project: Project, catalog: Catalog) -> Cluster:
    fabric = project.fabric
    devs = fabric.devices
    servers = [i for i, d in enumerate(devs) if d.role is Role.GPU_SERVER
               and catalog.server(d.model).gpus > 0]
    if not servers:
        from designer.core.analysis.workload import WorkloadError

        raise WorkloadError("design: it has no GPU servers to test")
    layouts = {}
    for i in servers:
        d = devs[i]
        key = (d.model, d.nic, d.nics, d.port_speed_gbps)
        if key not in layouts:
            layouts[key] = port_layout(d, catalog)
    common = Counter((devs[i].model, devs[i].nic, devs[i].nics, devs[i].port_speed_gbps)
                     for i in servers).most_common(1)[0][0]
    lay = layouts[common]
    gpus = catalog.server(devs[servers[0]].model).gpus
    rails = lay.count
    node_dev = np.asarray(servers, np.int64)
    row = np.full(len(devs), -1, np.int64)
    row[node_dev] = np.arange(node_dev.size)
    leaf_of = np.full((node_dev.size, rails), -1, np.int64)
    links = fabric.links
    if len(links):
        count = links.count.astype(np.int64)
        rep = np.repeat(np.arange(len(links)), count)
        k = np.arange(rep.size) - np.repeat(np.cumsum(count) - count, count)
        a, b = links.a[rep].astype(np.int64), links.b[rep].astype(np.int64)
        ap, bp = links.a_port[rep] + k, links.b_port[rep] + k
        for me, mp, other in ((a, ap, b), (b, bp, a)):
            r = row[me]
            ok = (r >= 0) & (mp >= 1) & (mp <= rails)
            leaf_of[r[ok], mp[ok] - 1] = other[ok]
    try:
        tech = "ib" if catalog.profile(project.profile).tech.startswith("ib") else "eth"
    except Exception:  # a profile the catalog lacks: the ports' technology decides
        tech = "ib" if any(t.startswith("ib") for t in lay.techs) else "eth"
    names = tuple(d.name if d.role.is_switch else "" for d in devs)
    return Cluster(
        nodes=host_names([devs[i] for i in servers]), node_device=node_dev,
        gpus_per_node=gpus, rails=rails, ports_per_gpu=max(1, lay.per_gpu or rails // max(gpus, 1)),
        port_gbps=lay.speed_gbps, tech=tech, leaf_of=leaf_of, switch_names=names)


def switch_hops(project: Project, pairs: list[tuple[int, int]]) -> list[int]:
    """Switches a packet crosses from leaf a to leaf b (1 on the same leaf), for each pair."""
    devs = project.fabric.devices
    sw = np.array([d.role.is_switch for d in devs], bool)
    links = project.fabric.links
    isl = sw[links.a] & sw[links.b]
    n = len(devs)
    m = coo_matrix((np.ones(int(isl.sum())), (links.a[isl], links.b[isl])), shape=(n, n)).tocsr()
    sources = sorted({a for a, _ in pairs})
    targets: dict[int, list[int]] = {}
    for i, (a, _b) in enumerate(pairs):
        targets.setdefault(a, []).append(i)
    out = [-1] * len(pairs)
    # breadth-first from a few sources at a time: a distance row per source, not a matrix
    # of every leaf against every device
    for lo in range(0, len(sources), HOP_CHUNK):
        chunk = sources[lo:lo + HOP_CHUNK]
        dist = np.atleast_2d(shortest_path(m, directed=False, unweighted=True, indices=chunk))
        for row, a in enumerate(chunk):
            for i in targets[a]:
                d = dist[row, pairs[i][1]]
                out[i] = int(d) + 1 if np.isfinite(d) else -1
    return out
