"""Sweep speed (issue 15 targets, 2 cores): 1,000 designs of up to 4,096 GPUs in under 60 s;
2 Dask workers at least 1.7x faster than 1 on the same sweep; under 5 ms of overhead per
design.

The sweep: 3-tier-capable fat-trees of 64 to 4,096 GPUs (every 64) x 4 gear profiles x
4 oversubscriptions = 1,024 designs. Baseline: the same designs built and solved one after
the other in this process, no Dask. Overhead per design = (Dask wall time x workers - the
build-and-solve time the workers report) / designs, with and without the cluster start.
Run: python bench/bench_sweep.py [--points N]   (a shared or busy machine gives noisy times)
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from designer.core.sweep import expand, run_sweep, spec_from_dict


def spec(step: int):
    return spec_from_dict({
        "name": "bench",
        "generate": {"kind": "fat-tree", "gpus": {"min": 64, "max": 4096, "step": step},
                     "gear": ["ib-ndr", "ib-xdr", "roce-400", "roce-800"],
                     "oversubscription": ["1:1", "2:1", "3:1", "4:1"]},
    })


def _noop(i: int) -> int:
    return i


def task_round_trip(tasks: int = 300) -> float:
    """Seconds per empty task through the same executor a sweep uses (1 local worker)."""
    from concurrent.futures import wait

    from designer.core.sweep.run import dask_executor

    with dask_executor(1, None) as (ex, _n, _where):
        wait([ex.submit(_noop, -1)])
        t0 = time.perf_counter()
        wait([ex.submit(_noop, i) for i in range(tasks)])
        return (time.perf_counter() - t0) / tasks


def cpu_seconds() -> float:
    """CPU time of this process and of its ended children (the workers, once the local
    cluster has closed): unlike wall time, it does not grow while other jobs hold the cores."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


CPU: dict[str, float] = {}


def timed(s, workers: int, label: str = ""):
    c0 = cpu_seconds()
    t0 = time.perf_counter()
    run = run_sweep(s, workers=workers)
    wall = time.perf_counter() - t0
    CPU[label] = cpu_seconds() - c0
    work = sum(o.seconds for o in run.outcomes.values())
    return wall, work, run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--step", type=int, default=64, help="GPU step (64: 1,024 designs)")
    args = ap.parse_args()
    s = spec(args.step)
    n = len(expand(s))
    print(f"{n:,} designs of 64-4,096 GPUs; {os.cpu_count()} CPUs; load "
          f"{os.getloadavg()[0]:.1f}")
    start, _, _ = timed(spec_from_dict({"generate": {"kind": "rail", "sus": 1}}), 1, "start1")
    print(f"cluster start + 1 design (1 worker): {start:.2f} s")
    base, _, run0 = timed(s, 0, "base")
    print(f"baseline, in process: {base:.2f} s ({base / n * 1000:.1f} ms per design, "
          f"{run0.failed} refused or failed)")
    w1, work1, run1 = timed(s, 1, "w1")
    print(f"Dask, 1 worker:  {w1:.2f} s in {run1.batches} batches")
    w2, work2, run2 = timed(s, 2, "w2")
    print(f"Dask, 2 workers: {w2:.2f} s in {run2.batches} batches")
    print(f"speed-up 2 workers vs 1: {w1 / w2:.2f}x (target >= 1.7x); "
          f"2 workers vs the in-process baseline: {base / w2:.2f}x")
    for label, wall, work, k in (("1 worker", w1, work1, 1), ("2 workers", w2, work2, 2)):
        over = (wall * k - work) / n * 1000
        over_run = ((wall - start) * k - work) / n * 1000
        print(f"overhead per design, {label}: {over:.1f} ms with the cluster start, "
              f"{over_run:.1f} ms without it (target < 5 ms)")
    for label, k in (("w1", 1), ("w2", 2)):
        cpu = CPU[label] - CPU["base"]
        print(f"CPU overhead per design, {k} worker(s): {cpu / n * 1000:.1f} ms with the "
              f"cluster start ({CPU[label]:.1f} s of CPU against {CPU['base']:.1f} s in "
              f"process), {(cpu - k * CPU['start1']) / n * 1000:.1f} ms without it")
    rt = task_round_trip()
    per_batch = n / max(1, run2.batches)
    print(f"Dask round trip per empty task: {rt * 1000:.2f} ms; with {per_batch:.0f} designs "
          f"per batch that is {rt / per_batch * 1000:.2f} ms per design")
    print(f"target 1,000 designs < 60 s: {w2:.1f} s for {n:,} -> "
          f"{'met' if w2 * 1000 / n < 60 else 'NOT met'}")


if __name__ == "__main__":
    main()
