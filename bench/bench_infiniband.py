"""InfiniBand: topology export/import and the as-built diff at 65,536 GPUs, and check-ib times.

Targets (issue 8): a 1,024-GPU design (DGX SuperPOD 4 SU) checked on OpenSM over ibsim in
under 60 s; the diff vectorised, compared here with a plain per-cable Python set baseline.
Run: python bench/bench_infiniband.py [--large]   (--large also checks 4,096 GPUs)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _util import best_of

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.ibcheck import check_ib, missing_reason
from designer.core.infiniband import (
    diff_projects,
    ib_fabric_of,
    parse_netfile,
    project_from_ib,
    write_netfile,
)
from designer.core.links import LinkTable


def plain_diff(plan, built) -> tuple[int, int]:
    """The baseline: one Python frozenset per cable, set differences (missing, extra)."""

    def cables(p):
        names = [d.name for d in p.fabric.devices]
        e = p.fabric.links.expand()
        return {
            frozenset(((names[a], ap), (names[b], bp)))
            for a, ap, b, bp in zip(
                e["a"].tolist(),
                e["a_port"].tolist(),
                e["b"].tolist(),
                e["b_port"].tolist(),
                strict=True,
            )
        }

    pc, bc = cables(plan), cables(built)
    return len(pc - bc), len(bc - pc)


def perturbed(project, swaps: int, removals: int, seed: int = 1):
    """The project with ``swaps`` pairs of cables swapped at one end and some removed."""
    rng = np.random.default_rng(seed)
    e = project.fabric.links.expand()
    cols = {k: e[k].copy() for k in ("a", "a_port", "b", "b_port", "speed_gbps")}
    n = len(cols["a"])
    pool = rng.choice(n, size=4 * swaps + removals, replace=False)
    x, y = pool[: 2 * swaps], pool[2 * swaps : 4 * swaps]
    ok = (cols["a"][x] != cols["b"][y]) & (cols["a"][y] != cols["b"][x])  # no self-loops
    x, y = x[ok][:swaps], y[ok][:swaps]
    picked = np.concatenate([x, y, pool[4 * swaps :]])
    cols["b"][x], cols["b"][y] = cols["b"][y].copy(), cols["b"][x].copy()
    cols["b_port"][x], cols["b_port"][y] = cols["b_port"][y].copy(), cols["b_port"][x].copy()
    keep = np.ones(n, bool)
    keep[picked[2 * swaps :]] = False
    links = LinkTable(**{k: v[keep] for k, v in cols.items()})
    return project.with_fabric(project.fabric.with_links(links))


def at_scale() -> None:
    cat = builtin_catalog()
    project = generate(params_from_dict("fat-tree", {"gpus": 65536, "tiers": 3}))
    f = project.fabric
    print(f"65,536-GPU 3-tier fat-tree: {len(f.devices):,} devices, {f.links.n_cables:,} cables")
    t_ib, pib = best_of(lambda: ib_fabric_of(project, cat), 3)
    t_w, text = best_of(lambda: write_netfile(pib.fabric, title=project.name), 3)
    print(
        f"  export: IB nodes {t_ib:.2f} s, topology text {t_w:.2f} s "
        f"({len(text) / 1e6:.0f} MB, {pib.fabric.n_nodes:,} nodes)"
    )
    t_p, ib = best_of(lambda: parse_netfile(text), 1)
    t_i, built = best_of(lambda: project_from_ib(ib, cat), 1)
    print(f"  import: parse {t_p:.2f} s, build the project {t_i:.2f} s")
    t_d, d = best_of(lambda: diff_projects(project, built, cat), 3)
    print(f"  diff, round trip: {t_d:.2f} s: {d.summary()}")
    changed = perturbed(project, swaps=1000, removals=500)
    t_d, d = best_of(lambda: diff_projects(project, changed, cat), 3)
    t_b, base = best_of(lambda: plain_diff(project, changed), 1)
    print(f"  diff, 1,000 swapped pairs and 500 removed: {t_d:.2f} s: {d.summary()}")
    print(
        f"  plain per-cable set difference (missing/extra only, no miswire analysis): "
        f"{t_b:.2f} s ({base[0]:,} / {base[1]:,}); ratio {t_b / t_d:.1f}x"
    )


def checks(large: bool) -> None:
    reason = missing_reason()
    if reason:
        print(f"check-ib: skipped: {reason}")
        return
    designs = [
        ("DGX SuperPOD 2 SU (512 GPUs)", "rail", {"sus": 2}),
        ("DGX SuperPOD 4 SU (1,024 GPUs)", "rail", {"sus": 4}),
        ("k-ary fat-tree k = 8 (128 GPUs)", "fat-tree", {"k_ary": 8}),
        ("dragonfly a = 8, p = h = 4 (1,056 GPUs)", "dragonfly", {"a": 8, "p": 4, "h": 4}),
    ]
    if large:
        designs.append(("DGX SuperPOD 16 SU (4,096 GPUs, 3 tiers)", "rail", {"sus": 16}))
    for title, kind, params in designs:
        project = generate(params_from_dict(kind, params))
        t0 = time.perf_counter()
        r = check_ib(project)
        wall = time.perf_counter() - t0
        s = r.subnets[0]
        stages = ", ".join(f"{k} {v:.2f}" for k, v in r.times.items() if k != "total")
        balance = "; ".join(f"{b.layer} {b.min}/{b.mean:.2f}/{b.max}" for b in s.balance)
        print(
            f"check-ib {title}: {wall:.2f} s ({stages}); {s.engine_used}, "
            f"{'up' if s.subnet_up else 'NOT up'}, topology "
            f"{'as designed' if r.diff.equal else 'DIFFERS'}, hops max {s.routed.max}, "
            f"balance min/mean/max {balance}; {'OK' if r.ok else 'problems'}"
        )


def main() -> None:
    at_scale()
    checks("--large" in sys.argv)


if __name__ == "__main__":
    main()
