"""The cluster over time: a trace of jobs scheduled on the design, their traffic sharing its
links, failures and restarts, and the goodput and money that come out. No Qt."""

from typing import TYPE_CHECKING

from designer.core.cluster.formats import FORMATS, read_trace
from designer.core.cluster.placement import POLICIES
from designer.core.cluster.project_run import cluster_project
from designer.core.cluster.reliability import FailureSettings, Rate
from designer.core.cluster.result import ClusterResult
from designer.core.cluster.settings import ClusterError, ClusterSettings
from designer.core.cluster.synthetic import synthetic
from designer.core.cluster.trace import Trace, TraceError
from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "CHECKPOINT_H_SOURCE": "reliability",
    "COMPONENTS": "reliability",
    "LLAMA3_DAYS": "reliability",
    "LLAMA3_INTERRUPTIONS": "reliability",
    "RESTART_H_SOURCE": "reliability",
    "effective_training": "reliability",
    "cluster_sweep": "sweep",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.cluster.reliability import (
        CHECKPOINT_H_SOURCE,
        COMPONENTS,
        LLAMA3_DAYS,
        LLAMA3_INTERRUPTIONS,
        RESTART_H_SOURCE,
        effective_training,
    )
    from designer.core.cluster.sweep import cluster_sweep

__all__ = [
    "CHECKPOINT_H_SOURCE",
    "COMPONENTS",
    "FORMATS",
    "LLAMA3_DAYS",
    "LLAMA3_INTERRUPTIONS",
    "POLICIES",
    "RESTART_H_SOURCE",
    "ClusterError",
    "ClusterResult",
    "ClusterSettings",
    "FailureSettings",
    "Rate",
    "Trace",
    "TraceError",
    "cluster_project",
    "cluster_sweep",
    "effective_training",
    "read_trace",
    "synthetic",
]
