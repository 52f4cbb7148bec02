"""Policies x designs x traces on Dask: every combination replayed on a worker process, through
the sweep engine's executor (a local cluster, or one at a scheduler address). Tasks carry file
paths and settings, never graphs; a failing cell is recorded with its message."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from pathlib import Path

from designer.core.errors import DesignerError


@dataclass(frozen=True)
class Cell:
    design: str
    trace: str
    policy: str
    figures: dict | None  # the result's headline JSON (no per-job rows); None when it failed
    error: str | None
    seconds: float


def run_cell(design: str, trace: str, policy: str, settings: dict,
             trace_format: str | None = None) -> Cell:
    """One combination, on whichever process runs it."""
    from designer.core.catalog import builtin_catalog
    from designer.core.cluster.formats import read_trace
    from designer.core.cluster.project_run import cluster_project
    from designer.core.cluster.settings import ClusterSettings
    from designer.core.fileformat import load_project

    t0 = time.perf_counter()
    try:
        cat = builtin_catalog()
        project = load_project(design, cat)
        s = ClusterSettings.model_validate(settings | {"policy": policy})
        r = cluster_project(project, read_trace(trace, trace_format), s,
                            catalog=project.catalog(cat))
        fig = {k: v for k, v in r.to_json().items() if k not in ("jobs", "tenants")}
        return Cell(design, trace, policy, fig, None, time.perf_counter() - t0)
    except DesignerError as exc:
        return Cell(design, trace, policy, None, str(exc), time.perf_counter() - t0)


def cluster_sweep(designs: list[str | Path], traces: list[str | Path], policies: list[str],
                  settings: dict | None = None, *, workers: int = 0,
                  scheduler: str | None = None, engine: str = "processes",
                  on_cell: Callable[[Cell, int, int], None] | None = None,
                  cancelled: Callable[[], bool] | None = None) -> list[Cell]:
    """Every (design, trace, policy). ``workers`` 0: in this process, one after another;
    else on local worker processes, or on Dask (``scheduler``, ``engine="dask"``)."""
    grid = list(itertools.product([str(d) for d in designs], [str(t) for t in traces],
                                  policies))
    base = dict(settings or {})
    out: list[Cell] = []
    if workers == 0:
        for k, (d, t, p) in enumerate(grid):
            if cancelled is not None and cancelled():
                break
            out.append(run_cell(d, t, p, base))
            if on_cell:
                on_cell(out[-1], k + 1, len(grid))
        return out
    from designer.core.sweep.run import sweep_executor

    with sweep_executor(workers, scheduler, engine) as (ex, _n, _where):
        pending = {ex.submit(run_cell, d, t, p, base) for d, t, p in grid}
        while pending:
            done, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
            for f in done:
                out.append(f.result())
                if on_cell:
                    on_cell(out[-1], len(out), len(grid))
            if cancelled is not None and cancelled():
                for f in pending:
                    f.cancel()
                break
    order = {g: i for i, g in enumerate(grid)}
    return sorted(out, key=lambda c: order[(c.design, c.trace, c.policy)])
