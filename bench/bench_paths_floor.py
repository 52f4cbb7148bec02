"""Hops and latency when every cable has its own length (a placed floor plan).

Real lengths make GPU classes that attached alike differ, so the search once per colour of
alike classes turns into thousands of searches. The switch-pair method builds the exact
distribution from attachment-switch distances (a min-plus chain) and cable-length counts.

For 16,384 GPUs (DGX SuperPOD 64 SU, 3-tier fat-tree) and 65,536 GPUs (3-tier fat-tree),
each placed on its default floor plan, it prints
the whole solve without and with the floor plan, the hops-and-latency stage by the class
search ("before") and by the switch-pair method ("after"), and the plain approach: one
shortest-path search from every attachment switch (scipy Dijkstra, timed on 64 sources and
scaled), which is what any exact method must beat. Target: a 65,536-GPU solve with its floor
plan under 1.5 s.

Run: PYTHONPATH=. python bench/bench_paths_floor.py [--no-before]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.sparse.csgraph import dijkstra

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import best_of
from bench_solver import cancel_latency, gil_gaps

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.physical.floor import Physical
from designer.core.physical.placement import default_floor
from designer.core.solver import paths, solve
from designer.core.solver.compile import compile_project

CASES = (
    ("16,384 GPUs: DGX SuperPOD 64 SU", "rail", {"sus": 64}),
    ("16,384 GPUs: 3-tier fat-tree", "fat-tree", {"gpus": 16384, "tiers": 3}),
    ("65,536 GPUs: 3-tier fat-tree", "fat-tree", {"gpus": 65536, "tiers": 3}),
    ("16,384 GPUs: rail design, two planes (two cables per GPU)", "rail",
     {"sus": 64, "planes": 2, "server": "gpu-server-8"}),
)
TARGET_S = 1.5


def plain_seconds(c) -> float:
    """One Dijkstra per attachment switch, timed on up to 64 of them and scaled."""
    graph = paths._graph(c)
    att = np.unique(c.classes.att_switch)
    some = att[:64]
    t0 = time.perf_counter()
    dijkstra(graph, directed=True, indices=some)
    return (time.perf_counter() - t0) * att.size / max(some.size, 1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-before", action="store_true", help="skip the slow class search")
    args = ap.parse_args()
    cat = builtin_catalog()
    ok = True
    for label, kind, values in CASES:
        p = generate(params_from_dict(kind, values))
        cat = p.catalog(builtin_catalog())
        placed = p.evolve(physical=Physical(floor=default_floor(p, cat)))
        solve(p)  # warm caches
        t_plain_solve, _ = best_of(lambda p=p: solve(p), repeat=3)
        t_solve, r = best_of(lambda q=placed: solve(q), repeat=3)
        c = compile_project(placed, cat)
        t_after, s = best_of(lambda c=c: paths.path_stats(c), repeat=3)
        line = (f"{label}: {c.n_switches:,} switches, {c.classes.n:,} GPU classes "
                f"({s.colours:,} colours)\n"
                f"  solve without floor plan {t_plain_solve:.3f} s; with it {t_solve:.3f} s "
                f"(target < {TARGET_S} s) [{r.path_method[:40]}...]\n"
                f"  hops+latency stage: after {t_after:.3f} s")
        if not args.no_before:
            paths.FORCE_SWITCH_PAIRS = False
            try:
                t_before, b = best_of(lambda c=c: paths.path_stats(c), repeat=1)
            finally:
                paths.FORCE_SWITCH_PAIRS = None
            same = b.hops.to_json() == s.hops.to_json() and all(
                abs(b.latency.to_json()[k] - s.latency.to_json()[k]) < 2e-4
                for k in ("min", "mean", "p50", "p99", "max"))
            line += (f", before {t_before:.2f} s ({b.searches:,} searches): "
                     f"{t_before / t_after:.0f}x; same figures: {same}")
            ok &= same
        t_plain = plain_seconds(c)
        line += (f"\n  plain (Dijkstra from each of {np.unique(c.classes.att_switch).size:,} "
                 f"attachment switches): {t_plain:.2f} s, {t_plain / t_after:.0f}x the stage")
        lat = s.latency
        line += (f"\n  latency p50 {lat.p50_us:.4f} us, p99 {lat.p99_us:.4f} us, "
                 f"max {lat.max_us:.4f} us")
        if c.n_gpus >= 65536:
            gap = gil_gaps(placed)
            stop = cancel_latency(placed)
            line += (f"\n  in a worker thread: longest GIL hold {gap * 1000:.1f} ms; "
                     f"a cancel stops it within {stop * 1000:.0f} ms")
        print(line, flush=True)
        ok &= t_solve < TARGET_S or c.n_gpus < 65536
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
