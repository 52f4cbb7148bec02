"""Writing a large export as a stream of text chunks, atomically.

The chunks go to a temporary file beside the target, which replaces the target only once the
last chunk is written: a reader never sees half a file, and the whole text is never held in
memory (a 65,536-GPU design's topology files are tens of megabytes). The write is
``safe_io``'s, as every output's: a FIFO or device at the path is refused, a link replaced.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from designer.core.safe_io import FileRefused, write_stream
from designer.core.writers.output import ExportError


def write_chunks(path: str | os.PathLike[str], chunks: Iterable[str]) -> int:
    """Write ``chunks`` (text) to ``path`` as UTF-8; returns the characters written."""
    try:
        return write_stream(path, chunks)
    except ExportError:
        raise
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
