"""What runs on a worker: build and solve a batch of points, return plain figures.

Tasks carry point specs (a few hundred bytes), never graphs: the worker regenerates each
design, so shipping a task costs the same for 64 GPUs as for 64k. Every error of a point is
caught and recorded with it; a batch never fails because one design did.
"""

from __future__ import annotations

import itertools
import os
import random
import socket
import time
import traceback
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import DesignerError
from designer.core.model import Overrides, Project
from designer.core.sweep.metrics import METRICS
from designer.core.sweep.points import Point


@dataclass(frozen=True)
class Outcome:
    index: int
    metrics: dict[str, float] | None  # every registered figure; None when the point failed
    error: str | None
    seconds: float  # build + solve on the worker
    # where the time went on the worker (``seconds`` is their sum), which worker, and when
    # its batch started and ended there (wall clock, to set against the run's)
    build_s: float = 0.0
    solve_s: float = 0.0
    estimate_s: float = 0.0
    worker: str = ""
    batch_start: float = 0.0
    batch_end: float = 0.0


def build(point: Point, catalog: Catalog | None = None) -> Project:
    """The project of ``point``: generated, with the point's price overrides."""
    from designer.core.generators import generate, params_from_dict

    cat = catalog if catalog is not None else builtin_catalog()
    if point.prices:
        cat = cat.with_prices(point.prices)
    project = generate(params_from_dict(point.kind, point.params), cat)
    if point.prices:
        overrides = Overrides(prices=dict(point.prices), gear=project.overrides.gear)
        project = project.model_copy(update={"overrides": overrides})
    return project


def run_point(point: Point, catalog: Catalog | None, workloads: list[Any] | None) -> Outcome:
    from designer.core.solver import solve

    t0 = time.perf_counter()
    if point.error:
        return Outcome(point.index, None, point.error, 0.0)
    # deterministic per point whatever worker runs it and in whatever order
    random.seed(point.seed)
    np.random.seed(point.seed % 2**32)
    stamps = [t0]
    try:
        project = build(point, catalog)
        stamps.append(time.perf_counter())
        cat = project.catalog(catalog if catalog is not None else builtin_catalog())
        result = solve(project, catalog=cat)
        stamps.append(time.perf_counter())
        workload = workloads[point.workload] if workloads and point.workload is not None \
            else None
        figures = {name: m.value(project, result, workload) for name, m in METRICS.items()
                   if workload is not None or not m.workload}
    except DesignerError as exc:
        return _timed(Outcome(point.index, None, str(exc), time.perf_counter() - t0), stamps)
    except Exception as exc:  # a bug in one design must not sink the sweep: record it
        last = traceback.extract_tb(exc.__traceback__)[-1]
        where = f" ({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
        return _timed(Outcome(point.index, None, f"{type(exc).__name__}: {exc}{where}",
                              time.perf_counter() - t0), stamps)
    return _timed(Outcome(point.index, figures, None, time.perf_counter() - t0), stamps)


def _timed(o: Outcome, stamps: list[float]) -> Outcome:
    """``o`` with its build, solve and estimate times: the time after the last stamp goes to
    the stage the point was in (a point that failed in its solve has no estimate time)."""
    t = [*stamps, stamps[0] + o.seconds]
    build_s, solve_s, estimate_s = ([b - a for a, b in itertools.pairwise(t)] + [0.0, 0.0])[:3]
    return replace(o, build_s=build_s, solve_s=solve_s, estimate_s=estimate_s)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_batch(points: list[Point], catalog: Catalog | None = None,
              workloads: list[Any] | None = None) -> list[Outcome]:
    start = time.time()
    out = [run_point(p, catalog, workloads) for p in points]
    end, me = time.time(), worker_name()
    return [replace(o, worker=me, batch_start=start, batch_end=end) for o in out]


def warm_up() -> bool:
    """Import the heavy modules once per worker before the clock starts."""
    import pymetis  # noqa: F401

    import designer.core.generators
    import designer.core.solver  # noqa: F401

    return True
