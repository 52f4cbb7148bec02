"""The Check Acceptance Results dialog: pick nccl-tests and perftest output (several files,
several runs each) and, optionally, the as-built data; the check runs in the background and
each run's verdict, its worst size against the band, and the likely causes are shown. The
results can be saved as JSON, CSV (figures stay data) or the design report with them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.acceptance import CheckResult, check_for, write_check_csv, write_check_report
from designer.core.writers import write_bytes
from designer.gui.base import dialogs
from designer.gui.base.background import BackgroundTask

TITLE = "Check acceptance results"
VERDICT_COLOURS = {"pass": "#2B7A57", "miss": "#B3261E", "above": "#9A6B00",
                   "no data": "#6B7787"}
COLUMNS = ("Result", "Test", "Ranks", "Verdict", "Worst size", "Measured", "Band",
           "Predicted")


def _size(n: int) -> str:
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << k:
            return f"{n / (1 << k):g} {unit}"
    return f"{n} B"


class AcceptanceDialog(QDialog):
    """``snapshot()`` returns (project, catalog, result or None) when Check is pressed."""

    def __init__(self, parent: QWidget, snapshot: Callable[[], tuple[Any, Any, Any]]) -> None:
        super().__init__(parent)
        self.setWindowTitle(TITLE)
        self.snapshot = snapshot
        self.task: BackgroundTask | None = None
        self.result: CheckResult | None = None
        self._checked_with: tuple[Any, Any, Any] | None = None
        lay = QVBoxLayout(self)
        intro = QLabel("Add the output of nccl-tests (all_reduce_perf, all_gather_perf, "
                       "alltoall_perf) and perftest (ib_write_bw, ib_write_lat) from the built "
                       "cluster. Each run is set beside the band this design predicts for it.")
        intro.setWordWrap(True)
        lay.addWidget(intro)

        files_row = QHBoxLayout()
        self.files = QListWidget()
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.files.setToolTip("Result files; a file may hold several runs")
        self.files.setMaximumHeight(110)
        files_row.addWidget(self.files, 1)
        col = QVBoxLayout()
        self.add_btn = QPushButton("&Add Files…")
        self.add_btn.clicked.connect(self.ask_files)
        self.remove_btn = QPushButton("&Remove")
        self.remove_btn.clicked.connect(self.remove_selected)
        col.addWidget(self.add_btn)
        col.addWidget(self.remove_btn)
        col.addStretch(1)
        files_row.addLayout(col)
        lay.addLayout(files_row)

        built_row = QHBoxLayout()
        built_row.addWidget(QLabel("As-built (optional):"))
        self.as_built = QLineEdit()
        self.as_built.setPlaceholderText("ibnetdiscover output, LLDP tables or an as-built "
                                         "project: names miswired, missing and slow links")
        built_row.addWidget(self.as_built, 1)
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self.ask_as_built)
        built_row.addWidget(browse)
        self.check_btn = QPushButton("&Check")
        self.check_btn.setDefault(True)
        self.check_btn.clicked.connect(self.run_check)
        built_row.addWidget(self.check_btn)
        lay.addLayout(built_row)

        self.summary = QLabel("No results checked yet.")
        self.summary.setObjectName("sectionTitle")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)

        split = QSplitter(Qt.Orientation.Vertical)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        split.addWidget(self.table)
        self.causes = QPlainTextEdit()
        self.causes.setReadOnly(True)
        self.causes.setPlaceholderText("Likely causes of a miss appear here.")
        split.addWidget(self.causes)
        split.setSizes([300, 160])
        lay.addWidget(split, 1)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.save_json = buttons.addButton("Save &JSON…", QDialogButtonBox.ButtonRole.ActionRole)
        self.save_csv = buttons.addButton("Save C&SV…", QDialogButtonBox.ButtonRole.ActionRole)
        self.save_report = buttons.addButton("Save &Report…",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.save_json.clicked.connect(lambda: self.save("json"))
        self.save_csv.clicked.connect(lambda: self.save("csv"))
        self.save_report.clicked.connect(lambda: self.save("html"))
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        QShortcut(QKeySequence.StandardKey.Delete, self.files, self.remove_selected)
        self._update_buttons()
        self.resize(980, 640)

    # -- inputs -------------------------------------------------------------------------------
    def add_files(self, paths: list[str]) -> None:
        have = {self.files.item(i).text() for i in range(self.files.count())}
        for p in paths:
            if p not in have:
                self.files.addItem(p)
        self._update_buttons()

    def ask_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Results files", "", "Text output (*.txt *.log *.out);;All files (*)")
        self.add_files(paths)

    def ask_as_built(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "As-built data", "", "All files (*)")
        if path:
            self.as_built.setText(path)

    def remove_selected(self) -> None:
        for item in self.files.selectedItems():
            self.files.takeItem(self.files.row(item))
        self._update_buttons()

    def _paths(self) -> list[str]:
        return [self.files.item(i).text() for i in range(self.files.count())]

    def _update_buttons(self) -> None:
        busy = self.task is not None and self.task.running
        self.check_btn.setEnabled(bool(self._paths()) and not busy)
        self.remove_btn.setEnabled(self.files.count() > 0)
        for b in (self.save_json, self.save_csv, self.save_report):
            b.setEnabled(self.result is not None and not busy)

    # -- the check ----------------------------------------------------------------------------
    def run_check(self) -> BackgroundTask | None:
        paths = self._paths()
        if not paths or (self.task is not None and self.task.running):
            return None
        project, catalog, result = self.snapshot()
        built = self.as_built.text().strip() or None

        def work(progress, cancelled):
            return check_for(project, catalog, paths, as_built=built, result=result,
                             progress=progress, cancelled=cancelled)

        task = BackgroundTask(self, TITLE, "Reading the results…", work)
        task.finished.connect(lambda res: self.show_result(res, (project, catalog, result)))
        task.failed.connect(lambda msg: dialogs.show_error(self, TITLE, msg))
        task.failed.connect(lambda _m: self._update_buttons())
        task.cancelled.connect(self._update_buttons)
        self.task = task
        task.start()
        self._update_buttons()
        return task

    def show_result(self, res: CheckResult, inputs: tuple[Any, Any, Any] | None = None) -> None:
        self.result = res
        self._checked_with = inputs
        misses = sum(r.verdict == "miss" for r in res.runs)
        self.summary.setText(
            f"{len(res.runs)} run(s): every run in its band" if res.passed else
            f"{len(res.runs)} run(s), {misses} miss(es) their band")
        self.table.setRowCount(len(res.runs))
        for i, r in enumerate(res.runs):
            judged = [m for m in r.rows if m.judged] or list(r.rows)
            worst = min(judged, key=lambda m: m.measured / m.predicted if m.predicted else 1.0)
            cells = (r.source, r.test, f"{r.ranks:,}", r.verdict.upper(), _size(worst.bytes),
                     f"{worst.measured:,.4g} {r.unit}", f"{worst.low:,.4g} - {worst.high:,.4g}",
                     f"{worst.predicted:,.4g}")
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if j == 3:
                    item.setForeground(QBrush(QColor(VERDICT_COLOURS.get(r.verdict, "#000"))))
                if j >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                tip = "\n".join(r.notes) or f"{len(r.rows)} size(s); " \
                    f"{sum(m.judged for m in r.rows)} bandwidth-bound ones judged"
                item.setToolTip(tip)
                self.table.setItem(i, j, item)
        lines = [f"• {c.title}\n    {c.evidence}" for c in res.causes]
        lines += [f"warning: {w}" for w in res.warnings]
        self.causes.setPlainText("\n".join(lines) if lines else
                                 "No cause to name: every run lands in its band.")
        self._update_buttons()

    def save(self, kind: str) -> str | None:
        if self.result is None:
            return None
        filters = {"json": "JSON (*.json)", "csv": "CSV (*.csv)", "html": "HTML page (*.html)"}
        path, _ = QFileDialog.getSaveFileName(self, "Save the check", f"acceptance.{kind}",
                                              filters[kind])
        if not path:
            return None
        return self.save_to(kind, Path(path))

    def save_to(self, kind: str, path: Path) -> str | None:
        res = self.result
        if res is None:
            return None
        try:
            if kind == "json":
                write_bytes(path, (json.dumps(res.to_json(), indent=1) + "\n").encode())
            elif kind == "csv":
                write_check_csv(res, path)
            else:
                project, catalog, result = self._checked_with or self.snapshot()
                if result is None:
                    from designer.core.solver import solve

                    result = solve(project, catalog=catalog)
                write_check_report(project, catalog, result, res, path)
        except Exception as exc:
            dialogs.show_error(self, "Cannot save", str(exc))
            return None
        return str(path)

    def closeEvent(self, event) -> None:
        if self.task is not None:
            self.task.wait()
        super().closeEvent(event)
