"""Traffic under load and failures: patterns routed on the design's graph, max-min fair
rates, queueing tails, and failure what-ifs. Stands on the solver's compiled arrays; no Qt."""

from designer.core.traffic.load import LoadResult, collective_slowdown, project_load, run_load
from designer.core.traffic.patterns import PATTERNS, Pattern, PatternError, make_pattern
from designer.core.traffic.routing import ROUTINGS

__all__ = [
    "PATTERNS",
    "ROUTINGS",
    "LoadResult",
    "Pattern",
    "PatternError",
    "collective_slowdown",
    "make_pattern",
    "project_load",
    "run_load",
]
