"""The live scatter of a sweep: a point per solved design, the Pareto front highlighted,
axes picked from the recorded figures, a tooltip with the design's parameters on hover,
and ``pointClicked(index)`` when a point is clicked."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from designer.core.sweep import METRICS, Point

ALL_BRUSH = pg.mkBrush(70, 110, 160, 150)
INFEASIBLE_BRUSH = pg.mkBrush(170, 170, 170, 90)
FRONT_BRUSH = pg.mkBrush(240, 140, 20, 230)
CHOSEN_PEN = pg.mkPen((200, 30, 30), width=2.5)


def axis_title(name: str) -> str:
    m = METRICS[name]
    return f"{m.label} ({m.unit})" if m.unit else m.label


class SweepPlot(QWidget):
    pointClicked = Signal(int)  # the point's index

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.points: dict[int, Point] = {}
        self.figures: dict[int, dict[str, float]] = {}
        self.feasible: set[int] = set()
        self.front: set[int] = set()
        self.chosen: int | None = None
        self.x_combo = QComboBox()
        self.y_combo = QComboBox()
        for combo in (self.x_combo, self.y_combo):
            for name in METRICS:
                combo.addItem(axis_title(name), name)
            combo.currentIndexChanged.connect(self.redraw)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("X"))
        bar.addWidget(self.x_combo, 1)
        bar.addWidget(QLabel("Y"))
        bar.addWidget(self.y_combo, 1)
        self.plot = pg.PlotWidget(background="w")
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        # bottom right: cheap-and-good designs gather top left, costly-and-poor ones are rare
        legend = self.plot.addLegend(offset=(-10, -10))
        legend.setBrush(pg.mkBrush(255, 255, 255, 220))
        self.others = pg.ScatterPlotItem(size=8, pen=None, brush=ALL_BRUSH, hoverable=True,
                                         tip=self._tip, name="designs")
        self.dropped = pg.ScatterPlotItem(size=7, pen=None, brush=INFEASIBLE_BRUSH,
                                          hoverable=True, tip=self._tip,
                                          name="outside the constraints")
        self.front_line = pg.PlotDataItem(pen=pg.mkPen((240, 140, 20), width=1.5,
                                                       style=pg.QtCore.Qt.PenStyle.DashLine))
        self.front_dots = pg.ScatterPlotItem(size=12, pen=pg.mkPen("k", width=0.8),
                                             brush=FRONT_BRUSH, symbol="d", hoverable=True,
                                             tip=self._tip, name="Pareto front")
        self.mark = pg.ScatterPlotItem(size=18, pen=CHOSEN_PEN, brush=None)
        for item in (self.dropped, self.others, self.front_line, self.front_dots, self.mark):
            self.plot.addItem(item)
        for item in (self.others, self.dropped, self.front_dots):
            item.sigClicked.connect(self._clicked)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.plot, 1)

    # -- data --------------------------------------------------------------------------------
    def set_axes(self, x: str, y: str) -> None:
        self.x_combo.blockSignals(True)
        self.x_combo.setCurrentIndex(max(0, self.x_combo.findData(x)))
        self.x_combo.blockSignals(False)
        self.y_combo.setCurrentIndex(max(0, self.y_combo.findData(y)))
        self.redraw()

    @property
    def x_name(self) -> str:
        return str(self.x_combo.currentData())

    @property
    def y_name(self) -> str:
        return str(self.y_combo.currentData())

    def reset(self, points: list[Point]) -> None:
        self.points = {p.index: p for p in points}
        self.figures.clear()
        self.feasible.clear()
        self.front.clear()
        self.chosen = None
        self.redraw()

    def set_results(self, figures: dict[int, dict[str, float]], feasible: set[int],
                    front: set[int]) -> None:
        self.figures, self.feasible, self.front = figures, feasible, front
        self.redraw()

    def choose(self, index: int | None) -> None:
        self.chosen = index
        self._draw_mark()

    # -- drawing -----------------------------------------------------------------------------
    def _xy(self, indices: list[int]) -> tuple[np.ndarray, np.ndarray, list[int]]:
        xs, ys, keep = [], [], []
        for i in indices:
            f = self.figures.get(i)
            if not f:
                continue
            x, y = f.get(self.x_name, math.nan), f.get(self.y_name, math.nan)
            if math.isfinite(x) and math.isfinite(y):
                xs.append(x)
                ys.append(y)
                keep.append(i)
        return np.array(xs, dtype=float), np.array(ys, dtype=float), keep

    def redraw(self) -> None:
        solved = sorted(self.figures)
        groups = (
            (self.others, [i for i in solved if i in self.feasible and i not in self.front]),
            (self.dropped, [i for i in solved if i not in self.feasible]),
            (self.front_dots, [i for i in solved if i in self.front]),
        )
        for item, idx in groups:
            x, y, keep = self._xy(idx)
            item.setData(x=x, y=y, data=keep)
        x, y, _ = self._xy([i for i in solved if i in self.front])
        order = np.argsort(x, kind="stable")
        self.front_line.setData(x=x[order], y=y[order])
        self.plot.setLabel("bottom", axis_title(self.x_name))
        self.plot.setLabel("left", axis_title(self.y_name))
        self._draw_mark()

    def _draw_mark(self) -> None:
        x, y, keep = self._xy([self.chosen] if self.chosen is not None else [])
        self.mark.setData(x=x, y=y, data=keep)

    def _tip(self, x: float, y: float, data: object) -> str:
        p = self.points.get(int(data)) if data is not None else None
        if p is None:
            return ""
        lines = [f"Point {p.index}: {p.kind}"]
        lines += [f"  {k} = {v}" for k, v in p.params.items()]
        lines += [f"  price of {k} = ${v:,.0f}" for k, v in p.prices.items()]
        lines += [f"{axis_title(self.x_name)}: {x:,.4g}", f"{axis_title(self.y_name)}: {y:,.4g}"]
        if p.index in self.front:
            lines.append("on the Pareto front")
        return "\n".join(lines)

    def _clicked(self, _item, spots, _ev=None) -> None:
        if len(spots):
            self.pointClicked.emit(int(spots[0].data()))
