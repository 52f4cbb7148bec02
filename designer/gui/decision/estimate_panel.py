"""The Estimate panel: step time, communication share, money lost, TCO, the busbw-vs-size chart
(log axes) and the recommendation with every rule, fired or not, its figure and its source.

It re-estimates from the solver's latest Result whenever a result arrives or the workload
changes; an estimate takes milliseconds (bench/bench_analysis.py), so it runs in the GUI thread,
but on the turn after the result (the other panels' work is not added to it) and only while the
panel is shown: a tab behind another catches up when it is brought to the front.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from designer.core.analysis.estimate import Estimate, busbw_curve, estimate
from designer.core.errors import DesignerError
from designer.gui.base.lazy import LazyRefresh
from designer.gui.panels import fmt

OPS = (("all-reduce", "#2d6da3"), ("all-gather", "#2b7a57"), ("all-to-all", "#a33a67"))


# Below this width the panel shows its three views as tabs.
SIDE_BY_SIDE_MIN_W = 900


class EstimatePanel(QWidget):
    estimated = Signal(object)  # Estimate or None

    def __init__(self, service, doc, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service, self.doc = service, doc
        self.current: Estimate | None = None
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 4)
        # three views of one estimate, side by side when the panel is wide and as tabs when it
        # is not (a bottom dock is often half the window): each stays readable
        self.views = QStackedWidget()
        lay.addWidget(self.views)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.views.addWidget(self.split)
        self.views.addWidget(self.tabs)
        left = QScrollArea()
        left.setWidgetResizable(True)
        left.setFrameShape(QFrame.Shape.NoFrame)
        self.summary = QLabel("Waiting for the analysis…")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.summary.setContentsMargins(2, 2, 6, 2)
        left.setWidget(self.summary)
        split = self.split
        split.addWidget(left)
        mid = QWidget()
        mv = QVBoxLayout(mid)
        mv.setContentsMargins(0, 0, 0, 0)
        self.group = QComboBox()
        for g, text in (("all", "every GPU of the job"), ("dp", "a data-parallel group"),
                        ("tp", "a tensor-parallel group"), ("ep", "an expert-parallel group")):
            self.group.addItem(f"busbw over {text}", g)
        self.group.activated.connect(lambda _i: self._draw_chart())
        mv.addWidget(self.group)
        self.chart = pg.PlotWidget(background="w")
        item = self.chart.getPlotItem()
        item.setLogMode(x=True, y=True)
        item.setLabel("bottom", "message size (bytes)")
        item.setLabel("left", "busbw GB/s")
        item.showGrid(x=True, y=True, alpha=0.2)
        item.setMenuEnabled(False)
        for name in ("left", "bottom"):
            item.getAxis(name).enableAutoSIPrefix(False)
        item.addLegend(offset=(8, 5))
        # the curves are made once and given new data: a legend entry costs ~90 ms to build
        self.curves = {op: item.plot([], [], pen=pg.mkPen(QColor(colour), width=2), name=op)
                       for op, colour in OPS}
        self.chart.setMinimumSize(260, 180)
        mv.addWidget(self.chart, 1)
        split.addWidget(mid)
        self.rules = QTableWidget(0, 4)
        self.rules.setHorizontalHeaderLabels(["Fired", "Rule", "Figure", "Source"])
        self.rules.verticalHeader().hide()
        self.rules.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        head = self.rules.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        head.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        self.rules.setColumnWidth(2, 150)
        self.rules.setColumnWidth(3, 120)
        self.rules.setWordWrap(True)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        self.choice = QLabel()
        self.choice.setWordWrap(True)
        rv.addWidget(self.choice)
        rv.addWidget(self.rules, 1)
        split.addWidget(right)
        split.setSizes([280, 330, 560])
        self._panes = [(left, "Step and money"), (mid, "Collectives"), (right, "Recommendation")]
        self._tabbed = False
        self.lazy = LazyRefresh(self, self.refresh)
        service.resultReady.connect(lambda *_: self.lazy.request())
        # a fabric edit brings a new result soon: only a workload or economics edit (the
        # project's decision settings) is estimated again at once, from the result at hand
        self._decision = doc.project.decision
        doc.projectChanged.connect(lambda _r: self._on_project())
        doc.projectReplaced.connect(self.lazy.request)

    def _on_project(self) -> None:
        decision = self.doc.project.decision
        if decision is not self._decision:
            self._decision = decision
            self.lazy.request()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange(event.size().width() < SIDE_BY_SIDE_MIN_W)

    def _arrange(self, tabbed: bool) -> None:
        """Move the three panes between the splitter and the tabs (one widget has one parent)."""
        if tabbed == self._tabbed:
            return
        self._tabbed = tabbed
        for pane, title in self._panes:
            if tabbed:
                self.tabs.addTab(pane, title)
            else:
                self.split.addWidget(pane)
        if not tabbed:
            self.split.setSizes([280, 330, 560])
        self.views.setCurrentWidget(self.tabs if tabbed else self.split)

    def refresh(self) -> None:
        result, project = self.service.latest, self.doc.project
        if result is None:
            return
        try:
            est = estimate(project, result, catalog=self.doc.catalog)
        except DesignerError as exc:
            self.current = None
            self.summary.setText(f"<span style='color:#c62828'>{exc}</span>")
            for curve in self.curves.values():
                curve.setData([], [])
            self.rules.setRowCount(0)
            self.choice.clear()
            self.estimated.emit(None)
            return
        self.current = est
        self._write_summary(est)
        self._draw_chart()
        self._write_rules(est)
        self.estimated.emit(est)

    def _write_summary(self, e: Estimate) -> None:
        s, t, loss = e.step, e.tco, e.loss
        par = s.parallel
        parts = "".join(
            f"<br>&nbsp;&nbsp;{p.kind.upper()} {p.op} {fmt.seconds(p.time_s)}, "
            f"{fmt.percent(p.overlap)} hidden ({p.algorithm})" for p in s.parts)
        econ = e.economics
        self.summary.setText(
            f"<b>{e.workload.name}</b><br>{par.gpus:,} GPUs, TP{par.tp} PP{par.pp} DP{par.dp} "
            f"CP{par.cp} EP{par.ep}<br><br>"
            f"Step <b>{fmt.seconds(s.step_s)}</b>: compute {fmt.seconds(s.compute_s)}, bubble "
            f"{fmt.seconds(s.bubble_s)}, exposed communication {fmt.seconds(s.exposed_comm_s)}"
            f"<br><b>Communication is {fmt.percent(s.comm_fraction)} of the step</b>; MFU "
            f"{fmt.percent(s.mfu)}{parts}<br><br>"
            f"Against an ideal fabric: {e.slowdown:.4f}x slower; over {econ.run_days:g} days at "
            f"${econ.gpu_hour_usd:g}/GPU-hour {loss.gpu_hours_lost:,.0f} GPU-hours, "
            f"{fmt.money(loss.usd_lost)}, {loss.days_lost:.2f} days lost<br><br>"
            f"TCO over {t.years:g} years {fmt.money(t.total_usd)} (capex "
            f"{fmt.money(t.capex_usd)}, energy {fmt.money(t.energy_usd_per_year)}/yr, support "
            f"{fmt.money(t.support_usd_per_year)}/yr, RoCE tuning {fmt.money(t.tuning_usd)})"
            f"<br>{fmt.money_exact(t.usd_per_useful_gpu_hour)} per useful GPU-hour")

    def _draw_chart(self) -> None:
        e = self.current
        if e is None:
            return
        group = self.group.currentData()
        for op, curve in self.curves.items():
            try:
                sizes, bus, _ = busbw_curve(e, op, group)
            except DesignerError:
                curve.setData([], [])
                continue
            keep = bus > 0
            curve.setData(sizes[keep], bus[keep])

    def _write_rules(self, e: Estimate) -> None:
        r = e.recommendation
        note = f"<br><i>{r.note}</i>" if r.note else ""
        self.choice.setText(f"<b>Recommendation: {r.choice}</b><br>{r.break_even}{note}")
        self.rules.setRowCount(len(r.rules))
        for i, rule in enumerate(r.rules):
            for j, text in enumerate(("yes" if rule.fired else "no", rule.rule, rule.figure,
                                      rule.source)):
                cell = QTableWidgetItem(text)
                cell.setToolTip(f"{rule.rule}\n{rule.figure}\nSource: {rule.source}")
                if rule.fired:
                    cell.setBackground(QColor("#e8f3ec"))
                self.rules.setItem(i, j, cell)
        self.rules.resizeRowsToContents()
