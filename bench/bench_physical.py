"""Placing and measuring every cable: the default floor plan and every cable's length.

Target: a 65,536-GPU design placed and measured in under 1 s. The baseline is the plain
approach: a Python loop measuring cables one by one from dict lookups (timed on 20,000
cables and scaled to all of them). Run: PYTHONPATH=. python bench/bench_physical.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import best_of

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.physical.floor import Physical
from designer.core.physical.lengths import cable_lengths, positions
from designer.core.physical.placement import default_floor

CASES = (
    ("1,024 GPUs: DGX SuperPOD 4 SU", "rail", {"sus": 4}),
    ("16,384 GPUs: DGX SuperPOD 64 SU", "rail", {"sus": 64}),
    ("65,536 GPUs: 3-tier fat-tree", "fat-tree", {"gpus": 65536, "tiers": 3}),
)
TARGET_S = 1.0


def plain_lengths(floor, fabric, a, b) -> list[float]:
    """One cable at a time, as a first version would."""
    g = floor.geometry
    where = {}
    for k, (i, j, r) in enumerate(floor.racks()):
        where[r.name] = (k, (j + 0.5) * g.rack_width_m,
                         i * (g.rack_depth_m + g.aisle_m) + g.rack_depth_m / 2)
    out = []
    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        sa = floor.placement[fabric.devices[x].id]
        sb = floor.placement[fabric.devices[y].id]
        ka, xa, ya = where[sa.rack]
        kb, xb, yb = where[sb.rack]
        za = g.rack_base_m + sa.u * g.u_height_m
        zb = g.rack_base_m + sb.u * g.u_height_m
        if ka == kb:
            raw = abs(za - zb) + g.in_rack_slack_m
        else:
            raw = (abs(xa - xb) + abs(ya - yb) + 2 * g.tray_height_m - za - zb
                   + g.between_rack_slack_m)
        out.append(next((s for s in g.sold_lengths_m if s >= raw), raw))
    return out


def main() -> int:
    cat = builtin_catalog()
    ok = True
    for label, kind, values in CASES:
        project = generate(params_from_dict(kind, values))
        e = project.fabric.links.expand()
        a, b = e["a"].astype(np.int64), e["b"].astype(np.int64)

        def place_and_measure(p=project, a=a, b=b):
            floor = default_floor(p, cat)
            return floor, cable_lengths(floor, p.fabric, cat, a, b)

        t, (floor, lengths) = best_of(place_and_measure, repeat=3)
        t_place, _ = best_of(lambda p=project: default_floor(p, cat), repeat=3)
        t_pos, _ = best_of(lambda f=floor, p=project: positions(f, p.fabric, cat), repeat=3)
        sample = min(a.size, 20_000)
        t_plain, _ = best_of(lambda f=floor, p=project, sa=a[:sample], sb=b[:sample]:
                             plain_lengths(f, p.fabric, sa, sb), repeat=1)
        plain_all = t_plain * a.size / max(sample, 1)
        t_measure, _ = best_of(lambda f=floor, p=project, a=a, b=b:
                               cable_lengths(f, p.fabric, cat, a, b), repeat=3)
        placed = project.evolve(physical=Physical(floor=floor))
        assert np.isfinite(lengths).all() and placed.physical is not None
        print(f"{label}: {len(project.fabric.devices):,} devices, {a.size:,} cables, "
              f"{len(floor.racks()):,} racks in {len(floor.rows):,} rows")
        print(f"  place + measure {t * 1000:8.1f} ms (place {t_place * 1000:.1f} ms, "
              f"positions {t_pos * 1000:.1f} ms, positions + lengths {t_measure * 1000:.1f} ms)")
        print(f"  plain loop over cables (scaled from {sample:,}): {plain_all * 1000:8.1f} ms "
              f"for lengths alone, {plain_all / max(t_measure, 1e-9):.0f}x slower")
        if values.get("gpus") == 65536:
            ok &= t < TARGET_S
            print(f"  target < {TARGET_S:.1f} s: {'met' if t < TARGET_S else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
