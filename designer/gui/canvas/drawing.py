"""Drawing the canvas from what is shown: device items, group boxes and frames placed from
their members, the lines in a few layers, marks, title tabs and the scene's extent.

Every box and frame is measured in one numpy pass over their members (``spans.py``), so a
move or an edit of a large design redraws in milliseconds; items are kept and updated, not
made again, and those of groups no longer shown are removed.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QTransform

from designer.gui.base import style
from designer.gui.canvas.crossing import over_boxes
from designer.gui.canvas.declutter import GAP, place_tabs
from designer.gui.canvas.edges import WIDTH_STEPS, EdgeLayer, width_class
from designer.gui.canvas.groups import ROLES, is_rack_key, key_label, visible_graph
from designer.gui.canvas.items import (
    DEVICE_H,
    Z_BOX,
    Z_DEVICE,
    BoxLook,
    DeviceItem,
    DeviceLook,
    GroupBoxItem,
    GroupFrameItem,
    TierBar,
    device_size,
    role_count_text,
    short_label,
)
from designer.gui.canvas.spans import Spans, group_spans
from designer.gui.rackscale.rack_box import rack_info

BOX_PAD = 26.0
FRAME_PAD = 20.0
FRAME_STEP = 16.0
SCENE_MARGIN = 2000.0

ROLE_INDEX = {r.value: k for k, r in enumerate(ROLES)}


Z_OVER_BOXES = (Z_BOX + Z_DEVICE) / 2  # above every box (their z grows by < 0.1), under devices


def _padded_rect(sp: Spans, j: int) -> QRectF:
    """The box of row ``j`` of ``sp``: its members' drawn extent and a margin."""
    x0 = float(sp.x0[j]) - BOX_PAD
    x1 = float(sp.x1[j]) + BOX_PAD
    y0 = float(sp.y0[j]) - DEVICE_H / 2 - BOX_PAD
    y1 = float(sp.y1[j]) + DEVICE_H / 2 + BOX_PAD
    return QRectF(x0, y0, x1 - x0, y1 - y0)


class Drawing:
    """The items of a ``CanvasScene`` and where they are.

    Part of ``CanvasScene`` (a mixin, not used alone). Relies on the scene's ``doc``,
    ``fabric``, the per-device arrays (``index``, ``xs``, ``ys``, ``tech``, ``gpus``,
    ``tech_code``, ``tech_names``), ``collapsed``, ``vg`` (written here), the item maps
    (``device_items``, ``box_items``, ``frame_items``, ``edge_layers``), ``edge_seg`` (written
    here), ``labels``, ``hover_edge``, ``view_lod``, ``_geometry_timer``, ``_recall``,
    ``_syncing``, and on ``flush`` (sync) and the selection part (``_on_scene_selection``,
    ``_show_selected_edge``).
    """

    def _look(self, i: int) -> DeviceLook:
        d = self.fabric.devices[i]
        return DeviceLook(d.id, short_label(d.name), d.role.value, self.tech[i])

    def _refresh_visible(self) -> None:
        fabric = self.fabric
        n = len(fabric.devices)
        self.vg = self._recall.graph(
            self.index, fabric.links, self.collapsed, n,
            lambda: visible_graph(self.index, fabric.links, self.collapsed, n))
        shown = {fabric.devices[i].id: i for i in self.vg.shown_devices.tolist()}
        self._syncing = True
        try:
            for dev_id in [k for k in self.device_items if k not in shown]:
                self.removeItem(self.device_items.pop(dev_id))
            selected = self.doc.selection.devices
            for dev_id, i in shown.items():
                item = self.device_items.get(dev_id)
                if item is None:
                    item = DeviceItem(self._look(i))
                    self.device_items[dev_id] = item
                    self.addItem(item)
                    if dev_id in selected:
                        item.setSelected(True)
                else:
                    item.set_look(self._look(i))
                item.setPos(self.xs[i], self.ys[i])
            boxes = set(self.vg.boxes)
            for key in [k for k in self.box_items if k not in boxes]:
                self.removeItem(self.box_items.pop(key))
            frames = set(self.vg.frames)
            for key in [k for k in self.frame_items if k not in frames]:
                self.removeItem(self.frame_items.pop(key))
        finally:
            self._syncing = False
        self.refresh_geometry()
        self.apply_marks()
        self._on_scene_selection()

    def apply_marks(self) -> None:
        """Rings on flagged devices; a collapsed box shows the worst of its members."""
        marks = self.doc.marks
        for dev_id, item in self.device_items.items():
            want = marks.get(dev_id)
            if item.mark != want:
                item.mark = want
                item.update()
        rank = {s: k for k, s in enumerate(style.MARK_ORDER)}
        worst: dict[str, str] = {}
        index = self.fabric.index
        for dev_id, severity in marks.items():
            i = index.get(dev_id)
            if i is None:
                continue
            node = int(self.vg.node_of[i])
            if node < self.vg.n_devices:
                continue
            key = self.index.keys[node - self.vg.n_devices]
            if rank.get(severity, 0) >= rank.get(worst.get(key, ""), -1):
                worst[key] = severity
        for key, item in self.box_items.items():
            want = worst.get(key)
            if item.mark != want:
                item.mark = want
                item.update()

    def _spans(self, members: list[np.ndarray]) -> Spans:
        return group_spans(members, self.xs, self.ys, self.index.role_id, self.gpus,
                           self.tech_code, self.tech_names)

    def box_rect(self, members: np.ndarray) -> QRectF:
        """The box a group of ``members`` (device rows) is drawn in when it is collapsed."""
        return _padded_rect(self._spans([members]), 0)

    def box_look(self, key: str, members: np.ndarray, rect: QRectF) -> BoxLook:
        """What the collapsed box of group ``key`` says and draws (measured on its own)."""
        return self._look_of(key, members, self._spans([members]), 0, rect)

    def _look_of(self, key: str, members: np.ndarray, sp: Spans, j: int, rect: QRectF
                 ) -> BoxLook:
        """What the box of group ``key`` (row ``j`` of ``sp``) says and draws."""
        bars = []
        counts: dict[str, int] = {}
        for role in ("core", "spine", "leaf", "router", "appliance", "gpu-server"):
            r = ROLE_INDEX[role]
            size = int(sp.count[j, r])
            if not size:
                continue
            counts[role] = size
            w, h = device_size(role)
            bx0 = float(sp.rx0[j, r]) - w / 2
            bx1 = float(sp.rx1[j, r]) + w / 2
            by0 = float(sp.ry0[j, r]) - h / 2
            by1 = float(sp.ry1[j, r]) + h / 2
            local = QRectF(bx0 - rect.left(), by0 - rect.top(), bx1 - bx0, by1 - by0)
            bars.append(TierBar(role, size, local))
        gpus = int(sp.gpus[j])
        tech = sp.tech[j]
        if is_rack_key(key):
            rack = rack_info(self.fabric.devices[int(members[0])].model, self.doc.catalog,
                             int(members.size), gpus)
            return BoxLook(key, key_label(key), rack.summary, bars, tech, rack)
        racks = self.index.racks_under.get(key, 0)
        if racks and counts.get("gpu-server"):
            counts["gpu-server"] = 0  # the trays are said as their racks
            for bar in bars:
                if bar.role == "gpu-server":
                    bar.label = f"{racks:,} racks · {bar.count:,} trays"
        # a tier group's title already says what it holds
        summary = "" if key.rsplit("/", 1)[-1].startswith("tier=") else role_count_text(counts)
        if racks:
            summary = f"{racks:,} rack{'s' if racks > 1 else ''}" + (f" · {summary}" if summary
                                                                    else "")
        if gpus:
            summary = f"{gpus:,} GPUs" + (f" · {summary}" if summary else "")
        return BoxLook(key, key_label(key), summary, bars, tech)

    def refresh_geometry(self) -> None:
        """Place boxes and frames from their members and redraw the lines (cheap, numpy)."""
        self._geometry_timer.stop()
        index, vg = self.index, self.vg
        n = vg.n_devices
        centres = np.zeros((n + len(index), 2))
        if n:
            centres[:n, 0], centres[:n, 1] = self.xs, self.ys
        # every box and frame measured in one numpy pass over their members
        box_ids = [index.key_id[key] for key in vg.boxes]
        frame_ids = [index.key_id[key] for key in vg.frames]
        sp = self._spans([index.members[g] for g in box_ids + frame_ids])
        node_box = np.full(len(centres), -1, dtype=np.int64)  # which box a line end is
        box_rects = np.zeros((len(box_ids), 4))
        for j, (key, g) in enumerate(zip(vg.boxes, box_ids, strict=True)):
            members = index.members[g]
            rect = _padded_rect(sp, j)
            look = self._look_of(key, members, sp, j, rect)
            item = self.box_items.get(key)
            if item is None:
                item = GroupBoxItem(look, rect)
                item.set_view_scale(self.view_lod)
                self.box_items[key] = item
                self.addItem(item)
                if key in self.doc.selection.groups:
                    item.setSelected(True)
            else:
                item.set_geometry(look, rect)
            c = rect.center()
            centres[n + g] = c.x(), c.y()
            node_box[n + g] = j
            box_rects[j] = rect.x(), rect.y(), rect.width(), rect.height()
        max_depth = int(index.depth.max()) if len(index) else 0
        for j, (key, g) in enumerate(zip(vg.frames, frame_ids, strict=True), len(box_ids)):
            depth = int(index.depth[g])
            pad = FRAME_PAD + FRAME_STEP * (max_depth - depth)
            r = _padded_rect(sp, j).adjusted(
                BOX_PAD - pad, BOX_PAD - pad, pad - BOX_PAD, pad - BOX_PAD
            )
            title = key_label(key)
            item = self.frame_items.get(key)
            if item is None:
                item = GroupFrameItem(key, title, r, depth)
                item.set_view_scale(self.view_lod)
                self.frame_items[key] = item
                self.addItem(item)
            else:
                item.set_geometry(title, r)
        self._draw_edges(centres, box_rects, node_box)
        self._update_scene_rect()
        self._declutter_tabs()

    def label_obstacles(self, exposed: QRectF, t: QTransform) -> np.ndarray:
        """Screen rects (x, y, w, h) in ``exposed`` that cable labels must leave free: the
        devices, the collapsed boxes and every title tab shown."""
        out = []
        for item in self.items(exposed, Qt.ItemSelectionMode.IntersectsItemBoundingRect):
            if isinstance(item, DeviceItem):
                out.append(t.mapRect(item.sceneBoundingRect()))
            elif isinstance(item, GroupBoxItem):
                out.append(t.mapRect(item.scene_rect()))
                if item.tab_shown:
                    out.append(t.mapRect(item.tab_scene_rect()))
            elif isinstance(item, GroupFrameItem) and item.tab_shown:
                out.append(t.mapRect(item.tab_scene_rect()))
        if not out:
            return np.empty((0, 4))
        return np.array([[r.x(), r.y(), r.width(), r.height()] for r in out])

    def _declutter_tabs(self) -> None:
        """No title tab over another at this zoom: outer groups keep their place (a plane's
        title before its SUs'), left to right; a tab that overlaps slides right within its
        group or hides. A box is drawn over the boxes above it, so a core tier's bar never
        covers the titles of the pods below it."""
        index = self.index
        items = [*self.frame_items.values(), *self.box_items.values()]
        if not items:
            return
        depth = np.array([int(index.depth[index.key_id[i.key]]) if i.key in index.key_id
                          else 0 for i in items])
        # placed from where each group puts its tab; an item whose tab ends where it is
        # already is not touched (an edit of a large design moves few of them)
        tabs = [i.laid_tab_scene_rect() for i in items]
        rects = np.array([[t.x(), t.y(), t.width(), t.height()] for t in tabs])
        order = np.lexsort((rects[:, 0], rects[:, 1], depth))
        limits = np.array([items[k].tab_right_limit() for k in order])
        px = 1.0 / max(self.view_lod, 1e-9)  # one screen pixel in scene units
        shift, width, shown = place_tabs(rects[order], limits, gap=GAP * px, least=56 * px)
        for k, dx, w, ok in zip(order.tolist(), shift.tolist(), width.tolist(), shown.tolist(),
                                strict=True):
            items[k].set_tab_place(dx, w, ok)
        for box in self.box_items.values():
            # a box's tab sits above it, over the box above: lower boxes are drawn on top
            box.setZValue(Z_BOX + float(np.clip(box.scene_rect().top(), -1e7, 1e7)) * 1e-8)

    def _draw_edges(self, centres: np.ndarray, box_rects: np.ndarray | None = None,
                    node_box: np.ndarray | None = None) -> None:
        vg = self.vg
        seg = (
            np.column_stack([centres[vg.edge_u], centres[vg.edge_v]])
            if vg.edge_u.size
            else np.empty((0, 4))
        )
        self.edge_seg = seg
        wcls = width_class(vg.edge_count) if vg.edge_u.size else np.empty(0, np.int64)
        # a line passing over a box it does not end at is drawn above the boxes (crossing)
        over, drawn = np.zeros(len(seg), dtype=bool), seg
        if seg.size and box_rects is not None and node_box is not None and len(box_rects):
            over, drawn = over_boxes(seg, box_rects, node_box[vg.edge_u], node_box[vg.edge_v])
        wanted = set()
        if seg.size:
            combo = (vg.edge_class.astype(np.int64) * 8 + wcls) * 2 + over
            for c in np.unique(combo).tolist():
                key = ((c // 2) // 8, (c // 2) % 8, c % 2)
                wanted.add(key)
                layer = self.edge_layers.get(key)
                if layer is None:
                    layer = EdgeLayer(style.EDGE_COLORS[key[0]], WIDTH_STEPS[key[1]][1])
                    if key[2]:
                        layer.setZValue(Z_OVER_BOXES)
                    self.edge_layers[key] = layer
                    self.addItem(layer)
                layer.set_segments(drawn[combo == c])
        for key in [k for k in self.edge_layers if k not in wanted]:
            self.removeItem(self.edge_layers.pop(key))
        self.labels.set_labels(seg, vg.edge_count, vg.edge_speed, vg.edge_v < vg.n_devices)
        self.hover_edge.show_segment(None)
        self._show_selected_edge()

    def _update_scene_rect(self) -> None:
        reach = self.labels.reach
        self.labels.set_reach(0.0)  # the labels' reach (screen sized) is not the design's
        r = self.itemsBoundingRect()
        self.labels.set_reach(reach)
        if r.isNull():
            r = QRectF(-500, -400, 1000, 800)
        self.setSceneRect(r.adjusted(-SCENE_MARGIN, -SCENE_MARGIN, SCENE_MARGIN, SCENE_MARGIN))

    def content_rect(self) -> QRectF:
        """Where the design is (without the margin the scene keeps for panning)."""
        self.flush()
        r = self.sceneRect()
        return r.adjusted(SCENE_MARGIN, SCENE_MARGIN, -SCENE_MARGIN, -SCENE_MARGIN)

    def set_view_scale(self, lod: float) -> None:
        changed = abs(lod - self.view_lod) > 1e-9
        self.view_lod = lod
        for item in self.frame_items.values():
            item.set_view_scale(lod)
        for item in self.box_items.values():
            item.set_view_scale(lod)
        self.labels.set_view_scale(lod)
        if changed:
            self._declutter_tabs()  # tabs keep their screen size: they meet at another zoom

    # -- live previews while dragging -------------------------------------------------------------
    def preview_positions(self, idx: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
        """Show devices ``idx`` at (x, y) before the move is committed."""
        self.xs[idx], self.ys[idx] = x, y
        devices = self.fabric.devices
        for i, xi, yi in zip(idx.tolist(), x.tolist(), y.tolist(), strict=True):
            item = self.device_items.get(devices[i].id)
            if item is not None:
                item.setPos(xi, yi)
        if not self._geometry_timer.isActive():
            self._geometry_timer.start()
