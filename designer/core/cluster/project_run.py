"""The one entry point the window, the command line and sweeps call: a project and a trace in,
a ``ClusterResult`` out."""

from __future__ import annotations

from collections.abc import Callable

from designer.core.analysis.estimates import settings_of
from designer.core.catalog import Catalog, builtin_catalog
from designer.core.cluster.jobmix import job_kinds
from designer.core.cluster.result import ClusterResult
from designer.core.cluster.settings import ClusterSettings
from designer.core.cluster.simulate import run_cluster
from designer.core.cluster.trace import Trace
from designer.core.model import Project
from designer.core.solver.compile import compile_project


def cluster_project(project: Project, trace: Trace, settings: ClusterSettings | None = None,
                    *, catalog: Catalog | None = None, result=None,
                    progress: Callable[[float, str], None] | None = None,
                    cancelled: Callable[[], bool] | None = None) -> ClusterResult:
    """Replay ``trace`` on ``project``. ``result``: the design's solver Result when the caller
    has it (the workloads' communication shares are estimated on it; solved here if not)."""
    s = (settings or ClusterSettings()).checked()
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())

    def part(lo: float, hi: float):
        if progress is None:
            return None
        return lambda f, stage: progress(lo + (hi - lo) * f, stage)

    if result is None and s.comm_share is None:
        from designer.core.solver import solve

        result = solve(project, part(0.0, 0.1), cancelled, cat)
    kinds = job_kinds(project, result, set(trace.workload), cat, s.comm_share, s.traffic)
    c = compile_project(project, cat)
    econ = settings_of(project)
    return run_cluster(c, trace, s, kinds, usd_per_gpu_hour=econ.economics.gpu_hour_usd,
                       domain_gpus=econ.workload.nvlink_domain, progress=part(0.1, 1.0),
                       cancelled=cancelled)
