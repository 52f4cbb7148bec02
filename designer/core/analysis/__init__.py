"""Decision analysis: workloads, collective and step-time estimates, money, TCO, compare and
the recommendation, all read from a solved design (no Qt, no recompiling)."""

from designer.core.analysis.estimate import CollectiveRequest, Estimate, estimate, settings_of
from designer.core.analysis.workload import (
    PRESETS,
    DecisionSettings,
    Economics,
    Workload,
    WorkloadError,
    preset,
)

__all__ = ["PRESETS", "CollectiveRequest", "DecisionSettings", "Economics", "Estimate",
           "Workload", "WorkloadError", "estimate", "preset", "settings_of"]
