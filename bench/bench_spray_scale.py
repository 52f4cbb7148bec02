"""Adaptive routing at scale: a random permutation under the fluid spray against ECMP on the
same design, each run in its own process so its peak memory is its own.

Targets (a 2-core machine): 65,536 GPUs within 3x the ECMP run and under 2 GB; 262,144 GPUs
within 8 GB. The baseline is ECMP (one hashed path per flow) on the same compiled design and
network, in the same process. Times exclude generating and compiling the design and building
the traffic network (the window holds them already; both routings share them), and include
routing, max-min filling and the result's statistics.

Run: python bench/bench_spray_scale.py [--quick] [--dragonfly] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES = [
    # (label, kind, params, time ratio target, memory target GB)
    ("16,384 GPUs, 3-tier fat tree (ib-ndr)", "fat-tree", {"gpus": 16384, "tiers": 3}, 3.0,
     None),
    ("65,536 GPUs, k-ary 64 fat tree", "fat-tree", {"k_ary": 64}, 3.0, 2.0),
    ("65,536 GPUs, rail-optimized 256 SU", "rail", {"sus": 256}, 3.0, 2.0),
    ("262,144 GPUs, 3-tier fat tree (ib-xdr)", "fat-tree", {"gpus": 262144, "gear": "ib-xdr"},
     None, 8.0),
    ("262,144 GPUs, 3-tier fat tree (roce-800, 2 planes)", "fat-tree",
     {"gpus": 262144, "gear": "roce-800"}, None, 8.0),
]
DRAGONFLY = ("262,656 GPUs, dragonfly a=32 p=h=16", "dragonfly", {}, None, 8.0)


def child(kind: str, params: dict, routing: str, repeat: int) -> dict:
    from designer.core.catalog import builtin_catalog
    from designer.core.generators import generate, params_from_dict
    from designer.core.solver.compile import compile_project
    from designer.core.traffic import run_load
    from designer.core.traffic.network import build_network

    p = generate(params_from_dict(kind, params))
    c = compile_project(p, p.catalog(builtin_catalog()))
    net = build_network(c)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    best, r = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = run_load(c, "permutation", routing, net=net)
        best = min(best, time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # GB (ru_maxrss: KB)
    return {"gpus": c.n_gpus, "seconds": best, "peak_gb": peak, "before_gb": before,
            "min": r.throughput["min"], "mean": r.throughput["mean"]}


def run(kind: str, params: dict, routing: str, repeat: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", kind, json.dumps(params),
                          routing, str(repeat)], capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], json.loads(sys.argv[3]), sys.argv[4],
                               int(sys.argv[5]))))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="up to 65,536 GPUs")
    ap.add_argument("--dragonfly", action="store_true", help="add the 262,656-GPU dragonfly")
    ap.add_argument("--repeat", type=int, default=3, help="runs per routing (best is kept)")
    args = ap.parse_args()
    cases = [c for c in CASES if not (args.quick and "262" in c[0])]
    if args.dragonfly:
        cases.append(DRAGONFLY)
    print(f"adaptive vs ECMP permutation, best of {args.repeat}; {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"{'design':52} {'ECMP s':>7} {'adapt s':>8} {'ratio':>6} {'target':>6} "
          f"{'peak GB':>8} {'target':>6}")
    for label, kind, params, ratio_target, mem_target in cases:
        e = run(kind, params, "ecmp", args.repeat)
        a = run(kind, params, "adaptive", args.repeat)
        if "error" in e or "error" in a:
            print(f"{label:52} failed: {e.get('error') or a.get('error')}")
            continue
        ratio = a["seconds"] / e["seconds"]
        verdict = []
        if ratio_target is not None:
            verdict.append("ok" if ratio <= ratio_target else "OVER")
        if mem_target is not None:
            verdict.append("ok" if a["peak_gb"] <= mem_target else "OVER")
        print(f"{label:52} {e['seconds']:7.2f} {a['seconds']:8.2f} {ratio:6.2f} "
              f"{ratio_target or '-':>6} {a['peak_gb']:8.2f} {mem_target or '-':>6} "
              f"{' '.join(verdict)}")


if __name__ == "__main__":
    main()
