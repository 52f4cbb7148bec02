"""Reading a file someone handed over, within bounds.

Result files, topology files and other tools' output arrive from outside: a FIFO or a device
would block or never end, a huge file would fill memory, and bytes that are not text would
make a reader stumble. ``read_text`` refuses anything but a regular file, reads at most
``limit`` bytes, and decodes with replacement so a stray byte never raises.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from designer.core.errors import DesignerError


class InputFileError(DesignerError):
    """A file cannot be read as input; the message names it and why."""


def _human(n: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.0f} {unit}"
    return f"{n} bytes"


def check_regular(path: Path) -> os.stat_result:
    """``path``'s status if it is a regular file; else a one-line InputFileError."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(f"{path} is a folder; give a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(f"{path} is not a regular file (a pipe, socket or device); "
                             "save the output to a file first")
    return st


def read_bytes(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of regular file ``path``, refused when it holds more than ``limit``."""
    p = Path(path)
    st = check_regular(p)
    if st.st_size > limit:
        raise InputFileError(f"{p} is {_human(st.st_size)}, more than the {_human(limit)} "
                             "this reader takes")
    try:
        # O_NONBLOCK: a file swapped for a FIFO between the check and the open cannot block
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise InputFileError(f"{p} is not a regular file")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputFileError(f"{p}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise InputFileError(f"{p} grew past the {_human(limit)} this reader takes")
    return data


def read_text(path: str | os.PathLike[str], limit: int) -> str:
    """``read_bytes`` decoded as UTF-8, undecodable bytes replaced."""
    return read_bytes(path, limit).decode("utf-8", errors="replace")
