"""Checking a design on the real InfiniBand subnet manager (OpenSM over ibsim).

``check_ib(project, catalog=None, progress=None, cancelled=None)`` returns an
``IbCheckReport``; it blocks for seconds, so the window runs it in a worker thread.
``missing_reason()`` says (without raising) whether the tools are installed, and
``discover(ib_fabric)`` returns what ibnetdiscover finds on a simulated fabric.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Names are imported on first use (PEP 562): the window asks ``missing_reason()`` while it
# starts, and loading the whole check (numpy, scipy, the route analysis) for that cost 0.3 s.
_WHERE = {
    "ENGINES": "check",
    "check_ib": "check",
    "choose_engine": "check",
    "discover": "discovery",
    "Finding": "report",
    "IbCheckReport": "report",
    "SubnetReport": "report",
    "Balance": "routes",
    "HopStats": "routes",
    "CheckCancelled": "sim",
    "IbSimError": "sim",
    "IbToolsMissing": "tools",
    "missing_reason": "tools",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from designer.core.ibcheck.check import ENGINES, check_ib, choose_engine
    from designer.core.ibcheck.discovery import discover
    from designer.core.ibcheck.report import Finding, IbCheckReport, SubnetReport
    from designer.core.ibcheck.routes import Balance, HopStats
    from designer.core.ibcheck.sim import CheckCancelled, IbSimError
    from designer.core.ibcheck.tools import IbToolsMissing, missing_reason

__all__ = [
    "ENGINES",
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
