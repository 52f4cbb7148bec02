"""Design-space exploration: a spec of axes -> many designs built and solved on Dask ->
a table with the Pareto front and the best design per constraint. No Qt here."""

from __future__ import annotations

from designer.core.sweep import decision_metrics  # noqa: F401 (registers its figures)
from designer.core.sweep.errors import SweepSpecError
from designer.core.sweep.metrics import METRICS, Metric, register
from designer.core.sweep.pareto import pareto_mask
from designer.core.sweep.points import Point, expand
from designer.core.sweep.results import SweepTable, summary_json, sweep_table
from designer.core.sweep.run import SweepRun, run_sweep
from designer.core.sweep.spec import SweepSpec, load_spec, loads_spec, spec_from_dict
from designer.core.sweep.worker import Outcome, build

__all__ = [
    "METRICS",
    "Metric",
    "Outcome",
    "Point",
    "SweepRun",
    "SweepSpec",
    "SweepSpecError",
    "SweepTable",
    "build",
    "expand",
    "load_spec",
    "loads_spec",
    "pareto_mask",
    "register",
    "run_sweep",
    "spec_from_dict",
    "summary_json",
    "sweep_table",
]
