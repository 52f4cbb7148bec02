"""Writing an export file: whole or not at all, with an error a person can act on."""

from __future__ import annotations

import os
from pathlib import Path

from designer.core.errors import DesignerError
from designer.core.fileformat import atomic_write


class ExportError(DesignerError):
    """An export cannot be written (no such folder, no permission, disk full ...)."""


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` atomically: a reader never sees a half-written spreadsheet."""
    target = Path(path)
    if target.is_dir():
        raise ExportError(f"{target} is a folder; give a file name to write")
    if not target.parent.is_dir() and str(target.parent):
        raise ExportError(f"cannot write {target}: folder {target.parent} does not exist")
    try:
        atomic_write(target, data, keep_backup=False)
    except OSError as exc:
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
