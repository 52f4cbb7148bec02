"""A rack's elevation: its U from the bottom up, each device drawn where it sits.

Drag a device up or down to another U (``deviceMoved``); drag it out onto a rack of the floor
view to move it there (a ``QDrag`` carrying its id). A click selects the device, in the
canvas too. Reserved U at the top (management switch, patch panel) are hatched.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QDrag, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from designer.gui.base import style
from designer.gui.floor.floor_view import DEVICE_MIME
from designer.gui.floor.model import FloorData

U_PX = 14.0
WIDTH = 230.0


class DeviceBox(QGraphicsRectItem):
    def __init__(self, device_id: str, u: int, ru: int, rect: QRectF) -> None:
        super().__init__(rect)
        self.device_id, self.u, self.ru = device_id, u, ru
        self.setZValue(2)


class ElevationView(QGraphicsView):
    deviceClicked = Signal(str)
    deviceMoved = Signal(str, int)  # device id, new lowest U in this rack

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setBackgroundBrush(QColor("#FFFFFF"))
        self.setMinimumWidth(300)
        self.rack = -1
        self.height_u = 0
        self.boxes: dict[str, DeviceBox] = {}
        self._drag: DeviceBox | None = None
        self._grab_dy = 0.0
        self._start_y = 0.0

    def y_of(self, u: int, ru: int) -> float:
        return (self.height_u - (u + ru - 1)) * U_PX

    def u_of(self, y: float, ru: int) -> int:
        return round(self.height_u - ru + 1 - y / U_PX)

    def show_rack(self, data: FloorData | None, rack: int, names: dict[str, str],
                  roles: dict[str, str], selected: frozenset[str]) -> None:
        sc = self.scene()
        sc.clear()
        self.boxes = {}
        self.rack = rack
        if data is None or rack < 0:
            return
        u = data.usage
        self.height_u = int(u.cap_u[rack])
        g = data.floor.geometry
        title = sc.addSimpleText(
            f"{u.names[rack]}: {u.used_u[rack]}U of {u.cap_u[rack]}U, "
            f"{u.used_kw[rack]:.1f} kW of {u.cap_kw[rack]:.0f} kW")
        f = QFont()
        f.setBold(True)
        title.setFont(f)
        title.setPos(0, -26)
        frame = sc.addRect(QRectF(0, 0, WIDTH, self.height_u * U_PX),
                           QPen(QColor("#3b4654"), 2))
        frame.setZValue(0)
        small = QFont()
        small.setPointSizeF(6.5)
        for k in range(1, self.height_u + 1):
            t = sc.addSimpleText(str(k))
            t.setFont(small)
            t.setBrush(QColor("#8a94a3"))
            t.setPos(-18, self.y_of(k, 1) + 1)
        for k in range(self.height_u - g.reserved_u + 1, self.height_u + 1):
            r = sc.addRect(QRectF(1, self.y_of(k, 1), WIDTH - 2, U_PX), QPen(Qt.PenStyle.NoPen),
                           QBrush(QColor("#d5dae1"), Qt.BrushStyle.BDiagPattern))
            r.setToolTip("kept free: management switch and patch panel")
        for i in data.devices_in(rack):
            dev = data.ids[i]
            lo, ru = int(data.pos.u[i]), int(data.pos.sizes.ru[i])
            box = DeviceBox(dev, lo, ru, QRectF(2, 0, WIDTH - 4, ru * U_PX - 1))
            box.setPos(0, self.y_of(lo, ru))
            fill, line = style.ROLE_COLORS.get(roles.get(dev, "leaf"), style.ROLE_COLORS["leaf"])
            box.setBrush(QColor(fill))
            sel = dev in selected
            pen = QPen(QColor("#1565C0") if sel else QColor(line), 3 if sel else 1)
            box.setPen(pen)
            box.setToolTip(f"{names.get(dev, dev)}: U{lo}" + (f"-U{lo + ru - 1}" if ru > 1 else "")
                           + " (drag to another U, or onto a rack of the floor)")
            label = QGraphicsSimpleTextItem(f"U{lo}  {names.get(dev, dev)}", box)
            label.setFont(small if ru == 1 else QFont())
            label.setPos(8, (ru * U_PX - label.boundingRect().height()) / 2)
            sc.addItem(box)
            self.boxes[dev] = box
        for dev, _rack, lo, ru, what in data.others_in(rack):
            # another network's device: drawn where it stands, placed with its network
            box = sc.addRect(QRectF(2, 0, WIDTH - 4, ru * U_PX - 1), QPen(QColor("#6d7785")),
                             QBrush(QColor("#eef1f4")))
            box.setPos(0, self.y_of(lo, ru))
            box.setZValue(2)
            box.setToolTip(f"{dev} ({what}): U{lo}; placed with its network by Place racks")
            label = QGraphicsSimpleTextItem(f"U{lo}  {dev}", box)
            label.setFont(small if ru == 1 else QFont())
            label.setPos(8, (ru * U_PX - label.boundingRect().height()) / 2)
        sc.setSceneRect(QRectF(-24, -34, WIDTH + 32, self.height_u * U_PX + 44))

    def fit(self) -> None:
        self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit()

    # gestures ----------------------------------------------------------------------------
    def _box_at(self, pos) -> DeviceBox | None:
        for it in self.items(pos):
            while it is not None and not isinstance(it, DeviceBox):
                it = it.parentItem()
            if isinstance(it, DeviceBox):
                return it
        return None

    def mousePressEvent(self, event) -> None:
        box = self._box_at(event.position().toPoint())
        if box is not None and event.button() == Qt.MouseButton.LeftButton:
            self._drag = box
            self._start_y = box.pos().y()
            self._grab_dy = self.mapToScene(event.position().toPoint()).y() - box.pos().y()
            self.deviceClicked.emit(box.device_id)
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        box = self._drag
        if box is None:
            super().mouseMoveEvent(event)
            return
        if not self.viewport().rect().contains(event.position().toPoint()):
            # left the elevation: carry the device to a rack of the floor view
            self._drag = None
            box.setPos(0, self._start_y)
            drag = QDrag(self)
            md = QMimeData()
            md.setData(DEVICE_MIME, box.device_id.encode("utf-8"))
            drag.setMimeData(md)
            drag.exec(Qt.DropAction.MoveAction)
            return
        y = self.mapToScene(event.position().toPoint()).y() - self._grab_dy
        u = max(1, min(self.height_u - box.ru + 1, self.u_of(y, box.ru)))
        box.setPos(0, self.y_of(u, box.ru))

    def mouseReleaseEvent(self, event) -> None:
        box, self._drag = self._drag, None
        if box is None:
            super().mouseReleaseEvent(event)
            return
        u = self.u_of(box.pos().y(), box.ru)
        if u != box.u:
            box.setPos(0, self._start_y)  # the document redraws it where the edit puts it
            self.deviceMoved.emit(box.device_id, u)
