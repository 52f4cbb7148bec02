"""Generator speed and memory at scale (issue 3 targets: each under 2 s on 2 cores).

Cases: a 65,536-GPU 3-tier fat-tree and a 262,656-endpoint dragonfly (a = 32, p = h = 16).
The baseline builds the same fat-tree as a networkx graph, one edge per cable, which is what
a plain approach would do before it even lays anything out.
Run: python bench/bench_generators.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import networkx as nx
from _util import best_of, peak_memory

from designer.core.generators import generate, params_from_dict

CASES = [
    ("fat-tree, 65,536 GPUs, 3 tiers", "fat-tree", {"gpus": 65536, "tiers": 3}),
    ("rail, 64 SU (16,384 GPUs)", "rail", {"sus": 64}),
    ("dragonfly a=32 p=h=16 (262,656 GPUs)", "dragonfly", {"a": 32, "p": 16, "h": 16}),
]


def networkx_build(project) -> nx.MultiGraph:
    g = nx.MultiGraph()
    f = project.fabric
    g.add_nodes_from(d.id for d in f.devices)
    e = f.links.expand()
    ids = [d.id for d in f.devices]
    g.add_edges_from(
        (ids[a], ids[b]) for a, b in zip(e["a"].tolist(), e["b"].tolist(), strict=True)
    )
    return g


def main() -> None:
    print(f"{'case':40} {'devices':>9} {'links':>9} {'time':>8} {'peak MB':>8}")
    for label, kind, values in CASES:
        params = params_from_dict(kind, values)
        t, project = best_of(lambda p=params: generate(p), repeat=3)
        mem, _ = peak_memory(lambda p=params: generate(p))
        f = project.fabric
        print(f"{label:40} {len(f.devices):>9,} {f.links.n_cables:>9,} {t:>7.3f}s {mem:>8.0f}")
        if kind == "fat-tree":
            t_nx, _ = best_of(lambda p=project: networkx_build(p), repeat=1)
            print(
                f"{'  networkx graph of the same cables':40} {'':>9} {'':>9} {t_nx:>7.3f}s"
                f"   (ratio {t_nx / t:.1f}x of our whole generation)"
            )


if __name__ == "__main__":
    main()
