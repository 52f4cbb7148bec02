"""The hops-and-latency stage across sizes of one family: no size slower per GPU than a
larger one (issue 29), and the stage against scipy's Dijkstra in the same run.

For each size the design is generated and compiled once, then ``path_stats`` (the solver's
hops stage) runs ``--repeat`` times; the best is kept, in CPU time of this thread (a shared
machine's queue for a core does not count) and in wall time. Baseline: the same stage with
every shortest-path search done by ``scipy.sparse.csgraph.dijkstra`` (the method before the
level-by-level search), in the same process.

Run: python bench/bench_hops_sizes.py [--repeat 5] [--family fat-tree|rail|all]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver import layered, paths
from designer.core.solver.compile import compile_project

FAMILIES = {
    "fat-tree": ("fat-tree", "gpus", [1024, 2048, 4096, 8192, 16384, 32768, 65536],
                 {"tiers": 3}),
    "rail": ("rail", "sus", [1, 2, 4, 8, 16, 32, 64], {}),
}


def best(fn, repeat: int) -> tuple[float, float]:
    cpu, wall = float("inf"), float("inf")
    for _ in range(repeat):
        c0, w0 = time.thread_time(), time.perf_counter()
        fn()
        cpu, wall = min(cpu, time.thread_time() - c0), min(wall, time.perf_counter() - w0)
    return cpu, wall


def with_dijkstra(c):
    real = paths.layered_distances
    paths.layered_distances = lambda *a, **k: None  # every search falls back to Dijkstra
    try:
        return paths.path_stats(c)
    finally:
        paths.layered_distances = real


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--family", default="all", choices=["all", *FAMILIES])
    args = ap.parse_args()
    fams = FAMILIES if args.family == "all" else {args.family: FAMILIES[args.family]}
    print(f"hops stage, best of {args.repeat}; {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}; CPU ms of the solving thread (wall ms)")
    assert layered.HOP_WEIGHT  # the module the stage searches with
    ok = True
    for name, (kind, key, sizes, extra) in fams.items():
        print(f"\n{name}: {'GPUs':>7} {'ms':>14} {'us/GPU':>7} {'Dijkstra ms':>12} {'ratio':>6}"
              f"  method")
        per_gpu = []
        for size in sizes:
            p = generate(params_from_dict(kind, {key: size, **extra}))
            c = compile_project(p, p.catalog(builtin_catalog()))
            r = paths.path_stats(c)
            cpu, wall = best(lambda c=c: paths.path_stats(c), args.repeat)
            d_cpu, _ = best(lambda c=c: with_dijkstra(c), max(1, args.repeat // 2))
            per_gpu.append((c.n_gpus, cpu / c.n_gpus))
            print(f"{'':9} {c.n_gpus:>7,} {cpu * 1000:6.1f} ({wall * 1000:5.0f}) "
                  f"{cpu / c.n_gpus * 1e6:7.2f} {d_cpu * 1000:12.1f} {d_cpu / cpu:6.1f}  "
                  f"{r.method[:60]}")
        slower = [(g1, g2) for (g1, t1) in per_gpu for (g2, t2) in per_gpu
                  if g1 < g2 and t1 * g1 > t2 * g2]
        per = [(g1, g2) for (g1, t1) in per_gpu for (g2, t2) in per_gpu if g1 < g2 and t1 > t2]
        ok = ok and not slower
        print(f"  a size slower than a larger one: "
              f"{', '.join(f'{a:,} > {b:,}' for a, b in slower) or 'none'} "
              f"(target: none) {'ok' if not slower else 'NOT met'}")
        print(f"  a size slower per GPU than a larger one: "
              f"{', '.join(f'{a:,} > {b:,}' for a, b in per) or 'none'}")
    print(f"\nall families: {'ok' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
