"""What each job of a trace runs, as the cluster model needs it: the traffic its collective
makes (ring or all-to-all) and the share of its step spent in exposed communication.

A trace's ``workload`` column names a workload preset (``llama3-405b-8k``, ``dense-70b-dp``,
``deepseek-v3-like`` ...), a traffic kind (``ring``, ``all-to-all``, ``none``) or nothing (the
project's own workload). The communication share is the step estimate's on this design and
on an ideal fabric (``designer estimate``): the exposed communication over the step. MoE
workloads move their tokens all-to-all; the others reduce gradients in rings.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.analysis.estimates import estimate, settings_of
from designer.core.analysis.workload import PRESETS, Workload, WorkloadError
from designer.core.catalog import Catalog
from designer.core.model import Project

TRAFFIC_NAMES = ("ring", "all-to-all", "none")


@dataclass(frozen=True)
class JobKind:
    traffic: str
    comm_share: float
    label: str


def _share(project: Project, result, w: Workload, catalog: Catalog | None) -> float:
    try:
        e = estimate(project, result, w, catalog=catalog)
    except WorkloadError:
        # the preset's own size does not fit this design: the same model on all its GPUs
        e = estimate(project, result, w.model_copy(update={"gpus": 0, "dp": 0}),
                     catalog=catalog)
    return float(e.ideal.comm_fraction)


def job_kinds(project: Project, result, names: set[str], catalog: Catalog | None = None,
              comm_share: float | None = None, traffic: str = "") -> dict[str, JobKind]:
    """A kind for every workload name of the trace. ``result``: the design's solver Result
    (the estimate reads its oversubscription and latency); ``comm_share`` and ``traffic``
    override the estimate for every job."""
    own = settings_of(project).workload
    cache: dict[str, float] = {}

    def share(key: str, w: Workload) -> float:
        if comm_share is not None:
            return comm_share
        if key not in cache:
            try:
                cache[key] = _share(project, result, w, catalog)
            except WorkloadError:
                cache[key] = _share(project, result, Workload(), catalog)
        return cache[key]

    out: dict[str, JobKind] = {}
    for name in sorted(names):
        if name in PRESETS:
            w = PRESETS[name]
            kind = "all-to-all" if w.is_moe else "ring"
            out[name] = JobKind(traffic or kind, share(name, w), w.name)
        elif name in TRAFFIC_NAMES or name == "":
            kind = name or ("all-to-all" if own.is_moe else "ring")
            out[name] = JobKind(traffic or kind, share("", own), own.name)
        else:
            raise WorkloadError(f"trace workload '{name}': not a preset ({', '.join(PRESETS)}) "
                                f"nor a traffic kind ({', '.join(TRAFFIC_NAMES)})")
    return out
