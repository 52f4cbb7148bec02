"""What the mouse, the keys and a resting pointer do on the canvas.

A press finds what is under it (``node_item_at``, then a line within a few pixels) and starts
a gesture (``interactions.py``), which then gets the moves and the release; Esc cancels it.
Tooltip texts are written in ``tooltips.py``.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QGraphicsSceneHelpEvent, QToolTip

from designer.gui.canvas import interactions, tooltips
from designer.gui.canvas.edges import nearest_segment
from designer.gui.canvas.groups import key_path_label
from designer.gui.canvas.items import DeviceItem, GroupBoxItem, GroupFrameItem


class SceneInput:
    """Mouse, key, context-menu and tooltip events of a ``CanvasScene``.

    Part of ``CanvasScene`` (a mixin, listed before ``QGraphicsScene`` so its event handlers
    override Qt's). Relies on the scene's ``gesture``, ``connect_mode``, ``view_lod``,
    ``edge_seg``, ``hover_edge``, ``selected_edge``, the ``contextMenuWanted`` signal, and on
    the selection (``select_edge``, ``_select_members``) and folding (``expand``,
    ``collapse``) parts.
    """

    # -- hit tests --------------------------------------------------------------------------------
    def node_item_at(self, pos: QPointF, exclude=None):
        for item in self.items(
            pos,
            Qt.ItemSelectionMode.IntersectsItemShape,
            Qt.SortOrder.DescendingOrder,
            QTransform(),
        ):
            if item is exclude:
                continue
            if isinstance(item, (DeviceItem, GroupBoxItem, GroupFrameItem)):
                return item
        return None

    def edge_at(self, pos: QPointF, tolerance_px: float = 5.0) -> int | None:
        return nearest_segment(
            self.edge_seg, pos.x(), pos.y(), tolerance_px / max(self.view_lod, 1e-9)
        )

    # -- mouse and keys: delegated to gestures ----------------------------------------------------
    def mousePressEvent(self, event) -> None:
        if self.gesture is not None:
            event.accept()
            return
        if event.button() == Qt.MouseButton.LeftButton:
            pos = event.scenePos()
            item = self.node_item_at(pos)
            if isinstance(item, DeviceItem) and (
                self.connect_mode or item.on_handle(item.mapFromScene(pos), self.view_lod)
            ):
                self.gesture = interactions.LinkGesture(self, item.device_id, pos)
                event.accept()
                return
            if isinstance(item, (DeviceItem, GroupBoxItem)):
                super().mousePressEvent(event)
                self.gesture = interactions.MoveGesture(self, pos, self.view_lod)
                event.accept()
                return
            if isinstance(item, GroupFrameItem):
                self._select_members(item.key, event.modifiers())
                event.accept()
                return
            edge = self.edge_at(pos)
            if edge is not None:
                self.select_edge(edge)
                event.accept()
                return
            if self.selected_edge is not None and not (
                event.modifiers() & Qt.KeyboardModifier.ControlModifier
            ):
                self.select_edge(None)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self.gesture is not None:
            self.gesture.move(event.scenePos(), event.modifiers())
            event.accept()
            return
        super().mouseMoveEvent(event)
        if event.buttons() == Qt.MouseButton.NoButton:
            pos = event.scenePos()
            edge = None if self.node_item_at(pos) else self.edge_at(pos)
            self.hover_edge.show_segment(None if edge is None else self.edge_seg[edge])

    def mouseReleaseEvent(self, event) -> None:
        gesture = self.gesture
        if gesture is not None and event.button() == Qt.MouseButton.LeftButton:
            self.gesture = None
            gesture.release(event.scenePos())
        super().mouseReleaseEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        item = self.node_item_at(event.scenePos())
        if isinstance(item, GroupBoxItem):
            self.expand(item.key)
            event.accept()
            return
        if isinstance(item, GroupFrameItem):
            self.collapse(item.key)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape:
            if self.gesture is not None:
                gesture, self.gesture = self.gesture, None
                gesture.cancel()
                grabber = self.mouseGrabberItem()
                if grabber is not None:
                    grabber.ungrabMouse()
            else:
                self.select_edge(None)
                self.clearSelection()
            event.accept()
            return
        super().keyPressEvent(event)

    def cancel_gesture(self) -> None:
        if self.gesture is not None:
            gesture, self.gesture = self.gesture, None
            gesture.cancel()

    def contextMenuEvent(self, event) -> None:
        item = self.node_item_at(event.scenePos())
        if item is None:
            edge = self.edge_at(event.scenePos())
            if edge is not None:
                self.select_edge(edge)
        elif not item.isSelected() and isinstance(item, (DeviceItem, GroupBoxItem)):
            self.clearSelection()
            item.setSelected(True)
        self.contextMenuWanted.emit(item, event.screenPos(), event.scenePos())
        event.accept()

    # -- tooltips ---------------------------------------------------------------------------------
    def helpEvent(self, event: QGraphicsSceneHelpEvent) -> None:
        pos = event.scenePos()
        item = self.node_item_at(pos)
        text = ""
        if isinstance(item, DeviceItem):
            text = self.device_tooltip(item.device_id)
        elif isinstance(item, GroupBoxItem):
            text = self.box_tooltip(item.key)
        elif isinstance(item, GroupFrameItem):
            text = (
                f"<b>{key_path_label(item.key)}</b><br>"
                "Click: select its devices · double-click: collapse"
            )
        else:
            edge = self.edge_at(pos)
            if edge is not None:
                text = self.edge_tooltip(edge)
        if text:
            QToolTip.showText(event.screenPos(), text)
        else:
            QToolTip.hideText()
        event.accept()

    def device_tooltip(self, device_id: str) -> str:
        return tooltips.device(self, device_id)

    def box_tooltip(self, key: str) -> str:
        return tooltips.box(self, key)

    def edge_tooltip(self, edge: int) -> str:
        return tooltips.edge(self, edge)
