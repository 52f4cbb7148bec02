"""Live analysis in the window: the solver service, its panels and its place in the status bar.

``install_analysis(window)`` creates the ``SolverService`` and docks the metrics, charts, BOM
and problems panels; it adds File > Export (given the latest result, so exports need not solve
again), File > Compare with As-Built… and Tools > Check on Subnet Manager…. Default layout:
metrics at the top of the right column above the inspector; charts, BOM and problems in a
strip along the bottom, so the canvas keeps the middle of the window.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel

from designer.gui.analysis.solver_service import SolverService
from designer.gui.checks.infiniband import IbActions
from designer.gui.checks.roce import RoceActions
from designer.gui.exports import actions as export_actions
from designer.gui.panels import fmt
from designer.gui.panels.bom import BomPanel
from designer.gui.panels.charts import ChartsPanel
from designer.gui.panels.metrics import MetricsPanel
from designer.gui.panels.problems import ProblemsPanel
from designer.gui.sources.actions import SourcesActions

Area = Qt.DockWidgetArea


class Analysis:
    def __init__(self, window) -> None:
        self.w = window
        doc = window.doc
        self.service = SolverService(doc, window)
        self.metrics = MetricsPanel(self.service, doc)
        self.charts = ChartsPanel(self.service)
        self.bom = BomPanel(self.service, doc)
        self.problems = ProblemsPanel(self.service, doc)

        # the right column (metrics, inspector) runs the full height; the bottom strip runs
        # under the palette and the canvas
        window.setCorner(Qt.Corner.BottomLeftCorner, Area.BottomDockWidgetArea)
        window.setCorner(Qt.Corner.BottomRightCorner, Area.RightDockWidgetArea)
        d = window.docks
        metrics = window.add_panel(self.metrics, "Metrics", "metricsDock", Area.RightDockWidgetArea)
        window.splitDockWidget(metrics, d["inspectorDock"], Qt.Orientation.Vertical)
        if "historyDock" in d:
            window.tabifyDockWidget(d["inspectorDock"], d["historyDock"])
        charts = window.add_panel(self.charts, "Charts", "chartsDock", Area.BottomDockWidgetArea)
        bom = window.add_panel(self.bom, "Bill of Materials", "bomDock", Area.BottomDockWidgetArea)
        window.splitDockWidget(charts, bom, Qt.Orientation.Horizontal)
        window.add_panel(self.problems, "Problems", "problemsDock", Area.BottomDockWidgetArea,
                         tabify_with="bomDock")
        # the front tab of each stack, once the window has laid the tabs out
        inspector = d["inspectorDock"]
        QTimer.singleShot(0, inspector, inspector.raise_)
        QTimer.singleShot(0, bom, bom.raise_)
        QTimer.singleShot(0, charts, charts.raise_)  # the Estimate tab sits behind the charts
        width = max(window.width(), 1200)
        # the bill of materials gets half the width and the bottom strip room for about ten
        # rows: at 45% and 270 px it showed five rows and cut the item names
        window.resizeDocks([charts, bom], [int((width - 370) * 0.5), int((width - 370) * 0.5)],
                           Qt.Orientation.Horizontal)
        window.resizeDocks([charts], [330], Qt.Orientation.Vertical)
        window.resizeDocks([metrics, d["inspectorDock"]], [430, 400], Qt.Orientation.Vertical)
        window.resizeDocks([metrics, d["paletteDock"]], [370, 230], Qt.Orientation.Horizontal)

        self.state_label = QLabel()
        self.state_label.setObjectName("solverState")
        self.state_label.setMinimumWidth(190)
        window.statusBar().insertPermanentWidget(0, self.state_label)
        self.service.stateChanged.connect(self._state)
        self.service.progress.connect(self._progress)
        self.service.resultReady.connect(lambda *_: self._state(self.service.state))
        self.service.solveFailed.connect(self._failed)
        self.metrics.problemsClicked.connect(lambda: self.show_panel("problemsDock"))

        from designer.gui.base.gc_freeze import GcFreezer

        self.gc_freezer = GcFreezer(self.service, doc, window)
        self.export = export_actions.install(window, result_for=self.service.result_for)
        from designer.gui.decision.install import install_decision

        self.decision = install_decision(window, self.service)
        # a comparison's variants are large too: freeze them once shown
        self.decision.compare.compare.comparisonReady.connect(lambda _c: self.gc_freezer.request())
        self.ib = IbActions(window, self)
        self.sources = SourcesActions(window)
        self.roce = RoceActions(window, self)
        from designer.gui.acceptance.actions import AcceptanceActions

        self.acceptance = AcceptanceActions(window, self)
        self._state("idle")
        self.service.schedule()

    def show_panel(self, name: str) -> None:
        dock = self.w.docks.get(name)
        if dock is not None:
            dock.show()
            dock.raise_()

    def shutdown(self) -> None:
        """Stop every worker of the analysis (the window is closing)."""
        self.service.shutdown()
        self.gc_freezer.shutdown()
        self.decision.shutdown()
        self.ib.shutdown()
        self.sources.shutdown()
        self.roce.shutdown()
        self.acceptance.shutdown()
        # an export still writing stops at its next progress step (a cancelled export
        # leaves no new file)
        if self.export is not None:
            self.export.shutdown()

    # -- status bar --------------------------------------------------------------------------------
    def _state(self, state: str) -> None:
        s = self.service
        if state == "computing":
            text = f"Analysing… {s.progress_fraction * 100:.0f}%"
            tip = f"Solving revision {self.w.doc.revision} ({s.progress_stage})"
            colour = "#5d6876"
        elif state == "error":
            text = "Analysis failed"
            tip = s.last_error
            colour = "#c62828"
        elif s.latest is None:
            text, tip, colour = "Analysis idle", "", "#5d6876"
        else:
            text = f"Analysed in {fmt.seconds(s.last_seconds)}"
            tip = "Metrics, charts, BOM and problems describe the design as it is now"
            colour = "#2e7d32"
        self.state_label.setText(f"<span style='color:{colour}'>●</span> {text}")
        self.state_label.setToolTip(tip)

    def _progress(self, fraction: float, stage: str) -> None:
        self.state_label.setText(f"<span style='color:#5d6876'>●</span> Analysing… "
                                 f"{fraction * 100:.0f}% ({stage})")

    def _failed(self, _revision: int, message: str) -> None:
        self._state("error")
        self.w.doc.say(f"The analysis failed: {message}", True)


def install_analysis(window) -> Analysis:
    analysis = Analysis(window)
    window.analysis = analysis
    return analysis
