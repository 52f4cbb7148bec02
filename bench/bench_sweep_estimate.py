"""How well the sweep's time estimate per design follows what a design costs.

The sweep sends its designs out largest first, in batches sized by the estimate
(``designer.core.sweep.cost.estimate_s``): a design estimated far too small is scheduled
late and can alone set the end of the run. Here designs of every generator at several sizes
are built and solved one after the other in this process (as a worker does), each its best of
``--repeat`` runs, and set against the estimate: per design the measured and estimated
seconds and their ratio (T: the solver built the table of switch distances), then per
estimate (the old rule, GPUs only, and the current one) the rank correlation (Spearman) and
the largest ratio error either way.

Then, for this mix and for the bundled DeepSeek sweep, the schedule each estimate gives on
2 and 4 local workers, replayed with the measured times (batches as ``make_batches`` forms
them, each taken by the first free worker, in order; no overhead): its end against the floor
no schedule beats (the larger of the longest design and the work over the workers). Unlike a
wall time, this does not move with the machine's load.

``--fit`` prints, per family, the least-squares coefficients of the current rule's terms
from these measurements: how the coefficients in ``designer/core/sweep/cost.py`` were found.
Run: python bench/bench_sweep_estimate.py [--repeat 1] [--fit] [--only dragonfly]
(a shared machine gives noisy times: the load is printed; keep it to a few runs)
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from designer.core.catalog import builtin_catalog
from designer.core.solver import solve
from designer.core.sweep import load_spec, spec_from_dict
from designer.core.sweep import run as sweep_run
from designer.core.sweep.cost import estimate_s, family, terms
from designer.core.sweep.points import Point, expand
from designer.core.sweep.worker import build, run_point, warm_up

DEEPSEEK = Path(__file__).resolve().parent.parent / \
    "projects/deepseek-isca2025-cost-per-endpoint.sweep.yaml"

# (generator, parameters): every family at 3 or more sizes, from a few hundred GPUs to the
# largest the bundled sweeps build (a 262,656-endpoint dragonfly)
CASES: list[tuple[str, dict]] = [
    *[("fat-tree", {"tiers": 2, "gpus": g}) for g in (256, 1024, 2048)],
    *[("fat-tree", {"tiers": 3, "gpus": g}) for g in (4096, 16384, 32768, 65536)],
    ("fat-tree", {"tiers": 3, "gpus": 16384, "oversubscription": "3:1"}),
    ("fat-tree", {"gpus": 8192, "gear": "roce-800"}),
    *[("fat-tree", {"tiers": 2, "gpus": g, "gpus_per_server": 1, "planes": 8})
      for g in (256, 1024, 2048)],
    *[("rail", {"sus": s}) for s in (1, 4, 16, 64)],
    *[("rail", {"sus": s, "planes": n, "server": "gpu-server-8"}) for s, n in
      ((4, 2), (16, 2), (16, 4))],
    ("rail-only", {"gpus": 4096, "planes": 2, "server": "gpu-server-8"}),
    *[("rail-only", {"gpus": g}) for g in (1024, 8192, 16384)],
    # (a balanced dragonfly of p = 2 is 72 GPUs: milliseconds, nothing to rank)
    *[("dragonfly", {"p": p, "a": 2 * p, "h": p}) for p in (4, 6, 8, 10, 12, 16)],
    ("dragonfly", {"p": 8, "a": 16, "h": 8, "groups": 33}),
    ("dragonfly", {"p": 4, "a": 16, "h": 4, "groups": 40}),
    ("dragonfly", {"p": 10, "a": 20, "h": 10, "groups": 101}),
    ("dragonfly", {"p": 10, "a": 20, "h": 10, "groups": 51}),
    ("dragonfly", {"p": 6, "a": 12, "h": 6, "groups": 37}),
    ("dragonfly", {"p": 8, "a": 16, "h": 8, "arrangement": "circulant"}),
]


def old_estimate(p: Point) -> float:
    """The rule before: a few ms plus 8 us per GPU."""
    return 0.003 + 8e-6 * p.gpus


def points(only: str | None) -> list[Point]:
    gen = [{"kind": k, "gear": "ib-ndr"} | kw for k, kw in CASES if only in (None, k)]
    pts = expand(spec_from_dict({"name": "estimate", "generate": gen}))
    return [p for p in pts if not p.error]


def measure(p: Point, repeat: int) -> tuple[float, bool]:
    """Best of ``repeat`` build-and-solve times (as a worker runs them: ``run_point``), and
    whether the solver built the table of switch distances (its min-plus chain)."""
    best = float("inf")
    for _ in range(repeat):
        o = run_point(p, None, None)
        if o.error:
            raise SystemExit(f"{p.label()}: {o.error}")
        best = min(best, o.seconds)
    project = build(p)
    method = solve(project, catalog=project.catalog(builtin_catalog())).path_method
    return best, "min-plus" in method


def replay(pts: list[Point], took: dict[int, float], workers: int, estimate) -> float:
    """When the last batch ends: batches by ``make_batches`` with ``estimate``, taken in
    order by whichever worker is free first, each point costing what it was measured at."""
    saved = sweep_run.estimate_s
    sweep_run.estimate_s = estimate  # make_batches ranks and sizes by the module's estimate
    try:
        batches = sweep_run.make_batches(pts, workers, sweep_run.POOL_BATCH_S)
    finally:
        sweep_run.estimate_s = saved
    free = [0.0] * workers
    for b in batches:
        i = free.index(min(free))
        free[i] += sum(took[p.index] for p in b)
    return max(free)


def schedules(name: str, pts: list[Point], took: dict[int, float]) -> None:
    for w in (2, 4):
        floor = max(max(took.values()), sum(took.values()) / w)
        old, now = replay(pts, took, w, old_estimate), replay(pts, took, w, estimate_s)
        print(f"{name}, {w} workers: floor {floor:.2f} s; old estimate's schedule "
              f"{old:.2f} s ({old / floor:.2f}x the floor), now {now:.2f} s "
              f"({now / floor:.2f}x)")


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    return float(np.corrcoef(ra, rb)[0, 1])


def fit(pts: list[Point], t: np.ndarray, table: list[bool]) -> None:
    """Per family: least squares of time against the rule's terms, weighted by 1/time so
    that a small design's error counts as much as a large one's (a relative fit). The table
    term counts only where the solver built the table: its coefficient is what the table
    costs when it is built (the estimate then counts it wherever it may be)."""
    for fam in sorted({family(p) for p in pts}):
        idx = [i for i, p in enumerate(pts) if family(p) == fam]
        x = np.array([terms(pts[i]) for i in idx], float)
        x[:, 2] *= [table[i] for i in idx]
        y = t[idx]
        w = 1.0 / y
        coef, *_ = np.linalg.lstsq(x * w[:, None], y * w, rcond=None)
        names = ["fixed", "per link", "per table entry"][: x.shape[1]]
        print(f"fit {fam:10s} ({len(idx)} designs): "
              + ", ".join(f"{n} {c:.3g}" for n, c in zip(names, coef, strict=True)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    warm_up()
    pts = points(args.only)
    run_point(pts[0], None, None)  # the first design of a process pays for lazy imports
    print(f"{len(pts)} designs; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}")
    t0 = time.perf_counter()
    rows = []
    took_table = []
    for p in pts:
        m, tab = measure(p, args.repeat)
        rows.append((p, m, old_estimate(p), estimate_s(p)))
        took_table.append(tab)
        print(f"  {p.label()[:52]:52s} {p.gpus:8,d} GPUs {'T' if tab else ' '} "
              f"{m:7.3f} s measured, "
              f"{old_estimate(p):7.3f} old ({old_estimate(p) / m:5.2f}x), "
              f"{estimate_s(p):7.3f} now ({estimate_s(p) / m:5.2f}x)", flush=True)
    t = np.array([r[1] for r in rows])
    for name, col in (("old (GPUs only)", 2), ("now (family rule)", 3)):
        e = np.array([r[col] for r in rows])
        ratio = e / t
        worst = max(float(ratio.max()), float(1 / ratio.min()))
        print(f"{name:18s}: rank correlation {spearman(t, e):.3f}; ratio estimate/measured "
              f"{ratio.min():.2f}-{ratio.max():.2f} (worst {worst:.1f}x either way)")
    print(f"measured in {time.perf_counter() - t0:.0f} s; load now {os.getloadavg()[0]:.2f}")
    schedules("this mix", pts, {p.index: r[1] for p, r in zip(pts, rows, strict=True)})
    ds = [p for p in expand(load_spec(DEEPSEEK)) if not p.error]
    took = {p.index: measure(p, args.repeat)[0] for p in ds}
    print("DeepSeek sweep: " + ", ".join(
        f"{p.kind} {p.gpus:,} GPUs {took[p.index]:.2f} s (est. {estimate_s(p):.2f}, "
        f"old {old_estimate(p):.2f})" for p in sorted(ds, key=lambda q: -took[q.index])))
    schedules("DeepSeek sweep", ds, took)
    if args.fit:
        fit(pts, t, took_table)


if __name__ == "__main__":
    main()
