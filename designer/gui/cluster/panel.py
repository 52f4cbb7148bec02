"""The Cluster panel: a trace (a file or a synthetic mix), the placement policy, the failure
model (every rate editable, its source as a tooltip), a second design to set beside this one;
Run replays the trace in a worker thread (progress and Cancel) and shows the timeline, the
answers, the per-job table and the side-by-side."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from designer.core.catalog import builtin_catalog
from designer.core.cluster import (
    CHECKPOINT_H_SOURCE,
    COMPONENTS,
    POLICIES,
    RESTART_H_SOURCE,
    ClusterResult,
    ClusterSettings,
    FailureSettings,
    cluster_project,
    read_trace,
    synthetic,
)
from designer.core.fileformat import load_project
from designer.core.solver import SolveCancelled
from designer.gui.base.background import BackgroundTask
from designer.gui.cluster.tables import side_by_side, sorted_jobs
from designer.gui.cluster.timeline import TimelineView

SYNTHETIC = "Synthetic mix"
RATE_COLUMNS = ("Part", "per 1,000 days", "Repair h")


class ClusterPanel(QWidget):
    resultReady = Signal(object)  # the ClusterResult of the open design

    def __init__(self, doc, result_for=None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.result_for = result_for  # project -> solver Result or None
        self.task: BackgroundTask | None = None
        self.results: list[ClusterResult] = []
        lay = QVBoxLayout(self)
        # Run and the answer first, so both stay in view in a short dock; below, one tab for
        # the inputs (scrolling) and one for each view of the result
        head = QHBoxLayout()
        lay.addLayout(head)
        inputs = QWidget()
        top = QHBoxLayout(inputs)
        top.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.trace = QComboBox()
        self.trace.setEditable(False)
        self.trace.addItem(SYNTHETIC)
        self.trace.setToolTip("A CSV with job,arrival_h,gpus,duration_h (and workload, tenant, "
                              "tokens), a Philly, PAI, Acme or Lingjun trace, or a synthetic mix")
        browse = QPushButton("Open trace…")
        browse.clicked.connect(self.browse_trace)
        row = QHBoxLayout()
        row.addWidget(self.trace, 1)
        row.addWidget(browse)
        form.addRow("Trace", row)
        self.jobs = QSpinBox()
        self.jobs.setRange(10, 1_000_000)
        self.jobs.setValue(2000)
        self.jobs.setToolTip("Jobs of the synthetic mix over the replay's days; their run "
                             "times are sized so the mix offers 80% of the design's GPU-hours")
        form.addRow("Synthetic jobs", self.jobs)
        self.policy = QComboBox()
        self.policy.addItems(list(POLICIES))
        self.policy.setToolTip("pack: topology-aware (server, domain, leaf, pod); first-fit: "
                               "lowest free GPUs; scattered: random; trace: the trace's own "
                               "hosts")
        form.addRow("Policy", self.policy)
        self.days = QDoubleSpinBox()
        self.days.setRange(0.5, 3650)
        self.days.setValue(30)
        self.days.setSuffix(" days")
        form.addRow("Replay", self.days)
        self.vs = QLineEdit()
        self.vs.setPlaceholderText("another design to set beside this one (optional)")
        vs_btn = QPushButton("…")
        vs_btn.setToolTip("Choose a second design file")
        vs_btn.clicked.connect(self.browse_vs)
        row2 = QHBoxLayout()
        row2.addWidget(self.vs, 1)
        row2.addWidget(vs_btn)
        form.addRow("Side by side", row2)
        top.addLayout(form, 3)
        fbox = QVBoxLayout()
        self.failures_on = QCheckBox("Failures")
        self.failures_on.setChecked(True)
        fform = QFormLayout()
        self.checkpoint = QDoubleSpinBox()
        # 0 stands for each job's Young/Daly optimum (the default)
        self.checkpoint.setRange(0.0, 1000)
        self.checkpoint.setSpecialValueText("optimum")
        self.checkpoint.setValue(0.0)
        self.checkpoint.setSuffix(" h")
        self.checkpoint.setToolTip(CHECKPOINT_H_SOURCE)
        self.restart = QDoubleSpinBox()
        self.restart.setRange(0, 100)
        self.restart.setValue(0.25)
        self.restart.setSuffix(" h")
        self.restart.setToolTip(RESTART_H_SOURCE)
        fform.addRow("Checkpoint every", self.checkpoint)
        fform.addRow("Restart takes", self.restart)
        self.rates = QTableWidget(len(COMPONENTS), len(RATE_COLUMNS))
        self.rates.setHorizontalHeaderLabels(RATE_COLUMNS)
        self.rates.verticalHeader().hide()
        self.rates.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.rates.horizontalHeader().setStretchLastSection(True)
        self.rates.setToolTip("Failures per 1,000 days of one part, and the hours a failed "
                              "part stays out; hover a row for its source")
        self.rates.setMinimumHeight(120)
        self._fill_rates(FailureSettings())
        fbox.addWidget(self.failures_on)
        fbox.addLayout(fform)
        fbox.addWidget(self.rates)
        top.addLayout(fbox, 2)
        buttons = head
        self.run_btn = QPushButton("Run")
        self.run_btn.setShortcut("Ctrl+Shift+R")
        self.run_btn.setToolTip("Replay the trace on the design (Ctrl+Shift+R)")
        self.run_btn.clicked.connect(self.run)
        reset = QPushButton("Default rates")
        reset.clicked.connect(lambda: self._fill_rates(FailureSettings()))
        self.summary = QLabel("Choose a trace and Run.")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons.addWidget(self.run_btn, 0, Qt.AlignmentFlag.AlignTop)
        buttons.addWidget(reset, 0, Qt.AlignmentFlag.AlignTop)
        buttons.addWidget(self.summary, 1)
        self.tabs = QTabWidget()
        self.timeline = TimelineView()
        self.jobs_model, proxy = sorted_jobs(self)
        self.job_table = QTableView()
        self.job_table.setModel(proxy)
        self.job_table.setSortingEnabled(True)
        self.job_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.compare = QTableWidget(0, 1)
        self.compare.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        scroll = QScrollArea()
        scroll.setWidget(inputs)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.tabs.addTab(scroll, "Setup")
        self.tabs.addTab(self.timeline, "Timeline")
        self.tabs.addTab(self.job_table, "Jobs")
        self.tabs.addTab(self.compare, "Side by side")
        lay.addWidget(self.tabs, 1)

    # inputs ------------------------------------------------------------------------------
    def _fill_rates(self, fs: FailureSettings) -> None:
        for i, name in enumerate(COMPONENTS):
            r = fs.rate(name)
            cells = (name, f"{r.per_1000_days:.4g}", f"{r.repair_h:g}")
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(r.source)
                if j == 0:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.rates.setItem(i, j, item)

    def failure_settings(self) -> FailureSettings:
        """The failure model as edited; a bad cell raises ValueError naming it."""
        rates = {}
        base = FailureSettings()
        for i, name in enumerate(COMPONENTS):
            vals = []
            for j, what in ((1, "failures per 1,000 days"), (2, "repair h")):
                text = self.rates.item(i, j).text().replace(",", "").strip()
                try:
                    v = float(text)
                except ValueError:
                    raise ValueError(f"{name}, {what}: '{text}' is not a number") from None
                if not v >= 0:
                    raise ValueError(f"{name}, {what}: must be 0 or more")
                vals.append(v)
            rates[name] = base.rate(name).model_copy(
                update={"per_1000_days": vals[0], "repair_h": vals[1]})
        return FailureSettings(enabled=self.failures_on.isChecked(), rates=rates,
                               checkpoint_h=self.checkpoint.value() or None,
                               restart_h=self.restart.value())

    def settings(self) -> ClusterSettings:
        return ClusterSettings(policy=self.policy.currentText(), days=self.days.value(),
                               failures=self.failure_settings())

    def set_trace(self, path: str) -> None:
        i = self.trace.findText(path)
        if i < 0:
            self.trace.addItem(path)
            i = self.trace.count() - 1
        self.trace.setCurrentIndex(i)

    def browse_trace(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a trace", "",
                                              "Traces (*.csv *.json);;All files (*)")
        if path:
            self.set_trace(path)

    def browse_vs(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "A design to compare", "",
                                              "Designs (*.fabric.json);;All files (*)")
        if path:
            self.vs.setText(path)

    # run ---------------------------------------------------------------------------------
    def run(self) -> None:
        if self.task is not None and self.task.running:
            self.doc.say("A cluster run is still going; cancel it or wait for it")
            return
        try:
            settings = self.settings()
        except ValueError as exc:
            self.summary.setText(f"<b>Cannot run:</b> {exc}")
            return
        project = self.doc.project
        base = getattr(self.doc, "base_catalog", None) or builtin_catalog()
        catalog = project.catalog(base)
        solved = self.result_for(project) if self.result_for else None
        trace_spec = self.trace.currentText()
        jobs = self.jobs.value()
        days = self.days.value()
        vs = self.vs.text().strip()

        def work(progress, cancelled):
            from designer.core.solver import compile_project

            if trace_spec == SYNTHETIC:
                n = compile_project(project, catalog).n_gpus
                tr = synthetic(n, days, jobs=jobs, seed=settings.seed)
            else:
                tr = read_trace(trace_spec)
            share = 0.5 if vs else 1.0
            out = [cluster_project(project, tr, settings, catalog=catalog, result=solved,
                                   progress=lambda f, s: progress(f * share, s),
                                   cancelled=cancelled)]
            if vs:
                other = load_project(Path(vs), base)
                out.append(cluster_project(other, tr, settings, catalog=other.catalog(base),
                                           progress=lambda f, s: progress(0.5 + f / 2,
                                                                          f"second design: {s}"),
                                           cancelled=cancelled))
            return out

        self.task = BackgroundTask(self, "Cluster", "Replaying the trace on the design…", work,
                                   cancel_types=(SolveCancelled,))
        self.task.finished.connect(self._on_done)
        self.task.failed.connect(lambda m: self.summary.setText(f"<b>Could not run:</b> {m}"))
        self.task.cancelled.connect(lambda: self.summary.setText("Cancelled."))
        self.run_btn.setEnabled(False)
        for sig in (self.task.finished, self.task.failed, self.task.cancelled):
            sig.connect(self._ended)
        self.task.start()

    def _ended(self, *_args) -> None:
        self.run_btn.setEnabled(True)

    def _on_done(self, results: list[ClusterResult]) -> None:
        self.results = results
        r = results[0]
        usd, pm = r.usd_per_gpu_hour, r.per_month
        tiers = ", ".join(f"{k} ${v * usd * pm:,.0f}" for k, v in
                          sorted(r.by_tier.items(), key=lambda x: -x[1])) or "none"
        causes = ", ".join(f"{k} {int(v['failures'])}" for k, v in r.by_cause.items()) or "none"
        mtti = ", ".join(f"{s:,} GPUs {h:,.0f} h" for s, h in r.mtti_h[-3:])
        self.summary.setText(
            f"<b>{r.trace}</b>, policy <b>{r.policy}</b>, {r.horizon_h / 24:.1f} days: "
            f"goodput <b>{r.goodput:.2%}</b>, offered load {r.offered_load:.1%}, "
            f"utilisation {r.utilisation:.1%}, "
            f"{r.finished:,} of {len(r.job):,} jobs finished.<br>"
            f"Lost to the network ${r.gpu_hours_lost_network * usd * pm:,.0f}/month "
            f"(by tier: {tiers}); to failures "
            f"${r.gpu_hours_lost_failures * usd * pm:,.0f}/month (failures: {causes}).<br>"
            f"Mean time to interruption: {mtti}.")
        self.timeline.show_result(r)
        if self.tabs.currentIndex() == 0:
            self.tabs.setCurrentWidget(self.timeline)
        self.jobs_model.set_result(r)
        rows = side_by_side(results)
        self.compare.setColumnCount(len(results))
        self.compare.setRowCount(len(rows))
        self.compare.setHorizontalHeaderLabels([f"Design {i + 1}" for i in range(len(results))])
        self.compare.setVerticalHeaderLabels([name for name, _ in rows])
        for i, (_name, vals) in enumerate(rows):
            for j, v in enumerate(vals):
                self.compare.setItem(i, j, QTableWidgetItem(v))
        self.resultReady.emit(r)
