"""What the command line prints is shown, never obeyed: control characters in any text that
reaches the terminal (a name or a path from a file, a message quoting one) are written as
escapes (``\\x1b``), so no output can clear the screen, move the cursor, forge a line of the
report or reverse the text after it. Line breaks, tabs and the carriage return the progress
line uses stay; JSON output is already escaped by the encoder.

Names are refused with control characters at load (``core.text``); this is the last guard
for everything else, and it sits in one place: ``main`` writes through it.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from typing import TextIO

# C0 but tab, line feed and carriage return; DEL and C1; the line and paragraph separators
# and the bidirectional overrides and isolates
_ACTS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    return _ACTS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class ShownStream(io.TextIOBase):
    """A text stream that writes ``visible(text)`` to the stream it wraps."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(visible(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8")

    def writable(self) -> bool:
        return True


@contextlib.contextmanager
def shown_output() -> Iterator[None]:
    """Standard output and error through ``ShownStream`` while the block runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ShownStream(out), ShownStream(err)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        sys.stdout, sys.stderr = out, err
