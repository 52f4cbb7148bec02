"""The canvas scene: mirrors the document's project as items, keyed by device id and group key.

It listens to the document and patches itself: a move only repositions the moved devices, a
link edit only redraws the lines, a new design rebuilds. Devices folded into collapsed groups
have no item at all; link bundles are summed between what is shown (``groups.py``) and drawn
by a few layer items (``edges.py``). Gestures (``interactions.py``) drive the mouse.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QTransform
from PySide6.QtWidgets import QGraphicsScene

from designer.core.catalog import Catalog
from designer.core.errors import CatalogError, DesignerError
from designer.core.model import Device, Fabric
from designer.core.ports import port_layout
from designer.gui.base import style
from designer.gui.canvas import interactions
from designer.gui.canvas.declutter import GAP, place_tabs
from designer.gui.canvas.edges import (
    WIDTH_STEPS,
    EdgeHighlight,
    EdgeLabelLayer,
    EdgeLayer,
    width_class,
)
from designer.gui.canvas.events import SceneInput
from designer.gui.canvas.folding import Folding
from designer.gui.canvas.groups import (
    ROLES,
    GroupIndex,
    VisibleGraph,
    is_rack_key,
    key_label,
    visible_graph,
)
from designer.gui.canvas.items import (
    DEVICE_H,
    Z_BOX,
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
from designer.gui.canvas.recall import DeviceArrays, Recall
from designer.gui.canvas.selection import SceneSelection
from designer.gui.canvas.spans import Spans, group_spans
from designer.gui.project.document import Document
from designer.gui.rackscale.rack_box import rack_info

# An edit of a design with more devices is drawn in the event-loop turn after the edit, so the
# edit's own work (the command, the panels) and the redraw are two stalls of the window, not one
DEFER_ABOVE = 5000
BOX_PAD = 26.0
FRAME_PAD = 20.0
FRAME_STEP = 16.0
SCENE_MARGIN = 2000.0


def same_devices(old: tuple[Device, ...], new: tuple[Device, ...],
                 old_ids: np.ndarray | None = None, new_ids: np.ndarray | None = None
                 ) -> np.ndarray:
    """For each device of ``new``: its position in ``old`` if it is the very same object
    (models are frozen, so unchanged), else -1. ``old_ids`` and ``new_ids``: the lists' id()
    arrays if the caller has them already."""
    # ``old`` and ``new`` are alive, so id() names their objects; matched with numpy
    if old_ids is None:
        old_ids = np.fromiter(map(id, old), np.int64, len(old))
    if new_ids is None:
        new_ids = np.fromiter(map(id, new), np.int64, len(new))
    # An edit changes one stretch (a delete, its undo, an insert): the same objects before
    # it and after it, found by comparing arrays. An object in the stretch of ``new`` can
    # only be one of the stretch of ``old`` (a device is in a fabric once), so only the two
    # stretches are matched by sorting, not all 37,752 devices of a large design.
    m = min(len(old), len(new))
    differ = np.flatnonzero(old_ids[:m] != new_ids[:m])
    head = int(differ[0]) if differ.size else m
    differ = np.flatnonzero(old_ids[::-1][: m - head] != new_ids[::-1][: m - head])
    tail = int(differ[0]) if differ.size else m - head
    out = np.full(len(new), -1, np.int64)
    out[:head] = np.arange(head)
    out[len(new) - tail:] = np.arange(len(old) - tail, len(old))
    out[head: len(new) - tail] = _match(old_ids[head: len(old) - tail],
                                        new_ids[head: len(new) - tail], head)
    return out


def _match(old_ids: np.ndarray, new_ids: np.ndarray, offset: int) -> np.ndarray:
    """Position (plus ``offset``) in ``old_ids`` of each of ``new_ids``, or -1."""
    if not len(old_ids):
        return np.full(len(new_ids), -1, np.int64)
    order = np.argsort(old_ids)
    pos = np.minimum(np.searchsorted(old_ids[order], new_ids), len(old_ids) - 1)
    hit = old_ids[order[pos]] == new_ids
    return np.where(hit, order[pos] + offset, -1).astype(np.int64)


ROLE_INDEX = {r.value: k for k, r in enumerate(ROLES)}


def _padded_rect(sp: Spans, j: int) -> QRectF:
    """The box of row ``j`` of ``sp``: its members' drawn extent and a margin."""
    x0 = float(sp.x0[j]) - BOX_PAD
    x1 = float(sp.x1[j]) + BOX_PAD
    y0 = float(sp.y0[j]) - DEVICE_H / 2 - BOX_PAD
    y1 = float(sp.y1[j]) + DEVICE_H / 2 + BOX_PAD
    return QRectF(x0, y0, x1 - x0, y1 - y0)


class CanvasScene(Folding, SceneSelection, SceneInput, QGraphicsScene):
    """Items for one document. Ask it, not the items, what is where."""

    collapsedChanged = Signal()
    synced = Signal()  # the items show the document's project again (after an edit's redraw)
    contextMenuWanted = Signal(object, object, object)  # item or None, screen pos, scene pos
    centreOn = Signal(QRectF)
    refused = Signal(str, QPointF)  # a gesture was refused: message, where (scene)
    _pending = False  # an edit's redraw waits (events come while the constructor runs)

    def __init__(self, document: Document) -> None:
        super().__init__(document)  # owned by the document, so Qt deletes it in order
        self._sync_timer = QTimer(self)
        self._sync_timer.setSingleShot(True)
        self._sync_timer.setInterval(0)
        self._sync_timer.timeout.connect(self._next_step)
        self._prepared = False
        self.doc = document
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.index = GroupIndex.build(())
        self.collapsed: set[str] = set()
        self.vg: VisibleGraph = visible_graph(self.index, document.project.fabric.links, set(), 0)
        self.xs = np.empty(0)
        self.ys = np.empty(0)
        self.tech = np.empty(0, dtype=object)
        self.gpus = np.empty(0, dtype=np.int64)
        # the technologies as small ints too (``tech_names[code]``), for boxes' counts
        self.tech_code = np.empty(0, dtype=np.int64)
        self.tech_names: list[str | None] = []
        self.device_items: dict[str, DeviceItem] = {}
        self.box_items: dict[str, GroupBoxItem] = {}
        self.frame_items: dict[str, GroupFrameItem] = {}
        self.edge_layers: dict[tuple[int, int], EdgeLayer] = {}
        self.edge_seg = np.empty((0, 4))
        self.node_keys: list[str] = []  # per visible edge endpoint lookups
        self.labels = EdgeLabelLayer()
        self.labels.obstacles = self.label_obstacles
        self.addItem(self.labels)
        self.hover_edge = EdgeHighlight(style.HOVER, 3.0)
        self.sel_edge_item = EdgeHighlight(style.SELECTION, 3.5)
        self.addItem(self.hover_edge)
        self.addItem(self.sel_edge_item)
        self.selected_edge: tuple[str, str] | None = None
        self.gesture: interactions.Gesture | None = None
        self.connect_mode = False
        self.view_lod = 1.0
        self._devices_ref: tuple | None = None
        self._links_ref = None
        self._catalog_ref: Catalog | None = None
        self._generator_ref = None
        self._syncing = False
        self._geometry_timer = QTimer(self)
        self._geometry_timer.setSingleShot(True)
        self._geometry_timer.setInterval(15)
        self._geometry_timer.timeout.connect(self.refresh_geometry)
        # the fabric the items show: the document's, or the one before an edit whose redraw
        # waits for the next turn (``pending``); every lookup of the scene uses this one, so
        # the scene is never half of one design and half of the other
        self._fabric: Fabric = document.project.fabric
        self.defer_above = DEFER_ABOVE
        self._recall = Recall()
        document.projectChanged.connect(self._on_project_changed)
        document.projectReplaced.connect(self._on_replaced)
        document.selectionChanged.connect(self._on_doc_selection)
        document.focusRequested.connect(self.focus_devices)
        document.marksChanged.connect(self.apply_marks)
        self.selectionChanged.connect(self._on_scene_selection)
        self._on_replaced()

    # -- syncing with the document -------------------------------------------------------------
    @property
    def fabric(self) -> Fabric:
        """The fabric the items show (the document's once ``flush`` has run)."""
        return self._fabric

    @property
    def pending(self) -> bool:
        """An edit's redraw waits for the next event-loop turn."""
        return self._pending

    def flush(self) -> None:
        """Bring the items up to the document's project now if a redraw is waiting (anyone
        who reads the scene together with the document calls this first)."""
        if self._pending:
            self._sync()

    def _next_step(self) -> None:
        """A large edit's redraw, over two turns: regroup (``_prepare``), then the items."""
        if not self._pending:
            return
        if not self._prepared:
            self._prepared = True
            if self._prepare():
                self._sync_timer.start()
                return
        self._sync()

    def event(self, event) -> bool:
        # mouse, keys, tooltips and drops act on what the document holds: draw it first
        self.flush()
        return super().event(event)

    def _on_replaced(self) -> None:
        # another document: nothing of the previous one's folding carries over
        self._pending = False
        self._sync_timer.stop()
        self._fabric = self.doc.project.fabric
        self._devices_ref = None
        self._recall.clear()
        self._generator_ref = self.doc.project.generator
        self.index = GroupIndex.build(())
        self.collapsed = set()
        self.selected_edge = None
        self.cancel_gesture()
        saved = self.doc.view_state.get("collapsed")
        self._full_sync(initial_collapsed=list(saved) if isinstance(saved, list) else None)
        self.synced.emit()

    def _on_project_changed(self, _revision: int) -> None:
        big = max(len(self.doc.project.fabric.devices), len(self._fabric.devices))
        if big > self.defer_above and self._devices_ref is not None:
            # edits in one turn (a command and its selection) get one redraw
            self._pending = True
            self._prepared = False
            self._sync_timer.start()
            return
        self._sync()

    def _sync(self) -> None:
        """Patch the items to the document's project: what changed, or everything."""
        self._pending = False
        self._sync_timer.stop()
        self._fabric = self.doc.project.fabric
        self._patch()
        self.synced.emit()

    def _patch(self) -> None:
        fabric = self._fabric
        old = self._devices_ref
        if self.doc.catalog is not self._catalog_ref or old is None:
            self._full_sync()
            return
        new = fabric.devices
        if new is not old:
            if len(new) != len(old):
                self._full_sync(derive_from=old)
                return
            changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a is not b]
            if any(
                old[i].id != new[i].id
                or old[i].groups != new[i].groups
                or old[i].role != new[i].role
                for i in changed
            ):
                self._full_sync(derive_from=old)
                return
            self._devices_ref = new
            self._update_devices(changed)
        if fabric.links is not self._links_ref:
            self._links_ref = fabric.links
            self._refresh_visible()
        else:
            self.refresh_geometry()

    def _full_sync(
        self, initial_collapsed: list[str] | None = None, derive_from: tuple | None = None
    ) -> None:
        """Regroup and redraw. ``derive_from`` (the device list shown until now) lets an edit
        reuse what it did not touch: the group index, positions and port info of unchanged
        devices are gathered, not worked out again (the result equals a rebuild; tests check
        it), and a list shown a few edits ago (an undo, a redo) is recalled whole."""
        fabric = self.fabric
        generator = self.doc.project.generator
        devices = fabric.devices
        arrays = self._arrays_of(devices, derive_from)
        self.collapsed = self._folding(arrays.index, len(devices), initial_collapsed)
        self._generator_ref = generator
        self.index = arrays.index
        self.xs, self.ys, self.tech = arrays.xs, arrays.ys, arrays.tech
        self.gpus, self.tech_code = arrays.gpus, arrays.tech_code
        self.tech_names = arrays.tech_names
        self._devices_ref = devices
        self._links_ref = fabric.links
        self._catalog_ref = self.doc.catalog
        self._store_collapsed()
        self._refresh_visible()

    def _arrays_of(self, devices: tuple, derive_from: tuple | None) -> DeviceArrays:
        """The per-device state of ``devices`` (a copy the caller may change): recalled,
        derived from ``derive_from`` (the list the scene shows) or built. Changes nothing."""
        cat, profile = self.doc.catalog, self.doc.project.profile
        if derive_from is not None:
            recalled = self._recall.arrays(devices, cat, profile)
            if recalled is not None:
                return recalled
        n = len(devices)
        if derive_from is None:
            arrays = DeviceArrays(
                GroupIndex.build(devices), np.fromiter((d.x for d in devices), float, n),
                np.fromiter((d.y for d in devices), float, n), np.empty(n, dtype=object),
                np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), [])
            self._fill_device_info(devices, range(n), arrays)
        else:
            source = same_devices(derive_from, devices, self._recall.ids(derive_from),
                                  self._recall.ids(devices))
            kept = np.flatnonzero(source >= 0)
            fresh = np.flatnonzero(source < 0).tolist()
            arrays = DeviceArrays(
                self.index.rebuilt(devices, source), np.empty(n), np.empty(n),
                np.empty(n, dtype=object), np.zeros(n, dtype=np.int64),
                np.zeros(n, dtype=np.int64), list(self.tech_names))
            for new_col, old_col in ((arrays.xs, self.xs), (arrays.ys, self.ys),
                                     (arrays.tech, self.tech), (arrays.gpus, self.gpus),
                                     (arrays.tech_code, self.tech_code)):
                new_col[kept] = old_col[source[kept]]
            arrays.xs[fresh] = [devices[i].x for i in fresh]
            arrays.ys[fresh] = [devices[i].y for i in fresh]
            self._fill_device_info(devices, fresh, arrays)
        self._recall.keep_arrays(devices, cat, profile, arrays)
        return arrays

    def _prepare(self) -> bool:
        """The first of a large edit's two redraw turns: regroup the document's devices and
        sum the links between what will be shown, into the recall only (the scene still
        shows, and answers from, the design before). The next turn (``_sync``) recalls
        them and patches the items. False if the edit does not regroup."""
        fabric = self.doc.project.fabric
        new, old = fabric.devices, self._devices_ref
        if (old is None or new is old or len(new) == len(old)
                or self.doc.catalog is not self._catalog_ref):
            return False
        arrays = self._arrays_of(new, old)
        collapsed = self._folding(arrays.index, len(new), None)
        self._recall.graph(arrays.index, fabric.links, collapsed, len(new),
                           lambda: visible_graph(arrays.index, fabric.links, collapsed,
                                                 len(new)))
        return True

    def _compute_device_info(self, indices) -> None:
        self._fill_device_info(self.fabric.devices, indices, DeviceArrays(
            self.index, self.xs, self.ys, self.tech, self.gpus, self.tech_code, self.tech_names))

    def _fill_device_info(self, devices: tuple, indices, out: DeviceArrays) -> None:
        """Technology and GPUs of ``devices[indices]``, written into ``out``'s arrays."""
        cat = self.doc.catalog
        codes = {name: k for k, name in enumerate(out.tech_names)}
        cache: dict[tuple, tuple[str | None, int]] = {}
        try:
            preferred = cat.profile(self.doc.project.profile).tech
        except DesignerError:
            preferred = None
        for i in indices:
            d = devices[i]
            key = (d.model, d.port_speed_gbps, d.nic, d.nics)
            info = cache.get(key)
            if info is None:
                try:
                    lay = port_layout(d, cat)
                    tech = preferred if preferred in lay.techs else None
                    info = (tech or (lay.techs[0] if lay.techs else None), lay.gpus)
                except (CatalogError, DesignerError):
                    info = (None, 0)
                cache[key] = info
            out.tech[i], out.gpus[i] = info
            code = codes.get(info[0])
            if code is None:
                code = codes[info[0]] = len(out.tech_names)
                out.tech_names.append(info[0])
            out.tech_code[i] = code

    def _update_devices(self, changed: list[int]) -> None:
        fabric = self.fabric
        self._compute_device_info(changed)
        for i in changed:
            d = fabric.devices[i]
            self.xs[i], self.ys[i] = d.x, d.y
            item = self.device_items.get(d.id)
            if item is not None:
                item.setPos(d.x, d.y)
                item.set_look(self._look(i))

    def _look(self, i: int) -> DeviceLook:
        d = self.fabric.devices[i]
        return DeviceLook(d.id, short_label(d.name), d.role.value, self.tech[i])

    # -- what is shown ----------------------------------------------------------------------------
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

    def _box_rect(self, members: np.ndarray) -> QRectF:
        return _padded_rect(self._spans([members]), 0)

    def _box_look(self, key: str, members: np.ndarray, rect: QRectF) -> BoxLook:
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
        self._draw_edges(centres)
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

    def _draw_edges(self, centres: np.ndarray) -> None:
        vg = self.vg
        seg = (
            np.column_stack([centres[vg.edge_u], centres[vg.edge_v]])
            if vg.edge_u.size
            else np.empty((0, 4))
        )
        self.edge_seg = seg
        wcls = width_class(vg.edge_count) if vg.edge_u.size else np.empty(0, np.int64)
        wanted = set()
        if seg.size:
            combo = vg.edge_class.astype(np.int64) * 8 + wcls
            for c in np.unique(combo).tolist():
                key = (c // 8, c % 8)
                wanted.add(key)
                layer = self.edge_layers.get(key)
                if layer is None:
                    layer = EdgeLayer(style.EDGE_COLORS[key[0]], WIDTH_STEPS[key[1]][1])
                    self.edge_layers[key] = layer
                    self.addItem(layer)
                layer.set_segments(seg[combo == c])
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
