"""Traffic under load and failures: patterns routed on the design's graph, max-min fair
rates, queueing tails, and failure what-ifs. Stands on the solver's compiled arrays; no Qt."""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names
from designer.core.traffic.load import LoadResult, collective_slowdown, project_load, run_load
from designer.core.traffic.patterns import PATTERNS, Pattern, PatternError, make_pattern
from designer.core.traffic.routing import ALIASES, ROUTING_LABELS, ROUTINGS, canonical_routing

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "DEFAULT_USD_PER_GPU_HOUR": "failures",
    "WhatIf": "failures",
    "n_minus_1": "failures",
    "what_if": "failures",
    "opensm_tables": "lft",
    "build_network": "network",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.traffic.failures import DEFAULT_USD_PER_GPU_HOUR, WhatIf, n_minus_1, what_if
    from designer.core.traffic.lft import opensm_tables
    from designer.core.traffic.network import build_network

__all__ = [
    "ALIASES",
    "DEFAULT_USD_PER_GPU_HOUR",
    "PATTERNS",
    "ROUTINGS",
    "ROUTING_LABELS",
    "LoadResult",
    "Pattern",
    "PatternError",
    "WhatIf",
    "build_network",
    "canonical_routing",
    "collective_slowdown",
    "make_pattern",
    "n_minus_1",
    "opensm_tables",
    "project_load",
    "run_load",
    "what_if",
]
