"""Design > Explore…: write or open a sweep spec, run it on Dask, watch the points arrive.

The spec is the same YAML or JSON the ``designer sweep`` command reads, so what works here
works on a cluster. The run happens in ``SweepRunner`` (a thread owning the Dask client);
this dialog refreshes the scatter at most every ``REFRESH_MS`` whatever the arrival rate.
Clicking a point selects it; "Open design" asks the window to open it in a new window and
"Add to Compare" emits ``compareRequested(point)`` for the Compare view to take.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.sweep import (
    Point,
    SweepRun,
    default_workers,
    loads_spec,
    read_spec_text,
    summary_json,
    sweep_table,
    time_summary,
    timing_lines,
    write_table,
)
from designer.gui.sweep.axis import AxisRow
from designer.gui.sweep.plot import SweepPlot
from designer.gui.sweep.runner import SweepRunner

REFRESH_MS = 150

EXAMPLE_SPEC = """\
# A sweep: lists are axes, {min: A, max: B, step: S} are ranges; see 'designer sweep --help'
name: Rail-optimized, InfiniBand against RoCE
generate:
  kind: rail
  gear: [ib-ndr, roce-400]
  sus: [1, 2, 4, 8]
sampling: grid          # grid | random | lhs (then samples: N, seed: S)
constraints: {}         # e.g. {budget: 8e6, min_bisection_share: 0.5, max_p99_latency_us: 2}
objectives: [cost_per_gpu, bisection_per_gpu]
"""


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.3g}"


class SweepDialog(QDialog):
    designRequested = Signal(object)  # Point: open it in a new window
    compareRequested = Signal(object)  # Point: add it to Compare (wired by the window)

    def __init__(self, catalog: Catalog | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Explore designs")
        self.setObjectName("sweepDialog")
        self.catalog = catalog
        self.run: SweepRun | None = None
        self.table = None
        self.runner = SweepRunner(self)
        self.runner.started.connect(self._on_started)
        self.runner.outcome.connect(self._on_outcome)
        self.runner.finished.connect(self._on_finished)
        self.runner.failed.connect(self._on_failed)
        self.runner.warm()  # the workers' fork server imports the designer while the user reads
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self._refresh)

        self.status = QLabel("Ready")
        self.editor = QPlainTextEdit(EXAMPLE_SPEC)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.editor.setFont(mono)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.open_button = QPushButton("Open Spec…")
        self.open_button.clicked.connect(self.open_spec)
        self.workers = QSpinBox()
        self.workers.setRange(0, 256)
        self.workers.setValue(default_workers())
        self.workers.setToolTip("Local worker processes (one thread each); 0 runs in this "
                                "process")
        self.engine = QComboBox()
        self.engine.addItem("Processes", "processes")
        self.engine.addItem("Dask", "dask")
        self.engine.setToolTip("Local workers: plain processes, ready at once (default), or a "
                               "local Dask cluster (a few seconds to start on two cores). A "
                               "scheduler address always runs on that Dask cluster.")
        self.scheduler = QLineEdit(os.environ.get("DASK_SCHEDULER_ADDRESS", ""))
        self.scheduler.setPlaceholderText("local workers, or tcp://host:8786 (Dask)")
        self.scheduler.textChanged.connect(self._engine_choice)
        self.workers.valueChanged.connect(self._engine_choice)
        self.run_button = QPushButton("Run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("Sweep spec (YAML or JSON)"))
        ll.addWidget(self.editor, 1)
        self.axis_row = AxisRow(self.editor.toPlainText)
        self.axis_row.specChanged.connect(self.editor.setPlainText)
        self.axis_row.refused.connect(self.status.setText)
        ll.addWidget(self.axis_row)
        row = QHBoxLayout()
        row.addWidget(self.open_button)
        row.addStretch(1)
        row.addWidget(QLabel("Workers"))
        row.addWidget(self.workers)
        row.addWidget(self.engine)
        ll.addLayout(row)
        row = QHBoxLayout()
        row.addWidget(QLabel("Scheduler"))
        row.addWidget(self.scheduler, 1)
        ll.addLayout(row)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        ll.addLayout(row)

        self.plot = SweepPlot()
        self.plot.pointClicked.connect(self.choose)
        self.details = QLabel("Click a point to see its parameters.")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_design = QPushButton("Open Design")
        self.open_design.setToolTip("Open the chosen point's design in a new window")
        self.open_design.clicked.connect(lambda: self._emit_chosen(self.designRequested))
        self.compare = QPushButton("Add to Compare")
        self.compare.clicked.connect(lambda: self._emit_chosen(self.compareRequested))
        self.save_button = QPushButton("Save Table…")
        self.save_button.clicked.connect(self.save_table)
        for b in (self.open_design, self.compare, self.save_button):
            b.setEnabled(False)
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(self.plot, 1)
        rl.addWidget(self.details)
        row = QHBoxLayout()
        row.addWidget(self.open_design)
        row.addWidget(self.compare)
        row.addStretch(1)
        row.addWidget(self.save_button)
        rl.addLayout(row)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setSizes([420, 640])
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m points")
        self.progress.setValue(0)
        lay = QVBoxLayout(self)
        lay.addWidget(split, 1)
        row = QHBoxLayout()
        row.addWidget(self.progress, 2)
        row.addWidget(self.status, 3)
        lay.addLayout(row)
        self.resize(1150, 680)
        self.chosen: int | None = None

    # -- running -----------------------------------------------------------------------------
    def open_spec(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open sweep spec", str(Path.cwd()),
                                              "Sweep specs (*.yaml *.yml *.json)")
        if path:
            self.load_spec_file(path)

    def load_spec_file(self, path: str | Path) -> None:
        try:
            self.editor.setPlainText(read_spec_text(path))
        except DesignerError as exc:
            self.status.setText(str(exc))

    def start(self) -> bool:
        if self.runner.running:
            return False
        try:
            spec = loads_spec(self.editor.toPlainText(), "spec")
        except DesignerError as exc:
            self.status.setText(str(exc))
            return False
        self._busy(True)
        self.status.setText("Checking the spec and starting the workers…")
        self.progress.setRange(0, 0)  # busy until the points are known
        self.run = None
        self.table = None
        self.choose(None)
        self.runner.start(spec, self.catalog, self.workers.value(),
                          self.scheduler.text().strip() or None, self.engine.currentData())
        return True

    def cancel(self) -> None:
        self.runner.cancel()
        self.status.setText("Cancelling: stopping the workers…")
        self.cancel_button.setEnabled(False)

    def _busy(self, on: bool) -> None:
        self.run_button.setEnabled(not on)
        self.cancel_button.setEnabled(on)
        self.editor.setReadOnly(on)
        self.workers.setEnabled(not on)
        self.scheduler.setEnabled(not on)
        self._engine_choice()

    def _engine_choice(self) -> None:
        """The engine matters for local workers only: not with 0 workers (this process) nor
        with a scheduler address (Dask)."""
        self.engine.setEnabled(self.run_button.isEnabled() and self.workers.value() > 0
                               and not self.scheduler.text().strip())

    def _on_started(self, points: list[Point]) -> None:
        spec = loads_spec(self.editor.toPlainText(), "spec")
        self.run = SweepRun(spec, points)
        self.progress.setRange(0, len(points))
        self.progress.setValue(0)
        self.plot.reset(points)
        objs = spec.objectives
        self.plot.set_axes(objs[0], objs[1] if len(objs) > 1 else "gpus")
        self.status.setText(f"{len(points):,} points: building and solving…")
        self._timer.start()

    def _on_outcome(self, outcome, done: int, total: int) -> None:
        if self.run is None:
            return
        self.run.outcomes[outcome.index] = outcome
        self.progress.setValue(done)
        self._dirty = True

    def _refresh(self) -> None:
        if not self._dirty or self.run is None:
            return
        self._dirty = False
        self.table = sweep_table(self.run)
        pts = self.run.points
        figures = {p.index: o.metrics for p in pts
                   if (o := self.run.outcomes.get(p.index)) is not None and o.metrics}
        feasible = {pts[i].index for i in range(len(pts)) if self.table.feasible[i]}
        front = {pts[i].index for i in range(len(pts)) if self.table.pareto[i]}
        self.plot.set_results(figures, feasible, front)
        self.save_button.setEnabled(True)

    def _on_finished(self, run: SweepRun) -> None:
        self._timer.stop()
        if self.run is not None:
            run.points = self.run.points
        self.run = run
        self._dirty = True
        self._refresh()
        self._busy(False)
        s = summary_json(run, self.table) if self.table is not None else {}
        what = "Cancelled" if run.cancelled else "Done"
        where = run.ran_on()
        spent = time_summary(run)
        self.status.setText(
            f"{what}: {len(run.outcomes):,} of {len(run.points):,} points in "
            f"{run.seconds:.1f} s on {where}; {s.get('failed', 0):,} failed, "
            f"{len(s.get('pareto', [])):,} on the Pareto front."
            + (f" Time: {spent}." if spent else ""))
        # the report's table of time per worker and stage, for a closer look
        self.status.setToolTip("\n".join(timing_lines(run)))

    def _on_failed(self, message: str) -> None:
        self._timer.stop()
        self._busy(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status.setText(message)

    # -- choosing ----------------------------------------------------------------------------
    def choose(self, index: int | None) -> None:
        self.chosen = index
        self.plot.choose(index)
        ok = index is not None and self.run is not None and (
            o := self.run.outcomes.get(index)) is not None and o.error is None
        self.open_design.setEnabled(bool(ok))
        self.compare.setEnabled(bool(ok))
        if index is None or self.run is None:
            self.details.setText("Click a point to see its parameters.")
            return
        p = self.run.points[index]
        text = f"Point {p.index}: {p.label()}"
        if self.table is not None:
            rec = self.table.records()[index]
            text += "  |  " + ", ".join(
                f"{n} {_num(rec[n])}" for n in self.table.objectives
                if isinstance(rec.get(n), float | int))
            if rec["pareto"]:
                text += "  |  on the Pareto front"
        self.details.setText(text)

    def _emit_chosen(self, signal) -> None:
        if self.chosen is not None and self.run is not None:
            signal.emit(self.run.points[self.chosen])

    def save_table(self) -> None:
        if self.table is None or self.run is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self, "Save sweep table", str(Path.cwd() / "sweep.xlsx"),
            "Excel (*.xlsx);;CSV (*.csv);;Parquet (*.parquet);;JSON (*.json)")
        if path:
            self.write_table(path)

    def write_table(self, path: str | Path) -> bool:
        if self.table is None or self.run is None:
            return False
        try:
            write_table(self.table, path, summary_json(self.run, self.table))
        except DesignerError as exc:
            self.status.setText(str(exc))
            return False
        self.status.setText(f"Saved {path}")
        return True

    # -- closing -----------------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop a running sweep and wait until its workers are gone."""
        self._timer.stop()
        if self.runner.running:
            self.status.setText("Stopping the workers…")
            self.runner.wait()

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)

    def reject(self) -> None:  # Esc: the same as closing
        self.shutdown()
        super().reject()
