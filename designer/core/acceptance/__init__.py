"""Acceptance: the tests to run on the built cluster with the bands this design predicts
(``plan``), and the measured results set beside them with likely causes for a miss
(``check``)."""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "CheckResult": "check",
    "write_check_csv": "check",
    "write_check_report": "report",
    "check_for": "run",
    "plan_for": "run",
    "write_plan": "scripts",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.acceptance.check import CheckResult, write_check_csv
    from designer.core.acceptance.report import write_check_report
    from designer.core.acceptance.run import check_for, plan_for
    from designer.core.acceptance.scripts import write_plan

__all__ = [
    "CheckResult",
    "check_for",
    "plan_for",
    "write_check_csv",
    "write_check_report",
    "write_plan",
]
