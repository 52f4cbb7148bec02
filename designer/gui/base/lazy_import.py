"""Modules imported on first use of one of their names, not when the window starts.

pyqtgraph costs about 0.4 s of CPU to import (it loads most of Qt's modules and its own
hundred); the window paints without it, and a panel that plots touches ``pyqtgraph.X`` only
when it builds its plots, after the first paint.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from PySide6.QtWidgets import QWidget

from designer.gui.base.lazy import after_first_paint


class LazyModule:
    """Stands for module ``name``; the first attribute read imports it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)


pyqtgraph = LazyModule("pyqtgraph")


AFTER_PAINT_MS = 500  # after the window has first painted (it opens its file meanwhile)


def import_after_show(window: QWidget, names: tuple[str, ...] = ("pyqtgraph",)) -> None:
    """Import ``names`` a moment after ``window`` is first shown, on the GUI thread: the window
    paints first, and the plots built later (on a first result, when a panel comes forward)
    find the module loaded instead of stalling the window for its import then."""
    def load() -> None:
        for name in names:
            importlib.import_module(name)

    after_first_paint(window, AFTER_PAINT_MS, load)
