"""File > Export > Installable Cabling Plan… and NetBox CSV…: the physical layer's exports in
the window, run by the same core jobs as ``designer export install-plan`` / ``netbox``, in a
worker thread with a progress dialog (the window's latest result is reused when current)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from designer.core.writers import export_install_plan, export_netbox
from designer.gui.base.background import BackgroundTask


class FloorExports:
    def __init__(self, window, result_for=None) -> None:
        self.w = window
        self.result_for = result_for
        self.task: BackgroundTask | None = None
        self.plan_action = QAction("Installable Cabling &Plan (by rack)…", window)
        self.plan_action.setStatusTip("Cables rack by rack with A/Z rack, U, device, port and "
                                      "length; printable xlsx with a label sheet")
        self.plan_action.triggered.connect(self.ask_plan)
        self.netbox_action = QAction("&NetBox CSV Files…", window)
        self.netbox_action.setStatusTip("Sites, racks, device types, devices, interfaces and "
                                        "cables in NetBox's bulk-import format")
        self.netbox_action.triggered.connect(self.ask_netbox)

    def _stem(self) -> tuple[Path, str]:
        doc = self.w.doc
        folder = doc.path.parent if doc.path else Path.cwd()
        return folder, doc.path.name.split(".")[0] if doc.path else "design"

    def ask_plan(self) -> None:
        folder, stem = self._stem()
        path, _ = QFileDialog.getSaveFileName(self.w, "Installable Cabling Plan",
                                              str(folder / f"{stem}-install.xlsx"),
                                              "Excel workbook (*.xlsx);;CSV (*.csv)")
        if path:
            self.export_plan(Path(path))

    def ask_netbox(self) -> None:
        folder, stem = self._stem()
        path = QFileDialog.getExistingDirectory(self.w, "Folder for the NetBox CSV files",
                                                str(folder))
        if path:
            self.export_netbox(Path(path) / f"{stem}-netbox")

    def export_plan(self, path: Path) -> BackgroundTask:
        return self._run("Installable cabling plan", lambda p, c, r, progress:
                         export_install_plan(p, c, path, r, progress))

    def export_netbox(self, folder: Path) -> BackgroundTask:
        return self._run("NetBox CSV files", lambda p, c, r, progress:
                         export_netbox(p, c, folder, r, progress))

    def _run(self, title: str, job) -> BackgroundTask:
        doc = self.w.doc
        project, catalog = doc.project, doc.catalog  # an immutable snapshot
        result = self.result_for(project) if self.result_for else None

        def work(progress, cancelled):
            return job(project, catalog, result, progress)

        task = BackgroundTask(self.w, "Export", f"Exporting: {title}", work)
        task.finished.connect(lambda text: doc.say(str(text)))
        task.failed.connect(lambda message: doc.say(f"Export failed: {message}", True))
        self.task = task
        task.start()
        return task

    def shutdown(self) -> None:
        if self.task is not None and self.task.running:
            self.task.wait()


def install_floor_exports(window) -> FloorExports:
    """Add the two exports to File > Export (after the window's own formats)."""
    analysis = getattr(window, "analysis", None)
    export = getattr(analysis, "export", None)
    ex = FloorExports(window, getattr(export, "result_for", None))
    if export is not None:
        export.menu.addSeparator()
        export.menu.addAction(ex.plan_action)
        export.menu.addAction(ex.netbox_action)
    return ex
