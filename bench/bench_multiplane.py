"""The load model under spraying on OCP MRC's two-tier multi-plane design: 131,072 GPUs, each
800G NIC port split into 8 x 100G planes, 51.2T switches as 512 x 100G (6,144 switches,
2,097,152 links; arXiv 2605.04333).

Target (a 2-core machine): a permutation under adaptive spraying within 30 s and 8 GB peak,
generation included. The baseline is the same permutation under ECMP on the same design (one
hashed path per flow, so a flow stays in one plane), in its own process. Each run reports its
wall time split into generate + compile + network and routing + max-min, and the process's
peak resident memory.

Run: python bench/bench_multiplane.py [--gpus N]
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

TARGET_S = 30.0
TARGET_GB = 8.0


def child(gpus: int, routing: str) -> dict:
    from designer.core.catalog import builtin_catalog
    from designer.core.generators import generate, params_from_dict
    from designer.core.solver.compile import compile_project
    from designer.core.traffic import run_load
    from designer.core.traffic.network import build_network

    t0 = time.perf_counter()
    p = generate(params_from_dict("fat-tree", {
        "gear": "roce-400", "gpus": gpus, "nic": "thor-ultra", "plane_split": 8,
        "switch": "th5-64x800", "tiers": 2}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    net = build_network(c)
    t1 = time.perf_counter()
    r = run_load(c, "permutation", routing, net=net)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # GB (ru_maxrss: KB)
    return {"gpus": c.n_gpus, "build_s": t1 - t0, "load_s": t2 - t1, "peak_gb": peak,
            "min": r.throughput["min"], "mean": r.throughput["mean"]}


def run(gpus: int, routing: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(gpus), routing],
                         capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(child(int(sys.argv[2]), sys.argv[3])))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpus", type=int, default=131_072)
    args = ap.parse_args()
    print(f"MRC multi-plane permutation, {args.gpus:,} GPUs x 8 planes of 100G; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    print(f"{'routing':10} {'build s':>8} {'load s':>7} {'total s':>8} {'target':>6} "
          f"{'peak GB':>8} {'target':>6} {'min':>5} {'mean':>5}")
    for routing in ("ecmp", "adaptive"):
        r = run(args.gpus, routing)
        if "error" in r:
            print(f"{routing:10} failed: {r['error']}")
            continue
        total = r["build_s"] + r["load_s"]
        verdict = ""
        if routing == "adaptive":
            ok = total <= TARGET_S and r["peak_gb"] <= TARGET_GB
            verdict = "ok" if ok else "OVER"
        print(f"{routing:10} {r['build_s']:8.2f} {r['load_s']:7.2f} {total:8.2f} "
              f"{TARGET_S if routing == 'adaptive' else '-':>6} {r['peak_gb']:8.2f} "
              f"{TARGET_GB if routing == 'adaptive' else '-':>6} {r['min']:5.2f} "
              f"{r['mean']:5.2f} {verdict}")


if __name__ == "__main__":
    main()
