"""Autosave and crash recovery.

Each running window owns a session in the app-data ``recovery`` folder: a lock file held
while it runs, and the latest autosave of an unsaved design (written atomically at a fixed
interval while there are unsaved changes). A clean exit deletes both. On start, a recovery
file whose lock is no longer held (its process crashed or was killed) is offered back.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QLockFile

from designer.core.fileformat import atomic_write, dumps_project, loads_project
from designer.core.model import Project

AUTOSAVE_INTERVAL_MS = 60_000
SUFFIX = ".recovery.fabric.json"


@dataclass(frozen=True)
class Orphan:
    """A recovery file left by a session that did not exit cleanly."""

    file: Path
    meta: dict
    lock: QLockFile

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or "Untitled fabric")

    @property
    def saved_at(self) -> str:
        t = self.meta.get("time")
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else "an unknown time"

    @property
    def original_path(self) -> str | None:
        return self.meta.get("path") or None

    def load(self, catalog) -> Project:
        return loads_project(self.file.read_bytes(), str(self.file), catalog)

    def discard(self) -> None:
        _remove(self.file)
        self.lock.unlock()


def _meta_path(file: Path) -> Path:
    return file.with_name(file.name.removesuffix(SUFFIX) + ".meta.json")


def _remove(file: Path) -> None:
    """Delete a recovery file and its meta file (either may be gone already)."""
    for p in (file, _meta_path(file)):
        with contextlib.suppress(OSError):
            p.unlink()


class RecoveryStore:
    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder) / "recovery"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.session = f"session-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.file = self.folder / (self.session + SUFFIX)
        self._lock = QLockFile(str(self.folder / (self.session + ".lock")))
        self._lock.setStaleLockTime(0)
        self._lock.tryLock(0)
        self.saved_revision: int | None = None

    def autosave(self, project: Project, revision: int, path: Path | None) -> bool:
        """Write the design if it changed since the last autosave; returns whether it wrote."""
        if revision == self.saved_revision:
            return False
        atomic_write(self.file, dumps_project(project), keep_backup=False)
        meta = {"name": project.name, "path": str(path) if path else None, "time": time.time()}
        atomic_write(_meta_path(self.file), json.dumps(meta).encode(), keep_backup=False)
        self.saved_revision = revision
        return True

    def clear(self) -> None:
        """Nothing to recover any more (saved, or a new clean design)."""
        _remove(self.file)
        self.saved_revision = None

    def close(self) -> None:
        """A clean exit: remove the recovery file and release the session."""
        self.clear()
        self._lock.unlock()

    def abandon(self) -> None:
        """Let go of the session but keep its file, as a crash would (tests)."""
        self._lock.unlock()

    def orphans(self) -> list[Orphan]:
        """Recovery files of sessions that are not running any more."""
        out = []
        for file in sorted(self.folder.glob("*" + SUFFIX)):
            if file == self.file:
                continue
            session = file.name.removesuffix(SUFFIX)
            lock = QLockFile(str(self.folder / (session + ".lock")))
            lock.setStaleLockTime(0)
            if not lock.tryLock(0):
                continue  # another window is still running with it
            try:
                meta = json.loads(_meta_path(file).read_text())
            except (OSError, ValueError):
                meta = {}
            out.append(Orphan(file, meta, lock))
        return out
