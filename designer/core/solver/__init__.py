"""The shared solver: bisection, oversubscription, hops and latency, media, BOM and power.

``solve(project, progress=None, cancelled=None, catalog=None) -> Result`` is the one entry
point the window and the command line call. No Qt below here.
"""

from designer.core.solver.bisection import Bisection
from designer.core.solver.bom import Bom, BomLine
from designer.core.solver.control import SolveCancelled
from designer.core.solver.media import MediaPlan, choose_media
from designer.core.solver.oversub import Oversubscription, TierOversub
from designer.core.solver.paths import HopStats, LatencyStats
from designer.core.solver.result import LinkCounts, Result, SwitchCounts
from designer.core.solver.solve import solve

__all__ = [
    "Bisection",
    "Bom",
    "BomLine",
    "HopStats",
    "LatencyStats",
    "LinkCounts",
    "MediaPlan",
    "Oversubscription",
    "Result",
    "SolveCancelled",
    "SwitchCounts",
    "TierOversub",
    "choose_media",
    "solve",
]
