"""Checking a design on the real InfiniBand subnet manager (OpenSM over ibsim).

``check_ib(project, catalog=None, progress=None, cancelled=None)`` returns an
``IbCheckReport``; it blocks for seconds, so the window runs it in a worker thread.
``missing_reason()`` says (without raising) whether the tools are installed, and
``discover(ib_fabric)`` returns what ibnetdiscover finds on a simulated fabric.
"""

from designer.core.ibcheck.check import check_ib, choose_engine
from designer.core.ibcheck.discover import discover
from designer.core.ibcheck.report import Finding, IbCheckReport, SubnetReport
from designer.core.ibcheck.routes import Balance, HopStats
from designer.core.ibcheck.sim import CheckCancelled, IbSimError
from designer.core.ibcheck.tools import IbToolsMissing, missing_reason

__all__ = [
    "Balance",
    "CheckCancelled",
    "Finding",
    "HopStats",
    "IbCheckReport",
    "IbSimError",
    "IbToolsMissing",
    "SubnetReport",
    "check_ib",
    "choose_engine",
    "discover",
    "missing_reason",
]
