"""Modules imported on first use of one of their names, not when the window starts.

pyqtgraph costs about 0.4 s of CPU to import (it loads most of Qt's modules and its own
hundred); the window paints without it, and a panel that plots touches ``pyqtgraph.X`` only
when it builds its plots, after the first paint.
"""

from __future__ import annotations

import importlib
from types import ModuleType


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
