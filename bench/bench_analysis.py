"""Decision analysis speed: what ``estimate`` adds to a solve, per design size.

Target: under 100 ms on a 65,536-GPU design. The baseline is the solve it rides on;
the ratio is estimate time / solve time. A busbw-vs-size sweep (25 sizes) is timed too, against
25 single-size calls (the plain loop it replaces). Then the work a comparison adds: laying a
RoCE variant out at its best (every candidate layout solved) against converting it as drawn,
and the ring under ECMP (NCCL's channels and queue pairs hashed) on the 24,576-GPU RoCE
example. Timings on a shared machine are noisy.
"""

from __future__ import annotations

import numpy as np
from _util import best_of

from designer.core.analysis.collectives import Communicator, collective_times, size_sweep
from designer.core.analysis.comparison import compare, profile_variant
from designer.core.analysis.estimates import estimate
from designer.core.analysis.workload import PRESETS, Economics, Workload
from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve

CASES = (
    ("1,024 GPUs: rail SuperPOD", "rail", {"sus": 4}, PRESETS["dense-70b-dp"]),
    ("16,384 GPUs: rail SuperPOD", "rail", {"sus": 64}, PRESETS["llama3-405b-16k"]),
    ("65,536 GPUs: 3-tier fat-tree", "fat-tree", {"gpus": 65536, "tiers": 3},
     Workload(name="405B on 65,536", params_b=405, layers=126, hidden=16384, sequence=8192,
              global_batch_tokens=64 * 2**20, tp=8, pp=16, microbatches=16, interleave=2)),
)


def main() -> None:
    print(f"{'design':<32}{'solve ms':>10}{'estimate ms':>13}{'ratio':>8}{'sweep ms':>10}"
          f"{'loop ms':>9}")
    for label, kind, params, workload in CASES:
        project = generate(params_from_dict(kind, params))
        t_solve, result = best_of(lambda p=project: solve(p), repeat=1)
        t_est, est = best_of(lambda p=project, r=result, w=workload: estimate(p, r, w), repeat=3)
        comm = Communicator("all", result.gpus)
        sizes = size_sweep()
        t_sweep, _ = best_of(lambda v=est.view, s=sizes, c=comm:
                             collective_times(v, "all-reduce", s, c))
        t_loop, _ = best_of(lambda v=est.view, s=sizes, c=comm:
                            [collective_times(v, "all-reduce", np.array([x]), c) for x in s])
        print(f"{label:<32}{t_solve * 1e3:>10.0f}{t_est * 1e3:>13.1f}{t_est / t_solve:>8.3f}"
              f"{t_sweep * 1e3:>10.2f}{t_loop * 1e3:>9.2f}")
        last = t_est
    print(f"target: an estimate adds under 100 ms to a 65,536-GPU solve: "
          f"{'met' if last < 0.1 else 'MISSED'} ({last * 1e3:.1f} ms)")
    compare_16k()
    best_16k()
    ecmp_24k()


def compare_16k() -> None:
    """The Compare view's work for two 16,384-GPU designs (this one and RoCE 400G): after a
    workload edit (variant cached: estimates only) and after a fabric edit (variant built and
    solved again, in the worker thread)."""
    project = generate(params_from_dict("rail", {"sus": 64}))
    cat = builtin_catalog()
    result = solve(project)
    w = PRESETS["llama3-405b-16k"]
    t_variant, (variant, v_result) = best_of(
        lambda: (lambda v: (v, solve(v)))(profile_variant(project, "roce-400", cat)), repeat=1)
    items = [("this", project, result), ("roce", variant, v_result)]
    t_cmp, _ = best_of(lambda: compare(items, w, Economics()), repeat=3)
    print(f"\nCompare, two 16,384-GPU designs: workload edit {t_cmp * 1e3:.1f} ms; fabric edit "
          f"{(t_variant + t_cmp) * 1e3:.0f} ms (variant converted + solved in the worker)")



def best_16k() -> None:
    """RoCE 400G at its best for the 16,384-GPU SuperPOD: candidates solved vs as drawn."""
    from designer.core.analysis.best import Target, best_design

    project = generate(params_from_dict("rail", {"sus": 64}))
    cat = builtin_catalog()
    target = Target.of(solve(project))
    t_drawn, _ = best_of(lambda: best_design(project, "roce-400", cat, as_drawn=True), repeat=1)
    t_best, b = best_of(lambda: best_design(project, "roce-400", cat, target=target), repeat=1)
    print(f"RoCE 400G at its best, 16,384 GPUs: {t_best * 1e3:.0f} ms for {len(b.considered)} "
          f"layouts against {t_drawn * 1e3:.0f} ms as drawn ({t_best / t_drawn:.1f}x; in the "
          f"Compare worker); chosen: {b.chosen.layout}")


def ecmp_24k() -> None:
    from designer.core.analysis.ecmp import ring_under_ecmp, tree_under_ecmp
    from designer.core.fileformat import load_project
    from designer.core.paths import projects_dir

    project = load_project(projects_dir() / "roce-fat-tree-24k-oversubscribed.fabric.json")
    for qps in (1, 4):
        t, r = best_of(lambda q=qps: ring_under_ecmp(project, qps=q, trials=1), repeat=1)
        print(f"ring under ECMP, 24,576 GPUs, 2 channels x {qps} QP: {t * 1e3:.0f} ms for "
              f"{r.flows:,} hashed flows, network time {r.slowdown:.2f}x")
        # NCCL's double binary tree (tree, NVLS-tree): twice the ring's flows
        t, f = best_of(lambda q=qps: tree_under_ecmp(project, qps=q, trials=1), repeat=1)
        print(f"tree under ECMP, 24,576 GPUs, 2 channels x {qps} QP: {t * 1e3:.0f} ms, "
              f"network time {f:.2f}x")


if __name__ == "__main__":
    main()
