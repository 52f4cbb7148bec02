"""Docks the Workload, Estimate and Compare panels next to the live analysis."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt

from designer.gui.decision.compare_panel import ComparePanel
from designer.gui.decision.estimate_panel import EstimatePanel
from designer.gui.decision.workload_panel import WorkloadPanel

Area = Qt.DockWidgetArea


@dataclass
class Decision:
    workload: WorkloadPanel
    estimate: EstimatePanel
    compare: ComparePanel

    def shutdown(self) -> None:
        self.compare.compare.shutdown()


def install_decision(window, service) -> Decision:
    doc = window.doc
    d = Decision(WorkloadPanel(doc, service=service), EstimatePanel(service, doc),
                 ComparePanel(service, doc))
    window.add_panel(d.workload, "Workload", "workloadDock", Area.RightDockWidgetArea,
                     tabify_with="inspectorDock")
    window.add_panel(d.estimate, "Estimate", "estimateDock", Area.BottomDockWidgetArea,
                     tabify_with="chartsDock")
    window.add_panel(d.compare, "Compare", "compareDock", Area.BottomDockWidgetArea,
                     tabify_with="bomDock")
    return d
