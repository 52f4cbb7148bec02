"""``designer check-roce``: bring the design's routed fabric up on FRR in network namespaces
and compare what BGP builds with what the design promises.

Steps: plan the underlay (``plan``), pick the whole design or a slice (``slicing``), build the
lab (``lab``: namespaces, veths, FRR reading the exported ``frr.conf``), wait until every BGP
session is up and the leaf routes stop changing, read every leaf's route to every other leaf's
server block (``vtysh ... json``) and its ECMP width, traceroute between leaves and count the
switches crossed; then kill one spine and measure again. The lab is removed in every case.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from designer.core.catalog import Catalog
from designer.core.ethernet.frr import frr_config
from designer.core.ethernet.lab import Lab, LabError, ToolsMissing, missing_reason
from designer.core.ethernet.plan import Underlay, build_underlay, ip
from designer.core.ethernet.qos import DEFAULT_QOS, RoceQos
from designer.core.ethernet.report import PhaseReport, RoceReport
from designer.core.ethernet.slicing import (
    HOSTS_PER_LEAF,
    MAX_SESSIONS,
    MAX_SWITCHES,
    Expected,
    choose_slice,
    expected_routes,
    restrict,
    thin_cables,
)
from designer.core.ibcheck.sim import CheckCancelled
from designer.core.ibcheck.solver_hops import solver_hop_stats
from designer.core.model import Project

Progress = Callable[[float, str], None]
POLL_S = 0.5
SETTLE_S = 6.0  # routes that differ from the design but stay put this long have settled
_HOP = re.compile(r"^\s*(\d+)\s+(\S+)")


def check_roce(
    project: Project,
    catalog: Catalog,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    max_switches: int = MAX_SWITCHES,
    max_sessions: int = MAX_SESSIONS,
    hosts_per_leaf: int = HOSTS_PER_LEAF,
    fail_spine: bool = True,
    timeout_s: float = 60.0,
    keep_logs: Path | None = None,
    solver_hops: object = None,
    qos: RoceQos = DEFAULT_QOS,
) -> RoceReport:
    """Run the live check; raises ToolsMissing, NotEthernet, LabError or CheckCancelled.
    ``solver_hops``: the solver's hop statistics when the caller has them (the window's
    current result); else the solver's path stage runs once."""
    say = progress or (lambda _f, _m: None)
    stop = cancelled or (lambda: False)
    reason = missing_reason()
    if reason:
        raise ToolsMissing(reason[:1].upper() + reason[1:])
    full = build_underlay(project, catalog)
    keep, slice_note = choose_slice(full, max_switches)
    u = full if keep.all() else restrict(full, keep)
    thin, thin_note = thin_cables(u, max_sessions)
    if thin is not None:
        u = restrict(u, np.ones(u.n, bool), thin)
        slice_note = "; ".join(x for x in (slice_note, thin_note) if x)
    exp = expected_routes(u)
    t_start = time.monotonic()
    with Lab(keep_logs) as lab:
        say(0.02, f"creating {u.n} switch namespaces and their cables")
        hosts = _build(lab, u, hosts_per_leaf)
        if stop():
            raise CheckCancelled("cancelled")
        say(0.15, "starting FRR (zebra, bgpd) on every switch")
        ns = [lab.prefix + f"s{s}" for s in range(u.n)]
        lab.start_frr({ns[s]: frr_config(u, s, qos, connect_s=1) for s in range(u.n)})
        t0 = time.monotonic()
        say(0.25, "waiting for BGP to converge")
        first = _measure(lab, u, ns, exp, hosts, t0, timeout_s, stop, say, (0.25, 0.6))
        failure = None
        # a spine (a core when there is none); a dragonfly has one tier: a router
        candidates = [np.flatnonzero(u.tier == t) for t in (2, 3, 1)]
        tier_of = next((c for c in candidates if c.size), np.zeros(0, np.int64))
        if fail_spine and tier_of.size:
            victim = int(tier_of[0])
            role = "spine" if u.tier[victim] == 2 else "core" if u.tier[victim] == 3 else "router"
            say(0.65, f"failing {role} {u.names[victim]}")
            down = np.zeros(u.n, bool)
            down[victim] = True
            exp2 = expected_routes(u, down)
            lab.stop_node(ns[victim])
            ifaces = _ifaces_of(u, victim)
            lab.batch(ns[victim], [f"link set {i} down" for i in ifaces])
            t1 = time.monotonic()
            failure = _measure(lab, u, ns, exp2, hosts, t1, timeout_s, stop, say, (0.65, 0.95),
                               down=down)
            failure = failure.with_name(u.names[victim], role)
        total = time.monotonic() - t_start
    say(1.0, "lab removed")
    solver, solver_note = solver_hop_stats(project, catalog=catalog, given=solver_hops)
    return RoceReport(
        design=project.name,
        switches=u.n,
        switches_in_design=full.n,
        host_namespaces=len(hosts),
        slice=slice_note,
        first=first,
        failure=failure,
        wall_s=total,
        solver_hops=None if solver is None else (solver.min, solver.max),
        solver_note=solver_note.split(";")[0],
    )


def _ifaces_of(u: Underlay, s: int) -> list[str]:
    out = [u.iface(s, int(p)) for p in u.a_port[u.a == s]]
    out += [u.iface(s, int(p)) for p in u.b_port[u.b == s]]
    out += [u.iface(s, int(p)) for p in u.h_leaf_port[u.h_leaf == s]]
    return out


def _build(lab: Lab, u: Underlay, hosts_per_leaf: int) -> dict[int, tuple[str, str, int]]:
    """Namespaces, veths and host addresses; {leaf: (first host namespace, its address, its
    gateway)}."""
    leaf_side, srv_side = u.host_addresses()
    host_rows: list[int] = []
    for s in u.leaves().tolist():
        host_rows += np.flatnonzero(u.h_leaf == s)[: max(1, hosts_per_leaf)].tolist()
    lab.add_namespaces([f"s{s}" for s in range(u.n)] + [f"h{r}" for r in host_rows])
    p = lab.prefix
    pairs = [(p + f"s{int(u.a[c])}", u.iface(int(u.a[c]), int(u.a_port[c])),
              p + f"s{int(u.b[c])}", u.iface(int(u.b[c]), int(u.b_port[c])))
             for c in range(u.a.size)]
    pairs += [(p + f"h{r}", "eth0", p + f"s{int(u.h_leaf[r])}",
               u.iface(int(u.h_leaf[r]), int(u.h_leaf_port[r]))) for r in host_rows]
    macs = lab.add_veths(pairs)
    # permanent neighbour entries on both ends of every cable: the kernel's ARP table is
    # shared by all namespaces and holds 1,024 learned entries by default, fewer than the
    # cable ends of a 2-SU fabric; permanent entries do not count against that limit
    addr_a = [int(x) for x in u.p2p] + [int(leaf_side[r]) for r in host_rows]
    neigh: dict[str, list[str]] = {}
    for (na, ia, nb, ib), (ma, mb), lo in zip(pairs, macs, addr_a, strict=True):
        neigh.setdefault(na, []).append(f"neigh replace {ip(lo + 1)} lladdr {mb} dev {ia} "
                                        "nud permanent")
        neigh.setdefault(nb, []).append(f"neigh replace {ip(lo)} lladdr {ma} dev {ib} "
                                        "nud permanent")
    for r in host_rows:
        hns = p + f"h{r}"
        lab.batch(hns, [f"addr add {ip(int(srv_side[r]))}/31 dev eth0",
                        f"route add default via {ip(int(leaf_side[r]))}"])
    for ns, lines in neigh.items():
        lab.batch(ns, lines)
    first: dict[int, tuple[str, str, int]] = {}
    for r in host_rows:
        hns = p + f"h{r}"
        first.setdefault(int(u.h_leaf[r]), (hns, ip(int(srv_side[r])), int(leaf_side[r])))
    return first


def _sessions(lab: Lab, u: Underlay, ns: list[str], alive: np.ndarray,
              pool: ThreadPoolExecutor) -> tuple[int, int]:
    """(cables whose session is Established at both ends, cables between live switches)."""
    idx = np.flatnonzero(alive).tolist()
    summaries = pool.map(lambda s: lab.vtysh(ns[s], "show bgp ipv4 unicast summary json"), idx)
    up: set[tuple[int, str]] = set()
    for s, data in zip(idx, summaries, strict=True):
        for peer, info in (data.get("peers") or {}).items():
            if info.get("state") == "Established":
                up.add((s, peer))
    live = alive[u.a] & alive[u.b]
    n_up = 0
    for c in np.flatnonzero(live).tolist():
        lo, hi = ip(int(u.p2p[c])), ip(int(u.p2p[c]) + 1)
        n_up += (int(u.a[c]), hi) in up and (int(u.b[c]), lo) in up
    return n_up, int(live.sum())


def _widths(lab: Lab, u: Underlay, ns: list[str], exp: Expected,
            pool: ThreadPoolExecutor) -> np.ndarray:
    """(leaves, leaves) ECMP width of each leaf's installed route to each other leaf's server
    block (0: no route)."""
    prefixes = [f"{ip(int(u.block[d]))}/{u.block_prefix}" for d in exp.leaves.tolist()]
    tables = pool.map(lambda s: lab.vtysh(ns[s], "show ip route bgp json", "zebra"),
                      exp.leaves.tolist())
    out = np.zeros((exp.leaves.size, exp.leaves.size), np.int64)
    for i, table in enumerate(tables):
        for j, pfx in enumerate(prefixes):
            for entry in table.get(pfx, []):
                if entry.get("selected") and entry.get("installed", True):
                    out[i, j] = sum(1 for nh in entry.get("nexthops", []) if nh.get("fib"))
    return out


def _traceroutes(lab: Lab, exp: Expected, hosts: dict[int, tuple[str, str, int]]) -> np.ndarray:
    """(leaves, leaves) switches crossed from the first host of one leaf to another's
    (-1: the destination did not answer, also when asked a second time)."""
    leaves = exp.leaves.tolist()
    out = np.full((len(leaves), len(leaves)), -1, np.int64)
    np.fill_diagonal(out, 1)
    jobs = {}
    for i, s in enumerate(leaves):
        if s in hosts:
            jobs[i] = (hosts[s][0], [(j, hosts[d][1]) for j, d in enumerate(leaves)
                                     if d != s and d in hosts])
    _trace_pass(lab, jobs, out, "-N 1 -q 1 -w 1")
    # A lost answer can only lengthen a path (the destination cannot answer a probe that
    # expired before it), so pairs without an answer or off the design are asked again,
    # more patiently, and the shorter count kept: a path that really is longer stays longer.
    retry = {i: (ns, [(j, a) for j, a in dests if out[i, j] != exp.switch_hops[i, j]])
             for i, (ns, dests) in jobs.items()}
    retry = {i: job for i, job in retry.items() if job[1]}
    if retry:
        again = np.full_like(out, -1)
        _trace_pass(lab, retry, again, "-N 1 -q 2 -w 3")
        better = (again >= 0) & ((out < 0) | (again < out))
        out[better] = again[better]
    return out


def _trace_pass(lab: Lab, jobs: dict[int, tuple[str, list[tuple[int, str]]]], out: np.ndarray,
                options: str) -> None:
    """One traceroute per (source, destination), a shell per source namespace, all sources
    at once; fills ``out`` with the switches crossed where the destination answered."""
    procs = []
    for i, (ns, dests) in jobs.items():
        script = "; ".join(f"echo @@ {j}; traceroute -n {options} -m 12 {a} 2>&1"
                           for j, a in dests)
        procs.append((i, dict(dests), subprocess.Popen(
            [lab.tools["ip"], "netns", "exec", ns, "sh", "-c", script],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)))
    for i, dests, p in procs:
        try:
            text, _ = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            text, _ = p.communicate()
        with open(lab.folder / f"traceroute-{i}.txt", "a") as fh:
            fh.write(text)
        j = -1
        for line in text.splitlines():
            if line.startswith("@@ "):
                j = int(line[3:])
                continue
            m = _HOP.match(line)
            # a hop line names one address per answering probe; the destination's own
            # answer ends the path
            if m and j >= 0 and dests.get(j) in line.split():
                out[i, j] = int(m.group(1)) - 1


def _measure(lab: Lab, u: Underlay, ns: list[str], exp: Expected,
             hosts: dict[int, tuple[str, str, int]], t0: float, timeout_s: float,
             stop: Callable[[], bool], say: Progress, span: tuple[float, float],
             down: np.ndarray | None = None) -> PhaseReport:
    """Poll until sessions are up and the leaf routes match the design (or stop changing),
    then check routes and hops."""
    alive = np.ones(u.n, bool) if down is None else ~down
    want = exp.ecmp.copy()
    np.fill_diagonal(want, 0)
    with ThreadPoolExecutor(max_workers=4) as pool:
        last = None
        stable_since = 0.0
        converged = None
        sessions = (0, 0)
        widths = np.zeros_like(want)
        while True:
            if stop():
                raise CheckCancelled("cancelled")
            sessions = _sessions(lab, u, ns, alive, pool)
            if sessions[0] == sessions[1]:
                widths = _widths(lab, u, ns, exp, pool)
                np.fill_diagonal(widths, 0)
                if np.array_equal(widths, want):
                    converged = time.monotonic() - t0
                    break
                if last is None or not np.array_equal(widths, last):
                    stable_since = time.monotonic()
                last = widths
                # routes unchanged for a while: settled, just not as the design says
                if time.monotonic() - stable_since >= SETTLE_S:
                    converged = stable_since - t0
                    break
            elapsed = time.monotonic() - t0
            if elapsed > timeout_s:
                if sessions[0] == sessions[1] or sessions[0]:
                    widths = _widths(lab, u, ns, exp, pool)
                    np.fill_diagonal(widths, 0)
                break
            frac = span[0] + (span[1] - span[0]) * min(1.0, elapsed / timeout_s)
            say(frac, f"{sessions[0]} of {sessions[1]} BGP sessions up after {elapsed:.1f} s")
            time.sleep(POLL_S)
    say(span[1], "tracing routes between leaves")
    hops = _traceroutes(lab, exp, hosts)
    off = ~np.eye(exp.leaves.size, dtype=bool)
    ecmp_bad = off & (widths != want)
    hop_bad = off & (hops != exp.switch_hops)
    names = [u.names[s] for s in exp.leaves.tolist()]
    return PhaseReport(
        sessions_up=sessions[0],
        sessions_expected=sessions[1],
        routes_checked=int(off.sum()),
        routes_missing=int((off & (widths == 0)).sum()),
        ecmp_mismatches=int(ecmp_bad.sum()),
        hop_mismatches=int(hop_bad.sum()),
        converged_s=None if converged is None else round(converged, 2),
        ecmp_widths=_histogram(widths[off]),
        ecmp_expected=_histogram(want[off]),
        hops=_histogram(hops[off]),
        hops_expected=_histogram(exp.switch_hops[off]),
        examples=_examples(names, ecmp_bad, widths, want, hop_bad, hops, exp.switch_hops),
    )


def _histogram(values: np.ndarray) -> dict[int, int]:
    v, c = np.unique(values, return_counts=True)
    return {int(a): int(b) for a, b in zip(v, c, strict=True)}


def _examples(names, ecmp_bad, widths, want, hop_bad, hops, exp_hops, limit: int = 10):
    out = []
    for i, j in np.argwhere(ecmp_bad)[:limit].tolist():
        out.append(f"{names[i]} -> {names[j]}: {widths[i, j]} equal-cost next hops, "
                   f"design {want[i, j]}")
    for i, j in np.argwhere(hop_bad)[:limit].tolist():
        got = "no answer" if hops[i, j] < 0 else f"{hops[i, j]} switches"
        out.append(f"{names[i]} -> {names[j]}: traceroute {got}, design {exp_hops[i, j]}")
    return tuple(out)


__all__ = ["LabError", "ToolsMissing", "check_roce"]
