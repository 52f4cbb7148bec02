"""Where the numbers come from, in the window: File > Import Price Book…, File > Import
Measured Latency… and File > Price Books and Measurements (remove one).

A price book (a supplier's quote, CSV or xlsx) is read in the background, then applied as one
undoable step; a quote in another currency asks for its rate to US dollars first. A measured
latency comes from a perftest run's saved output (``ib_send_lat`` / ``ib_write_lat``), with
the technology and the switches the measured path crossed.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QSpinBox,
    QWidget,
)

from designer.core.catalog import TECH_LABELS
from designer.core.errors import DesignerError
from designer.core.sources import (
    AmbiguousNumber,
    LatencyMeasurement,
    RateNeeded,
    read_perftest,
    read_price_book,
    with_latency,
    with_price_book,
    without_latency,
    without_price_book,
)
from designer.gui.base import dialogs
from designer.gui.base.background import BackgroundTask
from designer.gui.project.commands import ProjectCommand
from designer.gui.sources import preview

BOOK_FILTER = "Price books (*.csv *.xlsx);;All files (*)"
PERFTEST_FILTER = "perftest output (*.txt *.log *.out);;All files (*)"


# -- questions (tests answer these instead of dialogs) -------------------------------------------
def ask_price_book_path(parent: QWidget, start: str = "") -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Import price book", start, BOOK_FILTER)
    return path or None


def ask_usd_rate(parent: QWidget, currency: str) -> float | None:
    value, ok = QInputDialog.getDouble(
        parent, "Import price book", f"The quote's prices are in {currency}.\n"
        f"US dollars per {currency}:", 1.0, 0.000001, 1_000_000.0, 6)
    return value if ok else None


class LatencyDialog(QDialog):
    """What a perftest run measured: technology, switches crossed, cable length."""

    def __init__(self, parent: QWidget, file_name: str, default_tech: str) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import measured latency")
        form = QFormLayout(self)
        form.addRow(QLabel(f"perftest output: {file_name}\nThe one-way latency (t_typical) "
                           "replaces the catalog's NIC figure for this technology."))
        self.tech = QComboBox()
        for tech, label in TECH_LABELS.items():
            self.tech.addItem(label, tech)
        self.tech.setCurrentIndex(max(0, self.tech.findData(default_tech)))
        self.switches = QSpinBox()
        self.switches.setRange(0, 16)
        self.switches.setToolTip("0: the two hosts were cabled back to back")
        self.cable = QDoubleSpinBox()
        self.cable.setRange(0, 100_000)
        self.cable.setSuffix(" m")
        form.addRow("Technology", self.tech)
        form.addRow("Switches crossed", self.switches)
        form.addRow("Cable on the path", self.cable)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


def ask_latency_import(parent: QWidget, start: str, default_tech: str
                       ) -> tuple[str, str, int, float] | None:
    """(path, technology, switches, cable m) or None."""
    path, _ = QFileDialog.getOpenFileName(parent, "Import measured latency", start,
                                          PERFTEST_FILTER)
    if not path:
        return None
    dlg = LatencyDialog(parent, Path(path).name, default_tech)
    if dlg.exec() != QDialog.DialogCode.Accepted:
        return None
    return path, dlg.tech.currentData(), dlg.switches.value(), dlg.cable.value()


class SourcesActions:
    """File menu entries for price books and measured latencies of one window."""

    def __init__(self, window) -> None:
        self.w = window
        self.task: BackgroundTask | None = None
        self.import_book = QAction("Import &Price Book…", window)
        self.import_book.setStatusTip("Apply a supplier's quote (CSV or xlsx: part id, unit "
                                      "price, currency, date) to this project's prices")
        self.import_book.triggered.connect(self.ask_and_import)
        self.import_latency = QAction("Import Measured &Latency…", window)
        self.import_latency.setStatusTip("Replace the catalog's latency with a perftest "
                                         "measurement (ib_send_lat / ib_write_lat output)")
        self.import_latency.triggered.connect(self.ask_and_import_latency)
        self.books_menu = QMenu("Price &Books and Measurements", window)
        self.books_menu.aboutToShow.connect(self._fill_books)
        a = window.actions_
        m = a.menus["file"]
        m.insertAction(a.file_end, self.import_book)
        m.insertMenu(a.file_end, self.books_menu)
        m.insertAction(a.file_end, self.import_latency)

    @property
    def doc(self):
        return self.w.doc

    # -- price books -------------------------------------------------------------------------------
    def ask_and_import(self) -> None:
        start = str(self.doc.path.parent) if self.doc.path else str(Path.cwd())
        path = ask_price_book_path(self.w, start)
        if path:
            self.import_from(path)

    def import_from(self, path: str | Path, usd_rate: float | None = None,
                    decimal: str | None = None) -> BackgroundTask | None:
        """Read the quote off the GUI thread (an xlsx can take a while), show what it would
        apply, then apply it as one undoable step."""
        if self.task is not None and self.task.running:
            return None
        p = Path(path)
        catalog = self.doc.catalog

        def work(progress, cancelled):
            progress(0.2, f"reading {p.name}")
            try:
                return read_price_book(p, catalog, usd_per_unit=usd_rate, decimal=decimal)
            except (RateNeeded, AmbiguousNumber) as exc:
                return exc  # asked in the GUI thread, then read again

        task = BackgroundTask(self.w, "Import price book", f"Reading {p.name}…", work)
        task.finished.connect(lambda got: self._read(got, p, usd_rate, decimal))
        task.failed.connect(lambda msg: self._refused("Cannot import the price book", msg))
        self.task = task
        task.start()
        return task

    def _read(self, got, path: Path, usd_rate: float | None = None,
              decimal: str | None = None) -> None:
        if isinstance(got, RateNeeded):
            rate = ask_usd_rate(self.w, got.currency)
            if rate:
                self.import_from(path, rate, decimal)
            return
        if isinstance(got, AmbiguousNumber):
            mark = preview.ask_decimal(self.w, str(got))
            if mark:
                self.import_from(path, usd_rate, mark)
            return
        if not preview.confirm_book(self.w, got):
            self.doc.say(f"Price book '{got.book.name}' not imported")
            return
        try:
            after = with_price_book(self.doc.project, got.book, self.doc.base_catalog)
        except DesignerError as exc:
            self._refused("Cannot import the price book", str(exc))
            return
        b = got.book
        self.doc.push(ProjectCommand(self.doc, after, f"Import price book '{b.name}'"))
        skipped = (f"; {len(got.skipped):,} row(s) skipped (parts the catalog does not have)"
                   if got.skipped else "")
        self.doc.say(f"Imported {b.label}: {len(b.prices):,} prices{skipped}")

    def remove_book(self, name: str) -> None:
        try:
            after = without_price_book(self.doc.project, name)
        except DesignerError as exc:
            self.doc.say(str(exc), True)
            return
        self.doc.push(ProjectCommand(self.doc, after, f"Remove price book '{name}'"))

    def _fill_books(self) -> None:
        """One entry per price book and per measured latency, each removing it."""
        self.books_menu.clear()
        books = self.doc.project.sources.price_books
        if not books:
            none = self.books_menu.addAction("No price books: prices are catalog estimates")
            none.setEnabled(False)
        for b in books:
            act = self.books_menu.addAction(f"Remove '{b.name}' ({len(b.prices):,} prices, "
                                            f"{b.currency}{', ' + b.date if b.date else ''})")
            act.triggered.connect(lambda _=False, n=b.name: self.remove_book(n))
        self.books_menu.addSeparator()
        measured = self.doc.project.sources.latency
        if not measured:
            none = self.books_menu.addAction("No measured latencies: the catalog's figures")
            none.setEnabled(False)
        for m in measured:
            label = TECH_LABELS.get(m.tech, m.tech)
            act = self.books_menu.addAction(f"Clear measured {label} latency"
                                            + (f" ({m.tool})" if m.tool else ""))
            act.triggered.connect(lambda _=False, t=m.tech: self.clear_latency(t))

    def clear_latency(self, tech: str) -> None:
        try:
            after = without_latency(self.doc.project, tech)
        except DesignerError as exc:
            self.doc.say(str(exc), True)
            return
        self.doc.push(ProjectCommand(self.doc, after, f"Clear measured {tech} latency"))

    # -- measured latency -----------------------------------------------------------------------
    def ask_and_import_latency(self) -> None:
        start = str(self.doc.path.parent) if self.doc.path else str(Path.cwd())
        tech = self.doc.catalog.profiles.get(self.doc.project.profile)
        answer = ask_latency_import(self.w, start, tech.tech if tech else "ib-ndr")
        if answer:
            self.import_latency_from(*answer)

    def import_latency_from(self, path: str | Path, tech: str, switches: int = 0,
                            cable_m: float = 0.0) -> bool:
        p = Path(path)
        try:
            row = read_perftest(p)
            m = LatencyMeasurement(tech=tech, end_to_end_us=row.typical_us, switches=switches,
                                   cable_m=cable_m, message_bytes=row.message_bytes,
                                   tool=row.tool or "perftest")
            after = with_latency(self.doc.project, m, self.doc.base_catalog)
        except (DesignerError, OSError, ValueError) as exc:
            self._refused("Cannot import the measured latency", str(exc))
            return False
        self.doc.push(ProjectCommand(self.doc, after, f"Import measured {tech} latency"))
        self.doc.say(f"Measured {TECH_LABELS.get(tech, tech)} latency: {row.typical_us:g} us "
                     f"one way across {switches} switch(es), from {p.name}")
        return True

    def shutdown(self) -> None:
        if self.task is not None:
            self.task.wait()

    def _refused(self, title: str, message: str) -> None:
        self.doc.say(message, True)
        dialogs.show_error(self.w, title, message[:1].upper() + message[1:])
