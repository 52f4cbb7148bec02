"""One call each for the command line and the window: solve the design, then plan or check,
with progress and cancel callbacks (the solve is most of the time on a large design)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from designer.core.acceptance.check import CheckResult, check_results
from designer.core.acceptance.evidence import as_built_causes
from designer.core.acceptance.plan import AcceptancePlan, acceptance_plan
from designer.core.analysis.workload import Workload
from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.solver import Result, solve

ProgressFn = Callable[[float, str], None]
CancelledFn = Callable[[], bool]


def _solved(project: Project, catalog: Catalog, result: Result | None,
            progress: ProgressFn | None, cancelled: CancelledFn | None) -> Result:
    if result is not None:
        return result

    def on(fraction: float, stage: str = "") -> None:
        if progress:
            progress(0.8 * float(fraction), f"Analysing: {stage}".rstrip(": "))

    return solve(project, on, cancelled, catalog=catalog)


def plan_for(project: Project, catalog: Catalog, *, result: Result | None = None,
             workload: Workload | None = None, progress: ProgressFn | None = None,
             cancelled: CancelledFn | None = None) -> AcceptancePlan:
    r = _solved(project, catalog, result, progress, cancelled)
    if progress:
        progress(0.9, "Predicting the acceptance bands")
    return acceptance_plan(project, r, catalog, workload)


def check_for(project: Project, catalog: Catalog, paths: list[str | Path], *,
              as_built: str | Path | None = None, result: Result | None = None,
              workload: Workload | None = None, progress: ProgressFn | None = None,
              cancelled: CancelledFn | None = None) -> CheckResult:
    r = _solved(project, catalog, result, progress, cancelled)
    evidence = []
    if as_built:
        if progress:
            progress(0.85, "Comparing the as-built cabling with the plan")
        evidence = as_built_causes(project, catalog, as_built)
    if progress:
        progress(0.9, "Reading the results and setting them beside the bands")
    return check_results(project, r, catalog, list(paths), evidence=evidence,
                         workload=workload)
