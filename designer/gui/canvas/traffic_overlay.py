"""A temporary overlay on the canvas: failed elements crossed out in red, the hottest links
ringed in orange (both ends ringed, a thick line between them). Views only: it reads where
the scene draws a device (or the folded box that holds it) and edits nothing."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from designer.gui.base import style

FAILED = style.ERROR
HOT = QColor("#ef6c00")
Z = 50.0  # above devices and links


class TrafficOverlay:
    def __init__(self, scene) -> None:
        self.scene = scene
        self.items: list[QGraphicsPathItem] = []

    def _rect(self, device_id: str) -> QRectF | None:
        sc = self.scene
        item = sc.device_items.get(device_id)
        if item is not None:
            return item.sceneBoundingRect()
        i = sc.fabric.index.get(device_id)
        if i is None:
            return None
        node = int(sc.vg.node_of[i])
        if node < sc.vg.n_devices:
            return None
        box = sc.box_items.get(sc.index.keys[node - sc.vg.n_devices])
        return None if box is None else box.sceneBoundingRect()

    def _add(self, path: QPainterPath, color: QColor, width: float,
             dashed: bool = False) -> None:
        pen = QPen(color, width)
        pen.setCosmetic(True)
        if dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        it = QGraphicsPathItem(path)
        it.setPen(pen)
        it.setZValue(Z)
        it.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.scene.addItem(it)
        self.items.append(it)

    def show(self, failed: list[str], hot: list[tuple[str, str, float]]) -> int:
        """Draw; returns how many elements could be placed (folded ones ring their box)."""
        self.clear()
        placed = 0
        for a, b, _util in hot:
            ra, rb = self._rect(a), self._rect(b)
            if ra is None or rb is None:
                continue
            path = QPainterPath()
            for r in (ra, rb):
                path.addEllipse(r.adjusted(-6, -6, 6, 6))
            path.moveTo(ra.center())
            path.lineTo(rb.center())
            self._add(path, HOT, 3.0)
            placed += 1
        for d in failed:
            r = self._rect(d)
            if r is None:
                continue
            r = r.adjusted(-8, -8, 8, 8)
            path = QPainterPath()
            path.addEllipse(r)
            path.moveTo(r.topLeft())
            path.lineTo(r.bottomRight())
            path.moveTo(QPointF(r.right(), r.top()))
            path.lineTo(r.bottomLeft())
            self._add(path, FAILED, 3.0, dashed=True)
            placed += 1
        return placed

    def clear(self) -> None:
        for it in self.items:
            if it.scene() is self.scene:
                self.scene.removeItem(it)
        self.items.clear()
