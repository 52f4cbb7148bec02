"""The Traffic panel: a pattern under load, failure what-ifs and the N-1 table.

Every run takes the document's project as it is (a snapshot), and runs the core's
``run_load``, ``what_if`` or ``n_minus_1`` in a worker thread (``BackgroundTask``: a progress
dialog with Cancel when it takes more than a moment), so the window never waits on it. The
panel only shows results; the canvas overlay (failed elements, hottest links) is drawn by
``TrafficOverlay`` and is temporary: nothing in the design is edited.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.catalog import builtin_catalog
from designer.core.solver import (
    Control,
    SolveCancelled,
    compile_project,
    oversubscription,
    solve_bisection,
)
from designer.core.traffic import (
    DEFAULT_USD_PER_GPU_HOUR,
    PATTERNS,
    ROUTING_LABELS,
    ROUTINGS,
    LoadResult,
    n_minus_1,
    run_load,
    what_if,
)
from designer.core.transport import LOSSLESS_TEXT, TransportLoad, run_transport_load, transport_of
from designer.gui.base.background import BackgroundTask
from designer.gui.panels import fmt
from designer.gui.transport.incast_view import incast_html

N1_COLUMNS = ("Failed (example)", "Alike", "Bisection kept", "Oversub. x", "Stranded GPUs",
              "Slowdown", "Cost / day")


N1_TIERS = ("leaf", "spine", "core", "router")
INTRO = "Run a pattern to see throughput, slowdown and the hottest links."
STALE = "<i>Out of date: the design changed after this run.</i><br>"


TRANSPORT_DEFAULT = "transport default"
LOSSLESS_LABELS = (("automatic (PFC blocking where it applies)", "auto"), ("PFC blocking", "pfc"),
                   ("ports + PFC (htsim-checked)", "ports"), ("fluid (off)", "off"))
LOSSLESS_NAMES = {"pfc": "PFC blocking", "ports": "ports + PFC", "off": "fluid"}


class TrafficPanel(QWidget):
    overlayWanted = Signal(list, list)  # failed device ids, hot links [(from, to, util)]
    overlayCleared = Signal()
    loadTail = Signal(str, str)  # latency under load (text, the model) for the metrics panel

    def __init__(self, doc, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.task: BackgroundTask | None = None
        self.last: LoadResult | None = None
        self.last_transport: TransportLoad | None = None
        self._intact: dict = {}
        self._last_key: tuple | None = None  # what self.last answers for
        self._shown_for = None  # the project the text and table answer for
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.pattern = QComboBox()
        self.pattern.addItems(list(PATTERNS))
        self.routing = QComboBox()
        self.routing.addItem(TRANSPORT_DEFAULT, None)
        for r in ROUTINGS:
            self.routing.addItem(ROUTING_LABELS[r], r)
        self.routing.setToolTip("The routing of the load model; by default the design's "
                                "transport's (toolbar: Transport). Packet spraying puts every "
                                "packet on its own shortest path (the fluid split; called "
                                "'adaptive' before); ECMP hashing one path per flow. Flowlet "
                                "(adaptive) switching is not modelled")
        self.lossless = QComboBox()
        for label, model in LOSSLESS_LABELS:
            self.lossless.addItem(label, model)
        self.lossless.setToolTip(
            "Rate model on a lossless (PFC) transport under ECMP or Valiant hashing. PFC "
            "blocking: max-min fair shares, then a saturated port pauses the ingress ports "
            "it holds, the pause spreads upstream hop by hop and every flow on a paused link "
            "slows to the held flows' rate. Ports + PFC: each egress also fair among its "
            "ingress ports first, solved again as flows finish (the model checked against "
            "htsim; up to 8,192 flows). Fluid: max-min, as if each sender knew its "
            "bottleneck. First order: pauses are steady shares of time; a packet "
            "simulator's bursts make its worst flows slower still. Automatic: PFC blocking "
            "where it applies (RoCE, Spectrum-X under hashing), else fluid")
        self.flows = QSpinBox()
        self.flows.setRange(1, 64)
        self.trials = QSpinBox()
        self.trials.setRange(1, 100)
        self.price = QDoubleSpinBox()
        self.price.setRange(0.0, 1000.0)
        self.price.setDecimals(2)
        self.price.setPrefix("$")
        self.price.setValue(DEFAULT_USD_PER_GPU_HOUR)
        form.addRow("Pattern", self.pattern)
        form.addRow("Routing", self.routing)
        form.addRow("Lossless", self.lossless)
        form.addRow("Flows per pair", self.flows)
        form.addRow("Trials", self.trials)
        form.addRow("Per GPU-hour", self.price)
        lay.addLayout(form)
        buttons = QHBoxLayout()
        self.run_btn = QPushButton("Run load")
        self.run_btn.clicked.connect(self.run_load)
        self.clear_btn = QPushButton("Clear overlay")
        self.clear_btn.clicked.connect(self.clear_overlay)
        buttons.addWidget(self.run_btn)
        buttons.addWidget(self.clear_btn)
        lay.addLayout(buttons)
        self.result = QLabel(INTRO)
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.RichText)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # a long answer (an incast's figures) scrolls instead of being cut by a short dock
        self.result_scroll = QScrollArea()
        self.result_scroll.setWidgetResizable(True)
        self.result_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.result_scroll.setWidget(self.result)
        self.result_scroll.setMinimumHeight(120)
        lay.addWidget(self.result_scroll, 2)
        n1 = QHBoxLayout()
        self.tier = QComboBox()
        self.tier.setToolTip("The switch tier whose members fail one at a time (one row per "
                             "symmetry class)")
        self._tiers_of(doc.project)
        self.n1_btn = QPushButton("N-1 table")
        self.n1_btn.clicked.connect(self.run_n1)
        n1.addWidget(QLabel("Fail each"))
        n1.addWidget(self.tier)
        n1.addWidget(self.n1_btn)
        n1.addStretch(1)
        lay.addLayout(n1)
        self.table = QTableWidget(0, len(N1_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(N1_COLUMNS))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        lay.addWidget(self.table, 1)
        doc.projectChanged.connect(lambda _r: self.clear_overlay())
        doc.projectChanged.connect(lambda _r: self._tiers_of(doc.project))
        doc.projectChanged.connect(self._mark_stale)
        doc.projectReplaced.connect(self._reset)

    def _reset(self) -> None:
        """Another design (File > Open, New, a recovery): nothing of the last one stays."""
        if self.task is not None and self.task.running:
            self.task.cancel()
        self.last, self._intact, self._last_key, self._shown_for = None, {}, None, None
        self.last_transport = None
        self.table.setRowCount(0)
        self.table.setEnabled(True)
        self._show(INTRO)

    def _mark_stale(self, _revision: int) -> None:
        """An edit: the figures shown answer for the design before it, and say so."""
        if self._shown_for is None or self._shown_for is self.doc.project:
            return
        if not self.result.text().startswith(STALE):
            self.result.setText(STALE + self.result.text())
        self.table.setEnabled(False)

    # -- options ---------------------------------------------------------------------------------
    def _routing(self) -> str | None:
        return self.routing.currentData()

    def _transport(self):
        return transport_of(self.doc.project, self.doc.catalog)

    def _kw(self) -> dict:
        return dict(pattern=self.pattern.currentText(),
                    routing=self._routing() or self._transport().load_routing,
                    flows_per_pair=self.flows.value(), trials=self.trials.value())

    def _start(self, title: str, label: str, work, done) -> None:
        if self.task is not None and self.task.running:
            self.doc.say("A traffic run is still going; cancel it or wait for it")
            return
        project = self.doc.project  # the snapshot this run answers for
        catalog = project.catalog(getattr(self.doc, "base_catalog", None) or builtin_catalog())

        def job(progress, cancelled):
            ctl = Control(None, cancelled)  # the core's check(): SolveCancelled on cancel
            progress(0.05, "compiling the design")
            c = compile_project(project, catalog, ctl)
            progress(0.2, label)
            return work(c, ctl)

        def finished(out) -> None:
            if self.doc.project is not project:  # edited or replaced while it ran
                self._show("The design changed while this ran; run it again for the new one.")
                return
            self._shown_for = project
            self.table.setEnabled(True)
            done(out)

        self.task = BackgroundTask(self, title, label, job, cancel_types=(SolveCancelled,))
        self.task.finished.connect(finished)
        self.task.failed.connect(lambda m: self._show(f"<b>Could not run:</b> {m}"))
        self.task.cancelled.connect(lambda: self._show("Cancelled."))
        self._set_busy(True)
        for sig in (self.task.finished, self.task.failed, self.task.cancelled):
            sig.connect(lambda *_: self._set_busy(False))
        self.task.start()

    def _tiers_of(self, project) -> None:
        """Offer the switch tiers the design has (a dragonfly: routers), keeping the
        choice when it is still there; spines first when there are any."""
        present = set(project.fabric.roles) if project.fabric.devices else set()
        tiers = [t for t in N1_TIERS if t in present] or list(N1_TIERS)
        if tiers == [self.tier.itemText(i) for i in range(self.tier.count())]:
            return
        keep = self.tier.currentText()
        self.tier.blockSignals(True)
        self.tier.clear()
        self.tier.addItems(tiers)
        self.tier.setCurrentText(keep if keep in tiers else
                                 "spine" if "spine" in tiers else tiers[-1])
        self.tier.blockSignals(False)

    def _set_busy(self, busy: bool) -> None:
        self.run_btn.setEnabled(not busy)
        self.n1_btn.setEnabled(not busy)

    def _show(self, html: str) -> None:
        self.result.setText(html)

    # -- runs ------------------------------------------------------------------------------------
    def _run_key(self, kw: dict) -> tuple:
        """What a run answers for: this revision of this design under these options."""
        return (self.doc.revision, id(self.doc.project), tuple(sorted(kw.items())))

    def run_load(self) -> None:
        kw = self._kw()
        key = self._run_key(kw)
        transport, given = self._transport(), self._routing()
        lossless = self.lossless.currentData()
        self._start("Traffic under load", "routing and solving fair rates",
                    lambda c, ctl: (key, run_transport_load(
                        c, kw["pattern"], transport, given, kw["flows_per_pair"],
                        kw["trials"], control=ctl, lossless=lossless)),
                    self._on_load_done)

    def _on_load_done(self, out) -> None:
        self._last_key, tl = out
        self._on_load(tl)

    def _on_load(self, tl: TransportLoad) -> None:
        self.last_transport = tl
        r = self.last = tl.load
        th = r.throughput
        sd = r.slowdown
        tiers = ", ".join(f"{k} {v:.0%}" for k, v in r.by_tier.items())
        self._show(
            f"<b>{r.pattern}</b> under <b>{r.routing}</b>"
            + (f", {r.flows_per_pair} flows per pair" if r.flows_per_pair > 1 else "")
            + (f", {r.trials} trials" if r.trials > 1 else "")
            + f"<br>Throughput of demand: min {th['min']:.3f}, p1 {th['p1']:.3f}, "
            f"p50 {th['p50']:.3f}, mean {th['mean']:.3f}"
            + "<br>Slowdown vs ideal: " + ("never completes" if sd == float("inf")
                                           else f"{sd:.3f}x")
            + f"<br>Busiest link per tier: {tiers}"
            + (f"<br>Rail-only: {r.forwarded:.0%} of connections forwarded over the "
               "scale-up domain onto the destination's rail" if r.forwarded else "")
            + f"<br>Latency under load: +{r.tail.mean_us:.2f} µs mean, "
            f"+{r.tail.p99_us:.2f} µs p99<br><small>{r.tail.model}</small>"
            + f"<br><b>Transport model:</b> {html.escape(tl.routing_text(), quote=False)}"
            + f"<br><b>Lossless model:</b> {LOSSLESS_NAMES[tl.lossless]}"
            f"<br><small>{html.escape(LOSSLESS_TEXT[tl.lossless], quote=False)}</small>"
            + incast_html(tl)
        )
        self.overlayWanted.emit([], [(h.src, h.dst, h.utilisation) for h in r.hot_links])
        self.loadTail.emit(f"+{r.tail.mean_us:.2f} mean · +{r.tail.p99_us:.2f} p99 µs "
                           f"({r.pattern}, {r.routing})",
                           f"Queueing added to the idle latency: {r.tail.model}")

    def what_if(self, specs: list[str]) -> None:
        kw = self._kw()
        price = self.price.value()
        # the intact design's figures are kept for the next what-if on the same design
        key = self._run_key(kw)
        cached = self._intact.get(key)
        # a load run just made on the same design with the same options is the baseline
        # (what-if runs the fluid model: a load run under PFC blocking is no baseline for it)
        fluid = self.last_transport is not None and self.last_transport.lossless == "off"
        loaded = self.last if self._last_key == key and fluid else None

        def work(c, ctl):
            if cached is not None:
                before, base = cached
            else:
                before = (solve_bisection(c, ctl).gbps, oversubscription(c))
                base = loaded or run_load(c, kw["pattern"], kw["routing"],
                                          kw["flows_per_pair"], kw["trials"], control=ctl)
            w = what_if(c, specs, usd_per_gpu_hour=price, control=ctl, before=before,
                        baseline=base, **kw)
            return key, (before, base), w

        self._start("What if this fails?", "failing on a copy of the design", work,
                    self._on_what_if_done)

    def _on_what_if_done(self, out) -> None:
        key, intact, w = out
        self._intact = {key: intact}
        self._on_what_if(w)

    def _on_what_if(self, w) -> None:
        over = ", ".join(f"{k} {v['before']:.3g} → {v['after']:.3g}"
                         for k, v in w.oversubscription.items())
        sd = w.slowdown
        ld = w.load
        self._show(
            f"<b>What if {', '.join(w.failed)} fails</b> ({w.cables:,} cables; nothing edited)"
            f"<br>Bisection kept: {w.bisection_retained:.1%}"
            f"<br>Oversubscription: {over or 'n/a'}"
            f"<br>Stranded GPUs: {w.stranded_gpus:,}, NIC links lost: {w.nic_links_lost:,}"
            + ("" if ld is None else
               f"<br>{ld.pattern} under {ld.routing}: slowdown "
               + ("never completes" if sd is None or sd == float("inf") else f"{sd:.3f}x")
               + f", busiest link {ld.max_utilisation:.0%}")
            + f"<br>Cost of the slowdown: {fmt.money(w.money_per_day_usd)} per day "
            f"at ${w.usd_per_gpu_hour:.2f}/GPU-hour"
        )
        hot = [] if ld is None else [(h.src, h.dst, h.utilisation) for h in ld.hot_links]
        self.overlayWanted.emit(list(w.devices), hot)

    def run_n1(self) -> None:
        kw = self._kw()
        tier = self.tier.currentText()
        price = self.price.value()
        self._start("N-1 table", f"failing each {tier} in turn (one per symmetry class)",
                    lambda c, ctl: n_minus_1(c, tier, control=ctl, usd_per_gpu_hour=price,
                                             **kw),
                    self._on_n1)

    def _on_n1(self, rows) -> None:
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            w = r.result
            factor = max((v["factor"] for v in w.oversubscription.values()), default=1.0)
            sd = w.slowdown
            cells = (r.example, str(r.members), f"{w.bisection_retained:.1%}",
                     f"{factor:.3f}", f"{w.stranded_gpus:,}",
                     "—" if sd is None or sd == float("inf") else f"{sd:.3f}",
                     fmt.money(w.money_per_day_usd))
            for j, text in enumerate(cells):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self._show(f"N-1 over the {self.tier.currentText()} tier: {len(rows)} symmetry "
                   "class(es); one switch of each failed on a copy of the design.")

    def clear_overlay(self) -> None:
        self.overlayCleared.emit()
