"""Files for the main window: new, open, save, save as, recent files, autosave, recovery.

A mixin of ``MainWindow`` (it uses the window's document, view, recovery store and dialogs),
kept apart so the window's module stays about layout and editing.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QPointF

from designer.core import editing
from designer.core.errors import DesignerError
from designer.core.fileformat import SUFFIX, LoadCancelled, load_project
from designer.core.model import Project
from designer.core.physical import new_physical
from designer.gui.base import dialogs, settings
from designer.gui.base.background import BackgroundTask, run_and_wait
from designer.gui.base.busy import busy_cursor


class FileActions:
    """File menu behaviour; mixed into MainWindow."""

    opening: BackgroundTask | None = None  # the file being read, while it is
    closing = False  # the window was closed: nothing opened now replaces anything

    def stop_opening(self) -> None:
        """The window is closing: cancel a file still being read (closeEvent calls this)."""
        self.closing = True
        if self.opening is not None and self.opening.running:
            self.opening.cancel()

    # -- files ---------------------------------------------------------------------------------
    def maybe_save(self) -> bool:
        """True when it is fine to drop the current design (saved, discarded or unchanged)."""
        if not self.doc.modified:
            return True
        answer = dialogs.ask_save_changes(self, self.doc.project.name)
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new_design(self) -> None:
        if not self.maybe_save():
            return
        self.doc.replace(Project(physical=new_physical()))
        self.recovery.clear()
        self.view.zoom_actual()
        self.view.centerOn(QPointF(0, -200))

    def open_dialog(self) -> None:
        start = str(self.doc.path.parent) if self.doc.path else str(Path.cwd())
        path = dialogs.ask_open_path(self, start)
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path, ask: bool = True) -> bool:
        """Open ``path`` in place of the current design. The file is read and checked in a
        worker thread (a progress dialog with Cancel appears when it takes a moment), so the
        window keeps drawing; a file that cannot be opened leaves the current design as it is."""
        if ask and not self.maybe_save():
            return False
        t0 = time.perf_counter()
        name = Path(path).name
        catalog = self.doc.base_catalog
        task = BackgroundTask(
            self, "Open design", f"Reading {name}…",
            lambda progress, cancelled: load_project(path, catalog, progress, cancelled),
            cancel_types=(LoadCancelled,),
        )
        self.opening = task
        try:
            kind, value = run_and_wait(task)
        finally:
            self.opening = None
        if self.closing:  # the window was closed while the file was read: drop it
            return False
        if kind == "cancelled":
            self.doc.say(f"Opening {name} was cancelled; the design is unchanged")
            return False
        if kind == "failed":
            dialogs.show_error(self, "Cannot open the design", value)
            return False
        with busy_cursor():
            self.doc.replace(value, Path(path))
        settings.add_recent_file(path)
        self.recovery.clear()
        self.view.fit_readable()
        dt = time.perf_counter() - t0
        n = len(self.doc.project.fabric.devices)
        self.doc.say(f"Opened {name}: {n:,} devices in {dt:.2f} s")
        self._hint_if_wide()
        return True

    def save(self) -> bool:
        if self.doc.path is None or self.doc.example:  # never overwrite a bundled example
            return self.save_as()
        return self._save_to(self.doc.path)

    def save_as(self) -> bool:
        default = Path.cwd() / (editing.clean_id(self.doc.project.name) + SUFFIX)
        base = default if self.doc.path is None or self.doc.example else self.doc.path
        path = dialogs.ask_save_path(self, str(base))
        if not path:
            return False
        return self._save_to(Path(path))

    def _save_to(self, path: Path) -> bool:
        try:
            self.doc.save(path)
        except DesignerError as exc:
            dialogs.show_error(self, "Cannot save the design", str(exc))
            return False
        settings.add_recent_file(path)
        self.recovery.clear()
        self.doc.say(f"Saved {path.name}")
        return True

    def fill_examples_menu(self) -> None:
        """The bundled examples, each with its line; opened like any file (Save puts an
        edited example elsewhere, never over the bundled one)."""
        from designer.core.examples import examples

        menu = self.actions_.examples_menu
        menu.clear()
        for ex in examples():
            a = menu.addAction(f"{ex.name}  \u2014  {ex.description}" if ex.description
                               else ex.name)
            a.setToolTip(str(ex.path))
            a.setStatusTip(ex.description or str(ex.path))
            a.setData(str(ex.path))
            a.triggered.connect(lambda _=False, p=ex.path: self.open_path(p))
        if menu.isEmpty():
            a = menu.addAction("No examples found")
            a.setEnabled(False)

    def fill_recent_menu(self) -> None:
        menu = self.actions_.recent_menu
        menu.clear()
        files = settings.recent_files()
        for i, f in enumerate(files):
            a = menu.addAction(f"&{i + 1} {Path(f).name}")
            a.setToolTip(f)
            a.setStatusTip(f)
            a.triggered.connect(lambda _=False, p=f: self._open_recent(p))
        if not files:
            a = menu.addAction("No recent designs")
            a.setEnabled(False)
        else:
            menu.addSeparator()
            menu.addAction("Clear Recent", settings.clear_recent_files)

    def _open_recent(self, path: str) -> None:
        if not Path(path).exists():
            dialogs.show_error(self, "Cannot open the design", f"{path}: no such file")
            settings.remove_recent_file(path)
            return
        self.open_path(path)

    # -- autosave and recovery ------------------------------------------------------------------
    def autosave(self) -> bool:
        if not self.doc.modified:
            self.recovery.clear()
            return False
        try:
            return self.recovery.autosave(
                self.doc.project_to_save(), self.doc.revision, self.doc.path
            )
        except (OSError, DesignerError) as exc:
            self.doc.say(f"autosave failed: {exc}", True)
            return False

    def check_recovery(self) -> bool:
        """Offer the design a crashed session left unsaved; True when one was recovered."""
        recovered = False
        for orphan in self.recovery.orphans():
            if recovered:
                orphan.lock.unlock()  # one design per window; offer the others next time
                continue
            answer = dialogs.ask_recover(self, orphan.name, orphan.saved_at, orphan.original_path)
            if answer == "recover":
                try:
                    project = orphan.load(self.doc.base_catalog)
                except DesignerError as exc:
                    dialogs.show_error(self, "Cannot recover the design", str(exc))
                    orphan.discard()
                    continue
                original = orphan.original_path
                path = Path(original) if original else None
                self.doc.replace(project, path, modified=True)
                orphan.discard()
                self.view.fit_readable()
                self.autosave()
                self.doc.say(
                    f"Recovered “{project.name}” from {orphan.saved_at}; save it to keep it"
                )
                recovered = True
            elif answer == "discard":
                orphan.discard()
            else:
                orphan.lock.unlock()
        return recovered
