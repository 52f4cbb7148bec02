"""The document: the one owner of the open Project, and its only mutator.

The Project is immutable; every change replaces it and bumps ``revision``. Views and panels
listen to the signals and never change the project themselves: user actions become undo
commands (``commands.py``) that call ``set_project``. Analysis panels take
``(revision, project)`` snapshots and drop results whose revision is stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import CatalogError
from designer.core.fileformat import save_project
from designer.core.model import Project
from designer.core.paths import is_bundled_example
from designer.core.physical import new_physical


@dataclass(frozen=True)
class Selection:
    """What is selected on the canvas: devices, one link (a device pair) or collapsed groups."""

    devices: frozenset[str] = frozenset()
    link: tuple[str, str] | None = None
    groups: frozenset[str] = frozenset()
    # a summed line between two collapsed boxes (or a box and a device): node labels
    aggregate: tuple[str, str] | None = None

    @property
    def empty(self) -> bool:
        return not (self.devices or self.link or self.groups or self.aggregate)


class Document(QObject):
    """The open design, its file, its undo history and the current selection."""

    # revision after every change of the project (edits, undo, redo, open, new)
    projectChanged = Signal(int)
    # a different design was loaded or created: views rebuild instead of patching
    projectReplaced = Signal()
    selectionChanged = Signal()
    pathChanged = Signal(str)
    # the problems list (or anyone) asks the canvas to show these devices
    focusRequested = Signal(list)
    # a short message for the status bar (and a flag: is it a refusal?)
    message = Signal(str, bool)
    # devices flagged on the canvas (problems list): id -> "error" | "warning" | "info"
    marksChanged = Signal()

    def __init__(self, catalog: Catalog | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.base_catalog = catalog if catalog is not None else builtin_catalog()
        # the first blank design is what File > New makes (the BOM's new-design sections on)
        self._project = Project(physical=new_physical())
        self._catalog = self.base_catalog
        self._revision = 0
        self._path: Path | None = None
        # a bundled example is opened for reading: its first Save asks where (Save As)
        self._example = False
        self._selection = Selection()
        self._marks: dict[str, str] = {}
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(200)
        # the canvas keeps view state (collapsed groups) here so saving can record it
        self.view_state: dict = {}

    # state ---------------------------------------------------------------------------------
    @property
    def project(self) -> Project:
        return self._project

    @property
    def catalog(self) -> Catalog:
        """The base catalog with this project's own gear and prices."""
        return self._catalog

    @property
    def revision(self) -> int:
        return self._revision

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def example(self) -> bool:
        """The open file is a bundled example: Save asks for another file."""
        return self._example

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    def snapshot(self) -> tuple[int, Project]:
        """(revision, project): what a worker may analyse; the project never changes."""
        return self._revision, self._project

    # the one mutator ----------------------------------------------------------------------
    def set_project(self, project: Project) -> None:
        """Replace the project (called by undo commands only)."""
        if project is self._project:
            return
        if (project.overrides is not self._project.overrides
                or project.sources is not self._project.sources):
            self._catalog = self._resolve_catalog(project)
        self._project = project
        self._revision += 1
        self._prune_selection()
        self.projectChanged.emit(self._revision)

    def _resolve_catalog(self, project: Project) -> Catalog:
        try:
            return project.catalog(self.base_catalog)
        except CatalogError:
            return self.base_catalog

    def push(self, command) -> None:
        """Run an undo command (its redo) and record it."""
        self.undo_stack.push(command)

    # whole documents -------------------------------------------------------------------------
    def replace(self, project: Project, path: Path | None = None, modified: bool = False) -> None:
        """Start over on ``project`` (new, open, recover): clears the undo history."""
        self.undo_stack.clear()
        self._catalog = self._resolve_catalog(project)
        self._project = project
        self._revision += 1
        self._selection = Selection()
        self.view_state = dict(project.view) if isinstance(project.view, dict) else {}
        # a bundled example opens for reading: its first Save asks where (Save As)
        self.set_path(path, example=path is not None and is_bundled_example(path))
        self.projectReplaced.emit()
        self.projectChanged.emit(self._revision)
        self.selectionChanged.emit()
        if modified:
            # a recovered design is not on disk yet: an empty clean point keeps it "unsaved"
            self.undo_stack.resetClean()

    def save(self, path: str | Path | None = None) -> Path:
        target = Path(path) if path is not None else self._path
        if target is None:
            raise ValueError("no file name")
        save_project(self.project_to_save(), target)
        self.set_path(target)
        self.undo_stack.setClean()
        return target

    def project_to_save(self) -> Project:
        """The project with the canvas's view state (collapsed groups) recorded in it."""
        if not self.view_state or self.view_state == self._project.view:
            return self._project
        return self._project.model_copy(update={"view": dict(self.view_state)})

    def set_path(self, path: Path | None, example: bool = False) -> None:
        """The file the design is saved to (None: untitled; Save asks where)."""
        self._path = path
        self._example = example and path is not None
        self.pathChanged.emit(str(path) if path else "")

    # selection ---------------------------------------------------------------------------------
    @property
    def selection(self) -> Selection:
        return self._selection

    def set_selection(self, selection: Selection) -> None:
        if selection == self._selection:
            return
        self._selection = selection
        self.selectionChanged.emit()

    def _prune_selection(self) -> None:
        index = self._project.fabric.index
        sel = self._selection
        devices = frozenset(d for d in sel.devices if d in index)
        link = sel.link if sel.link and all(d in index for d in sel.link) else None
        if devices != sel.devices or link != sel.link:
            self._selection = Selection(devices, link, sel.groups, sel.aggregate)
            self.selectionChanged.emit()

    def focus_devices(self, device_ids: list[str]) -> None:
        """Ask the canvas to expand, select and centre these devices (problems list, search)."""
        known = [d for d in device_ids if d in self._project.fabric.index]
        if known:
            self.focusRequested.emit(known)

    @property
    def marks(self) -> dict[str, str]:
        return dict(self._marks)

    def set_marks(self, marks: dict[str, str]) -> None:
        """Flag devices on the canvas (a ring in the severity's colour; a collapsed group
        holding one shows the worst). Not an edit: no undo step, not saved."""
        if marks != self._marks:
            self._marks = dict(marks)
            self.marksChanged.emit()

    def say(self, text: str, refusal: bool = False) -> None:
        self.message.emit(text, refusal)
