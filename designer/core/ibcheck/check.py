"""``check_ib``: bring the design up under the real subnet manager and compare.

For each subnet of the design (a multi-plane design has one per plane; each runs its own
subnet manager), in a temporary folder: write the topology file, start ibsim on it, run OpenSM
once with the routing engine that suits the design, read the fabric back with ibnetdiscover and
the forwarding tables with dump_fts, and stop ibsim. Then compare: the discovered cables with
the design (``infiniband.diff``), the routed hop counts with the shortest paths (and with the
solver's when there is one), and how evenly the up-links carry the destinations.

ibsim is stopped by its process id and the folder removed whatever happens, also on Ctrl+C or
when ``cancelled()`` turns true (checked every 50 ms while a tool runs).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import DesignerError
from designer.core.ibcheck.report import Finding, IbCheckReport, SubnetReport
from designer.core.ibcheck.routes import (
    UNREACHED,
    Balance,
    HopStats,
    pair_histogram,
    pair_stats,
    parse_dump_fts,
    port_loads,
    route_hops,
)
from designer.core.ibcheck.sim import CheckCancelled, IbSim, IbSimError, SimLimits
from designer.core.ibcheck.solver_hops import same_distribution, solver_hop_stats
from designer.core.ibcheck.tools import find_tools
from designer.core.infiniband.asbuilt import project_from_ib
from designer.core.infiniband.diff import diff_projects
from designer.core.infiniband.netfile import parse_netfile, write_netfile
from designer.core.infiniband.topology import (
    SWITCH,
    IbFabric,
    ProjectIb,
    components,
    ib_fabric_of,
    merge,
    subfabric,
)
from designer.core.model import Project, Role
from designer.core.safe_io import copy_tree

Progress = Callable[[float, str], None]
ENGINES = ("ftree", "minhop", "updn", "dfsssp", "sssp", "lash", "nue")
_CONFIGURED = re.compile(r"(\w[\w-]*) tables configured on all switches")
# OpenSM's error lines: log level 0x01, most with an "ERR xxxx:" code
_ERR = re.compile(r"\] 0x01 -> (.*)$|-> (.*\bERR [0-9A-F]{4}:.*)$", re.M)


def choose_engine(project: Project) -> tuple[str, str]:
    """(OpenSM routing engine, why) for the design's shape."""
    roles = {d.role for d in project.fabric.devices if d.role.is_switch}
    if Role.ROUTER in roles:
        return "dfsssp", (
            "deadlock-free shortest paths: minimal dragonfly routes form cycles, which DFSSSP "
            "breaks with virtual lanes"
        )
    if roles & {Role.SPINE, Role.CORE}:
        return "ftree", (
            "fat-tree routing, the engine for folded Clos and rail-optimized fabrics; the "
            "top-tier switches are given as roots"
        )
    return "minhop", "one switch tier, so every route is a shortest path through one switch"


def check_ib(
    project: Project,
    catalog: Catalog | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    engine: str | None = None,
    keep_folder: Path | None = None,
    solver_hops: object = None,
    tables: list | None = None,
) -> IbCheckReport:
    """Check ``project`` on OpenSM over ibsim. Raises ``IbToolsMissing`` (what to install),
    ``NotInfiniBand``, ``IbSimError`` (the tool's words) or ``CheckCancelled``.

    ``progress(fraction, message)`` is called between stages; ``cancelled()`` is polled.
    ``keep_folder``: copy the working files (topology, logs, dumps) there for a closer look.
    ``solver_hops``: the solver's hop statistics when the caller has them (the window's
    current result), so the check does not solve again; else it runs the solver's path stage.
    ``tables``: a list that receives (IB nodes, discovered fabric, dump_fts text) per subnet
    that came up, for callers that route on OpenSM's own tables (the traffic model).
    """
    t_start = time.perf_counter()
    if keep_folder is not None and Path(keep_folder).exists() and not Path(keep_folder).is_dir():
        raise DesignerError(f"cannot keep the working files in {keep_folder}: it is a file")
    say = progress or (lambda f, m: None)
    stop = cancelled or (lambda: False)
    tools = find_tools()
    cat = project.catalog(catalog if catalog is not None else builtin_catalog())
    chosen, reason = choose_engine(project)
    if engine:
        if engine not in ENGINES:
            raise IbSimError(f"unknown routing engine '{engine}' (known: {', '.join(ENGINES)})")
        chosen, reason = engine, "chosen by the user"
    times: dict[str, float] = {}

    def lap(stage: str, t0: float) -> float:
        now = time.perf_counter()
        times[stage] = times.get(stage, 0.0) + now - t0
        return now

    say(0.0, "exporting the topology")
    t = time.perf_counter()
    pib = ib_fabric_of(project, cat)
    parts = components(pib.fabric)
    subnets = [p for p in parts if (pib.fabric.kind[p] != SWITCH).any()]
    skipped = tuple(
        pib.fabric.desc[int(n)]
        for p in parts
        if not (pib.fabric.kind[p] != SWITCH).any()
        for n in p
    )
    for nodes in subnets:  # refuse a subnet past the LID space before starting anything
        SimLimits.for_fabric(subfabric(pib.fabric, nodes)).check()
    t = lap("export", t)

    folder = Path(tempfile.mkdtemp(prefix="designer-ibcheck-"))
    reports: list[SubnetReport] = []
    discovered: list[IbFabric] = []
    try:
        for k, nodes in enumerate(subnets):
            if stop():
                raise CheckCancelled("cancelled")
            sub_dir = folder / f"subnet{k + 1}"
            sub_dir.mkdir()
            name = _subnet_name(project, pib, nodes, k, len(subnets))
            span = (k / len(subnets), (k + 1) / len(subnets))
            rep, disc = _check_subnet(
                tools, pib, nodes, name, chosen, sub_dir, say, stop, span, times, tables
            )
            reports.append(rep)
            discovered.append(disc)
        if keep_folder is not None:
            try:
                copy_tree(folder, keep_folder, "the kept working files")
            except OSError as exc:
                raise DesignerError(
                    f"cannot copy the working files to {keep_folder}: {exc.strerror or exc}"
                ) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    say(0.95, "comparing with the design")
    t = time.perf_counter()
    diff = None
    if discovered:
        built = project_from_ib(merge(discovered), cat, name="as discovered")
        diff = diff_projects(project, built, cat)
    t = lap("diff", t)
    solver, solver_note = solver_hop_stats(project, reports, cat, solver_hops)
    t = lap("solver", t)
    findings = _findings(reports, diff, solver, skipped)
    times["total"] = time.perf_counter() - t_start
    say(1.0, "done")
    return IbCheckReport(
        project=project.name,
        engine=chosen,
        engine_reason=reason,
        subnets=tuple(reports),
        diff=diff,
        solver_hops=solver,
        solver_note=solver_note,
        findings=tuple(findings),
        times={k: times[k] for k in (*_ORDER, "total") if k in times},
        skipped=skipped,
    )


_ORDER = ("export", "ibsim", "opensm", "ibnetdiscover", "dump_fts", "routes", "diff", "solver")


def _subnet_name(project: Project, pib: ProjectIb, nodes: np.ndarray, k: int, n: int) -> str:
    planes = {
        project.fabric.devices[int(pib.device[i])].groups.get("plane")
        for i in nodes.tolist()
        if pib.fabric.kind[i] == SWITCH
    } - {None}
    if len(planes) == 1:
        return f"plane {planes.pop()}"
    return "fabric" if n == 1 else f"subnet {k + 1}"


def _with_lids(ib: IbFabric) -> IbFabric:
    """The fabric with LIDs set in node order (switches first), which OpenSM keeps.

    Besides making LIDs easy to read, this avoids a top LID that is a multiple of 64: the
    diagnostics' table dump (ibroute, dump_fts 44.0) leaves out a top LID that opens a new
    64-entry block, while the switch does forward it (ibtracert follows it).
    """
    lids = np.arange(1, ib.n_nodes + 1, dtype=np.int32)
    if lids.size and lids[-1] % 64 == 0:
        lids[-1] += 1
    return dataclasses.replace(ib, lid=lids)


def _sm_node(ib: IbFabric) -> int:
    """Where OpenSM runs: a UFM appliance's HCA when there is one, else the first switch."""
    for i, d in enumerate(ib.desc):
        if ib.kind[i] != SWITCH and "ufm" in d.lower():
            return i
    return int(np.flatnonzero(ib.kind == SWITCH)[0])


def _check_subnet(
    tools,
    pib: ProjectIb,
    nodes: np.ndarray,
    name: str,
    engine: str,
    folder: Path,
    say: Progress,
    stop: Callable[[], bool],
    span: tuple[float, float],
    times: dict[str, float],
    tables: list | None = None,
) -> tuple[SubnetReport, IbFabric]:
    mine: dict[str, float] = {}

    def lap(stage: str, t0: float) -> float:
        now = time.perf_counter()
        mine[stage] = mine.get(stage, 0.0) + now - t0
        times[stage] = times.get(stage, 0.0) + now - t0
        return now

    def step(frac: float, msg: str) -> None:
        say(span[0] + (span[1] - span[0]) * frac, f"{name}: {msg}")

    t = time.perf_counter()
    design = _with_lids(subfabric(pib.fabric, nodes))
    tiers = pib.tier[nodes]
    sm = _sm_node(design)
    netfile = folder / "fabric.net"
    netfile.write_text(write_netfile(design, title=name, first=sm))
    args_engine = ["-R", engine]
    if engine in ("ftree", "updn"):
        top = tiers[design.kind == SWITCH].max()
        roots = design.guid[(design.kind == SWITCH) & (tiers == top)]
        (folder / "roots.guid").write_text("".join(f"0x{int(g):016x}\n" for g in roots))
        args_engine += ["-a", str(folder / "roots.guid")]
    limits = SimLimits.for_fabric(design)
    limits.check()
    t = lap("export", t)
    timeout = 120.0 + design.n_nodes / 20.0

    step(0.05, "starting ibsim")
    with IbSim(tools, folder, netfile, limits, cancelled=stop) as sim:
        t = lap("ibsim", t)
        step(0.2, f"running OpenSM ({engine})")
        log = folder / "opensm.log"
        run = sim.run(
            [tools.opensm, "-o", *args_engine, "-f", str(log), "-F", "/dev/null"],
            "opensm",
            timeout,
        )
        t = lap("opensm", t)
        text = log.read_text(errors="replace") if log.exists() else ""
        up = "SUBNET UP" in text
        used = _CONFIGURED.findall(text)
        messages = tuple(dict.fromkeys((a or b).strip() for a, b in _ERR.findall(text)))
        if not up and not messages:
            messages = (f"OpenSM exited with status {run.returncode}: {run.stderr_tail()}",)
        step(0.5, "reading the fabric back (ibnetdiscover)")
        disc_run = sim.run([tools.ibnetdiscover], "ibnetdiscover", timeout)
        t = lap("ibnetdiscover", t)
        if disc_run.returncode != 0:
            raise IbSimError(f"ibnetdiscover failed: {disc_run.stderr_tail()}")
        fts_text = ""
        if up:
            step(0.7, "dumping the forwarding tables (dump_fts)")
            # -a: without it dump_fts 44.0 drops entries that point at ports 128 and up
            # (a Q3400 spine's down-links), though the switch forwards them
            fts_run = sim.run([tools.dump_fts, "-a", "-n"], "dump_fts", timeout)
            t = lap("dump_fts", t)
            if fts_run.returncode != 0:
                raise IbSimError(f"dump_fts failed: {fts_run.stderr_tail()}")
            fts_text = fts_run.stdout.read_text(errors="replace")
    t = lap("ibsim", t)  # stopping it

    step(0.85, "walking the routes")
    disc = parse_netfile(disc_run.stdout.read_text(errors="replace"), "ibnetdiscover output")
    if tables is not None and up and fts_text:
        tables.append((nodes, disc, fts_text))
    routed = shortest = None
    longer = 0
    balance: tuple[Balance, ...] = ()
    if up and fts_text:
        routed, shortest, longer, balance = _analyse_routes(
            design, tiers, pib.role[nodes], pib.group[nodes], pib.domain[nodes], disc, fts_text
        )
    t = lap("routes", t)
    report = SubnetReport(
        name=name,
        sm_node=design.desc[sm],
        switches=int((design.kind == SWITCH).sum()),
        hcas=int((design.kind != SWITCH).sum()),
        cables=design.n_cables,
        engine=engine,
        engine_used=used[-1] if used else "",
        subnet_up=up,
        sm_messages=messages,
        discovered_cables=disc.n_cables,
        routed=routed,
        shortest=shortest,
        longer_pairs=longer,
        balance=balance,
        times=mine,
    )
    return report, disc


def _analyse_routes(
    design: IbFabric,
    tiers: np.ndarray,
    roles: np.ndarray,
    groups: np.ndarray,
    domains: np.ndarray,
    disc: IbFabric,
    fts_text: str,
) -> tuple[HopStats, HopStats, int, tuple[Balance, ...]]:
    """Routed and shortest hop distributions over pairs of GPUs in different scale-up domains
    (the solver's scope), pairs routed longer than the shortest path, and the up-link balance.
    ``design``'s nodes carry ``tiers``, ``roles``, dragonfly ``groups`` and the scale-up
    ``domains`` of their devices; ``disc`` (the discovered fabric) is matched to it by node
    description."""
    lfts = parse_dump_fts(fts_text, disc)
    by_desc = {d: i for i, d in enumerate(design.desc)}
    to_design = np.array([by_desc.get(d, -1) for d in disc.desc], dtype=np.int64)
    # GPU endpoints: HCAs of GPU servers in the design
    is_gpu_design = roles == Role.GPU_SERVER.value
    ca = np.flatnonzero(disc.kind != SWITCH)
    gpu = ca[(to_design[ca] >= 0) & is_gpu_design[np.maximum(to_design[ca], 0)]]
    hops = route_hops(disc, lfts, gpu)
    pos = np.full(disc.n_nodes, -1, np.int64)
    pos[lfts.switches] = np.arange(lfts.switches.size)
    attach = _attached_switch(disc)
    src_row = pos[attach[gpu]]
    server = domains[to_design[gpu]]
    routed = pair_stats(hops, src_row, server)

    # shortest paths on the design's own switch graph, for the same pairs
    d_sw = np.flatnonzero(design.kind == SWITCH)
    d_pos = np.full(design.n_nodes, -1, np.int64)
    d_pos[d_sw] = np.arange(d_sw.size)
    sw_link = (design.kind[design.a] == SWITCH) & (design.kind[design.b] == SWITCH)
    g = coo_matrix(
        (np.ones(int(sw_link.sum())), (d_pos[design.a[sw_link]], d_pos[design.b[sw_link]])),
        shape=(d_sw.size, d_sw.size),
    ).tocsr()
    dist = shortest_path(g, method="D", directed=False, unweighted=True)
    d_attach = _attached_switch(design)
    row_design = d_pos[to_design[lfts.switches]]  # design switch of each LFT row (-1 unknown)
    col_leaf = d_pos[d_attach[to_design[gpu]]]
    expected = np.full(hops.shape, UNREACHED, np.int16)
    known_r = row_design >= 0
    known_c = col_leaf >= 0
    sub = dist[np.ix_(row_design[known_r], col_leaf[known_c])]
    sub = np.where(np.isfinite(sub), sub + 1, UNREACHED).astype(np.int16)
    expected[np.ix_(np.flatnonzero(known_r), np.flatnonzero(known_c))] = sub
    shortest = pair_stats(expected, src_row, server)
    differs = ((hops != expected) & (expected >= 0)).astype(np.int8)
    longer = pair_histogram(differs, src_row, server)[0].get(1, 0)

    # balance: destination LIDs (every HCA) per up-link port, grouped by layer
    loads = port_loads(lfts, disc.lid[ca].astype(np.int64))
    node, port, peer, _, _ = disc.ends()
    isl = (disc.kind[node] == SWITCH) & (disc.kind[peer] == SWITCH)
    node, port, peer = node[isl], port[isl], peer[isl]
    # each end's design node (a switch the design lacks reads as tier 0; the diff reports it)
    d_node, d_peer = to_design[node], to_design[peer]
    at_node, at_peer = np.maximum(d_node, 0), np.maximum(d_peer, 0)
    t_node = np.where(d_node >= 0, tiers[at_node], 0)
    t_peer = np.where(d_peer >= 0, tiers[at_peer], 0)
    r_node, r_peer = roles[at_node], roles[at_peer]
    flat_fabric = (r_node == Role.ROUTER.value).all() if node.size else False
    up = (t_peer > t_node) | flat_fabric
    # dragonfly router links: local inside a group, global between groups
    g_node, g_peer = groups[at_node], groups[at_peer]
    scope = np.where(
        (r_node == Role.ROUTER.value) & (g_node >= 0),
        np.where(g_node == g_peer, " (local)", " (global)"),
        "",
    )
    rows_out: list[Balance] = []
    layer = np.array(
        [f"{a} -> {b}{c}" for a, b, c in zip(r_node[up], r_peer[up], scope[up], strict=True)],
        dtype=object,
    )
    vals = loads[pos[node[up]], port[up]]
    for name in dict.fromkeys(layer.tolist()):
        v = vals[layer == name]
        rows_out.append(Balance(name, int(v.size), int(v.min()), float(v.mean()), int(v.max())))
    return routed, shortest, longer, tuple(rows_out)


def _attached_switch(ib: IbFabric) -> np.ndarray:
    """For each HCA node, the switch its first cabled port reaches (-1 none)."""
    node, _, peer, _, _ = ib.ends()
    out = np.full(ib.n_nodes, -1, np.int64)
    hca = (ib.kind[node] != SWITCH) & (ib.kind[peer] == SWITCH)
    # ends are sorted by (node, port): keep the first port of each HCA
    n, p = node[hca][::-1], peer[hca][::-1]
    out[n] = p
    return out


def _findings(
    reports: list[SubnetReport], diff, solver: HopStats | None, skipped: tuple[str, ...]
) -> list[Finding]:
    out: list[Finding] = []
    for s in reports:
        if not s.subnet_up:
            words = "; ".join(s.sm_messages[:3]) or "no reason given"
            out.append(Finding("error", f"{s.name}: OpenSM did not bring the subnet up: {words}"))
            continue
        if s.fell_back:
            out.append(
                Finding(
                    "warning",
                    f"{s.name}: OpenSM could not route with {s.engine} and used {s.engine_used}: "
                    + ("; ".join(s.sm_messages[:2]) or "no reason given"),
                )
            )
        if s.routed is not None and s.routed.unreached:
            out.append(
                Finding(
                    "error",
                    f"{s.name}: {s.routed.unreached:,} GPU pairs have no "
                    "working route in the forwarding tables",
                )
            )
        if s.longer_pairs:
            out.append(
                Finding(
                    "warning",
                    f"{s.name}: {s.longer_pairs:,} GPU pairs are routed "
                    "over more switches than their shortest path",
                )
            )
        for b in s.balance:
            if not b.even:
                out.append(
                    Finding(
                        "warning",
                        f"{s.name}: uneven route balance on {b.layer} links: {b.min} to {b.max} "
                        f"destinations per link (mean {b.mean:.2f})",
                    )
                )
    if diff is not None and not diff.equal:
        out.append(
            Finding("error", f"the discovered topology differs from the design: {diff.summary()}")
        )
    if skipped:
        out.append(
            Finding(
                "warning",
                f"{len(skipped)} switch(es) reach no HCA and were not checked, e.g. '{skipped[0]}'",
            )
        )
    if solver is not None:
        for s in reports:
            if s.routed is not None and s.routed.fractions() and not same_distribution(
                s.routed, solver
            ):
                out.append(
                    Finding(
                        "error",
                        f"{s.name}: routed hop counts differ from the "
                        "solver's shortest-path distribution",
                    )
                )
    return out
