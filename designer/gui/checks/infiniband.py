"""InfiniBand commands of the window: File > Compare with As-Built… and Tools > Check on
Subnet Manager….

Compare reads an as-built (a project file, or ``ibnetdiscover`` output) in the background,
compares it cable by cable with the design (``designer.core.infiniband``) and lists the
differences in the problems panel, where they are also ringed on the canvas.
The check brings the design up under OpenSM over ibsim (``designer.core.ibcheck``) in the
background, with a progress dialog and Cancel, and shows the report. It is greyed out, with
the reason as its tooltip, when the InfiniBand tools are not installed; an Ethernet design is
refused with the core's message.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QFont, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from designer.core.errors import DesignerError
from designer.core.ibcheck import missing_reason
from designer.gui.base import dialogs
from designer.gui.base.background import BackgroundTask, TaskOwner

AS_BUILT_FILTER = ("As-built fabric (*.fabric.json *.json *.txt *.out *.ibnetdiscover);;"
                   "All files (*)")


def ask_as_built_path(parent: QWidget, start: str = "") -> str | None:
    """Which as-built to compare with (tests answer this instead of a file dialog)."""
    path, _ = QFileDialog.getOpenFileName(parent, "Compare with as-built", start,
                                          AS_BUILT_FILTER)
    return path or None


class ReportDialog(QDialog):
    """Monospaced text (the check's report) with Copy and Close."""

    def __init__(self, parent: QWidget, title: str, heading: str, lines: list[str]) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        lay = QVBoxLayout(self)
        head = QLabel(heading)
        head.setObjectName("sectionTitle")
        head.setWordWrap(True)
        lay.addWidget(head)
        self.text = QPlainTextEdit("\n".join(lines))
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        mono.setPointSizeF(9)
        self.text.setFont(mono)
        lay.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.text.toPlainText()))
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.resize(860, 560)


class IbActions(TaskOwner):
    """Owns the two actions and their background tasks for one window."""

    def __init__(self, window, analysis) -> None:
        self.w = window
        self.analysis = analysis
        self.task: BackgroundTask | None = None
        self.last_report = None
        self.last_diff = None
        self.report_dialog: ReportDialog | None = None

        self.compare = QAction("Compare with &As-Built…", window)
        self.compare.setStatusTip("Compare the design cable by cable with what was built "
                                  "(ibnetdiscover output, LLDP tables or a project file)")
        self.compare.triggered.connect(self.ask_and_compare)
        self.check = QAction("Check on &Subnet Manager…", window)
        self.check.triggered.connect(self.run_check)
        self.update_check_state()

        a = window.actions_
        file_menu = a.menus["file"]
        file_menu.insertAction(a.file_end, self.compare)
        bar = window.menuBar()
        tools = a.menus.get("tools")
        if tools is None:
            from PySide6.QtWidgets import QMenu

            tools = QMenu("&Tools", window)
            help_menu = a.menus.get("help")
            if help_menu is not None:
                bar.insertMenu(help_menu.menuAction(), tools)
            else:
                bar.addMenu(tools)
            a.menus["tools"] = tools
        tools.setToolTipsVisible(True)  # the greyed check says why
        tools.addAction(self.check)
        tools.aboutToShow.connect(self.update_check_state)  # tools installed meanwhile

    def update_check_state(self) -> None:
        self.set_available(
            self.check, missing_reason(),
            "Bring the design up under OpenSM on a simulated fabric (ibsim), read it back and "
            "compare routes and cables with the design")

    # -- compare with as-built ---------------------------------------------------------------------
    def ask_and_compare(self) -> None:
        doc = self.w.doc
        start = str(doc.path.parent) if doc.path else str(Path.cwd())
        path = ask_as_built_path(self.w, start)
        if path:
            self.compare_with(path)

    def compare_with(self, path: str | Path) -> BackgroundTask | None:
        if self.busy:
            return None
        doc = self.w.doc
        plan = doc.project
        catalog = doc.base_catalog
        from designer.core.as_built import load_as_built
        from designer.core.ethernet import as_built_source  # loaded when used
        from designer.core.infiniband import diff_projects

        p = as_built_source(Path(path))  # one switch's LLDP file: the folder of them all

        def work(progress, cancelled):
            progress(0.1, f"reading {p.name}")
            built = load_as_built(p, catalog)
            if cancelled():
                return None
            progress(0.6, "comparing cable by cable")
            diff = diff_projects(plan, built, plan.catalog(catalog))
            return built, diff

        task = self._start("Compare with as-built", f"Reading {p.name}…", work)
        task.finished.connect(lambda value: self._compared(value, plan, p))
        task.failed.connect(lambda msg: self._refused("Cannot compare with the as-built", msg))
        return task

    def _compared(self, value, plan, path: Path) -> None:
        _built, diff = value
        self.last_diff = diff
        problems = diff.problems(plan)
        self.analysis.problems.show_asbuilt(problems, path.name)
        self.analysis.show_panel("problemsDock")
        summary = diff.summary()
        if diff.equal:
            self.w.doc.say(f"As built matches the design: {summary}")
        else:
            self.w.doc.say(f"As built differs from the design: {summary}")

    # -- subnet manager check ----------------------------------------------------------------------
    def run_check(self) -> BackgroundTask | None:
        reason = missing_reason()
        if reason:
            dialogs.show_error(self.w, "Check on subnet manager", reason[0].upper() + reason[1:])
            return None
        if self.busy:
            return None
        doc = self.w.doc
        project, catalog = doc.project, doc.base_catalog
        from designer.core.infiniband import check_infiniband  # loaded when used

        try:
            check_infiniband(project, doc.catalog)
        except DesignerError as exc:  # Ethernet: the core's own words
            self._refused("Check on subnet manager", str(exc))
            return None
        result = self.analysis.service.result_for(project)
        hops = result.hops if result is not None else None

        from designer.core.ibcheck import check_ib  # numpy/scipy: only when checking

        def work(progress, cancelled):
            return check_ib(project, catalog, progress=progress, cancelled=cancelled,
                            solver_hops=hops)

        task = self._start("Check on subnet manager", "Exporting the topology…", work)
        task.finished.connect(self._checked)
        task.failed.connect(lambda msg: self._refused("Check on subnet manager", msg))
        return task

    def _checked(self, report) -> None:
        self.last_report = report
        state = ("OK" if report.ok and not report.findings else
                 "OK with warnings" if report.ok else "Problems found")
        heading = f"{state}: the design on OpenSM ({report.engine} routing)"
        dlg = ReportDialog(self.w, "InfiniBand check", heading, report.lines())
        self.report_dialog = dlg
        self.w.doc.say(f"Subnet manager check: {state.lower()}")
        dlg.show()

    # -- shared ------------------------------------------------------------------------------------
    def _start(self, title: str, label: str, work) -> BackgroundTask:
        from designer.core.ibcheck import CheckCancelled

        task = BackgroundTask(self.w, title, label, work, cancel_types=(CheckCancelled,))
        task.cancelled.connect(lambda: self.w.doc.say(f"{title}: cancelled"))
        self.task = task
        task.start()
        return task

    def _refused(self, title: str, message: str) -> None:
        self.w.doc.say(message, True)
        dialogs.show_error(self.w, title, message[:1].upper() + message[1:])
