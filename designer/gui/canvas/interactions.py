"""Mouse gestures on the canvas, one class each, all cancelled by Esc.

A gesture starts on a press, follows the mouse, and on release turns into one undo command
(a whole drag is one Move step). Refusals (no free port, technologies that do not meet) are
reported by the scene's ``refused`` signal and leave the design untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsLineItem

from designer.core.editing import link_defaults
from designer.core.errors import DesignerError
from designer.core.fileformat import dumps_project, loads_project
from designer.core.model import Project
from designer.gui.base import style
from designer.gui.canvas.grid import snap
from designer.gui.canvas.items import Z_OVERLAY, DeviceItem, GroupBoxItem
from designer.gui.project import commands

if TYPE_CHECKING:
    from designer.gui.canvas.scene_view import SceneView

GEAR_MIME = "application/x-fabric-designer-gear"  # palette drag: the catalog id
DEVICES_MIME = "application/x-fabric-designer-devices"  # clipboard: a small project file
DRAG_START_PX = 3.0


class Gesture:
    def move(self, pos: QPointF, modifiers) -> None: ...

    def release(self, pos: QPointF) -> None: ...

    def cancel(self) -> None: ...


class MoveGesture(Gesture):
    """Drag the selected devices and collapsed boxes; snapped to the grid; one Move on release."""

    def __init__(self, scene: SceneView, pos: QPointF, lod: float) -> None:
        self.snap = snap
        self.scene = scene
        self.origin = QPointF(pos)
        self.threshold = DRAG_START_PX / max(lod, 1e-9)
        fabric = scene.fabric
        idx: set[int] = set()
        for item in scene.selectedItems():
            if isinstance(item, DeviceItem):
                idx.add(fabric.index[item.device_id])
            elif isinstance(item, GroupBoxItem):
                idx.update(scene.index.members[scene.index.key_id[item.key]].tolist())
        self.idx = np.array(sorted(idx), dtype=np.int64)
        self.x0 = scene.xs[self.idx].copy()
        self.y0 = scene.ys[self.idx].copy()
        # snap the device under the mouse (or the first one) to the grid; the rest follow it
        self.anchor = (self.x0[0], self.y0[0]) if self.idx.size else (0.0, 0.0)
        self.moved = False
        self.delta = (0.0, 0.0)

    def move(self, pos: QPointF, modifiers=None) -> None:
        if not self.idx.size:
            return
        d = pos - self.origin
        if not self.moved and abs(d.x()) < self.threshold and abs(d.y()) < self.threshold:
            return
        self.moved = True
        ax, ay = self.anchor
        dx = self.snap(ax + d.x()) - ax
        dy = self.snap(ay + d.y()) - ay
        if (dx, dy) != self.delta:
            self.delta = (dx, dy)
            self.scene.preview_positions(self.idx, self.x0 + dx, self.y0 + dy)

    def release(self, pos: QPointF) -> None:
        scene = self.scene
        if not self.moved or self.delta == (0.0, 0.0):
            if self.moved:
                self.cancel()
            return
        dx, dy = self.delta
        devices = scene.fabric.devices
        positions = {
            devices[i].id: (float(x + dx), float(y + dy))
            for i, x, y in zip(self.idx.tolist(), self.x0.tolist(), self.y0.tolist(), strict=True)
        }
        scene.refresh_geometry()
        try:
            scene.doc.push(commands.move_devices(scene.doc, positions))
        except DesignerError as exc:
            self.cancel()
            scene.refused.emit(str(exc), pos)

    def cancel(self) -> None:
        if self.idx.size:
            self.scene.preview_positions(self.idx, self.x0, self.y0)
            self.scene.refresh_geometry()


class LinkGesture(Gesture):
    """Drag from one device to another to link them; the target turns green or red."""

    def __init__(self, scene: SceneView, source_id: str, pos: QPointF) -> None:
        self.scene = scene
        self.source = source_id
        i = scene.fabric.index[source_id]
        self.start = QPointF(float(scene.xs[i]), float(scene.ys[i]))
        self.line = QGraphicsLineItem(self.start.x(), self.start.y(), pos.x(), pos.y())
        pen = QPen(style.HOVER, 2.0, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.line.setPen(pen)
        self.line.setZValue(Z_OVERLAY)
        scene.addItem(self.line)
        self.target: DeviceItem | None = None
        self.reason = ""
        scene.doc.say(f"Linking from {source_id}: release over another device (Esc cancels)")

    def _target_at(self, pos: QPointF):
        item = self.scene.node_item_at(pos)
        if isinstance(item, DeviceItem) and item.device_id == self.source:
            return None
        return item

    def move(self, pos: QPointF, modifiers=None) -> None:
        self.line.setLine(self.start.x(), self.start.y(), pos.x(), pos.y())
        item = self._target_at(pos)
        target = item if isinstance(item, DeviceItem) else None
        if target is self.target:
            return
        self._clear_target()
        self.target = target
        if target is None:
            return
        doc = self.scene.doc
        try:
            d = link_defaults(doc.project, doc.catalog, self.source, target.device_id)
            ok = min(d.free_a, d.free_b) >= 1
            self.reason = (
                f"{self.source} -> {target.device_id}: {d.count} x {d.speed_gbps}G "
                f"({d.free_a} and {d.free_b} ports free)"
                if ok
                else f"no free port ({self.source}: {d.free_a}, {target.device_id}: {d.free_b})"
            )
        except DesignerError as exc:
            ok, self.reason = False, str(exc)
        target.link_target = ok
        target.update()
        doc.say(self.reason, not ok)

    def _clear_target(self) -> None:
        if self.target is not None:
            self.target.link_target = None
            self.target.update()
        self.target = None

    def release(self, pos: QPointF) -> None:
        self.move(pos)
        target = self.target
        item = self._target_at(pos)
        self.cancel()
        scene = self.scene
        if target is None:
            if isinstance(item, GroupBoxItem):
                scene.refused.emit(
                    "Expand the group (double-click) to link one of its devices", pos
                )
            return
        doc = scene.doc
        try:
            cmd = commands.connect(doc, self.source, target.device_id)
            doc.push(cmd)
        except DesignerError as exc:
            scene.refused.emit(str(exc), pos)
            return
        # the hover message counted the ports before the link: say what is left after it
        after = link_defaults(doc.project, doc.catalog, self.source, target.device_id)
        doc.say(
            f"{cmd.text()}; ports free now: {self.source} {after.free_a}, "
            f"{target.device_id} {after.free_b}"
        )

    def cancel(self) -> None:
        self._clear_target()
        if self.line.scene() is not None:
            self.line.scene().removeItem(self.line)


# clipboard ---------------------------------------------------------------------------------------
def devices_mime(project: Project, ids: list[str]) -> QMimeData:
    from designer.core.editing import extract

    clip = extract(project, ids)
    mime = QMimeData()
    mime.setData(DEVICES_MIME, dumps_project(clip))
    mime.setText("\n".join(ids))
    return mime


def project_from_mime(mime: QMimeData | None, catalog) -> Project | None:
    if mime is None or not mime.hasFormat(DEVICES_MIME):
        return None
    try:
        return loads_project(bytes(mime.data(DEVICES_MIME).data()), "clipboard", catalog)
    except DesignerError:
        return None


def gear_mime(gear_id: str) -> QMimeData:
    mime = QMimeData()
    mime.setData(GEAR_MIME, gear_id.encode())
    mime.setText(gear_id)
    return mime


def gear_from_mime(mime: QMimeData | None) -> str | None:
    if mime is None or not mime.hasFormat(GEAR_MIME):
        return None
    return bytes(mime.data(GEAR_MIME).data()).decode(errors="replace") or None
