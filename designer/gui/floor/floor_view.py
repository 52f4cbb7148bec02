"""The floor seen from above: rows of racks, each coloured by its fill (U) or power (kW).

A click selects the rack's devices (the canvas selects them too); a double-click opens the
rack's elevation; racks holding selected devices are outlined. A device dragged from the
elevation drops onto a rack here (``deviceDropped``).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from designer.gui.floor.model import FloorData, heat_colour

PX_PER_M = 40.0
DEVICE_MIME = "application/x-fabric-designer-device"


def _colour(spec: str) -> QColor:
    if spec.startswith("hsv("):
        h, s, v = (int(x) for x in spec[4:-1].split(","))
        return QColor.fromHsv(h, s, v)
    return QColor(spec)


class RackItem(QGraphicsRectItem):
    def __init__(self, index: int, rect: QRectF) -> None:
        super().__init__(rect)
        self.index = index
        self.setAcceptHoverEvents(True)


class FloorView(QGraphicsView):
    rackClicked = Signal(int)
    rackActivated = Signal(int)  # double-click
    deviceDropped = Signal(str, int)  # device id, rack index

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setAcceptDrops(True)
        self.setBackgroundBrush(QColor("#F7F8FA"))
        self.data: FloorData | None = None
        self.mode = "fill"
        self.items_: list[RackItem] = []
        self._marked: set[int] = set()
        self._current: int = -1

    # content -----------------------------------------------------------------------------
    def set_data(self, data: FloorData | None, mode: str | None = None) -> None:
        old, self.data = self.data, data
        if mode:
            self.mode = mode
        if (data is not None and old is not None and data.floor.geometry == old.floor.geometry
                and data.floor.rows == old.floor.rows):
            # the same racks (a device moved): recolour the racks whose use changed
            a, b = old.usage, data.usage
            changed = set(np.flatnonzero((a.used_u != b.used_u) | (a.used_kw != b.used_kw)
                                         | (a.devices != b.devices)).tolist())
            self._tooltips(changed)
            self.recolour(only=changed)
            return
        sc = self.scene()
        sc.clear()
        self.items_ = []
        if data is None:
            t = sc.addSimpleText("No floor plan yet: 'Place racks' lays the design out in rows "
                                 "of racks, one row per scalable unit.")
            t.setBrush(QColor("#5d6876"))
            return
        g = data.floor.geometry
        w, d = g.rack_width_m * PX_PER_M, g.rack_depth_m * PX_PER_M
        small = QFont()
        small.setPointSizeF(6.5)
        bold = QFont()
        bold.setBold(True)
        u = data.usage
        for k in range(len(u.names)):
            cx, cy = data.x[k] * PX_PER_M, data.y[k] * PX_PER_M
            item = RackItem(k, QRectF(cx - w / 2, cy - d / 2, w, d))
            sc.addItem(item)
            self.items_.append(item)
            label = QGraphicsSimpleTextItem(u.names[k].rsplit("-", 1)[-1], item)
            label.setFont(small)
            br = label.boundingRect()
            label.setPos(cx - br.width() / 2, cy - br.height() / 2)
        self._tooltips()
        for row in data.floor.rows:
            if not row.racks:
                continue
            k = u.names.index(row.racks[0].name)
            t = sc.addSimpleText(row.name)
            t.setFont(bold)
            br = t.boundingRect()
            t.setPos(data.x[k] * PX_PER_M - w / 2 - br.width() - 8,
                     data.y[k] * PX_PER_M - br.height() / 2)
        self.recolour()
        sc.setSceneRect(sc.itemsBoundingRect().adjusted(-20, -20, 20, 20))

    def _tooltips(self, only: set[int] | None = None) -> None:
        u = self.data.usage
        for item in self.items_ if only is None else [self.items_[k] for k in only]:
            k = item.index
            item.setToolTip(
                f"{u.names[k]} ({u.kinds[k]} rack): {u.used_u[k]}U of {u.cap_u[k]}U, "
                f"{u.used_kw[k]:.1f} kW of {u.cap_kw[k]:.0f} kW, {u.devices[k]} device(s)")

    def recolour(self, mode: str | None = None, only: set[int] | None = None) -> None:
        if mode:
            self.mode = mode
        if self.data is None:
            return
        u = self.data.usage
        frac = (u.used_u / u.cap_u.clip(min=1) if self.mode == "fill"
                else u.used_kw / u.cap_kw.clip(min=1e-9))
        items = self.items_ if only is None else [self.items_[k] for k in only
                                                   if 0 <= k < len(self.items_)]
        for item in items:
            k = item.index
            item.setBrush(QBrush(_colour(heat_colour(float(frac[k])))))
            network = u.kinds[k] == "network"
            selected = k in self._marked or k == self._current
            pen = QPen(QColor("#1565C0") if selected else QColor(
                "#5A4AA6" if network else "#6B7787"))
            pen.setWidthF(3.0 if selected else 1.0)
            pen.setCosmetic(True)
            if network and not selected:
                pen.setStyle(Qt.PenStyle.DashLine)
            item.setPen(pen)

    def mark(self, racks: set[int], current: int = -1) -> None:
        """Outline the racks holding selected devices (and the one shown in elevation)."""
        if racks != self._marked or current != self._current:
            changed = racks ^ self._marked | {current, self._current}
            self._marked, self._current = set(racks), current
            self.recolour(only=changed)

    def fit(self) -> None:
        rect = self.scene().sceneRect()
        if rect.width() > 0:
            self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)

    # gestures ----------------------------------------------------------------------------
    def rack_at(self, pos) -> int:
        for it in self.items(pos):
            while it is not None and not isinstance(it, RackItem):
                it = it.parentItem()
            if isinstance(it, RackItem):
                return it.index
        return -1

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton:
            k = self.rack_at(event.position().toPoint())
            if k >= 0:
                self.rackClicked.emit(k)

    def mouseDoubleClickEvent(self, event) -> None:
        k = self.rack_at(event.position().toPoint())
        if k >= 0:
            self.rackActivated.emit(k)
            return
        super().mouseDoubleClickEvent(event)

    def wheelEvent(self, event) -> None:
        factor = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.scale(factor, factor)

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasFormat(DEVICE_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasFormat(DEVICE_MIME):
            ok = self.rack_at(event.position().toPoint()) >= 0
            event.setAccepted(ok)
            if ok:
                event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:
        md = event.mimeData()
        if not md.hasFormat(DEVICE_MIME):
            super().dropEvent(event)
            return
        k = self.rack_at(event.position().toPoint())
        if k >= 0:
            self.deviceDropped.emit(bytes(md.data(DEVICE_MIME)).decode("utf-8"), k)
            event.acceptProposedAction()

    def rack_centre(self, k: int) -> QPointF:
        """Viewport position of rack ``k``'s centre (tests drop there)."""
        return QPointF(self.mapFromScene(self.items_[k].rect().center()))
