"""Traffic model speed (issue 13 targets) and a ratio against a plain baseline.

Targets on a 2-core machine: a permutation on 65,536 GPUs under ECMP, one trial, under 2 s;
all-to-all on 65,536 GPUs under adaptive routing under 5 s (by GPU class); an N-1 table for
a 16,384-GPU design under 10 s; a what-if at 16,384 GPUs under 1 s. Measured too (no target
in the issue): a permutation under adaptive routing on 16,384 and 65,536 GPUs, through the
factored spray (spray.py), against listing every flow's paths (route_spray) on 16,384.
Times exclude generating and compiling the design (the window has the compiled design
already) but include building the traffic network and its distances.

Baseline: the plain approach to the same ECMP permutation, one flow at a time in Python (pick
a next hop per switch, then progressive filling with a loop over flows per round), timed on
2,000 flows and scaled to the full count.

Run: python bench/bench_traffic.py [--quick]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from designer.core.traffic import load as load_mod
from designer.core.traffic import run_load
from designer.core.traffic.failures import n_minus_1, what_if
from designer.core.traffic.network import build_network
from designer.core.traffic.patterns import permutation
from designer.core.traffic.spray import applies as spray_applies


def compiled(kind: str, **params):
    p = generate(params_from_dict(kind, params))
    return compile_project(p, p.catalog(builtin_catalog()))


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def baseline_ecmp(c, net, n_flows: int) -> float:
    """Seconds for ``n_flows`` of a permutation routed and filled one flow at a time."""
    p = permutation(c, 0)
    src, dst = p.src[:n_flows].tolist(), p.dst[:n_flows].tolist()
    ptr, pdst = net.port_ptr.tolist(), net.port_dst.tolist()
    dist = net.dist
    cls = c.gpu_class.tolist()
    att_ptr, att_sw = net.att_ptr.tolist(), net.att_switch.tolist()
    rng = random.Random(0)
    t0 = time.perf_counter()
    paths = []
    for s, d in zip(src, dst, strict=True):
        u = att_sw[att_ptr[s]]
        k = att_ptr[s]
        path = [net.n_ports + 2 * k]
        while dist[u, cls[d]] > 0:
            here = dist[u, cls[d]]
            cand = [e for e in range(ptr[u], ptr[u + 1]) if dist[pdst[e], cls[d]] == here - 1]
            e = rng.choice(cand)
            path.append(e)
            u = pdst[e]
        path.append(net.n_ports + 2 * att_ptr[d] + 1)
        paths.append(path)
    cap = {}
    rate = [0.0] * len(paths)
    frozen = [False] * len(paths)
    while not all(frozen):
        use: dict[int, int] = {}
        for f, path in enumerate(paths):
            if not frozen[f]:
                for e in path:
                    use[e] = use.get(e, 0) + 1
        share = min((cap.get(e, 400.0)) / n for e, n in use.items())
        hit = set()
        for e, n in use.items():
            cap[e] = cap.get(e, 400.0) - share * n
            if cap[e] <= 1e-9:
                hit.add(e)
        for f, path in enumerate(paths):
            if not frozen[f]:
                rate[f] += share
                if hit.intersection(path) or rate[f] >= 400.0:
                    frozen[f] = True
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="16,384 GPUs only")
    args = ap.parse_args()
    rows = []
    if not args.quick:
        c = compiled("fat-tree", k_ary=64)
        print(f"65,536 GPUs (k-ary 64 fat tree): {c.n_switches:,} switches, "
              f"{c.classes.n:,} GPU classes")
        t_net, net = timed(lambda: build_network(c))
        t_perm, r = timed(lambda: run_load(c, "permutation", "ecmp", net=net))
        rows.append(("permutation, ECMP, 1 trial (+ network)", t_perm + t_net, 2.0))
        print(f"  network {t_net:.2f} s, permutation ECMP {t_perm:.2f} s, "
              f"min {r.throughput['min']:.3f}, mean {r.throughput['mean']:.3f}")
        t_ad, r = timed(lambda: run_load(c, "permutation", "adaptive", net=net))
        rows.append(("permutation, adaptive (factored spray)", t_ad + t_net, float("nan")))
        print(f"  permutation adaptive {t_ad:.2f} s, min {r.throughput['min']:.3f}")
        t_a2a, r = timed(lambda: run_load(c, "all-to-all", "adaptive", net=net))
        rows.append(("all-to-all, adaptive (by class)", t_a2a + t_net, 5.0))
        print(f"  all-to-all adaptive {t_a2a:.2f} s, throughput {r.throughput['min']:.3f}")
        n_base = 2000
        t_base = baseline_ecmp(c, net, n_base) * c.n_gpus / n_base
        print(f"  plain baseline (per-flow Python, scaled from {n_base:,} flows): "
              f"{t_base:.1f} s -> ratio {t_base / t_perm:.0f}x")
    c16 = compiled("fat-tree", gpus=16384, tiers=3)
    print(f"16,384 GPUs (3-tier fat tree): {c16.n_switches:,} switches")
    net16 = build_network(c16)
    t_ad, r = timed(lambda: run_load(c16, "permutation", "adaptive", net=net16))
    rows.append(("permutation, adaptive (factored spray)", t_ad, float("nan")))
    print(f"  permutation adaptive {t_ad:.2f} s, min {r.throughput['min']:.3f}")
    if not args.quick:
        # baseline: the same run listing every flow's paths (route_spray) and filling on
        # that incidence, as the fluid model ran before the factored spray
        load_mod.applies = lambda *_: False
        try:
            t_list, r0 = timed(lambda: run_load(c16, "permutation", "adaptive", net=net16))
        finally:
            load_mod.applies = spray_applies
        same = np.allclose(r0.t, r.t, rtol=1e-9)
        print(f"  listing every path instead: {t_list:.1f} s -> ratio {t_list / t_ad:.0f}x "
              f"(same rates: {same})")
    t_wa, w = timed(lambda: what_if(c16, ["spine:1"], routing="adaptive",
                                    pattern="permutation"))
    print(f"  what-if spine:1 under adaptive {t_wa:.2f} s, slowdown {w.slowdown:.4f}")
    t_n1, table = timed(lambda: n_minus_1(c16, "spine", routing="ecmp",
                                          pattern="permutation"))
    rows.append(("N-1 table over the spines (ECMP permutation)", t_n1, 10.0))
    print(f"  N-1 spine: {len(table)} class(es) in {t_n1:.2f} s")
    t_wi, w = timed(lambda: what_if(c16, ["spine:1"], routing="ecmp", pattern="permutation"))
    rows.append(("what-if, one spine (ECMP permutation)", t_wi, 1.0))
    print(f"  what-if spine:1 {t_wi:.2f} s, bisection retained {w.bisection_retained:.4f}")
    if not args.quick:
        dragonfly(rows)
    print()
    print(f"{'target':48} {'seconds':>8} {'limit':>6}")
    for name, t, limit in rows:
        verdict = "" if limit != limit else ("ok" if t < limit else "OVER")  # nan: no target
        print(f"{name:48} {t:8.2f} {limit:6.1f} {verdict}")


def dragonfly(rows: list) -> None:
    """The largest dragonfly the generators make (262,656 GPUs, 16,416 routers: every router
    its own neighbour set, so one distance search per router), against scipy's breadth-first
    search one router at a time (timed on 256 routers and scaled)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    from designer.core.traffic import maxmin
    from designer.core.traffic.network import class_distances

    c = compiled("dragonfly")
    print(f"{c.n_gpus:,} GPUs (balanced dragonfly): {c.n_switches:,} routers")
    t_dist, _ = timed(lambda: class_distances(c))
    S = c.n_switches
    g = csr_matrix((np.ones(c.indices.size), c.indices, c.indptr), shape=(S, S))
    n = 256
    t_sp, _ = timed(lambda: shortest_path(g, unweighted=True, directed=False,
                                          indices=np.arange(n)))
    t_sp *= S / n
    print(f"  distances to every class {t_dist:.2f} s; one BFS per router (scipy, scaled "
          f"from {n}) {t_sp:.0f} s -> ratio {t_sp / t_dist:.0f}x")
    net = build_network(c)
    t_e, r = timed(lambda: run_load(c, "permutation", "ecmp", net=net))
    rows.append(("dragonfly 262,656 GPUs, permutation, ECMP", t_e, float("nan")))
    print(f"  permutation ECMP {t_e:.2f} s, min {r.throughput['min']:.3f}")
    seen = []
    real = maxmin.fill

    def counted(*a, **k):
        out = real(*a, **k)
        seen.append(out[1])
        return out

    maxmin.fill = counted
    try:
        t_a, r = timed(lambda: run_load(c, "permutation", "adaptive", net=net))
    finally:
        maxmin.fill = real
    rows.append(("dragonfly 262,656 GPUs, permutation, adaptive", t_a, float("nan")))
    print(f"  permutation adaptive {t_a:.2f} s over {max(seen):,} fair-share levels, "
          f"p50 {r.throughput['p50']:.3f}, mean {r.throughput['mean']:.3f}")


if __name__ == "__main__":
    main()
