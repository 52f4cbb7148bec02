"""The cluster over time: a trace of jobs scheduled on the design, their traffic sharing its
links, failures and restarts, and the goodput and money that come out. No Qt."""

from designer.core.cluster.formats import FORMATS, read_trace
from designer.core.cluster.placement import POLICIES
from designer.core.cluster.project_run import cluster_project
from designer.core.cluster.reliability import FailureSettings, Rate
from designer.core.cluster.result import ClusterResult
from designer.core.cluster.settings import ClusterError, ClusterSettings
from designer.core.cluster.synthetic import synthetic
from designer.core.cluster.trace import Trace, TraceError

__all__ = [
    "FORMATS",
    "POLICIES",
    "ClusterError",
    "ClusterResult",
    "ClusterSettings",
    "FailureSettings",
    "Rate",
    "Trace",
    "TraceError",
    "cluster_project",
    "read_trace",
    "synthetic",
]
