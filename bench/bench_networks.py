"""The other networks do not slow the back-end's solve: a 16,384-GPU rail design (64 SUs of
32 DGX H100) with front-end, storage and out-of-band networks, solved as the window and
``designer solve`` do (back-end solve, then ``solve_networks``) against the back-end alone.

Prints the sizes, CPU seconds (best of N, process time: the machine is shared), the ratio
and the load average. The target: within 1.5x of the back-end alone.

    .venv/bin/python bench/bench_networks.py [--sus 64] [--repeat 3]
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
from designer.core.networks.generate import with_networks
from designer.core.networks.solve import solve_networks
from designer.core.solver import solve


def cpu_best(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sus", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    cat = builtin_catalog()
    t0 = time.process_time()
    backend = generate(params_from_dict("rail", {"sus": a.sus}), cat)
    t_gen = time.process_time() - t0
    t0 = time.process_time()
    full = with_networks(backend, ("frontend", "storage", "oob"), cat)
    t_nets = time.process_time() - t0
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} CPUs")
    print(f"design: {a.sus} SUs, {len(backend.fabric.devices):,} back-end devices, "
          f"{backend.fabric.links.n_cables:,} back-end links; generated in {t_gen:.2f} s CPU")
    for name, net in full.networks.items():
        print(f"  {name:<9} {len(net.devices):>6,} devices {len(net.links):>7,} links")
    print(f"other networks generated in {t_nets:.2f} s CPU")
    solve(backend, catalog=cat)  # warm up: the first solve fills caches both runs share
    t_back, r = cpu_best(lambda: solve(backend, catalog=cat), a.repeat)
    print(f"back-end alone:  {t_back:.2f} s CPU ({r.gpus:,} GPUs, {r.switches.total:,} "
          "switches)")

    def both():
        return solve(full, catalog=cat), solve_networks(full, cat)

    t_all, (_, nets) = cpu_best(both, a.repeat)
    t_only, _ = cpu_best(lambda: solve_networks(full, cat), a.repeat)
    print(f"all four:        {t_all:.2f} s CPU (of which solve_networks {t_only:.2f} s)")
    for name, n in nets.items():
        print(f"  {name:<9} {n.switches:>5,} switches, {n.links:>7,} links, "
              f"${n.cost_usd:,.0f}, {n.power_w / 1000:,.1f} kW")
    ratio = t_all / t_back
    print(f"ratio: {ratio:.2f}x (target <= 1.5x) -> {'ok' if ratio <= 1.5 else 'OVER'}")
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
