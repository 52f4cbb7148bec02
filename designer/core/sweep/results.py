"""A finished sweep as a table: every parameter and figure per point, which points meet the
constraints, which are on the Pareto front, and the best point per constraint."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from designer.core.sweep.metrics import METRICS
from designer.core.sweep.pareto import pareto_mask
from designer.core.sweep.run import SweepRun
from designer.core.sweep.spec import parse_constraint
from designer.core.sweep.timing import timing_json

ALL = "all constraints"


@dataclass(frozen=True)
class SweepTable:
    columns: list[str]
    rows: list[list[Any]]  # one per point, in point order
    ok: np.ndarray  # solved without error
    feasible: np.ndarray  # solved and meets every constraint
    pareto: np.ndarray  # on the front of the objectives among the feasible points
    best: dict[str, int | None]  # constraint (and "all constraints") -> point index
    objectives: list[str]
    params: list[str]  # parameter columns (generator parameters, prices, workload)

    def column(self, name: str) -> list[Any]:
        i = self.columns.index(name)
        return [r[i] for r in self.rows]

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]


def _figure(run: SweepRun, name: str) -> np.ndarray:
    out = np.full(len(run.points), np.nan)
    for i, p in enumerate(run.points):
        o = run.outcomes.get(p.index)
        if o is not None and o.metrics is not None:
            out[i] = o.metrics.get(name, math.nan)
    return out


def _meets(values: np.ndarray, bound: str, limit: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return values <= limit if bound == "max" else values >= limit


def _best(score: np.ndarray, sense: str, mask: np.ndarray, points) -> int | None:
    mask = mask & ~np.isnan(score)  # a design without the figure cannot be the best by it
    if not mask.any():
        return None
    s = np.where(mask, score if sense == "min" else -score, np.inf)
    return points[int(np.argmin(s))].index


def sweep_table(run: SweepRun) -> SweepTable:
    pts = run.points
    ok = np.array([(o := run.outcomes.get(p.index)) is not None and o.error is None
                   for p in pts], dtype=bool)
    meets: dict[str, np.ndarray] = {}
    for key, limit in run.spec.constraints.items():
        metric, bound = parse_constraint(key)
        meets[key] = ok & _meets(_figure(run, metric), bound, limit)
    feasible = ok.copy()
    for m in meets.values():
        feasible &= m
    objs = run.spec.objectives
    values = np.column_stack([_figure(run, name) for name in objs])
    front = pareto_mask(values, [METRICS[n].sense for n in objs], feasible)
    first, sense = values[:, 0], METRICS[objs[0]].sense
    best = {key: _best(first, sense, m, pts) for key, m in meets.items()}
    best[ALL] = _best(first, sense, feasible, pts)

    params: list[str] = []
    for p in pts:
        for k in [*p.params, *(f"price:{g}" for g in p.prices)]:
            if k not in params:
                params.append(k)
    has_workload = any(p.workload is not None for p in pts)
    if has_workload:
        params.append("workload")
    figures = [n for n in METRICS if any(
        (o := run.outcomes.get(p.index)) is not None and o.metrics and n in o.metrics
        for p in pts)] or list(objs)
    columns = ["point", "kind", *params, *figures, "feasible", "pareto", *(
        f"meets:{k}" for k in meets), "error", "seconds"]
    rows: list[list[Any]] = []
    for i, p in enumerate(pts):
        o = run.outcomes.get(p.index)
        pv = [p.params.get(k) if not k.startswith("price:") else p.prices.get(k[6:])
              for k in params if k != "workload"]
        if has_workload:
            pv.append(p.workload)
        fv = [(o.metrics.get(n) if o is not None and o.metrics else None) for n in figures]
        fv = [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in fv]
        err = "not run (cancelled)" if o is None else (o.error or "")
        rows.append([p.index, p.kind, *pv, *fv, bool(feasible[i]), bool(front[i]),
                     *(bool(m[i]) for m in meets.values()), err,
                     round(o.seconds, 4) if o is not None else None])
    return SweepTable(columns, rows, ok, feasible, front, best, list(objs), params)


def summary_json(run: SweepRun, table: SweepTable) -> dict[str, Any]:
    """The JSON of ``designer sweep --json``: keys points, failed, pareto, seconds, workers."""
    recs = table.records()
    return {
        "name": run.spec.name,
        "points": len(run.points),
        "solved": int(table.ok.sum()),
        "failed": int(len(run.points) - table.ok.sum()),
        "feasible": int(table.feasible.sum()),
        "pareto": [recs[i] for i in np.flatnonzero(table.pareto)],
        "best": {k: (None if v is None else recs[v]) for k, v in table.best.items()},
        "objectives": table.objectives,
        "constraints": dict(run.spec.constraints),
        "seconds": round(run.seconds, 3),
        "workers": run.workers,
        "scheduler": run.scheduler,
        "batches": run.batches,
        "cancelled": run.cancelled,
        "timing": timing_json(run),
        "errors": [{"point": r["point"], "error": r["error"]} for r in recs if r["error"]],
    }
