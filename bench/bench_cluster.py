"""Benchmark: a 30-day trace of 10,000 jobs on a 16,384-GPU design, per placement policy, in
CPU time (the machine is shared: wall time would measure the neighbours), with the machine's
load. Targets: under 60 s each; first-fit under 10 s of CPU on a quiet machine.

    python bench/bench_cluster.py [--jobs 10000] [--days 30] [--gpus 16384]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from designer.core.catalog import builtin_catalog
from designer.core.cluster import ClusterSettings, synthetic
from designer.core.cluster.jobmix import JobKind
from designer.core.cluster.simulate import run_cluster
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from designer.core.traffic.network import build_network

TARGET_S = 60.0
FIRST_FIT_S = 10.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=10_000)
    ap.add_argument("--days", type=float, default=30.0)
    ap.add_argument("--gpus", type=int, default=16_384)
    ap.add_argument("--policies", default="pack,first-fit,scattered")
    a = ap.parse_args()
    print("load average {:.2f} {:.2f} {:.2f} on {} cores".format(*os.getloadavg(),
                                                                os.cpu_count()))
    t0 = time.perf_counter()
    p = generate(params_from_dict("fat-tree", {"gpus": a.gpus, "tiers": 3,
                                               "oversubscription": "2:1"}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    net = build_network(c)
    print(f"design: {c.n_gpus:,} GPUs, {c.n_switches:,} switches, {net.n_ports:,} switch "
          f"ports; built in {time.perf_counter() - t0:.1f} s")
    tr = synthetic(c.n_gpus, a.days, jobs=a.jobs, seed=1)
    print(f"trace: {tr.n:,} jobs over {a.days:g} days, {int(tr.gpus.sum()):,} GPUs asked, "
          f"largest {int(tr.gpus.max()):,}")
    kinds = {"": JobKind("ring", 0.3, "ring, 30% exposed communication")}
    for pol in a.policies.split(","):
        s = ClusterSettings(policy=pol, days=a.days)
        t = time.process_time()
        r = run_cluster(c, tr, s, kinds, net=net)
        dt = time.process_time() - t
        target = FIRST_FIT_S if pol == "first-fit" else TARGET_S
        print(f"{pol:10s} {dt:6.1f} s CPU (target {target:.0f} s, {target / dt:.1f}x under): "
              f"{len(r.timeline.t_h):,} events, goodput {r.goodput:.4f}, network lost "
              f"{r.gpu_hours_lost_network:,.0f} GPU-h, failures {r.gpu_hours_lost_failures:,.0f}"
              f" GPU-h, load cache hits {r.cache_hits:,}; stages "
              + ", ".join(f"{k} {v:.1f}s" for k, v in r.timings.items()))
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    _ = np


if __name__ == "__main__":
    main()
