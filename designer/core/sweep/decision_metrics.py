"""Sweep figures from the decision analysis: step time, communication share, MFU, TCO and
busbw of the point's workload on the point's design (``designer.core.analysis.estimates``).

A spec names a workload per point (``workloads: [{preset: llama3-405b-8k}, {...}]``, a preset or
the fields of a workload); a design too small for the workload's parallelism records the error
for its point, as any refused point does. One estimate serves every figure of a point.
"""

from __future__ import annotations

from typing import Any

from designer.core.analysis.estimates import Estimate, estimate
from designer.core.analysis.inputs import validated
from designer.core.analysis.workload import Workload, preset
from designer.core.sweep.metrics import register


def workload_of(spec: Any) -> Workload:
    """A sweep spec's workload entry: ``{"preset": NAME}``, a preset name, or the fields."""
    if isinstance(spec, Workload):
        return spec
    if isinstance(spec, str):
        return preset(spec)
    if isinstance(spec, dict) and set(spec) == {"preset"}:
        return preset(str(spec["preset"]))
    return validated(Workload, dict(spec), "workloads")


_last: list[tuple[tuple[int, int, int], Estimate]] = []


def _estimate(project, result, workload) -> Estimate:
    # the figures of one point come one after another: keep the last estimate
    key = (id(project), id(result), id(workload))
    if _last and _last[0][0] == key:
        return _last[0][1]
    est = estimate(project, result, workload_of(workload))
    _last[:] = [(key, est)]
    return est


def _busbw(est: Estimate) -> float:
    """The busbw of the workload's slowest-bandwidth collective (GB/s): what limits it."""
    rows = [r for r in est.collectives if r.busbw_gbytes_s > 0]
    return min(r.busbw_gbytes_s for r in rows) if rows else float("nan")


register("step_time", lambda p, r, w: _estimate(p, r, w).step.step_s, "min",
         "Step time", "s", workload=True)
register("comm_fraction", lambda p, r, w: _estimate(p, r, w).step.comm_fraction, "min",
         "Exposed communication share of the step", "", workload=True)
register("mfu", lambda p, r, w: _estimate(p, r, w).step.mfu, "max", "MFU", "",
         workload=True)
register("slowdown_vs_ideal", lambda p, r, w: _estimate(p, r, w).slowdown, "min",
         "Step time against an ideal fabric", "x", workload=True)
register("busbw_gbytes_s", lambda p, r, w: _busbw(_estimate(p, r, w)), "max",
         "Lowest busbw of the workload's collectives", "GB/s", workload=True)
register("tco_usd", lambda p, r, w: _estimate(p, r, w).tco.total_usd, "min",
         "TCO", "USD", workload=True)
register("usd_per_useful_gpu_hour",
         lambda p, r, w: _estimate(p, r, w).tco.usd_per_useful_gpu_hour, "min",
         "Cost per useful GPU-hour", "USD", workload=True)
