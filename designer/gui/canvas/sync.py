"""The canvas follows its document: a move repositions the moved devices, a link edit redraws
the lines, anything that regroups rebuilds from what it did not touch.

An edit of a large design is drawn a turn or two after it (``pending``, ``flush``): the edit's
own work and the redraw are then separate stalls of the window, and the first redraw turn
regroups into the recall (``recall.py``) while the items still show the design before.
"""

from __future__ import annotations

import operator

import numpy as np

from designer.core.errors import CatalogError, DesignerError
from designer.core.factorize import factorize
from designer.core.model import Device, Fabric
from designer.core.ports import port_layout
from designer.core.problems import GEAR_CHOICE
from designer.gui.canvas.groups import GroupIndex, visible_graph
from designer.gui.canvas.recall import DeviceArrays

# An edit of a design with more devices is drawn in the event-loop turn after the edit, so the
# edit's own work (the command, the panels) and the redraw are two stalls of the window, not one
DEFER_ABOVE = 5000
_X, _Y = operator.attrgetter("x"), operator.attrgetter("y")


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


class DocumentSync:
    """Keeps a ``CanvasScene``'s items in step with its document's project.

    Part of ``CanvasScene`` (a mixin, not used alone). Relies on the scene's ``doc``,
    ``_sync_timer`` (single shot, 0 ms, connected to ``_next_step``), ``_prepared``,
    ``_recall``, ``defer_above``, the per-device arrays (``index``, ``xs``, ``ys``, ``tech``,
    ``gpus``, ``tech_code``, ``tech_names``; written here), ``collapsed``, ``selected_edge``,
    ``device_items``, the references of what is shown (``_fabric``, ``_devices_ref``,
    ``_links_ref``, ``_catalog_ref``, ``_generator_ref``), the ``synced`` signal, and on the
    folding (``_folding``, ``_store_collapsed``), drawing (``_refresh_visible``,
    ``refresh_geometry``, ``_look``) and input (``cancel_gesture``) parts.
    """

    _pending = False  # an edit's redraw waits (events come while the constructor runs)

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
                GroupIndex.build(devices), np.fromiter(map(_X, devices), float, n),
                np.fromiter(map(_Y, devices), float, n), np.empty(n, dtype=object),
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
        if isinstance(indices, range):
            idx = np.arange(indices.start, indices.stop, indices.step, dtype=np.int64)
        else:
            idx = np.asarray(indices, dtype=np.int64)
        if not idx.size:
            return
        cat = self.doc.catalog
        codes = {name: k for k, name in enumerate(out.tech_names)}
        try:
            preferred = cat.profile(self.doc.project.profile).tech
        except DesignerError:
            preferred = None
        # the same gear gives the same answer: one port layout per distinct gear, the rest
        # by C-level maps (a loop writing three arrays element by element took 50 ms of the
        # GUI thread at 37,752 devices)
        picked = list(map(devices.__getitem__, idx.tolist()))
        keys = list(map(GEAR_CHOICE, picked))
        distinct, which = factorize(keys)  # in order of first appearance: codes as before
        example = dict(zip(keys, picked, strict=True))
        tech: list[str | None] = []
        gpus: list[int] = []
        code: list[int] = []
        for key in distinct:
            try:
                lay = port_layout(example[key], cat)
                t = preferred if preferred in lay.techs else None
                info = (t or (lay.techs[0] if lay.techs else None), lay.gpus)
            except (CatalogError, DesignerError):
                info = (None, 0)
            tech.append(info[0])
            gpus.append(info[1])
            c = codes.get(info[0])
            if c is None:
                c = codes[info[0]] = len(out.tech_names)
                out.tech_names.append(info[0])
            code.append(c)
        tech_arr = np.empty(len(tech), dtype=object)
        tech_arr[:] = tech
        out.tech[idx] = tech_arr[which]
        out.gpus[idx] = np.asarray(gpus, np.int64)[which]
        out.tech_code[idx] = np.asarray(code, np.int64)[which]

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

