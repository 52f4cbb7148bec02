"""How long a design of a sweep will take to build and solve, estimated from its plan alone
(before it is built): what the sweep ranks its points by when it batches them, the largest
first, so that the costliest designs start at once and the last batches are small.

A rule per family of design: a fixed cost, a cost per cable (building the fabric, compiling
it, the bisection and the search per colour of the hops stage all walk every cable), and for
a dragonfly the table of router-to-router distances the hops stage may build. The
coefficients are least-squares fits, relative error weighted, of build-and-solve times
measured in one process on a 2-core machine at load 1-2.6 (``bench/bench_sweep_estimate.py
--fit``, two or three runs, rounded between them), over fat-trees of 256-65,536 GPUs, rail
designs of 1-64 SUs, rail-only designs of 1,024-16,384 GPUs, multi-plane designs of
256-4,096 GPUs and dragonflies of 1,056-262,656 GPUs. Only their ratios matter for the
order; their size sets how many designs go in a batch (``run.make_batches``).
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.sweep.points import Point

# solver.switch_pairs.MAX_A, the most attachment switches its distance table takes (a test
# keeps them equal): not imported, planning a sweep does not load the solver
MAX_A = 4096


@dataclass(frozen=True)
class Rule:
    fixed_s: float
    per_cable_s: float
    per_table_entry_s: float = 0.0


RULES: dict[str, Rule] = {
    # fits: fixed 11-18 ms, 2.05-2.32 us a cable (8 designs)
    "fat-tree": Rule(0.015, 2.2e-6),
    # 18-24 ms, 2.31-2.59 us (4)
    "rail": Rule(0.02, 2.5e-6),
    # 37-43 ms, 2.78-3.49 us (3)
    "rail-only": Rule(0.04, 3.0e-6),
    # several planes (any generator but the dragonfly): a GPU class has a cable on every
    # plane, and the hops stage walks them all: about twice a single plane's cost a cable;
    # fits: 2-16 ms, 4.3-5.2 us (multi-plane fat-trees and rail designs, 7 designs)
    "planes": Rule(0.012, 4.8e-6),
    # a dragonfly's fixed cost is mostly its bisection certificate (an exact split-group
    # search capped at a fixed amount of work: 0.1-0.2 s from 1,056 GPUs up);
    # fits: 100-153 ms, 2.36-2.51 us a cable, 4.3-5.0 ns a table entry (12 designs)
    "dragonfly": Rule(0.12, 2.5e-6, 4.5e-9),
}


def family(p: Point) -> str:
    """The rule ``p`` is estimated by: its generator's, or the multi-plane one."""
    if p.kind == "dragonfly" or p.planes <= 1:
        return p.kind
    return "planes"


def table_entries(p: Point) -> float:
    """A dragonfly's router-to-router distance table, in elements of its last min-plus
    product: routers x routers x links of a router (``solver.switch_pairs.work``).

    The solver builds it when the routers fit the table (at most ``MAX_A``, one cable per
    GPU) and the design has too little symmetry for a search per colour of alike GPU
    classes; that depends on how the global links are arranged, not known before the
    design is built (of the balanced dragonflies of p = 4 to 16, arranged absolutely,
    p = 6 and 10 took the table). So it is counted whenever it may be built: a design
    estimated too large starts early and costs little; one estimated too small starts last
    and can end the sweep alone (the 40,200-GPU dragonfly: 2.3-2.8 s, the table 80% of it;
    the 16,512-GPU one, searched per colour: 0.2 s, estimated 0.8 s)."""
    if p.kind != "dragonfly" or p.planes != 1 or not 0 < p.switches <= MAX_A:
        return 0.0
    degree = 2 * (p.links - p.endpoint_links) / p.switches
    return float(p.switches) ** 2 * degree


def terms(p: Point) -> list[float]:
    """The rule's terms: 1 (fixed), cables, table entries."""
    return [1.0, float(p.links), table_entries(p)]


def estimate_s(p: Point) -> float:
    """Estimated seconds to build and solve ``p`` on one core."""
    r = RULES.get(family(p), RULES["fat-tree"])
    one, cables, table = terms(p)
    return r.fixed_s * one + r.per_cable_s * cables + r.per_table_entry_s * table
