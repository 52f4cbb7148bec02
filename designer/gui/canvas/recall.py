"""What the canvas worked out for the last few designs it showed, so undo and redo reuse it.

No Qt here. Projects are immutable: an undo gives back the very device tuple and link table
shown before, so the group index, the per-device arrays and the visible graph worked out for
them then are still right. They are recalled by the objects' identity (each entry holds its
objects, so an id is never reused while it is remembered), a few designs deep. At 131,040 GPUs
in NVL72 trays (37,752 devices, 397,152 links) that is 15-25 ms of numpy an undo need not
repeat; a new edit still derives its state from what it did not touch (``GroupIndex.rebuilt``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from designer.gui.canvas.groups import GroupIndex, VisibleGraph

DEPTH = 4  # designs remembered: an edit, its undo and a redo or two


@dataclass
class DeviceArrays:
    """The canvas's per-device state of one device tuple under one catalog."""

    index: GroupIndex
    xs: np.ndarray
    ys: np.ndarray
    tech: np.ndarray
    gpus: np.ndarray
    tech_code: np.ndarray
    tech_names: list[str | None]

    def copy(self) -> DeviceArrays:
        # the canvas moves devices in its arrays while a drag previews: never in a stored one
        return DeviceArrays(self.index, self.xs.copy(), self.ys.copy(), self.tech.copy(),
                            self.gpus.copy(), self.tech_code.copy(), list(self.tech_names))


class _Lru:
    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.items: OrderedDict[tuple, tuple[tuple, object]] = OrderedDict()

    def get(self, key: tuple):
        hit = self.items.get(key)
        if hit is None:
            return None
        self.items.move_to_end(key)
        return hit[1]

    def put(self, key: tuple, alive: tuple, value) -> None:
        self.items[key] = (alive, value)
        self.items.move_to_end(key)
        while len(self.items) > self.depth:
            self.items.popitem(last=False)

    def clear(self) -> None:
        self.items.clear()


class Recall:
    """Id arrays of device tuples, per-device arrays and visible graphs, by identity."""

    def __init__(self, depth: int = DEPTH) -> None:
        self._ids = _Lru(depth)
        self._arrays = _Lru(depth)
        self._graphs = _Lru(depth)

    def clear(self) -> None:
        for lru in (self._ids, self._arrays, self._graphs):
            lru.clear()

    def ids(self, devices: tuple) -> np.ndarray:
        """``id()`` of each device, as an array (worked out once per tuple)."""
        key = (id(devices),)
        out = self._ids.get(key)
        if out is None:
            out = np.fromiter(map(id, devices), np.int64, len(devices))
            self._ids.put(key, (devices,), out)
        return out

    def arrays(self, devices: tuple, catalog: object, profile: str) -> DeviceArrays | None:
        """A copy of what was stored for this tuple under this catalog and gear profile (a
        device's technology is the profile's where it has several), or None."""
        hit = self._arrays.get((id(devices), id(catalog), profile))
        return None if hit is None else hit.copy()

    def keep_arrays(self, devices: tuple, catalog: object, profile: str,
                    arrays: DeviceArrays) -> None:
        self._arrays.put((id(devices), id(catalog), profile), (devices, catalog),
                         arrays.copy())

    def graph(self, index: GroupIndex, links: object, collapsed: set[str], n: int,
              build: Callable[[], VisibleGraph]) -> VisibleGraph:
        """The visible graph of these objects and folding, built once."""
        key = (id(index), id(links), frozenset(collapsed), n)
        out = self._graphs.get(key)
        if out is None:
            out = build()
            self._graphs.put(key, (index, links), out)
        return out
