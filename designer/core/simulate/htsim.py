"""htsim input files: the fat-tree topology (``-topo``) and connection matrices (``-tm``).

htsim's main programs (``htsim_roce``, ``htsim_eqds``, ``htsim_uec`` ... in the csg-htsim and
UEC htsim repositories) build a fat tree from a small text file: ``Nodes``, ``Tiers``,
``Podsize``, then per ``Tier`` its downlink speed, down and up radix, bundle, oversubscription
and link and switch latency (``FatTreeTopology::load``). That is what this writes from the
design's tiers; htsim's hosts are the design's GPU NIC ports, numbered leaf by leaf as the
fat tree numbers them. Its generic topology loader (queues and pipes by name) reads lines of
at most 255 characters, which a 64-port switch's list of queues does not fit, and no main
program uses it, so it is not written.

A connection matrix lists ``Nodes``, ``Connections`` and one ``src->dst start T size B`` line
per flow (``ConnectionMatrix::load``). Patterns: ``ring`` (each rail's ring across the nodes,
one flow per ring edge carrying that edge's share of a ring all-reduce, 2(N-1)/N of the
rail's 1/k of the buffer), ``alltoall`` (every GPU to every GPU in other nodes, buffer / n
each), ``incast`` (one GPU of every other node into node 0's first GPU) and ``permutation``
(the tool's own permutation, each GPU sending the buffer to one GPU of another node).
``htsim_export`` writes the folder htsim runs; ``htsim_fit`` holds what htsim accepts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.simulate.htsim_fit import MAX_FLOW_BYTES, split_sizes
from designer.core.simulate.tiers import ClosTiers, SimulatorInputError, clos_tiers

PATTERNS = ("ring", "alltoall", "incast", "permutation")
# an all-to-all of every GPU is n^2 flows: hours in a packet simulator past a few hundred GPUs
DEFAULT_PATTERNS = ("ring", "incast", "permutation")
MAX_CONNECTIONS = 5_000_000
CHUNK = 8192


@dataclass(frozen=True)
class HostMap:
    """htsim host numbers of every GPU: ``host[node, gpu]`` (its first NIC port);
    ``servers[node]`` is the node's device index."""

    host: np.ndarray
    nodes: int
    gpus: int
    servers: np.ndarray | None = None


@dataclass(frozen=True)
class Flows:
    """A connection matrix's flows: htsim host numbers and bytes."""

    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray  # int64 bytes

    def __len__(self) -> int:
        return int(self.src.size)


def topology_text(project: Project, catalog: Catalog, ct: ClosTiers | None = None) -> str:
    ct = ct or clos_tiers(project, catalog)
    t = ct.tiers
    # FatTreeTopology's own checks: whole pods of whole leaves
    if ct.hosts % ct.pod_hosts or ct.pod_hosts % t[0].radix_down:
        raise SimulatorInputError(
            f"htsim's fat tree needs whole leaves and pods: {ct.hosts:,} hosts do not fill "
            f"leaves of {t[0].radix_down} and pods of {ct.pod_hosts:,} (a partial scalable "
            "unit or extra appliances)")
    lines = [f"# {project.name}: {ct.hosts:,} hosts (GPU NIC ports), htsim fat-tree topology",
             f"Nodes {ct.hosts}", f"Tiers {len(t)}", f"Podsize {ct.pod_hosts}", ""]
    for i, tier in enumerate(t):
        lines.append(f"Tier {i}")
        if tier.radix_up:
            up_gbps = t[i + 1].down_gbps
            ratio = tier.radix_down * tier.down_gbps / (tier.radix_up * up_gbps)
            if abs(ratio - round(ratio)) > 1e-9 or ratio < 1:
                raise SimulatorInputError(
                    f"the {tier.role.value} tier is {ratio:.3g}:1 oversubscribed; htsim takes "
                    "a whole number (1, 2, 3 ...)")
            lines.append(f"Oversubscribed {round(ratio)}")
        lines.append(f"Downlink_speed_Gbps {tier.down_gbps}")
        lines.append(f"Radix_Down {tier.radix_down}")
        if tier.radix_up:
            lines.append(f"Radix_Up {tier.radix_up}")
        # htsim refuses a zero latency: at least one nanosecond
        lines.append(f"Downlink_Latency_ns {max(1, round(tier.link_ns))}")
        lines.append(f"Switch_Latency_ns {max(0, round(tier.switch_ns))}")
        if i > 0:
            lines.append(f"Bundle {tier.bundle}")
        lines.append("")
    return "\n".join(lines)


def host_map(project: Project, catalog: Catalog, ct: ClosTiers) -> HostMap:
    servers = np.unique(ct.host_server)
    gpus = {catalog.server(project.fabric.devices[int(s)].model).gpus for s in servers}
    g = max(gpus) if gpus else 0
    if not g:
        raise SimulatorInputError("the design has no cabled GPU servers")
    node_of = {int(s): i for i, s in enumerate(servers.tolist())}
    host = np.full((servers.size, g), -1, np.int64)
    ports = {}
    for h, (s, p) in enumerate(zip(ct.host_server.tolist(), ct.host_port.tolist(),
                                   strict=True)):
        ports.setdefault(int(s), []).append((p, h))
    for s, lst in ports.items():
        lst.sort()
        per = max(1, len(lst) // g)
        for gi in range(g):
            if gi * per < len(lst):
                host[node_of[s], gi] = lst[gi * per][1]
    return HostMap(host, servers.size, g, servers)


def _pairs(src: np.ndarray, dst: np.ndarray, size: np.ndarray | int) -> Flows:
    ok = (src >= 0) & (dst >= 0)
    size_arr = np.broadcast_to(np.asarray(size, np.int64), src.shape)
    return Flows(src[ok].astype(np.int64), dst[ok].astype(np.int64),
                 np.ascontiguousarray(size_arr[ok]))


def flows(hm: HostMap, pattern: str, nbytes: int, gpu_host: np.ndarray | None = None,
          perm: tuple[np.ndarray, np.ndarray] | None = None) -> Flows:
    """The flows of ``pattern`` for an all-reduce / all-to-all buffer of ``nbytes`` per GPU.
    ``permutation`` takes the tool's permutation (``perm``: source and destination GPU ids)
    and ``gpu_host`` (the htsim host of every GPU id, -1 for none)."""
    n, g = hm.nodes, hm.gpus
    h = hm.host
    if pattern == "ring":
        if n < 2:
            raise SimulatorInputError("a ring across nodes needs two nodes")
        size = max(1, round(2 * (n - 1) / n * nbytes / g))
        return _pairs(h.T.reshape(-1), np.roll(h, -1, axis=0).T.reshape(-1), size)
    if pattern == "alltoall":
        ranks = n * g
        count = ranks * (ranks - g)
        if count > MAX_CONNECTIONS:
            raise SimulatorInputError(
                f"an all-to-all over {ranks:,} GPUs is {count:,} flows, more than "
                f"{MAX_CONNECTIONS:,}; pass --nodes N for the first N nodes")
        flat = h.reshape(-1)
        node = np.repeat(np.arange(n), g)
        s_idx, d_idx = np.nonzero(node[:, None] != node[None, :])
        return _pairs(flat[s_idx], flat[d_idx], max(1, nbytes // ranks))
    if pattern == "incast":
        if n < 2:
            raise SimulatorInputError("an incast across nodes needs two nodes")
        return _pairs(h[1:, 0], np.full(n - 1, h[0, 0]), nbytes)
    if pattern == "permutation":
        if perm is None or gpu_host is None:
            raise SimulatorInputError("a permutation needs the design's GPU numbering")
        src, dst = gpu_host[perm[0]], gpu_host[perm[1]]
        keep = (src >= 0) & (dst >= 0) & np.isin(src, h) & np.isin(dst, h)
        return _pairs(src[keep], dst[keep], nbytes)
    raise SimulatorInputError(f"unknown pattern '{pattern}' (known: {', '.join(PATTERNS)})")


def split_large(f: Flows) -> tuple[Flows, int]:
    """Flows of 2^31 bytes or more as several flows of the same pair that htsim accepts
    (same total); returns the flows and how many were split."""
    big = f.size > MAX_FLOW_BYTES
    if not big.any():
        return f, 0
    parts = [split_sizes(int(s)) if b else [int(s)] for s, b in zip(f.size.tolist(),
                                                                   big.tolist(), strict=True)]
    k = np.array([len(p) for p in parts])
    return Flows(np.repeat(f.src, k), np.repeat(f.dst, k),
                 np.array([x for p in parts for x in p], np.int64)), int(big.sum())


def matrix_chunks(hosts: int, f: Flows, title: str) -> Iterator[str]:
    yield f"# {title}\nNodes {hosts}\nConnections {len(f)}\n"
    src, dst, size = f.src.tolist(), f.dst.tolist(), f.size.tolist()
    for i in range(0, len(src), CHUNK):
        yield "".join(f"{a}->{b} start 0 size {c}\n" for a, b, c in
                      zip(src[i:i + CHUNK], dst[i:i + CHUNK], size[i:i + CHUNK], strict=True))


# -- reading back (the tests check files against the formats' published examples) ----------
def read_topology(text: str) -> dict:
    """The keys htsim's ``FatTreeTopology::load`` reads, with its checks: header keys, then
    per tier; every tier needs speed, latency and down radix, and all but the top an up
    radix."""
    head: dict[str, int] = {}
    tiers: list[dict[str, int]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        toks = raw.split()
        if not toks or toks[0].startswith("#"):
            continue
        key = toks[0].lower()
        if len(toks) < 2:
            raise ValueError(f"line {n}: '{raw.strip()}' has no value")
        val = int(toks[1])
        if key == "tier":
            if val != len(tiers):
                raise ValueError(f"line {n}: tier {val} out of order")
            tiers.append({})
        elif tiers:
            if key in tiers[-1]:
                raise ValueError(f"line {n}: duplicate {key}")
            tiers[-1][key] = val
        else:
            head[key] = val
    for k in ("nodes", "tiers", "podsize"):
        if not head.get(k):
            raise ValueError(f"missing {k} in the header")
    if head["tiers"] not in (2, 3) or len(tiers) != head["tiers"]:
        raise ValueError("tiers must be 2 or 3, each with a Tier section")
    for i, t in enumerate(tiers):
        for k in ("downlink_speed_gbps", "downlink_latency_ns", "radix_down"):
            if not t.get(k):
                raise ValueError(f"missing {k} for tier {i}")
        if i < len(tiers) - 1 and not t.get("radix_up"):
            raise ValueError(f"missing radix_up for tier {i}")
    return {"header": head, "tiers": tiers}


def read_matrix(text: str) -> list[tuple[int, int, float, int]]:
    """Flows of a connection matrix, with ``ConnectionMatrix::load``'s checks (a start or a
    trigger per flow, the declared count)."""
    nodes = declared = -1
    flows = []
    for n, raw in enumerate(text.splitlines(), 1):
        toks = raw.split()
        if not toks or toks[0].startswith("#"):
            continue
        if toks[0] == "Nodes":
            nodes = int(toks[1])
        elif toks[0] == "Connections":
            declared = int(toks[1])
        elif "->" in toks[0]:
            src, dst = (int(x) for x in toks[0].split("->"))
            opts = dict(zip(toks[1::2], toks[2::2], strict=False))
            if "start" not in opts and "trigger" not in opts:
                raise ValueError(f"line {n}: no start method")
            if not (0 <= src < nodes and 0 <= dst < nodes) or src == dst:
                raise ValueError(f"line {n}: host out of range or to itself")
            size = int(opts.get("size", 0))
            if size > MAX_FLOW_BYTES:
                raise ValueError(f"line {n}: a flow of {size:,} bytes; htsim reads sizes "
                                 "as 32-bit ints (at most 2^31 - 1)")
            flows.append((src, dst, float(opts.get("start", 0)), size))
        elif toks[0] not in ("Triggers", "Failures", "trigger", "failure"):
            raise ValueError(f"line {n}: unknown id {toks[0]}")
    if declared != len(flows):
        raise ValueError(f"Connections {declared} but {len(flows)} flows")
    return flows
