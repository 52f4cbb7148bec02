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
each) and ``incast`` (one GPU of every other node into node 0's first GPU).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.simulate.tiers import ClosTiers, SimulatorInputError, clos_tiers

PATTERNS = ("ring", "alltoall", "incast")
MAX_CONNECTIONS = 5_000_000
CHUNK = 8192


@dataclass(frozen=True)
class HostMap:
    """htsim host numbers of every GPU: ``host[node, gpu]`` (its first NIC port)."""

    host: np.ndarray
    nodes: int
    gpus: int


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
    return HostMap(host, servers.size, g)


def connections(hm: HostMap, pattern: str, nbytes: int) -> tuple[int, Iterator[str]]:
    """(count, lines) of ``pattern`` for an all-reduce / all-to-all buffer of ``nbytes``."""
    n, g = hm.nodes, hm.gpus
    h = hm.host
    if pattern == "ring":
        if n < 2:
            raise SimulatorInputError("a ring across nodes needs two nodes")
        size = max(1, round(2 * (n - 1) / n * nbytes / g))
        lines = [f"{h[i, r]}->{h[(i + 1) % n, r]} start 0 size {size}\n"
                 for r in range(g) for i in range(n) if h[i, r] >= 0 and h[(i + 1) % n, r] >= 0]
        return len(lines), iter(lines)
    if pattern == "alltoall":
        ranks = n * g
        count = ranks * (ranks - g)
        if count > MAX_CONNECTIONS:
            raise SimulatorInputError(
                f"an all-to-all over {ranks:,} GPUs is {count:,} flows, more than "
                f"{MAX_CONNECTIONS:,}; pass --nodes N for the first N nodes")
        size = max(1, nbytes // ranks)

        def a2a() -> Iterator[str]:
            flat = h.reshape(-1)
            node = np.repeat(np.arange(n), g)
            for s in range(ranks):
                dst = flat[node != node[s]]
                src = flat[s]
                yield "".join(f"{src}->{d} start 0 size {size}\n" for d in dst.tolist())
        return count, a2a()
    if pattern == "incast":
        if n < 2:
            raise SimulatorInputError("an incast across nodes needs two nodes")
        sink = h[0, 0]
        lines = [f"{h[i, 0]}->{sink} start 0 size {nbytes}\n" for i in range(1, n)]
        return len(lines), iter(lines)
    raise SimulatorInputError(f"unknown pattern '{pattern}' (known: {', '.join(PATTERNS)})")


def matrix_chunks(hosts: int, count: int, lines: Iterator[str], title: str) -> Iterator[str]:
    yield f"# {title}\nNodes {hosts}\nConnections {count}\n"
    buf: list[str] = []
    for ln in lines:
        buf.append(ln)
        if len(buf) >= CHUNK:
            yield "".join(buf)
            buf.clear()
    yield "".join(buf)


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
            flows.append((src, dst, float(opts.get("start", 0)), int(opts.get("size", 0))))
        elif toks[0] not in ("Triggers", "Failures", "trigger", "failure"):
            raise ValueError(f"line {n}: unknown id {toks[0]}")
    if declared != len(flows):
        raise ValueError(f"Connections {declared} but {len(flows)} flows")
    return flows


def write_htsim(project: Project, catalog: Catalog, folder: str | Path,
                patterns: tuple[str, ...] = PATTERNS, nbytes: int = 1 << 30,
                nodes: int | None = None) -> list[tuple[Path, int]]:
    """Write ``design.topo`` and one ``PATTERN.cm`` per pattern into ``folder``; returns
    (path, connections) per file (0 for the topology)."""
    from designer.core.export.output import ExportError
    from designer.core.safe_io import ExportFolder, FileRefused

    try:
        d = ExportFolder(folder, "htsim export")
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    ct = clos_tiers(project, catalog)
    out = []

    def write(name: str, chunks) -> Path:
        try:
            d.write_stream(name, chunks)
        except FileRefused as exc:
            raise ExportError(str(exc)) from None
        return d.root / name

    out.append((write("design.topo", [topology_text(project, catalog, ct)]), 0))
    hm = host_map(project, catalog, ct)
    if nodes is not None:
        if not 2 <= nodes <= hm.nodes:
            raise SimulatorInputError(f"--nodes: between 2 and {hm.nodes:,}")
        hm = HostMap(hm.host[:nodes], nodes, hm.gpus)
    for pat in patterns:
        count, lines = connections(hm, pat, nbytes)
        path = write(f"{pat}.cm", matrix_chunks(ct.hosts, count, lines,
                                                f"{pat} of {nbytes:,} bytes on {project.name}"))
        out.append((path, count))
    return out
