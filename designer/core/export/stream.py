"""Writing a large export as a stream of text chunks, atomically.

The chunks go to a temporary file beside the target, which replaces the target only once the
last chunk is written: a reader never sees half a file, and the whole text is never held in
memory (a 65,536-GPU design's topology files are tens of megabytes).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from designer.core.export.output import ExportError


def write_chunks(path: str | os.PathLike[str], chunks: Iterable[str]) -> int:
    """Write ``chunks`` (text) to ``path`` as UTF-8; returns the characters written."""
    target = Path(path)
    if target.is_dir():
        raise ExportError(f"{target} is a folder; give a file name to write")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise ExportError(f"cannot write {target}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    size = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for chunk in chunks:
                fh.write(chunk)
                size += len(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise ExportError(f"cannot write {target}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return size
