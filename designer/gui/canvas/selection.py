"""Selection on the canvas, kept the same as the document's: devices, collapsed boxes and one
line (a link between two devices, or an aggregate that ends at a box), and bringing devices
into view (``focus_devices``).

Lines are named by their two ends (a device id or ``box:`` and a group key), not by their
row, since the rows of the visible graph change with every regroup.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt

from designer.gui.canvas.items import DeviceItem, GroupBoxItem
from designer.gui.project.document import Selection


class SceneSelection:
    """Selection and focus of a ``CanvasScene``.

    Part of ``CanvasScene`` (a mixin, not used alone). Relies on the scene's ``doc``,
    ``fabric``, ``index``, ``vg``, ``xs``/``ys``, ``collapsed``, ``device_items``,
    ``box_items``, ``edge_seg``, ``sel_edge_item``, ``selected_edge``, ``_syncing`` (set
    while the scene itself changes what is selected, so the change is not sent back), the
    ``centreOn`` signal, and on ``flush`` (sync) and ``set_collapsed`` (folding).
    """

    def group_of(self, device_id: str) -> list[str]:
        self.flush()
        i = self.fabric.index.get(device_id)
        return [] if i is None else self.index.chain_of(i)

    def focus_devices(self, device_ids: list[str]) -> None:
        """Expand what hides these devices, select them and centre the view on them."""
        self.flush()
        idx = [self.fabric.index[d] for d in device_ids if d in self.fabric.index]
        if not idx:
            return
        hide = set()
        for i in idx:
            hide.update(self.index.chain_of(i))
        self.set_collapsed(self.collapsed - hide)
        self.doc.set_selection(Selection(devices=frozenset(device_ids)))
        xs, ys = self.xs[idx], self.ys[idx]
        rect = QRectF(
            xs.min() - 80, ys.min() - 60, xs.max() - xs.min() + 160, ys.max() - ys.min() + 120
        )
        self.centreOn.emit(rect)

    def _on_scene_selection(self) -> None:
        if self._syncing:
            return
        devices = frozenset(i.device_id for i in self.selectedItems() if isinstance(i, DeviceItem))
        groups = frozenset(i.key for i in self.selectedItems() if isinstance(i, GroupBoxItem))
        link = aggregate = None
        if self.selected_edge is not None:
            if devices or groups:
                self.selected_edge = None
                self._show_selected_edge()
            else:
                a, b = self.selected_edge
                if a.startswith("box:") or b.startswith("box:"):
                    aggregate = (a, b)
                else:
                    link = (a, b)
        self.doc.set_selection(Selection(devices, link, groups, aggregate))

    def _on_doc_selection(self) -> None:
        sel = self.doc.selection
        self._syncing = True
        try:
            for dev_id, item in self.device_items.items():
                want = dev_id in sel.devices
                if item.isSelected() != want:
                    item.setSelected(want)
            for key, item in self.box_items.items():
                want = key in sel.groups
                if item.isSelected() != want:
                    item.setSelected(want)
            self.selected_edge = sel.link or sel.aggregate
            self._show_selected_edge()
        finally:
            self._syncing = False

    def select_edge(self, edge: int | None) -> None:
        self.flush()
        self._syncing = True
        try:
            self.clearSelection()
        finally:
            self._syncing = False
        self.selected_edge = None if edge is None else self.edge_nodes(edge)
        self._show_selected_edge()
        self._on_scene_selection()

    def _show_selected_edge(self) -> None:
        i = self.find_edge(*self.selected_edge) if self.selected_edge else None
        self.sel_edge_item.show_segment(None if i is None else self.edge_seg[i])

    def node_key(self, node: int) -> str:
        n = self.vg.n_devices
        if node < n:
            return self.fabric.devices[node].id
        return "box:" + self.index.keys[node - n]

    def node_of_key(self, key: str) -> int | None:
        if key.startswith("box:"):
            g = self.index.key_id.get(key[4:])
            return None if g is None else self.vg.n_devices + g
        i = self.fabric.index.get(key)
        return None if i is None else int(self.vg.node_of[i])

    def edge_nodes(self, edge: int) -> tuple[str, str]:
        return self.node_key(int(self.vg.edge_u[edge])), self.node_key(int(self.vg.edge_v[edge]))

    def find_edge(self, a: str, b: str) -> int | None:
        u, v = self.node_of_key(a), self.node_of_key(b)
        if u is None or v is None:
            return None
        lo, hi = min(u, v), max(u, v)
        hit = np.flatnonzero((self.vg.edge_u == lo) & (self.vg.edge_v == hi))
        return int(hit[0]) if hit.size else None

    def select_all(self) -> None:
        self.flush()
        self._syncing = True
        try:
            for item in [*self.device_items.values(), *self.box_items.values()]:
                item.setSelected(True)
            self.selected_edge = None
            self._show_selected_edge()
        finally:
            self._syncing = False
        self._on_scene_selection()

    def selected_device_ids(self, include_groups: bool = True) -> list[str]:
        """Selected devices, and every member of selected collapsed groups, in design order."""
        self.flush()
        sel = self.doc.selection
        want = set(sel.devices)
        if include_groups:
            for key in sel.groups:
                g = self.index.key_id.get(key)
                if g is not None:
                    want.update(self.fabric.devices[i].id for i in self.index.members[g].tolist())
        return [d.id for d in self.fabric.devices if d.id in want]

    def _select_members(self, key: str, modifiers) -> None:
        g = self.index.key_id[key]
        members = {self.fabric.devices[i].id for i in self.index.members[g].tolist()}
        self._syncing = True
        try:
            if not modifiers & Qt.KeyboardModifier.ControlModifier:
                self.clearSelection()
            for dev_id in members:
                item = self.device_items.get(dev_id)
                if item is not None:
                    item.setSelected(True)
            for bkey, item in self.box_items.items():
                if bkey.startswith(key + "/"):
                    item.setSelected(True)
        finally:
            self._syncing = False
        self._on_scene_selection()
