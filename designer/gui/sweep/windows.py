"""The window's side of Design > Explore…: make the sweep dialog once, and open a chosen
point's design in a new window (built off the GUI thread: a large design takes seconds)."""

from __future__ import annotations

from designer.core.sweep import Point, build
from designer.gui.base.background import BackgroundTask


def show_explore(window):
    """Show (making it on first use) the window's sweep dialog."""
    from designer.gui.sweep.dialog import SweepDialog

    if window.sweep_dialog is None:
        dlg = SweepDialog(window.doc.base_catalog, window)
        dlg.designRequested.connect(lambda point: open_point(window, point))
        dlg.compareRequested.connect(lambda point: compare_point(window, point))
        window.sweep_dialog = dlg
    window.sweep_dialog.show()
    window.sweep_dialog.raise_()
    window.sweep_dialog.activateWindow()
    return window.sweep_dialog


def open_point(window, point: Point) -> BackgroundTask:
    """Build ``point``'s design in a worker thread, then open it in a new window."""
    catalog = window.doc.base_catalog

    def work(progress, cancelled):
        progress(0.0, f"building point {point.index}")
        return build(point, catalog)

    task = BackgroundTask(window, "Open design", f"Building point {point.index}…", work)
    task.finished.connect(lambda project: _show(window, project))
    task.failed.connect(lambda msg: window.doc.say(f"Cannot open point {point.index}: {msg}",
                                                    True))
    task.start()
    return task


def compare_point(window, point: Point) -> BackgroundTask:
    """Build ``point``'s design in a worker thread and add it to the Compare view, which
    solves it beside the window's design and keeps the comparison live."""
    catalog = window.doc.base_catalog

    def work(progress, cancelled):
        progress(0.0, f"building point {point.index}")
        return build(point, catalog)

    def add(project) -> None:
        window.analysis.decision.compare.compare.add_project(f"point {point.index}", project)
        window.analysis.show_panel("compareDock")
        window.doc.say(f"Point {point.index} ({point.label()}) added to Compare")

    task = BackgroundTask(window, "Add to Compare", f"Building point {point.index}…", work)
    task.finished.connect(add)
    task.failed.connect(lambda msg: window.doc.say(
        f"Cannot compare point {point.index}: {msg}", True))
    task.start()
    return task


def _show(window, project):
    # the window's own class: this module never imports the main window
    other = type(window)(window.doc.base_catalog, window.recovery.folder.parent)
    other.doc.replace(project, modified=True)  # not saved anywhere yet
    other.view.fit_readable()
    other.show()
    window.sweep_windows = [*getattr(window, "sweep_windows", []), other]
    return other
