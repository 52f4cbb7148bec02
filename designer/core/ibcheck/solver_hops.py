"""The solver's hop distribution, to compare routed hops with.

The solver's path stage (``designer.core.solver.paths``) reports how many switches the shortest
paths between GPUs in different servers cross. The check compares the routed distribution with
it; when the solver trips on a design or finds no GPU pairs, the routes are compared only with
the shortest paths the check finds itself on the design's switch graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.ibcheck.routes import HopStats
from designer.core.model import Project
from designer.core.solver import HopStats as SolverHopStats
from designer.core.solver.compile import compile_project
from designer.core.solver.paths import path_stats

BFS_NOTE = (
    "routed hops compared with shortest paths from a breadth-first search on the design's "
    "switch graph"
)


def same_distribution(a: HopStats, b: HopStats) -> bool:
    """Same fractions of pairs at each hop count (pairs of a GPU with itself left out:
    counting conventions differ there)."""
    fa = {k: v for k, v in a.histogram.items() if k > 0}
    fb = {k: v for k, v in b.histogram.items() if k > 0}
    na, nb = sum(fa.values()), sum(fb.values())
    if not na or not nb:
        return na == nb
    return all(abs(fa.get(k, 0) / na - fb.get(k, 0) / nb) < 1e-6 for k in set(fa) | set(fb))


def _solver_hops(project: Project, catalog: Catalog | None) -> SolverHopStats:
    """The solver's hop statistics from its path stage alone (no bisection, so no METIS in a
    worker thread)."""
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    return path_stats(compile_project(project, cat)).hops


def solver_hop_stats(
    project: Project,
    reports: Sequence[Any] = (),
    catalog: Catalog | None = None,
    given: SolverHopStats | None = None,
) -> tuple[HopStats | None, str]:
    """(the solver's distribution or None, a sentence saying what the routes were compared
    with). ``given``: the solver's hop statistics when the caller has them (a window's current
    result)."""
    hops = given
    if hops is None:
        try:
            hops = _solver_hops(project, catalog)
        except Exception as exc:  # the check must still report when the solver trips
            return None, f"failed on this design ({exc}); {BFS_NOTE}"
    hist = {int(k): int(v) for k, v in hops.histogram.items() if v > 0}
    if not hist:
        return None, f"found no GPU pairs in different servers; {BFS_NOTE}"
    stats = HopStats(pairs=sum(hist.values()), histogram=hist)
    routed = [r.routed for r in reports if getattr(r, "routed", None) is not None]
    if routed and all(same_distribution(r, stats) for r in routed):
        verdict = "routed hops equal the solver's shortest-path distribution"
    elif routed:
        verdict = "routed hops DIFFER from the solver's shortest-path distribution"
    else:
        verdict = "no routes to compare"
    return stats, (
        f"min {stats.min}, mean {stats.mean:.3f}, max {stats.max} switches over "
        f"{stats.pairs:,} GPU pairs; {verdict}"
    )
