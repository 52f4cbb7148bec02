"""The Estimate panel: step time, communication share, money lost, TCO, the busbw-vs-size chart
(log axes) and the recommendation with every rule, fired or not, its figure and its source.

It re-estimates from the solver's latest Result whenever a result arrives or the workload
changes; an estimate takes milliseconds (bench/bench_analysis.py), so it runs in the GUI thread,
but on the turn after the result (the other panels' work is not added to it) and only while the
panel is shown: a tab behind another catches up when it is brought to the front.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from designer.core.analysis import (
    ASSUMED,
    Estimate,
    busbw_curve,
    constant_notes,
    estimate,
    fabric_view,
    fit_workload,
    fittable,
    runs_a_tree,
    settings_of,
)
from designer.core.errors import DesignerError
from designer.core.transport import tuning_name
from designer.gui.base.lazy import LazyRefresh
from designer.gui.base.lazy_import import pyqtgraph as pg
from designer.gui.decision.routing_control import RoutingControl
from designer.gui.decision.rules_view import RulesView
from designer.gui.panels import fmt
from designer.gui.project.commands import ProjectCommand

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
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        self.routing = RoutingControl(doc)
        self.routing.changed.connect(lambda: self.lazy.request())
        lv.addWidget(self.routing)
        # shown when the workload does not fit this design: two ways to fit it, one click each
        self.fit_bar = QWidget()
        fb = QVBoxLayout(self.fit_bar)
        fb.setContentsMargins(0, 0, 0, 4)
        fit_row = QHBoxLayout()
        self.fit_batch = QPushButton("Fit: keep the global batch")
        self.fit_batch.setToolTip("Data parallelism follows this design's GPUs; the global "
                                  "batch stays (raised only to one sequence per rank)")
        self.fit_batch.clicked.connect(lambda: self.fit_workload("batch"))
        self.fit_per_gpu = QPushButton("Fit: keep the per-GPU batch")
        self.fit_per_gpu.setToolTip("Each data-parallel rank keeps its tokens per step; the "
                                    "global batch follows the data parallelism")
        self.fit_per_gpu.clicked.connect(lambda: self.fit_workload("per-gpu"))
        fit_row.addWidget(self.fit_batch)
        fit_row.addWidget(self.fit_per_gpu)
        fit_row.addStretch(1)
        fb.addLayout(fit_row)
        self.fit_bar.hide()
        lv.addWidget(self.fit_bar)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        lv.addWidget(scroll, 1)
        self.summary = QLabel("Waiting for the analysis…")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.summary.setContentsMargins(2, 2, 6, 2)
        scroll.setWidget(self.summary)
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
        # the plot is built when first drawn (pyqtgraph's import is 0.4 s of the window's
        # start, and this panel is often behind another tab)
        self._chart_box = QVBoxLayout()
        self._chart_box.setContentsMargins(0, 0, 0, 0)
        mv.addLayout(self._chart_box, 1)
        self._chart = None
        self._curves: dict = {}
        split.addWidget(mid)
        self.rules_view = RulesView()
        self.rules = self.rules_view.table
        right = self.rules_view
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
            est = estimate(project, result, catalog=self.doc.catalog,
                           network_slowdown=self.routing.slowdown, routing=self.routing.label,
                           tree_slowdown=self.routing.tree_slowdown)
        except DesignerError as exc:
            self.routing.update_for(project)
            self.current = None
            can_fit = fittable(exc)
            self.fit_bar.setVisible(can_fit)
            hint = ("<br><br>The workload was written for another design: fit it to this one "
                    "with a button above (one undoable step; the changes are listed)."
                    if can_fit else "")
            self.summary.setText(f"<span style='color:#c62828'>{exc}</span>{hint}")
            for curve in self.curves.values():
                curve.setData([], [])
            self.rules_view.clear()
            self.estimated.emit(None)
            return
        # NCCL picks its algorithms without knowing the collisions, so this estimate already
        # names them: the tree's flows are hashed only when a tree runs (as on the command line)
        used = [p.algorithm for p in est.step.parts] + [r.algorithm for r in est.collectives]
        self.routing.update_for(project, tree=runs_a_tree(used))
        self.current = est
        self.fit_bar.hide()
        self._write_summary(est)
        self._draw_chart()
        self._write_rules(est)
        self.estimated.emit(est)

    def fit_workload(self, keep: str) -> tuple[str, ...]:
        """Fit the project's workload to this design (one undoable step); says what changed."""
        result, project = self.service.latest, self.doc.project
        if result is None:
            return ()
        s = settings_of(project)
        try:
            view = fabric_view(project, result, s.workload, self.doc.catalog)
            fitted = fit_workload(s.workload, view.gpus, view.domain, keep=keep)
        except DesignerError as exc:
            self.doc.say(str(exc), True)
            return ()
        if not fitted.changed:
            return ()
        new = s.model_copy(update={"workload": fitted.workload})
        self.doc.push(ProjectCommand(self.doc, project.evolve(decision=new),
                                     "Fit the workload to this design"))
        self.doc.say("Workload fitted: " + "; ".join(fitted.changes))
        return fitted.changes

    def _write_summary(self, e: Estimate) -> None:
        s, t, loss = e.step, e.tco, e.loss
        par = s.parallel
        parts = "".join(
            f"<br>&nbsp;&nbsp;{p.kind.upper()} {p.op} {fmt.seconds(p.time_s)}, "
            f"{fmt.percent(p.overlap)} hidden ({p.algorithm})" for p in s.parts)
        econ = e.economics
        fitted = "".join(f"<br><i>fitted to this design: {c}</i>" for c in e.fitted)
        lost = (f"{loss.gpu_hours_lost:,.0f} GPU-hours, {fmt.money(loss.usd_lost)}, "
                f"{loss.days_lost:.2f} days lost" if loss.gpu_hours_lost >= 0.5
                else "nothing is lost to the fabric")
        self.summary.setText(
            f"<b>{e.workload.name}</b><br>{par.gpus:,} GPUs, TP{par.tp} PP{par.pp} DP{par.dp} "
            f"CP{par.cp} EP{par.ep}{fitted}<br><br>"
            f"Step <b>{fmt.seconds(s.step_s)}</b>: compute {fmt.seconds(s.compute_s)}, bubble "
            f"{fmt.seconds(s.bubble_s)}, exposed communication {fmt.seconds(s.exposed_comm_s)}"
            f"<br><b>Communication is {fmt.percent(s.comm_fraction)} of the step</b>; MFU "
            f"{fmt.percent(s.mfu)}{parts}<br><br>"
            f"Against an ideal fabric: {e.slowdown:.4f}x slower; over {econ.run_days:g} days at "
            f"${econ.gpu_hour_usd:g}/GPU-hour {lost}<br><br>"
            f"TCO over {t.years:g} years {fmt.money(t.total_usd)} (capex "
            f"{fmt.money(t.capex_usd)}, energy {fmt.money(t.energy_usd_per_year)}/yr, support "
            f"{fmt.money(t.support_usd_per_year)}/yr, {tuning_name(e.transport)} tuning "
            f"{fmt.money(t.tuning_usd)}"
            + (" (the transport's default)" if e.tuning_from_transport else "") + ")"
            f"<br>{fmt.money_exact(t.usd_per_useful_gpu_hour)} per useful GPU-hour<br><br>"
            f"{e.view.gpu.name}; {_sharp(e)}; network: {e.routing}<br>"
            + (f"Transport: {(e.transport_json() or {}).get('all_to_all', '')}<br>"
               if e.transport is not None else "")
            +
            f"Step constants: {_constants(e)}")

    @property
    def chart(self):
        """The busbw plot (pyqtgraph), built on first use."""
        if self._chart is None:
            self._chart = chart = pg.PlotWidget(background="w")
            item = chart.getPlotItem()
            item.setLogMode(x=True, y=True)
            item.setLabel("bottom", "message size (bytes)")
            item.setLabel("left", "busbw GB/s")
            item.showGrid(x=True, y=True, alpha=0.2)
            item.setMenuEnabled(False)
            for name in ("left", "bottom"):
                item.getAxis(name).enableAutoSIPrefix(False)
            item.addLegend(offset=(8, 5))
            # the curves are made once and given new data: a legend entry costs ~90 ms
            self._curves = {op: item.plot([], [], pen=pg.mkPen(QColor(colour), width=2),
                                          name=op) for op, colour in OPS}
            chart.setMinimumSize(260, 180)
            self._chart_box.addWidget(chart)
        return self._chart

    @property
    def curves(self) -> dict:
        self.chart  # noqa: B018 - built with the plot
        return self._curves

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
        self.rules_view.show_recommendation(e.recommendation)


def _sharp(e: Estimate) -> str:
    if e.view.collnet:
        return "IB SHARP on (NCCL_COLLNET_ENABLE=1)"
    if e.view.sharp:
        return "IB SHARP off (Workload: IB SHARP sets NCCL_COLLNET_ENABLE=1)"
    return "no IB SHARP on this gear"


def _constants(e: Estimate) -> str:
    notes = constant_notes(e.workload)
    assumed = [n.field.replace("_", " ") for n in notes if n.kind == ASSUMED]
    return (f"{len(notes) - len(assumed)} of {len(notes)} sourced or set here; assumed: "
            + (", ".join(assumed) or "none") + " (marked in the Workload panel)")
