"""Physical cables, cage-aware media and port utilisation at scale.

Times the three stages this adds to every solve on a 65,536-GPU 3-tier fat-tree (196,608
links) and on the dragonfly example, whose node cages pair up onto twin copper cables:
``cable_ids`` (which links share a cable), ``choose_media`` (with the cage fit and the
lane-pairing test) and ``port_use`` (used / total per model and tier). The baseline is the
plain approach to the cable grouping: a Python dict keyed by (switch, cage, far end, item)
filled link by link.

Run: python bench/bench_cables.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import best_of

from designer.core.catalog import MediumSpec, builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver.cables import cable_ids
from designer.core.solver.compile import compile_project
from designer.core.solver.media import choose_media
from designer.core.solver.utilisation import port_use

CASES = [  # (label, kind, parameters, every cable this long; None: the layer defaults)
    ("1,056 GPUs: dragonfly a=8 p=h=4", "dragonfly", {"a": 8, "p": 4, "h": 4}, None),
    ("65,536 GPUs: 3-tier fat-tree (optics)", "fat-tree", {"gpus": 65536, "tiers": 3}, None),
    ("65,536 GPUs: 3-tier fat-tree, 1 m (copper)", "fat-tree", {"gpus": 65536, "tiers": 3},
     1.0),
]


def plain_groups(a, b, ap, bp, is_switch, cp, copper, per_item) -> int:
    """The baseline: group copper links into cables with a dict, one link at a time."""
    seen: dict[tuple, int] = {}
    cables = 0
    for i in range(len(a)):
        item = int(copper[i])
        if item < 0:
            cables += 1
            continue
        x, y = int(a[i]), int(b[i])
        if not is_switch[x]:
            x, y, px, py = y, x, int(bp[i]), int(ap[i])
        else:
            px, py = int(ap[i]), int(bp[i])
        key = (x, (px - 1) // cp[x], y if is_switch[y] else -1,
               (py - 1) // cp[y] if is_switch[y] else -1, item)
        n = seen.get(key, 0)
        if n % per_item[item] == 0:
            cables += 1
        seen[key] = n + 1
    return cables


def measure(label: str, project, cat) -> None:
    c = compile_project(project, project.catalog(cat))
    t_media, media = best_of(lambda: choose_media(project, compiled=c))
    per_item = np.ones(max(len(media.items), 1), np.int64)
    for k, gid in enumerate(media.items):
        g = c.catalog.get(gid)
        if isinstance(g, MediumSpec):
            per_item[k] = g.links_per_item
    cab = c.cables
    cp = np.maximum(c.table.cage_ports, 1)
    args = (cab["a"], cab["b"], cab["a_port"], cab["b_port"], c.is_switch, cp, media.cable,
            per_item)
    t_ids, (ids, n) = best_of(lambda: cable_ids(*args))
    t_ports, _ = best_of(lambda: port_use(c))
    t_plain, n_plain = best_of(lambda: plain_groups(*args), repeat=1)
    assert n_plain == n, (n_plain, n)
    print(f"{label:<46}{len(ids):>9,}{n:>9,}{t_ids * 1e3:>9.1f}ms{t_media * 1e3:>7.0f}ms"
          f"{t_ports * 1e3:>6.1f}ms{t_plain * 1e3:>7.0f}ms{t_plain / t_ids:>7.0f}x")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="the dragonfly only")
    args = ap.parse_args()
    cat = builtin_catalog()
    print(f"{'design':<46}{'links':>9}{'cables':>9}{'cable_ids':>11}{'media':>9}"
          f"{'ports':>8}{'plain':>9}{'ratio':>8}")
    for label, kind, values, metres in CASES[:1] if args.quick else CASES:
        project = generate(params_from_dict(kind, values))
        if metres is not None:
            links = project.fabric.links
            links = links.replace(np.arange(len(links)), length_m=metres)
            project = project.with_fabric(project.fabric.with_links(links))
        measure(label, project, cat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
