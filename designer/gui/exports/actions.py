"""File > Export in the window: BOM, cabling plan, report, diagrams.

Spreadsheets, CSV, GraphML and HTML are written by the core's export jobs in a worker thread
(solving first when no result is at hand), with a progress dialog that appears when the work
takes more than a moment and can cancel it. Pictures and PDF reports are drawn by Qt in the
GUI thread (a scene can only be painted there). The export takes a snapshot of the project
when it starts, so edits made meanwhile do not leak into a half-written file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QRectF, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from designer.core.errors import DesignerError
from designer.core.writers import (
    ProgressFn,
    check_suffix,
    export_bom,
    export_cabling,
    export_drawio,
    export_graphml,
    export_report_html,
    report_data_for,
)
from designer.gui.base.background import BackgroundTask
from designer.gui.base.busy import busy_cursor


class ExportCancelled(DesignerError):  # the name says what happened
    def __init__(self) -> None:
        super().__init__("export cancelled")


@dataclass(frozen=True)
class Format:
    key: str  # jobs name
    label: str  # menu text
    filters: str  # file dialog filters, first is the default
    suffix: str
    view_only: bool = False


FORMATS: tuple[Format, ...] = (
    Format("bom", "&Bill of Materials…", "Excel workbook (*.xlsx);;CSV (*.csv)", ".xlsx"),
    Format("cabling", "&Cabling Plan…", "Excel workbook (*.xlsx);;CSV (*.csv)", ".xlsx"),
    Format("report", "Design &Report…", "PDF (*.pdf);;HTML page (*.html)", ".pdf"),
    Format("image", "&Image of the Whole Design…", "PNG image (*.png);;SVG drawing (*.svg)",
           ".png"),
    Format("image", "Image of the Current &View…", "PNG image (*.png);;SVG drawing (*.svg)",
           ".png", view_only=True),
    Format("graphml", "&GraphML (yEd, Gephi)…", "GraphML (*.graphml)", ".graphml"),
    Format("drawio", "&draw.io Diagram…", "draw.io diagram (*.drawio)", ".drawio"),
)


class ExportController(QObject):
    """Owns the export actions of one window. ``result_for`` may return the window's latest
    solver Result for a project snapshot (or None: the export solves)."""

    finished = Signal(str)  # the summary line of a finished export
    failed = Signal(str)

    def __init__(self, window: QWidget, document, scene=None, view=None,
                 result_for: Callable[[Any], Any] | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.doc = document
        self.scene = scene
        self.view = view
        self.result_for = result_for
        self.busy = False
        self.menu = QMenu("&Export", window)
        self.actions: list[QAction] = []
        for fmt in FORMATS:
            a = QAction(fmt.label, window)
            a.triggered.connect(lambda _=False, f=fmt: self.ask_and_export(f))
            self.menu.addAction(a)
            self.actions.append(a)
        self.menu.insertSeparator(self.actions[2])
        self.menu.insertSeparator(self.actions[3])
        self.task: BackgroundTask | None = None

    # -- choosing the file ------------------------------------------------------------------
    def default_path(self, fmt: Format) -> Path:
        folder = self.doc.path.parent if self.doc.path else Path.cwd()
        stem = self.doc.path.name.split(".")[0] if self.doc.path else "design"
        tail = {"bom": "-bom", "cabling": "-cabling", "report": "-report", "graphml": "",
                "drawio": "",
                "image": "-view" if fmt.view_only else ""}[fmt.key]
        return folder / f"{stem}{tail}{fmt.suffix}"

    def ask_and_export(self, fmt: Format) -> None:
        path, chosen = QFileDialog.getSaveFileName(
            self.window, fmt.label.replace("&", "").rstrip("…"), str(self.default_path(fmt)),
            fmt.filters)
        if not path:
            return
        p = Path(path)
        if not p.suffix:  # the filter the user picked says which type
            p = p.with_suffix(chosen.split("*")[-1].rstrip(")") if "*" in chosen else fmt.suffix)
        self.export(fmt, p)

    # -- running ------------------------------------------------------------------------------
    def export(self, fmt: Format, path: Path) -> None:
        """Export the current design to ``path`` (the work may finish later: see signals)."""
        if self.busy:
            return
        try:
            suffix = check_suffix(fmt.key, path)
        except DesignerError as exc:
            self._fail(str(exc))
            return
        project = self.doc.project  # immutable snapshot
        catalog = self.doc.catalog
        result = self.result_for(project) if self.result_for else None
        if fmt.key == "image" or (fmt.key == "report" and suffix == ".pdf"):
            self._export_in_gui_thread(fmt, path, project, catalog, result)
            return
        job = {"bom": export_bom, "cabling": export_cabling,
               "graphml": export_graphml, "drawio": export_drawio,
               "report": export_report_html}[fmt.key]
        self._run_in_worker(lambda progress: job(project, catalog, path, result, progress),
                            fmt.label.replace("&", "").rstrip("…"), path)

    def _run_in_worker(self, work: Callable[[ProgressFn], str], title: str,
                       path: Path) -> None:
        self.busy = True
        new_file = not path.exists()

        def run(progress, cancelled) -> str:
            def step(fraction: float, message: str) -> None:
                if cancelled():  # the jobs take no cancel callback: stop at their next step
                    raise ExportCancelled()
                progress(fraction, message)

            text = work(step)
            if cancelled():  # cancelled after the last progress step: keep no file
                if new_file:
                    path.unlink(missing_ok=True)
                raise ExportCancelled()
            return text

        task = BackgroundTask(self.window, "Export", f"Exporting: {title}", run,
                              cancel_types=(ExportCancelled,))
        task.finished.connect(self._done)
        task.failed.connect(self._fail)
        task.cancelled.connect(lambda: self._fail(""))
        self.task = task
        task.start()

    def cancel(self) -> None:
        """Stop a running export (its progress dialog's Cancel)."""
        if self.task is not None and self.task.running:
            self.task.cancel()

    def shutdown(self) -> None:
        """Ask a running export to stop (the window is closing)."""
        self.cancel()

    def _done(self, text: str) -> None:
        self.busy = False
        self.doc.say(text[0].upper() + text[1:] if text else "Exported")
        self.finished.emit(text)

    def _fail(self, text: str) -> None:
        self.busy = False
        if not text:  # cancelled
            self.doc.say("Export cancelled")
            self.failed.emit("")
            return
        self.failed.emit(text)
        if self.window.isVisible():
            QMessageBox.warning(self.window, "Export", text)
        else:
            self.doc.say(text, True)

    def _export_in_gui_thread(self, fmt: Format, path: Path, project, catalog, result) -> None:
        self.busy = True
        try:
            with busy_cursor():
                if fmt.key == "image":
                    text = self._image(fmt, path)
                else:
                    from designer.gui.exports.report_pdf import write_report_pdf

                    data = report_data_for(project, catalog, result)
                    pages = write_report_pdf(data, path, project, catalog)
                    text = f"wrote {path}: design report, {pages} page(s)"
        except DesignerError as exc:
            self._fail(str(exc))
            return
        self._done(text)

    def _image(self, fmt: Format, path: Path) -> str:
        from designer.gui.exports.image import render_scene

        if self.scene is None:
            from designer.gui.exports.image import export_design_image

            return export_design_image(self.doc.project, self.doc.catalog, path)
        if fmt.view_only and self.view is not None:
            rect = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
            width = self.view.viewport().width() * 2  # twice the screen: sharp on paper
            margin_free = QRectF(rect).adjusted(40, 40, -40, -40)  # render adds the margin back
            w, h = render_scene(self.scene, margin_free, path, width, self.doc.project.name)
            return f"wrote {path}: {w} x {h} px picture of the current view"
        w, h = render_scene(self.scene, self.scene.content_rect(), path, None,
                            self.doc.project.name)
        return f"wrote {path}: {w} x {h} px picture of the whole design"


def install(window, result_for: Callable[[Any], Any] | None = None) -> ExportController:
    """Add File > Export to a main window (before Quit) and return its controller."""
    ctl = ExportController(window, window.doc, getattr(window, "scene", None),
                           getattr(window, "view", None), result_for)
    file_menu = next((a.menu() for a in window.menuBar().actions()
                      if a.menu() is not None and a.text().replace("&", "") == "File"), None)
    if file_menu is not None:
        quit_action = next((a for a in file_menu.actions()
                            if a.text().replace("&", "").startswith("Quit")), None)
        if quit_action is not None:
            file_menu.insertMenu(quit_action, ctl.menu)
            file_menu.insertSeparator(quit_action)
        else:
            file_menu.addMenu(ctl.menu)
    window.export_controller = ctl
    return ctl
