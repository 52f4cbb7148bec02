"""The solver's hop distribution, to compare routed hops with.

The solver (``designer.core.solver.solve(project).hops``) reports the distribution of switches
crossed on shortest paths over GPU pairs. Until it is available, or when its result has no hop
histogram this module understands, the check compares routed hops with shortest paths found by
its own breadth-first search on the design's switch graph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.ibcheck.routes import HopStats
from designer.core.model import Project

BFS_NOTE = (
    "routed hops compared with shortest paths from a breadth-first search on the design's "
    "switch graph"
)


def _histogram(hops: Any) -> dict[int, int] | None:
    """A {switches crossed: pairs} mapping from whatever shape the solver gives."""
    if hops is None:
        return None
    if isinstance(hops, Mapping):
        hist = hops.get("histogram", hops)
    else:
        hist = getattr(hops, "histogram", None)
        if hist is None and hasattr(hops, "to_json"):
            return _histogram(hops.to_json())
    if hist is None:
        return None
    try:
        if isinstance(hist, Mapping):
            return {int(k): int(v) for k, v in hist.items() if int(v) > 0}
        items = list(hist) if not hasattr(hist, "tolist") else hist.tolist()
        if items and isinstance(items[0], Sequence) and len(items[0]) == 2:
            return {int(k): int(v) for k, v in items if int(v) > 0}
        return {i: int(v) for i, v in enumerate(items) if int(v) > 0}
    except (TypeError, ValueError):
        return None


def same_distribution(a: HopStats, b: HopStats) -> bool:
    """Same fractions of pairs at each hop count (pairs of a GPU with itself left out)."""
    fa = {k: v for k, v in a.histogram.items() if k > 0}
    fb = {k: v for k, v in b.histogram.items() if k > 0}
    na, nb = sum(fa.values()), sum(fb.values())
    if not na or not nb:
        return na == nb
    return all(abs(fa.get(k, 0) / na - fb.get(k, 0) / nb) < 1e-6 for k in set(fa) | set(fb))


def _solver_hops(project: Project, catalog: Catalog | None) -> Any:
    """The solver's hop statistics: its path stage alone when it exposes one (no bisection,
    so no METIS in a worker thread), else a whole ``solve``."""
    try:
        from designer.core.solver.compile import compile_project
        from designer.core.solver.paths import path_stats
    except ImportError:
        from designer.core.solver import solve  # type: ignore[attr-defined]

        return getattr(solve(project, catalog=catalog), "hops", None)
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    return path_stats(compile_project(project, cat)).hops


def solver_hop_stats(
    project: Project,
    reports: Sequence[Any] = (),
    catalog: Catalog | None = None,
    given: Any = None,
) -> tuple[HopStats | None, str]:
    """(the solver's distribution or None, a sentence saying what the routes were compared
    with). ``given``: hop statistics the caller already has (a window's current result)."""
    hops = given
    if hops is None:
        try:
            hops = _solver_hops(project, catalog)
        except ImportError:
            return None, f"not available yet; {BFS_NOTE}"
        except Exception as exc:  # the check must still report when the solver trips
            return None, f"failed on this design ({exc}); {BFS_NOTE}"
    hist = _histogram(hops)
    if not hist:
        return None, f"gave no hop histogram; {BFS_NOTE}"
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
