"""The shared solver: bisection, oversubscription, hops and latency, media, BOM and power.

``solve(project, progress=None, cancelled=None, catalog=None) -> Result`` is the one entry
point the window and the command line call. No Qt below here.
"""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names
from designer.core.solver.bisection import Bisection
from designer.core.solver.bom import Bom, BomLine
from designer.core.solver.control import SolveCancelled
from designer.core.solver.media import MediaPlan, choose_media
from designer.core.solver.oversub import Oversubscription, TierOversub
from designer.core.solver.paths import HopStats, LatencyStats
from designer.core.solver.result import LinkCounts, Result, SwitchCounts
from designer.core.solver.solve import solve

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "solve_bisection": "bisection",
    "CATEGORY_ORDER": "bom",
    "compile_project": "compile",
    "Control": "control",
    "oversubscription": "oversub",
    "ratio_text": "oversub",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.solver.bisection import solve_bisection
    from designer.core.solver.bom import CATEGORY_ORDER
    from designer.core.solver.compile import compile_project
    from designer.core.solver.control import Control
    from designer.core.solver.oversub import oversubscription, ratio_text

__all__ = [
    "CATEGORY_ORDER",
    "Bisection",
    "Bom",
    "BomLine",
    "Control",
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
    "compile_project",
    "oversubscription",
    "ratio_text",
    "solve",
    "solve_bisection",
]
