"""The cluster timeline drawn with pyqtgraph: busy and failed GPUs, fragmentation, jobs the
network slows, and failures as ticks, on one time axis in days."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QVBoxLayout, QWidget

from designer.core.cluster import ClusterResult
from designer.gui.base.lazy import after_first_paint
from designer.gui.base.lazy_import import pyqtgraph as pg

BUILD_AFTER_MS = 300  # after first shown: the window paints without waiting
MAX_POINTS = 4000  # a step curve this dense is as fine as the screen


def _thin(t: np.ndarray, *ys: np.ndarray) -> tuple[np.ndarray, ...]:
    if t.size <= MAX_POINTS:
        return (t, *ys)
    k = np.linspace(0, t.size - 1, MAX_POINTS).astype(np.int64)
    return (t[k], *(y[k] for y in ys))


class TimelineView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lay = QVBoxLayout(self)
        self._lay.setContentsMargins(0, 0, 0, 0)
        # the plots are built when first drawn or read (pyqtgraph's import is 0.4 s of the
        # window's start, and this tab is rarely in front then)
        self._gpus = None
        self._ratio = None

    def _build(self) -> None:
        if self._gpus is not None:
            return
        self._gpus = gpus = pg.PlotWidget()
        gpus.setBackground("w")
        gpus.setLabel("left", "GPUs")
        gpus.addLegend(offset=(-10, 5), brush=pg.mkBrush(255, 255, 255, 220))
        gpus.showGrid(x=True, y=True, alpha=0.2)
        self._ratio = ratio = pg.PlotWidget()
        ratio.setBackground("w")
        ratio.setLabel("left", "share / jobs")
        ratio.setLabel("bottom", "days")
        ratio.addLegend(offset=(-10, 5), brush=pg.mkBrush(255, 255, 255, 220))
        ratio.showGrid(x=True, y=True, alpha=0.2)
        ratio.setXLink(gpus)
        for w in (gpus, ratio):
            w.setMinimumHeight(120)
        self._lay.addWidget(gpus, 3)
        self._lay.addWidget(ratio, 2)

    @property
    def gpus(self):
        self._build()
        return self._gpus

    @property
    def ratio(self):
        self._build()
        return self._ratio

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._gpus is None:  # empty plots a moment after the window is painted
            after_first_paint(self, BUILD_AFTER_MS, self._build)

    def show_result(self, r: ClusterResult | None) -> None:
        self.gpus.clear()
        self.ratio.clear()
        if r is None or r.timeline.t_h.size == 0:
            return
        tl = r.timeline
        t, busy, down, frag, slowed = _thin(
            tl.t_h / 24.0, tl.busy_gpus.astype(float), tl.down_gpus.astype(float),
            tl.fragmentation, tl.slowed.astype(float))
        self.gpus.plot(t, busy, pen=pg.mkPen("#1f77b4", width=1.5), name="busy GPUs")
        self.gpus.plot(t, down, pen=pg.mkPen("#d62728", width=1.5), name="GPUs failed")
        self.gpus.addLine(y=r.design_gpus, pen=pg.mkPen("#888", style=pg.QtCore.Qt.DashLine))
        # failures: a tick at each
        jumps = np.flatnonzero(np.diff(tl.failures, prepend=0) > 0)
        if jumps.size:
            ft = tl.t_h[jumps] / 24.0
            self.gpus.plot(ft, np.full(ft.size, 0.0), pen=None, symbol="t1", symbolSize=9,
                           symbolBrush="#d62728", symbolPen=None, name="failures")
        self.ratio.plot(t, frag, pen=pg.mkPen("#9467bd", width=1.5),
                        name="fragmentation (idle GPUs in part-used servers, share)")
        run = np.maximum(_thin(tl.t_h, tl.running.astype(float))[1], 1.0)
        self.ratio.plot(t, slowed / run, pen=pg.mkPen("#ff7f0e", width=1.5),
                        name="running jobs the network slows (share)")
        self.ratio.setYRange(0, 1.05)
