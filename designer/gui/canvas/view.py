"""The canvas view: zoom, pan, grid, drops from the palette, and short messages over the canvas.

Wheel zooms around the mouse; middle-drag or Space+drag pans; a drop of a palette item adds
that gear where it lands (snapped to the grid).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QLineF, QPoint, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGraphicsView, QLabel

from designer.core.errors import DesignerError
from designer.gui.base import style
from designer.gui.canvas.grid import GRID, snap
from designer.gui.canvas.interactions import GEAR_MIME, gear_from_mime
from designer.gui.canvas.scene import CanvasScene
from designer.gui.project import commands

MIN_SCALE, MAX_SCALE = 0.002, 6.0
ZOOM_STEP = 1.25


class CanvasView(QGraphicsView):
    zoomChanged = Signal(float)
    cursorMoved = Signal(float, float)

    def __init__(self, scene: CanvasScene, parent=None) -> None:
        super().__init__(scene, parent)
        self.canvas = scene
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setBackgroundBrush(style.CANVAS_BG)
        self.grid_visible = True
        self._pan_from: QPoint | None = None
        self._space = False
        self._toast = QLabel(self.viewport())
        self._toast.setObjectName("toast")
        self._toast.setWordWrap(True)
        self._toast.setMaximumWidth(460)
        self._toast.hide()
        self._toast_timer = QTimer(self)
        self._toast_timer.setSingleShot(True)
        self._toast_timer.timeout.connect(self._toast.hide)
        scene.centreOn.connect(self.show_rect)
        scene.refused.connect(self._on_refused)

    # -- zoom ---------------------------------------------------------------------------------
    def scale_factor(self) -> float:
        return self.transform().m11()

    def set_scale(self, s: float, anchor: QPointF | None = None) -> None:
        s = min(max(s, MIN_SCALE), MAX_SCALE)
        cur = self.scale_factor()
        if anchor is not None:
            old = self.transformationAnchor()
            self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
            before = self.mapToScene(anchor.toPoint())
            self.scale(s / cur, s / cur)
            after = self.mapToScene(anchor.toPoint())
            d = after - before
            self.translate(d.x(), d.y())
            self.setTransformationAnchor(old)
        else:
            self.scale(s / cur, s / cur)
        self._scale_changed()

    def _scale_changed(self) -> None:
        s = self.scale_factor()
        self.canvas.set_view_scale(s)
        self.resetCachedContent()
        self.zoomChanged.emit(s)

    def zoom_in(self) -> None:
        self.set_scale(self.scale_factor() * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_scale(self.scale_factor() / ZOOM_STEP)

    def zoom_actual(self) -> None:
        self.set_scale(1.0)

    def fit_all(self) -> None:
        self.show_rect(self.canvas.content_rect(), margin=40)

    def show_rect(self, rect: QRectF, margin: int = 60) -> None:
        if rect.isEmpty() and rect.width() == 0 and rect.height() == 0:
            self.centerOn(rect.center())
            return
        vw = max(self.viewport().width() - 2 * margin, 50)
        vh = max(self.viewport().height() - 2 * margin, 50)
        s = min(vw / max(rect.width(), 1.0), vh / max(rect.height(), 1.0), 1.5)
        self.set_scale(s)
        self.centerOn(rect.center())

    def fit_readable(self) -> None:
        """Fit the design, unless it is so wide that it would be a thin strip: then zoom so
        its height fills most of the view and start at its left end (F still fits all)."""
        rect = self.canvas.content_rect()
        vw = max(self.viewport().width() - 80, 50)
        vh = max(self.viewport().height() - 80, 50)
        s_all = min(vw / max(rect.width(), 1.0), vh / max(rect.height(), 1.0), 1.5)
        if rect.height() * s_all >= 0.12 * vh:
            self.fit_all()
            return
        s = min(0.7 * vh / max(rect.height(), 1.0), 1.0)
        widths = sorted(b.scene_rect().width() for b in self.canvas.box_items.values())
        if widths:  # a few collapsed boxes across the view, so the overview reads
            s = min(s, vw / (3.2 * widths[len(widths) // 2]))
        s = max(s, s_all)
        self.set_scale(s)
        left = rect.left() + (self.viewport().width() / s) / 2 - 20 / s
        self.centerOn(QPointF(left, rect.center().y()))

    def wheelEvent(self, event) -> None:
        mods = event.modifiers()
        delta = event.angleDelta()
        if mods & Qt.KeyboardModifier.ShiftModifier:
            bar = self.horizontalScrollBar()
            bar.setValue(bar.value() - (delta.y() or delta.x()))
            return
        if mods & Qt.KeyboardModifier.AltModifier:
            super().wheelEvent(event)
            return
        steps = delta.y() / 120.0
        if not steps:
            return
        self.set_scale(self.scale_factor() * math.pow(1.2, steps), event.position())
        event.accept()

    # -- pan ----------------------------------------------------------------------------------
    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            event.accept()
            return
        arrows = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down)
        if event.key() in arrows and self._nudge(event):
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self._pan_from = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().keyReleaseEvent(event)

    def _nudge(self, event) -> bool:
        ids = self.canvas.selected_device_ids()
        if not ids:
            return False
        step = GRID * (10 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
        dx, dy = {
            Qt.Key.Key_Left: (-step, 0),
            Qt.Key.Key_Right: (step, 0),
            Qt.Key.Key_Up: (0, -step),
            Qt.Key.Key_Down: (0, step),
        }[Qt.Key(event.key())]
        fabric = self.canvas.fabric
        pos = {d.id: (d.x + dx, d.y + dy) for d in map(fabric.device, ids)}
        doc = self.canvas.doc
        doc.push(commands.move_devices(doc, pos, nudge=True))
        event.accept()
        return True

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.MiddleButton or (
            self._space and event.button() == Qt.MouseButton.LeftButton
        ):
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._pan_from is not None:
            p = event.position().toPoint()
            d = p - self._pan_from
            self._pan_from = p
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - d.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - d.y())
            event.accept()
            return
        sp = self.mapToScene(event.position().toPoint())
        self.cursorMoved.emit(sp.x(), sp.y())
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._pan_from is not None and event.button() in (
            Qt.MouseButton.MiddleButton,
            Qt.MouseButton.LeftButton,
        ):
            self._pan_from = None
            if self._space:
                self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            else:
                self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def focusOutEvent(self, event) -> None:
        self._space = False
        self._pan_from = None
        super().focusOutEvent(event)

    # -- drops from the palette -------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasFormat(GEAR_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    dragMoveEvent = dragEnterEvent

    def dropEvent(self, event) -> None:
        gear = gear_from_mime(event.mimeData())
        if gear is None:
            event.ignore()
            return
        pos = self.mapToScene(event.position().toPoint())
        event.acceptProposedAction()
        self.add_gear_at(gear, pos)

    def add_gear_at(self, gear_id: str, pos: QPointF) -> bool:
        doc = self.canvas.doc
        try:
            doc.push(commands.add_device(doc, gear_id, snap(pos.x()), snap(pos.y())))
        except DesignerError as exc:
            self._on_refused(str(exc), pos)
            return False
        return True

    def viewport_center_scene(self) -> QPointF:
        return self.mapToScene(self.viewport().rect().center())

    def cursor_scene_pos(self) -> QPointF | None:
        """The mouse position in the scene when the mouse is over the canvas."""
        p = self.viewport().mapFromGlobal(self.cursor().pos())
        if self.viewport().rect().contains(p):
            return self.mapToScene(p)
        return None

    # -- messages over the canvas ---------------------------------------------------------------
    def _on_refused(self, text: str, pos: QPointF) -> None:
        self.canvas.doc.say(text, True)
        self.toast(text, self.mapFromScene(pos), error=True)

    def toast(self, text: str, at: QPoint | None = None, error: bool = False) -> None:
        color = "#b3261e" if error else "#1d2530"
        self._toast.setStyleSheet(
            f"QLabel#toast {{ background: #fffdf5; color: {color}; border: 1px solid "
            f"{'#e3a3a0' if error else '#cfd5dd'}; border-radius: 4px; padding: 6px 9px; }}"
        )
        self._toast.setText(text)
        self._toast.adjustSize()
        vp = self.viewport().rect()
        if at is None:
            at = QPoint(vp.center().x() - self._toast.width() // 2, vp.bottom() - 60)
        x = min(max(at.x() + 14, 8), vp.right() - self._toast.width() - 8)
        y = min(max(at.y() + 14, 8), vp.bottom() - self._toast.height() - 8)
        self._toast.move(x, y)
        self._toast.show()
        self._toast.raise_()
        self._toast_timer.start(4500)

    def hide_toast(self) -> None:
        self._toast.hide()

    def toast_text(self) -> str:
        return self._toast.text() if self._toast.isVisible() else ""

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        """An empty design says how to start."""
        if self.canvas.fabric.devices:
            return
        painter.save()
        painter.resetTransform()
        vp = self.viewport().rect()
        painter.setPen(style.TEXT_MUTED)
        font = style.ui_font(11.0)
        painter.setFont(font)
        text = (
            "Drag gear from the palette onto the canvas,\n"
            "or generate a fabric: Design > Generate (Ctrl+G).\n"
            "Open a design with Ctrl+O."
        )
        painter.drawText(vp, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

    # -- grid ---------------------------------------------------------------------------------
    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, style.CANVAS_BG)
        if not self.grid_visible:
            return
        s = self.scale_factor()
        step = GRID
        while step * s < 12:
            step *= 10
        if step * s > 400:
            return
        major = step * 10
        self._grid_lines(painter, rect, step, style.GRID_MINOR)
        if major * s < 4000:
            self._grid_lines(painter, rect, major, style.GRID_MAJOR)

    def _grid_lines(self, painter: QPainter, rect: QRectF, step: float, color: QColor) -> None:
        pen = QPen(color, 0)
        painter.setPen(pen)
        left = math.floor(rect.left() / step) * step
        top = math.floor(rect.top() / step) * step
        lines = []
        x = left
        while x <= rect.right():
            lines.append(QLineF(x, rect.top(), x, rect.bottom()))
            x += step
        y = top
        while y <= rect.bottom():
            lines.append(QLineF(rect.left(), y, rect.right(), y))
            y += step
        if len(lines) < 2000:
            painter.drawLines(lines)
