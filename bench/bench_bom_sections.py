"""What a new design's BOM sections (racks, power cords, spares) cost the solve: a rail design
solved with the sections off (as files saved before them) and on, racks not placed (the rack
lines then count the default plan's racks, ``default_rack_count``) and placed.

Prints the sizes, CPU seconds (best of N, process time: the machine is shared), the ratios
and the load average.

    .venv/bin/python bench/bench_bom_sections.py [--sus 64] [--repeat 3]
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
from designer.core.physical import for_new_design, with_floor
from designer.core.physical.rack_count import default_rack_count
from designer.core.solver import solve


def cpu_best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sus", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cat = builtin_catalog()
    plain = generate(params_from_dict("rail", {"sus": args.sus}), cat)
    fresh = for_new_design(plain)
    placed = with_floor(fresh, fresh.catalog(cat))
    print(f"rail {args.sus} SU: {len(plain.fabric.devices):,} devices, "
          f"{plain.fabric.links.n_cables:,} links")
    solve(plain, catalog=cat)  # warm caches
    off = cpu_best(lambda: solve(plain, catalog=cat), args.repeat)
    on = cpu_best(lambda: solve(fresh, catalog=cat), args.repeat)
    on_placed = cpu_best(lambda: solve(placed, catalog=cat), args.repeat)
    # a placed floor measures every cable: its own cost, with or without the sections
    bare = placed.evolve(physical=with_floor(plain, cat).physical)
    off_placed = cpu_best(lambda: solve(bare, catalog=cat), args.repeat)
    count = cpu_best(lambda: default_rack_count(fresh, cat), args.repeat)
    print(f"solve, sections off:            {off:.3f} s CPU")
    print(f"solve, sections on, not placed: {on:.3f} s CPU ({on / off:.2f}x; rack count "
          f"alone {count:.3f} s)")
    print(f"solve, placed, sections off:    {off_placed:.3f} s CPU")
    print(f"solve, placed, sections on:     {on_placed:.3f} s CPU ({on_placed / off_placed:.2f}x "
          "the placed design without them)")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
