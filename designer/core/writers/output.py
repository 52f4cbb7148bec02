"""Writing an export file: whole or not at all, with an error a person can act on."""

from __future__ import annotations

import os

from designer.core.safe_io import FileRefused, write_file


class ExportError(FileRefused):
    """An export cannot be written (no such folder, no permission, disk full, a device ...)."""


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` atomically: a reader never sees a half-written spreadsheet; a path that
    names a device, a FIFO or a folder is refused, never replaced."""
    try:
        write_file(path, data)
    except ExportError:
        raise
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
