"""Wires the Traffic panel into the window: its dock, the canvas overlay and the
right-click "What if this fails?" entries (the window calls ``context_actions``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QScrollArea

from designer.gui.canvas.traffic_overlay import TrafficOverlay
from designer.gui.traffic.panel import TrafficPanel


class TrafficActions:
    def __init__(self, window) -> None:
        self.w = window
        self.panel = TrafficPanel(window.doc)
        self.overlay = TrafficOverlay(window.scene)
        self.panel.overlayWanted.connect(self._overlay)
        self.panel.overlayCleared.connect(self.overlay.clear)
        self.panel.loadTail.connect(self._show_tail)
        window.doc.projectChanged.connect(lambda _r: self._show_tail("", ""))
        self._show_tail("", "")
        # in a scroll area: the dock can be narrower than the form without painting over its
        # neighbours
        scroll = QScrollArea()
        scroll.setWidget(self.panel)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        window.add_panel(scroll, "Traffic", "trafficDock",
                         Qt.DockWidgetArea.BottomDockWidgetArea,
                         tabify_with="problemsDock" if "problemsDock" in window.docks else None)

    def _show_tail(self, text: str, tip: str) -> None:
        """The latency panel's queueing tail under the last pattern run in Traffic."""
        metrics = getattr(getattr(self.w, "analysis", None), "metrics", None)
        if metrics is None or "load_latency" not in metrics.values:
            return
        if text:
            metrics.values["load_latency"].set(text, tip=tip)
        else:
            metrics.values["load_latency"].set(
                "–", tip="Run a pattern in the Traffic panel for the queueing added under load")

    def _overlay(self, failed: list, hot: list) -> None:
        self.overlay.show(failed, hot)

    def what_if(self, specs: list[str]) -> None:
        dock = self.w.docks.get("trafficDock")
        if dock is not None:
            dock.show()
            dock.raise_()
        self.panel.what_if(specs)

    def context_actions(self, menu: QMenu, device_id: str | None,
                        link: tuple[str, str] | None) -> None:
        """Add "What if this fails?" for a switch under the pointer or the selected bundle."""
        doc = self.w.doc
        fabric = doc.project.fabric
        if device_id is not None and device_id in fabric.index:
            if fabric.device(device_id).role.is_switch:
                menu.addSeparator()
                act = menu.addAction("What if this fails?")
                act.triggered.connect(lambda: self.what_if([device_id]))
        elif link is not None:
            menu.addSeparator()
            act = menu.addAction("What if this bundle fails?")
            act.triggered.connect(lambda: self.what_if([f"bundle:{link[0]}/{link[1]}"]))


def install_traffic(window) -> TrafficActions:
    return TrafficActions(window)
