"""The figures a sweep records per design, and which way is better for each.

A registry, so that a new figure is one line: ``register("tco_usd", fn, "min", ...)`` where
``fn(project, result)`` returns a float (or ``fn(project, result, workload)`` with
``workload=True`` for figures that depend on a workload, such as step time). Every registered
metric is recorded for every point; the spec's objectives and constraints name them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from designer.core.model import Project
from designer.core.solver.result import Result

Sense = Literal["min", "max"]


@dataclass(frozen=True)
class Metric:
    name: str
    fn: Callable[..., float]
    sense: Sense  # which way is better when it is an objective
    label: str
    unit: str = ""
    workload: bool = False  # fn takes (project, result, workload)

    def value(self, project: Project, result: Result, workload: Any = None) -> float:
        raw = self.fn(project, result, workload) if self.workload else self.fn(project, result)
        return float("nan") if raw is None else float(raw)


METRICS: dict[str, Metric] = {}


def register(name: str, fn: Callable[..., float], sense: Sense, label: str, unit: str = "",
             workload: bool = False) -> Metric:
    metric = Metric(name, fn, sense, label, unit, workload)
    METRICS[name] = metric
    return metric


def _nan(x: float | None) -> float:
    return math.nan if x is None else float(x)


def endpoint_ports(result: Result) -> int:
    """Fabric ports of the endpoints (a GPU on 8 planes has 8): what papers call endpoints."""
    return sum(n for layer, n in result.links.by_layer.items() if layer.startswith("endpoint"))


def _per_endpoint(result: Result) -> float:
    n = endpoint_ports(result)
    return result.bom.total_usd / n if n else math.nan


register("cost_per_gpu", lambda p, r: r.bom.per_gpu_usd, "min", "Network cost per GPU", "USD")
register("cost_per_endpoint", lambda p, r: _per_endpoint(r), "min",
         "Network cost per endpoint port", "USD")
register("network_cost_usd", lambda p, r: r.bom.total_usd, "min", "Network cost", "USD")
register("bisection_per_gpu", lambda p, r: r.bisection.per_gpu_gbps, "max",
         "Bisection per GPU", "Gb/s")
register("bisection_share", lambda p, r: r.bisection.fraction_of_full, "max",
         "Bisection share of full", "")
register("bisection_tbps", lambda p, r: r.bisection.tbps, "max", "Bisection", "Tb/s")
register("worst_oversubscription", lambda p, r: r.oversubscription.worst, "min",
         "Worst oversubscription", ":1")
register("p99_latency_us", lambda p, r: _nan(r.latency.p99_us), "min", "p99 latency", "µs")
register("mean_latency_us", lambda p, r: _nan(r.latency.mean_us), "min", "Mean latency", "µs")
register("mean_hops", lambda p, r: _nan(r.hops.mean), "min", "Mean switch hops", "")
register("max_hops", lambda p, r: _nan(r.hops.max), "min", "Most switch hops", "")
register("power_kw", lambda p, r: r.power_w / 1000.0, "min", "Network power", "kW")
register("power_per_gpu_w", lambda p, r: r.power_w / r.gpus if r.gpus else math.nan, "min",
         "Network power per GPU", "W")
register("gpus", lambda p, r: r.gpus, "max", "GPUs", "")
register("endpoints", lambda p, r: endpoint_ports(r), "max", "Endpoint ports", "")
register("switches", lambda p, r: r.switches.total, "min", "Switches", "")
register("links", lambda p, r: r.links.total, "min", "Links", "")
register("rack_units", lambda p, r: r.rack_units, "min", "Rack units", "RU")


def get(name: str, where: str) -> Metric:
    """The metric ``name`` or a ``SweepSpecError`` naming ``where`` and the known names."""
    from designer.core.sweep.errors import SweepSpecError

    m = METRICS.get(name)
    if m is None:
        raise SweepSpecError(f"{where}: unknown figure '{name}' (known: {', '.join(METRICS)})")
    return m
