"""Tools > Check Routed Fabric…: the live RoCE check (``designer.core.ethernet.netns``) in the
background, with a progress dialog and Cancel, then its report.

Greyed out, with the reason as its tooltip, when FRR, iproute2, traceroute or root privileges
are missing; an InfiniBand design is refused with the core's message.
"""

from __future__ import annotations

from PySide6.QtGui import QAction

from designer.core.ethernet import missing_reason
from designer.gui.base import dialogs
from designer.gui.base.background import BackgroundTask, TaskOwner
from designer.gui.checks.infiniband import ReportDialog

TITLE = "Check routed fabric"


class RoceActions(TaskOwner):
    """Owns the action and its background task for one window."""

    def __init__(self, window, analysis) -> None:
        self.w = window
        self.analysis = analysis
        self.task: BackgroundTask | None = None
        self.last_report = None
        self.report_dialog: ReportDialog | None = None
        self.check = QAction("Check &Routed Fabric…", window)
        self.check.triggered.connect(self.run_check)
        self.update_state()
        tools = window.actions_.menus.get("tools")
        if tools is not None:  # made by the InfiniBand actions, installed first
            tools.addAction(self.check)
            tools.aboutToShow.connect(self.update_state)

    def update_state(self) -> None:
        self.set_available(
            self.check, missing_reason(),
            "Bring the RoCE design up on FRR in network namespaces (eBGP, one veth per cable), "
            "compare routes, ECMP widths and hops with the design, then fail a spine")

    def run_check(self) -> BackgroundTask | None:
        reason = missing_reason()
        if reason:
            dialogs.show_error(self.w, TITLE, reason[0].upper() + reason[1:])
            return None
        if self.busy:
            return None
        # loaded when used: the lab and its planner bring scipy's graph module and the
        # InfiniBand simulator, 0.2 s of the window's start
        from designer.core.ethernet import check_roce, profile_problem
        from designer.core.ibcheck import CheckCancelled

        doc = self.w.doc
        project, catalog = doc.project, doc.catalog
        problem = profile_problem(project, catalog)  # instant; the worker checks every switch
        if problem:
            self._refused(problem)
            return None
        result = self.analysis.service.result_for(project)
        hops = result.hops if result is not None else None

        def work(progress, cancelled):
            return check_roce(project, catalog, progress=progress, cancelled=cancelled,
                              solver_hops=hops)

        task = BackgroundTask(self.w, TITLE, "Building the lab…", work,
                              cancel_types=(CheckCancelled,))
        task.cancelled.connect(lambda: self.w.doc.say(f"{TITLE}: cancelled"))
        task.finished.connect(self._checked)
        task.failed.connect(self._refused)
        self.task = task
        task.start()
        return task

    def _checked(self, report) -> None:
        self.last_report = report
        state = "OK" if report.ok else "Problems found"
        scope = f" (slice: {report.slice})" if report.slice else ""
        heading = f"{state}: the routed fabric on FRR{scope}"
        dlg = ReportDialog(self.w, "Routed-fabric check", heading, report.lines())
        self.report_dialog = dlg
        self.w.doc.say(f"Routed-fabric check: {state.lower()}")
        dlg.show()

    def _refused(self, message: str) -> None:
        self.w.doc.say(message, True)
        dialogs.show_error(self.w, TITLE, message[:1].upper() + message[1:])
