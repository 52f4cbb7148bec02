"""Charts of the latest result (pyqtgraph): hops, latency, cost by category, oversubscription.

Four small plots side by side, redrawn with each result. Colours follow the canvas: hops in
the leaf-spine blue, latency in the spine purple, cost per category, oversubscription bars in
their tier's outline colour, with a dashed line at 1:1 (non-blocking) and blocking bars red.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPen
from PySide6.QtWidgets import QGridLayout, QWidget

from designer.core.solver import CATEGORY_ORDER, Result
from designer.gui.base import style
from designer.gui.base.lazy import LazyRefresh, after_first_paint
from designer.gui.base.lazy_import import pyqtgraph as pg
from designer.gui.panels import fmt

AXIS = QColor("#5d6876")
TITLE = "#1d2530"
HOPS = QColor("#2d6da3")
LATENCY = QColor("#5a4aa6")
BLOCKING = QColor("#c62828")
CATEGORY_COLOURS = {
    "switch": QColor("#2d6da3"),
    "laser": QColor("#7b4fb0"),
    "nic": QColor("#6b7787"),
    "transceiver": QColor("#2b7a57"),
    "cable": QColor("#e07028"),
    "fibre": QColor("#a33a67"),
    "appliance": QColor("#9a8433"),
}
CATEGORY_LABELS = {"switch": "switches", "laser": "laser modules", "nic": "NICs",
                   "transceiver": "optics", "cable": "cables", "fibre": "fibre",
                   "appliance": "appliances"}


def _tier_colour(tier: str) -> QColor:
    pair = style.ROLE_COLORS.get(tier)
    return QColor(pair[1]) if pair else QColor("#6b7787")


def _small_font() -> QFont:
    f = QFont()
    f.setPointSizeF(8)
    return f


def _plot(title: str, x_label: str, y_label: str) -> pg.PlotWidget:
    w = pg.PlotWidget(background="w")
    w.setMinimumSize(125, 150)  # four fit beside a bill of materials that shows its names
    item = w.getPlotItem()
    item.setTitle(f"<span style='color:{TITLE}; font-size:9pt; font-weight:600'>{title}</span>")
    # the title spans the axis columns too: over the plot area alone (pyqtgraph's place), a
    # long one ("Oversubscription") ran past the right edge of a chart in a narrow dock
    item.layout.removeItem(item.titleLabel)
    item.layout.addItem(item.titleLabel, 0, 0, 1, 3)
    item.setMenuEnabled(False)
    item.hideButtons()
    vb = item.getViewBox()
    vb.setMouseEnabled(False, False)
    font = _small_font()
    for name, text in (("bottom", x_label), ("left", y_label)):
        ax = item.getAxis(name)
        ax.setPen(pg.mkPen(AXIS))
        ax.setTextPen(pg.mkPen(AXIS))
        ax.setTickFont(font)
        ax.setLabel(text, color=AXIS.name(), **{"font-size": "8pt"})
    item.getAxis("left").setWidth(46)
    item.showGrid(x=False, y=True, alpha=0.15)
    w.setToolTip(title)
    return w


def _empty(item: pg.PlotItem, text: str = "no data") -> None:
    """A chart with nothing to show says so instead of drawing bare axes."""
    for name in ("left", "bottom"):
        item.getAxis(name).setTicks([[]])
    item.setXRange(0, 1, padding=0)
    item.setYRange(0, 1, padding=0)
    label = pg.TextItem(text, color=AXIS.name(), anchor=(0.5, 0.5))
    label.setFont(_small_font())
    label.setPos(0.5, 0.5)
    item.addItem(label)


def _ticks_auto(item: pg.PlotItem) -> None:
    for name in ("left", "bottom"):
        item.getAxis(name).setTicks(None)


# Below this width (and with the height for two rows) the charts stand two by two.
FOUR_IN_A_ROW_MIN_W = 760


BUILD_AFTER_MS = 300  # after the panel is first shown: the window paints without waiting


class ChartsPanel(QWidget):
    drawn = Signal()  # every chart shows the latest result

    def __init__(self, service, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # four in a row when the panel is wide, two by two when it is not (a bottom dock is
        # often half a laptop window: four in a row cut their titles)
        self.grid = lay = QGridLayout(self)
        lay.setContentsMargins(4, 2, 4, 4)
        lay.setSpacing(4)
        # the plots are built after the window is painted (pyqtgraph's import is 0.4 s of
        # the window's start): on the first result to draw, when first shown, or when asked
        self._charts: tuple | None = None
        self.columns = 0
        self._want_columns = 4
        self.shown: dict[str, object] = {}  # what each chart shows (for tests)
        self._drawn: dict[str, object] = {}  # the data each chart was last drawn from
        self._pending: Result | None = None
        self._queued = False
        self._step = 0
        self._lazy = LazyRefresh(self, self._start_drawing)
        service.resultReady.connect(self.show_result)

    @property
    def charts(self) -> tuple:
        """The four plots (hops, latency, cost, oversubscription), built on first use."""
        if self._charts is None:
            self.hops = _plot("Switch hops", "switches crossed", "% of GPU pairs")
            self.latency = _plot("Latency", "µs, GPU to GPU", "% of GPU pairs")
            self.cost = _plot("Network cost", "million $", "")
            self.cost.getPlotItem().showGrid(x=True, y=False, alpha=0.15)
            self.cost.getPlotItem().getAxis("left").setWidth(62)
            self.oversub = _plot("Oversubscription", "tier", "down : up")
            self._charts = (self.hops, self.latency, self.cost, self.oversub)
            for w in self._charts:
                for name in ("left", "bottom"):
                    w.getPlotItem().getAxis(name).enableAutoSIPrefix(False)
                _empty(w.getPlotItem())
            self._place(self._want_columns)
        return self._charts

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._charts is None:  # empty plots a moment after the window is painted
            after_first_paint(self, BUILD_AFTER_MS, lambda: self.charts)

    def _place(self, columns: int) -> None:
        self._want_columns = columns
        if self._charts is None or columns == self.columns:
            return
        self.columns = columns
        for w in self.charts:
            self.grid.removeWidget(w)
        for i, w in enumerate(self.charts):
            self.grid.addWidget(w, i // columns, i % columns)
        for c in range(4):
            self.grid.setColumnStretch(c, 1 if c < columns else 0)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        size = event.size()
        # two by two when each of four would be narrower than it is tall enough to read
        self._place(2 if size.width() < FOUR_IN_A_ROW_MIN_W and size.height() >= 300 else 4)

    def show_result(self, _revision: int, r: Result) -> None:
        # one chart per turn of the event loop: each repaints before the next is rebuilt, so
        # the GUI thread is never held for all four at once; behind another tab, nothing is
        # drawn until the charts are brought to the front
        self._pending = r
        self._step = 0
        self._lazy.request()

    def _start_drawing(self) -> None:
        self.charts  # noqa: B018 - built before the first drawing
        if self._pending is not None and not self._queued:
            self._queued = True
            QTimer.singleShot(0, self, self._draw_next)

    def _draw_next(self) -> None:
        r = self._pending
        if r is None:
            self._queued = False
            return
        if not self._lazy.shown():
            # sent behind another tab while drawing: the rest waits until it comes forward
            self._queued = False
            self._lazy.request()
            return
        (self._hops, self._latency, self._cost, self._oversub)[self._step](r)
        self._step += 1
        if self._step < 4:
            QTimer.singleShot(0, self, self._draw_next)
        else:
            self._queued = False
            self._pending = None
            self.drawn.emit()

    def _changed(self, key: str, data: object) -> bool:
        """Whether ``data`` differs from what chart ``key`` shows (redrawing a plot costs
        ~5 ms of GUI time, and most edits leave most charts as they were)."""
        if self._drawn.get(key, self) == data:
            return False
        self._drawn[key] = data
        return True

    # -- charts ---------------------------------------------------------------------------------
    def _hops(self, r: Result) -> None:
        hist = {int(k): int(v) for k, v in r.hops.histogram.items() if v}
        self.shown["hops"] = hist
        if not self._changed("hops", hist):
            return
        item = self.hops.getPlotItem()
        item.clear()
        _ticks_auto(item)
        total = sum(hist.values())
        if not total:
            _empty(item)
            return
        xs = np.array(sorted(hist), float)
        ys = np.array([hist[int(x)] for x in xs], float) / total * 100
        item.addItem(pg.BarGraphItem(x=xs, height=ys, width=0.6, brush=HOPS,
                                     pen=pg.mkPen(HOPS.darker(120))))
        item.getAxis("bottom").setTicks([[(x, f"{int(x)}") for x in xs]])
        item.setXRange(xs.min() - 0.7, xs.max() + 0.7, padding=0)
        item.setYRange(0, max(ys.max() * 1.1, 1), padding=0)
        self.hops.setToolTip("\n".join(f"{int(x)} switch(es): {int(hist[int(x)]):,} pairs "
                                       f"({y:.1f}%)" for x, y in zip(xs, ys, strict=True)))

    def _latency(self, r: Result) -> None:
        lat = r.latency
        self.shown["latency"] = (tuple(lat.edges_us), tuple(lat.counts))
        if not self._changed("latency", (self.shown["latency"], lat.p50_us, lat.p99_us,
                                         lat.max_us)):
            return
        item = self.latency.getPlotItem()
        item.clear()
        _ticks_auto(item)
        edges = np.asarray(lat.edges_us, float)
        counts = np.asarray(lat.counts, float)
        if counts.size == 0 or counts.sum() == 0 or edges.size != counts.size + 1:
            _empty(item)
            return
        share = counts / counts.sum() * 100
        width = np.diff(edges)
        if not (width > 0).all():  # every pair alike: one bar
            width = np.full(counts.size, 0.02 * max(edges[0], 0.05))
        keep = share > 0
        item.addItem(pg.BarGraphItem(x0=edges[:-1][keep], width=width[keep], height=share[keep],
                                     brush=LATENCY, pen=pg.mkPen(LATENCY.darker(120))))
        lo, hi = float(edges[0]), float(edges[-1])
        pad = max((hi - lo) * 0.08, 0.05)
        item.setXRange(lo - pad, hi + pad, padding=0)
        item.setYRange(0, max(share.max() * 1.1, 1), padding=0)
        for us, style_ in ((lat.p50_us, Qt.PenStyle.DashLine), (lat.p99_us, Qt.PenStyle.DotLine)):
            if us is not None:
                item.addItem(pg.InfiniteLine(us, angle=90, pen=pg.mkPen(AXIS, style=style_)))
        self.latency.setToolTip(
            f"p50 {fmt.micro(lat.p50_us)} (dashed), p99 {fmt.micro(lat.p99_us)} (dotted), "
            f"max {fmt.micro(lat.max_us)}")

    def _cost(self, r: Result) -> None:
        """Horizontal bars, first category on top, named on the axis, cost at the bar's end."""
        by: dict[str, float] = {}
        for line in r.bom.lines:
            by[line.category] = by.get(line.category, 0.0) + line.total_usd
        cats = [c for c in CATEGORY_ORDER if by.get(c, 0) > 0]
        self.shown["cost"] = {c: by[c] for c in cats}
        if not self._changed("cost", self.shown["cost"]):
            return
        item = self.cost.getPlotItem()
        item.clear()
        _ticks_auto(item)
        if not cats:
            _empty(item)
            return
        ys = np.arange(len(cats), dtype=float)[::-1]
        xs = np.array([by[c] for c in cats]) / 1e6
        brushes = [CATEGORY_COLOURS.get(c, QColor("#6b7787")) for c in cats]
        item.addItem(pg.BarGraphItem(x0=np.zeros(len(cats)), y=ys, width=xs, height=0.62,
                                     brushes=brushes,
                                     pens=[pg.mkPen(b.darker(120)) for b in brushes]))
        top = float(xs.max())
        for y, x, c in zip(ys, xs, cats, strict=True):
            label = pg.TextItem(fmt.money_short(by[c]), color=TITLE, anchor=(0, 0.5))
            label.setFont(_small_font())
            label.setPos(x + top * 0.03, y)
            item.addItem(label)
        item.getAxis("left").setTicks([[(y, CATEGORY_LABELS.get(c, c))
                                        for y, c in zip(ys, cats, strict=True)]])
        item.setYRange(-0.6, len(cats) - 0.4, padding=0)
        item.setXRange(0, top * 1.8, padding=0)
        total = sum(by.values())
        self.cost.setToolTip("\n".join(f"{c}: {fmt.money(by[c])} ({by[c] / total:.0%})"
                                       for c in cats) + f"\ntotal: {fmt.money(total)}")

    def _oversub(self, r: Result) -> None:
        tiers = r.oversubscription.by_tier
        self.shown["oversub"] = {t: x.worst for t, x in tiers.items()}
        if not self._changed("oversub", {t: (x.worst, x.typical, x.blocking)
                                         for t, x in tiers.items()}):
            return
        item = self.oversub.getPlotItem()
        item.clear()
        _ticks_auto(item)
        if not tiers:
            _empty(item)
            return
        names = list(tiers)
        xs = np.arange(len(names), dtype=float)
        ys = np.array([tiers[t].worst for t in names])
        brushes = [BLOCKING if tiers[t].blocking else _tier_colour(t) for t in names]
        item.addItem(pg.BarGraphItem(x=xs, height=ys, width=0.55, brushes=brushes,
                                     pens=[pg.mkPen(b.darker(120)) for b in brushes]))
        typical = np.array([tiers[t].typical for t in names])
        item.addItem(pg.ScatterPlotItem(x=xs, y=typical, symbol="d", size=8,
                                        brush=pg.mkBrush("w"), pen=pg.mkPen(AXIS)))
        line = pg.InfiniteLine(1.0, angle=0, pen=QPen(QColor("#2e7d32"), 0,
                                                       Qt.PenStyle.DashLine))
        item.addItem(line)
        item.getAxis("bottom").setTicks([[(x, t) for x, t in zip(xs, names, strict=True)]])
        item.setXRange(-0.6, len(names) - 0.4, padding=0)
        item.setYRange(0, max(float(ys.max()) * 1.15, 1.3), padding=0)
        self.oversub.setToolTip(
            "Worst down:up capacity of each tier's switches (bar) and the typical one "
            "(diamond); the dashed line is 1:1, non-blocking\n"
            + "\n".join(f"{t}: worst {tiers[t].worst:.3g}:1, typical {tiers[t].typical:.3g}:1"
                        for t in names))
