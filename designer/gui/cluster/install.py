"""Docks the Cluster panel beside the Traffic panel."""

from __future__ import annotations

from PySide6.QtCore import Qt

from designer.gui.cluster.panel import ClusterPanel


def install_cluster(window) -> ClusterPanel:
    service = getattr(getattr(window, "analysis", None), "service", None)
    panel = ClusterPanel(window.doc, service.result_for if service is not None else None)
    window.add_panel(panel, "Cluster", "clusterDock", Qt.DockWidgetArea.BottomDockWidgetArea,
                     tabify_with="trafficDock" if "trafficDock" in window.docks else None)
    return panel
