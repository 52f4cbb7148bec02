"""Design-space exploration: a spec of axes -> many designs built and solved on Dask ->
a table with the Pareto front and the best design per constraint. No Qt here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names
from designer.core.sweep import decision_metrics  # noqa: F401 (registers its figures)
from designer.core.sweep.errors import SweepSpecError
from designer.core.sweep.metrics import METRICS, Metric, register
from designer.core.sweep.pareto import pareto_mask
from designer.core.sweep.points import Point, expand
from designer.core.sweep.results import SweepTable, summary_json, sweep_table
from designer.core.sweep.run import SweepRun, run_sweep
from designer.core.sweep.spec import SweepSpec, load_spec, loads_spec, spec_from_dict
from designer.core.sweep.worker import Outcome, build

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "format_of": "files",
    "write_designs": "files",
    "write_table": "files",
    "warm": "local_pool",
    "ENGINES": "run",
    "default_workers": "run",
    "start_engine": "run",
    "load_yaml": "spec",
    "read_spec_text": "spec",
    "time_summary": "timing",
    "timing_lines": "timing",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.sweep.files import format_of, write_designs, write_table
    from designer.core.sweep.local_pool import warm
    from designer.core.sweep.run import ENGINES, default_workers, start_engine
    from designer.core.sweep.spec import load_yaml, read_spec_text
    from designer.core.sweep.timing import time_summary, timing_lines

__all__ = [
    "ENGINES",
    "METRICS",
    "Metric",
    "Outcome",
    "Point",
    "SweepRun",
    "SweepSpec",
    "SweepSpecError",
    "SweepTable",
    "build",
    "default_workers",
    "expand",
    "format_of",
    "load_spec",
    "load_yaml",
    "loads_spec",
    "pareto_mask",
    "read_spec_text",
    "register",
    "run_sweep",
    "spec_from_dict",
    "start_engine",
    "summary_json",
    "sweep_table",
    "time_summary",
    "timing_lines",
    "warm",
    "write_designs",
    "write_table",
]
