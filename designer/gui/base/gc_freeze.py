"""Keep Python's full garbage collections from stalling the window on large designs.

A full collection walks every tracked object and holds the interpreter lock while it does, in
whichever thread allocated the object that set it off. With a 65,536-GPU design open (its
project, the undo history, the result, the canvas items) one pass took 100-200 ms, often set off
by a Compare variant being built in a worker: the GUI thread could not run for that long
(bench/bench_live.py counts these passes). After each result has reached the panels, the
objects alive then (the design, its result, the panels' data) are moved to the collector's
permanent generation (``gc.freeze``), so later passes only walk what was made since. Memory
is still freed by reference counting when those objects go; only reference cycles among them
would wait, until a new design replaces the old one and they are handed back to the collector.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

# below this many devices a full pass is short anyway (tens of milliseconds at most)
MIN_DEVICES = 2_000


class GcFreezer(QObject):
    def __init__(self, service, doc, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.freezes = 0
        self._holding = False  # something this window froze is in the permanent generation
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        # after the panels' deferred work (charts one per turn, lazy panels) has run
        self._timer.setInterval(250)
        self._timer.timeout.connect(self._freeze)
        self.doc = doc
        service.resultReady.connect(lambda *_: self.request())
        doc.projectReplaced.connect(self._release)

    def request(self) -> None:
        """Freeze what is alive shortly (after a result or a comparison has been shown)."""
        self._timer.start()

    def _freeze(self) -> None:
        if len(self.doc.project.fabric.devices) >= MIN_DEVICES:
            gc.freeze()  # cheap: the generations are spliced onto the permanent one
            self.freezes += 1
            self._holding = True

    def _release(self) -> None:
        """A new design (or the window closing): what the old one left in cycles may be
        collected again. Only when this window froze anything: a window of a small design
        leaves alone what another window (or the process at its start) froze."""
        self._timer.stop()
        if self._holding:
            gc.unfreeze()
            self._holding = False

    def shutdown(self) -> None:
        self._release()

