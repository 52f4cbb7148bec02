"""The Compare panel: the current design next to itself under other gear profiles (one click)
and next to opened project files, one column per design, deltas against the first, and the
break-even. It follows every edit of the design through ``CompareService``."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.analysis import FIGURES, PROFILE_LABELS, TEXT_ROWS, Comparison
from designer.gui.base.background import BackgroundTask
from designer.gui.decision.compare_service import CompareService
from designer.gui.panels import fmt
from designer.gui.transport.compare_row import TransportRow


def _value(v: float | None, unit: str) -> str:
    if v is None:
        return "–"
    if unit == "%":
        return fmt.percent(v)
    if unit == "$":
        return fmt.money_exact(round(v, 2)) if abs(v) < 100 else fmt.money(v)
    if unit == "us":
        return fmt.micro(v)
    return fmt.number(round(v, 3) if abs(v) < 100 else round(v))


ROUTING_CHOICES = (("transport", "Each transport's own routing"),
                   ("ideal", "Ideal for all (fluid optimum)"),
                   ("ecmp", "ECMP for all (hashed)"),
                   ("spray", "Packet spraying for all (fluid split)"))


class ComparePanel(QWidget):
    def __init__(self, service, doc, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.compare = CompareService(service, doc, self)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 4)
        row = QHBoxLayout()
        row.addWidget(QLabel("Compare with:"))
        self.boxes: dict[str, QCheckBox] = {}
        for i, (prof, label) in enumerate(PROFILE_LABELS.items()):
            if i == 4:  # a second row: the panel must fit a narrow dock
                row.addStretch(1)
                lay.addLayout(row)
                row = QHBoxLayout()
                row.addSpacing(QLabel("Compare with:").sizeHint().width() + row.spacing())
            box = QCheckBox(label)
            box.toggled.connect(lambda _v: self._profiles_changed())
            self.boxes[prof] = box
            row.addWidget(box)
        self.drawn = QCheckBox("As drawn")
        self.drawn.setToolTip(
            "Off: each technology is laid out as it would be bought (when a gear swap leaves "
            "switch ports idle, the layout is planned again for the same GPUs, bisection and "
            "oversubscription, and the cheapest is taken). On: every variant keeps this "
            "design's layout.")
        self.drawn.toggled.connect(self.compare.set_as_drawn)
        row.addWidget(self.drawn)
        row.addStretch(1)
        lay.addLayout(row)
        self.transports = TransportRow(doc)
        self.transports.changed.connect(self.compare.set_transports)
        lay.addWidget(self.transports)
        # a second row: the controls fit a narrow dock, so the verdict lines below wrap at its
        # edge instead of running past it
        row = QHBoxLayout()
        self.ratios = QLineEdit()
        self.ratios.setPlaceholderText("oversubscriptions, e.g. 2:1, 3:1")
        self.ratios.setToolTip("A generated fat tree built again with these leaf ratios")
        self.ratios.setMinimumWidth(120)
        self.ratios.setMaximumWidth(220)
        self.ratios.editingFinished.connect(self._ratios_changed)
        row.addWidget(self.ratios)
        self.server = QComboBox()
        self.server.setToolTip(
            "The generated design built again on other servers with the same GPU count and "
            "gear: an NVL72 design against 8-GPU servers, or the other way round")
        self.server.addItem("Same GPUs on…", "")
        for spec in doc.catalog.of_kind("server"):
            if getattr(spec, "gpus", 0):
                kind = "rack" if spec.rack_scale else f"{spec.gpus}-GPU"
                self.server.addItem(f"{spec.name.split(' (')[0]} ({kind})", spec.id)
        # as wide as its prompt, not its longest server name (the list opens wider): the row
        # must fit a narrow dock
        self.server.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.server.setMinimumContentsLength(len("Same GPUs on…") + 2)
        self.server.view().setMinimumWidth(self.server.view().sizeHintForColumn(0) + 24)
        self.server.activated.connect(lambda _i: self._server_changed())
        row.addWidget(self.server)
        self.routing = QComboBox()
        for mode, text in ROUTING_CHOICES:
            self.routing.addItem(text, mode)
        self.routing.setToolTip(
            "Each transport's own routing (RoCE hashed by ECMP with NCCL's channels and 16 "
            "queue pairs, Spectrum-X adaptive at its published 95% effective bandwidth, Ultra "
            "Ethernet and MRC sprayed, InfiniBand adaptive), or one routing for every column")
        self.routing.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.routing.setMinimumContentsLength(len("Each transport's own") + 2)
        self.routing.view().setMinimumWidth(self.routing.view().sizeHintForColumn(0) + 24)
        self.routing.activated.connect(
            lambda _i: self.compare.set_routing(self.routing.currentData()))
        self.add = QPushButton("Add file…")
        self.add.clicked.connect(self._add_file)
        self.clear = QPushButton("Clear files")
        self.clear.clicked.connect(self.compare.clear_files)
        self.save = QPushButton("Save…")
        self.save.setToolTip("Write this comparison: .xlsx (one column per design) or .html")
        self.save.setEnabled(False)
        self.save.clicked.connect(self._ask_save)
        self.task: BackgroundTask | None = None
        row.addStretch(1)
        lay.addLayout(row)
        # a row of its own: the controls must fit a narrow dock
        row = QHBoxLayout()
        row.addWidget(self.routing)
        row.addWidget(self.add)
        row.addWidget(self.clear)
        row.addWidget(self.save)
        row.addStretch(1)
        lay.addLayout(row)
        self.status = QLabel("Tick a profile, pick servers to rebuild it on or add a file to "
                             "compare this design with.")
        self.status.setWordWrap(True)
        # the verdict is read whole: the table below gives up height to it, not the reverse
        self.status.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        lay.addWidget(self.status)
        self.table = QTableWidget(0, 0)
        self.table.setMinimumHeight(90)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        lay.addWidget(self.table, 1)
        self.compare.comparisonReady.connect(self.show_comparison)
        self.compare.failed.connect(lambda m: self.status.setText(
            f"<span style='color:#c62828'>{m}</span>"))

    def _ask_save(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the comparison", "comparison.xlsx",
                                              "Workbook (*.xlsx);;Report page (*.html)")
        if path:
            self.save_to(path)

    def save_to(self, path: str) -> BackgroundTask | None:
        """Write the latest comparison off the GUI thread; the status line says the outcome."""
        cmp = self.compare.latest
        if cmp is None:
            return None

        def work(_progress, _cancelled) -> str:
            if path.lower().endswith(".html"):
                from designer.core.writers import write_compare_html

                write_compare_html(cmp, path)
            else:
                from designer.core.writers import write_compare_xlsx

                write_compare_xlsx(cmp, path)
            return path

        task = BackgroundTask(self, "Save the comparison", "Writing…", work)
        task.finished.connect(lambda p: self.status.setText(f"Saved {p}"))
        task.failed.connect(lambda m: self.status.setText(
            f"<span style='color:#c62828'>Not saved: {m}</span>"))
        self.task = task
        task.start()
        return task

    def _ratios_changed(self) -> None:
        text = self.ratios.text()
        self.compare.set_ratios([r.strip() for r in text.replace(";", " ").replace(",", " ")
                                 .split() if r.strip()])

    def _server_changed(self) -> None:
        sid = self.server.currentData()
        self.compare.set_servers([sid] if sid else [])

    def _profiles_changed(self) -> None:
        self.compare.set_profiles([p for p, b in self.boxes.items() if b.isChecked()])

    def _add_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Compare with a design", "",
                                              "Fabric designs (*.fabric.json)")
        if path:
            self.compare.add_file(path)

    def show_comparison(self, c: Comparison) -> None:
        self.save.setEnabled(True)
        cols = c.designs
        keys = list(dict.fromkeys(k for d in cols for k in d.busbw))
        rows = [(label + (f" ({unit})" if unit and unit not in "$%" else ""), key, unit, better)
                for key, label, unit, better in FIGURES]
        rows += [(f"busbw {k} (GB/s)", ("busbw", k), "", "high") for k in keys]
        texts = [(label, key) for key, label in TEXT_ROWS]
        self.table.setColumnCount(len(cols))
        self.table.setRowCount(len(texts) + len(rows))
        self.table.setHorizontalHeaderLabels([d.label for d in cols])
        for j, d in enumerate(cols):
            head = self.table.horizontalHeaderItem(j)
            if head is not None:
                tip = [d.name or d.label, d.servers, d.layout, d.error]
                if d.routing is not None:
                    tip.append(f"routing: {d.routing.name} ({d.routing.source})")
                head.setToolTip("\n".join(x for x in tip if x))
        self.table.setVerticalHeaderLabels([t[0] for t in texts] + [r[0] for r in rows])
        for i, (_, key) in enumerate(texts):
            for j, d in enumerate(cols):
                text = d.text(key) or ("no design" if d.error and d.project is None else "–")
                cell = QTableWidgetItem(text)
                cell.setToolTip(f"{d.routing.name}\nsource: {d.routing.source}"
                                if key == "routing" and d.routing else text)
                self.table.setItem(i, j, cell)
        for i, (_, key, unit, better) in enumerate(rows, start=len(texts)):
            base = self._get(cols[0], key)
            for j, d in enumerate(cols):
                v = self._get(d, key)
                text = _value(v, unit)
                cell = QTableWidgetItem(text)
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if j and v is not None and base is not None and v != base:
                    delta = v - base
                    sign = "+" if delta > 0 else "−"
                    cell.setText(f"{text}  ({sign}{_value(abs(delta), unit)})")
                    good = (delta < 0) == (better == "low") if better else None
                    if good is not None:
                        cell.setForeground(QColor("#2e7d32" if good else "#c62828"))
                self.table.setItem(i, j, cell)
        self.table.resizeColumnsToContents()
        lines = [be["text"] for be in c.break_even]
        lines += [f"{d.label}: {d.layout}" for d in cols
                  if d.layout and d.layout not in ("as drawn", "kept as drawn")]
        lines += [f"<span style='color:#c62828'>{d.label}: no figures: {d.error}</span>"
                  for d in cols if d.error]
        lines += list(c.notes)
        if c.recommendation:
            r = c.recommendation
            head = f"{r.winner} ({r.choice})" if r.winner else r.choice
            lines.append(f"<b>Recommendation: {head}</b>" + (f" ({r.note})" if r.note else ""))
            lines.append(r.break_even)
            lines += [f"Assumes {a}" for a in r.assumptions]
            lines += [f"If {x['text']}" if "text" in x else f"If {x['case']}: {x['error']}"
                      for x in r.sensitivity]
        if c.premium:
            lines.append(c.premium.text())
        self.status.setText("<br>".join(lines) or "Compared.")

    @staticmethod
    def _get(d, key):
        if isinstance(key, tuple):
            return d.busbw.get(key[1])
        return d.figures.get(key)
