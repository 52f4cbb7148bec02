"""Files in and out, safely: every read is of a regular file and bounded; every write replaces
a regular file (or makes a new one) and stays inside the folder it was given.

Paths come from users and from files other people sent them. A path may name a FIFO (a read
waits forever), a device (``/dev/zero`` never ends; replacing ``/dev/null`` as root breaks the
system), or a file far larger than any real input. So:

* ``read_bytes`` / ``read_text`` open without blocking, check the opened file itself (not the
  name, which could change in between) is a regular file, and read at most ``limit`` bytes;
  more is refused, never cut silently. A symlink to a regular file is followed.
* ``write_file`` / ``write_stream`` (every output goes through ``atomic_write_with``) refuse a
  target that exists and is neither a regular file nor a symbolic link, then write atomically
  (a temporary file beside it, flushed, renamed): a reader never sees half a file, and a link
  at the name is replaced by the new file, never written through. New files get the umask.
* ``ExportFolder`` builds each path of a many-file export from a safe name inside its folder and
  refuses to write one path twice, so two devices can never share (and overwrite) one file;
  the folder and its subfolders must be real folders, not links.

Messages name the file with its control characters shown (``shown``), never a traceback.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile
import time
from pathlib import Path

from designer.core.errors import DesignerError
from designer.core.text import shown

KB, MB = 1024, 1024 * 1024


class FileRefused(DesignerError):
    """A path names something that cannot be read or written as a file, or is too large."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _name(path: str | os.PathLike[str]) -> str:
    return shown(os.fspath(path), 300)


def _os_message(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def regular_file(path: str | os.PathLike[str], what: str = "file") -> Path:
    """``path`` when it names a regular file (or a symlink to one), else ``FileRefused``."""
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise FileRefused(f"{what} {_name(p)}: no such file") from None
    except OSError as exc:
        raise FileRefused(f"cannot read {what} {_name(p)}: {_os_message(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise FileRefused(f"{what} {_name(p)} is {_kind(st.st_mode)}, not a file to read")
    return p


def read_head(path: str | os.PathLike[str], size: int = 4096, what: str = "file") -> bytes:
    """The first ``size`` bytes of the regular file ``path`` (to tell its format), however
    large the file is."""
    return read_bytes(path, limit=size, what=what, head=True)


def read_bytes(path: str | os.PathLike[str], *, limit: int, what: str = "file",
               head: bool = False) -> bytes:
    """The bytes of the regular file ``path``, refused when it holds more than ``limit``
    (``head``: the first ``limit`` bytes, whatever follows)."""
    p = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise FileRefused(f"{what} {_name(p)}: no such file") from None
    except IsADirectoryError:
        raise FileRefused(f"{what} {_name(p)} is a folder, not a file to read") from None
    except OSError as exc:
        raise FileRefused(f"cannot read {what} {_name(p)}: {_os_message(exc)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(f"{what} {_name(p)} is {_kind(st.st_mode)}, not a file to read")
        if st.st_size > limit and not head:
            raise FileRefused(f"{what} {_name(p)}: {st.st_size:,} bytes is too large "
                              f"(at most {limit:,})")
        # The size can lie (files in /proc say 0, a file can grow): read to the limit, no more.
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(limit + 1 - total, 4 * MB))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit and head:
                return b"".join(chunks)[:limit]
            if total > limit:
                raise FileRefused(f"{what} {_name(p)}: more than {limit:,} bytes is too large")
        return b"".join(chunks)
    except OSError as exc:
        raise FileRefused(f"cannot read {what} {_name(p)}: {_os_message(exc)}") from None
    finally:
        os.close(fd)


_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))


def decode_text(data: bytes, where: str, fallback: str | None = None) -> str:
    """``data`` as text: UTF-8, or UTF-16/32 when a byte-order mark says so (as spreadsheet
    programs and Windows editors save). Otherwise ``fallback`` when given (a legacy 8-bit
    encoding a caller knows its files come in), else a refusal naming the line."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                raise FileRefused(f"{where}: not valid {codec.upper()} text near byte "
                                  f"{exc.start:,}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if fallback is not None:
            return data.decode(fallback, errors="replace")
        line = data.count(b"\n", 0, exc.start) + 1
        raise FileRefused(f"{where}: line {line} is not UTF-8 text (byte "
                          f"0x{data[exc.start]:02X}); save the file as UTF-8") from None


def read_text(path: str | os.PathLike[str], *, limit: int, what: str = "file",
              fallback: str | None = None) -> str:
    """The text of the regular file ``path`` (see ``read_bytes`` and ``decode_text``)."""
    data = read_bytes(path, limit=limit, what=what)
    return decode_text(data, f"{what} {_name(Path(path).name)}", fallback)


# -- writing ------------------------------------------------------------------------------------
def writable_target(path: str | os.PathLike[str], what: str = "file") -> Path:
    """The path a write to ``path`` replaces: the name itself. A symbolic link there is
    replaced by the new file, never written through (a link in a folder someone sent can point
    at a shell start-up file or another project); a folder, FIFO, device or socket is refused;
    the folder must exist."""
    p = Path(path)
    if not os.fspath(p):
        raise FileRefused(f"no {what} name given")
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise FileRefused(f"cannot write {what} {_name(p)}: {_os_message(exc)}") from None
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        if stat.S_ISDIR(st.st_mode):
            raise FileRefused(f"{_name(p)} is a folder; give a file name to write")
        raise FileRefused(f"{_name(p)} is {_kind(st.st_mode)}; it is not replaced by a "
                          f"{what}: give a file name to write")
    folder = p.parent if os.fspath(p.parent) else Path(".")
    if not folder.is_dir():
        raise FileRefused(f"cannot write {_name(p)}: folder {_name(folder)} does not exist")
    return p


def _is_regular(path: Path) -> os.stat_result | None:
    """The file's own status when ``path`` names a regular file itself (not through a link)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def _new_file_mode(executable: bool = False) -> int:
    umask = os.umask(0)
    os.umask(umask)
    return (0o777 if executable else 0o666) & ~umask


def atomic_write_with(path: str | os.PathLike[str], fill, keep_backup: bool = True,
                      executable: bool = False, left: LeftTemporaries | None = None) -> None:
    """Write a file by ``fill(binary file object)`` into a temporary file beside ``path``,
    flush it to disk, then rename it over ``path``: the one write path of every output.

    The previous file, when it is a regular file, is kept as ``<name>.bak`` and its mode kept;
    a new file gets the user's umask (``executable``: with the execute bits the umask allows).
    A symlink at ``path`` is replaced, not followed; anything else but a regular file is
    refused. At no moment is ``path`` missing or half written. ``left``: the temporaries in
    the folder, listed once for many files (else the folder is listed for this one).
    """
    target = writable_target(path)
    folder = target.parent if os.fspath(target.parent) else Path(".")
    _remove_stale_temporaries(target, left)
    # mkstemp creates with O_EXCL: never through a link planted at the temporary's name
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        old = _is_regular(target)
        mode = old.st_mode & 0o7777 if old is not None and not executable else \
            _new_file_mode(executable)
        os.fchmod(fd, mode)  # mkstemp makes the file private
        with os.fdopen(fd, "wb") as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if keep_backup and old is not None:
            _keep_backup(target)
        # Checked again just before the rename: the name may have become a device since.
        writable_target(target)
        os.replace(tmp, target)
        _fsync_dir(folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write(path: str | os.PathLike[str], data: bytes, keep_backup: bool = True,
                 executable: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (see ``atomic_write_with``)."""
    atomic_write_with(path, lambda fh: fh.write(data), keep_backup, executable)


def write_file(path: str | os.PathLike[str], data: bytes, what: str = "file",
               executable: bool = False, left: LeftTemporaries | None = None) -> None:
    """Write ``data`` to ``path`` atomically, with a refusal a person can act on."""
    try:
        atomic_write_with(path, lambda fh: fh.write(data), False, executable, left)
    except OSError as exc:
        raise FileRefused(f"cannot write {_name(path)}: {_os_message(exc)}") from None


def write_stream(path: str | os.PathLike[str], chunks,
                 left: LeftTemporaries | None = None) -> int:
    """Write text ``chunks`` to ``path`` as UTF-8, atomically, never holding the whole text;
    returns the characters written."""
    size = 0

    def fill(fh) -> None:
        nonlocal size
        for chunk in chunks:
            fh.write(chunk.encode("utf-8"))
            size += len(chunk)

    try:
        atomic_write_with(path, fill, keep_backup=False, left=left)
    except OSError as exc:
        raise FileRefused(f"cannot write {_name(path)}: {_os_message(exc)}") from None
    return size


# A temporary file this old was left by a save that was killed: no save takes this long.
STALE_TEMPORARY_S = 60.0


class LeftTemporaries:
    """The temporary files in one folder, by the name of the file each was for, listed once:
    an export of thousands of files into one folder would otherwise list the folder again for
    every file."""

    def __init__(self, folder: Path) -> None:
        self.by_name: dict[str, list[str]] = {}
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                name = _temporary_of(entry.name)
                if name is not None:
                    self.by_name.setdefault(name, []).append(entry.path)

    def take(self, name: str) -> list[str]:
        return self.by_name.pop(name, [])


def _temporary_of(name: str) -> str | None:
    """The name of the file a temporary named ``name`` was for (".NAME." + mkstemp's 8
    characters + ".tmp"), or None when it is not one."""
    if len(name) > 14 and name[0] == "." and name.endswith(".tmp") and name[-13] == ".":
        return name[1:-13]
    return None


def _remove_stale_temporaries(target: Path, left: LeftTemporaries | None = None) -> None:
    """Remove the temporary files earlier saves of ``target`` left behind when they were
    killed before their rename (they can be as large as the design)."""
    if left is None:
        left = LeftTemporaries(target.parent)
    now = time.time()
    for path in left.take(target.name):
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_TEMPORARY_S:
                os.unlink(path)


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def _keep_backup(target: Path) -> None:
    backup = backup_path(target)
    staging = backup.with_name(backup.name + ".tmp")
    with contextlib.suppress(OSError):
        os.unlink(staging)
    try:
        os.link(target, staging)  # a second name for the old file: no copy, no gap
    except OSError:
        import shutil

        shutil.copy2(target, staging)
    os.replace(staging, backup)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


# -- many files into one folder -----------------------------------------------------------------
# What a file name may hold on every system a folder may be copied to: no separators, no
# characters Windows refuses, nothing invisible.
_NAME_FORBIDDEN = set('/\\:*?"<>|\x00')
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                     *(f"lpt{i}" for i in range(1, 10))}
FILE_NAME_MAX = 200


def is_safe_file_name(name: str) -> bool:
    """True when ``name`` can be one path component on Linux, macOS and Windows alike."""
    return (
        0 < len(name) <= FILE_NAME_MAX
        and name not in (".", "..")
        and not name.startswith((".", "-", " "))
        and not name.endswith((" ", "."))
        and not any(c in _NAME_FORBIDDEN or ord(c) < 32 or 0x7F <= ord(c) <= 0x9F
                    for c in name)
        and name.split(".")[0].lower() not in _WINDOWS_RESERVED
    )


class ExportFolder:
    """A folder an export writes many files into. Each path is built from safe names inside
    it; a path written twice in one export is refused (two things mapped to one name would
    otherwise leave one file for both, silently). The folder and every subfolder it writes into
    are real folders: a symbolic link in their place is refused, never followed."""

    def __init__(self, path: str | os.PathLike[str], what: str = "export") -> None:
        p = Path(path)
        if not os.fspath(p):
            raise FileRefused(f"no folder name given for the {what}")
        _real_folder(p, f"the {what}")
        self.root = p
        self.what = what
        self.written: list[Path] = []
        self._seen: set[str] = set()
        self._left: dict[Path, LeftTemporaries] = {}  # each folder listed once

    def path(self, *parts: str) -> Path:
        """The path of ``parts`` inside the folder; each part must be a safe file name."""
        for part in parts:
            if not is_safe_file_name(part):
                raise FileRefused(f"'{shown(part, 80)}' cannot be a file name in "
                                  f"{_name(self.root)}")
        return self.root.joinpath(*parts)

    def target(self, parts: tuple[str, ...] | str) -> Path:
        """The path ``parts`` is written to, its subfolders made (real folders, not links)."""
        parts = (parts,) if isinstance(parts, str) else tuple(parts)
        target = self.path(*parts)
        key = "/".join(p.lower() for p in parts)  # case-insensitive file systems too
        if key in self._seen:
            raise FileRefused(f"{_name(target)} would be written twice in one {self.root.name} "
                              "export; two names map to one file")
        self._seen.add(key)
        folder = self.root
        for part in parts[:-1]:
            folder = folder / part
            _real_folder(folder, f"the {self.what}")
        return target

    def write(self, parts: tuple[str, ...] | str, data: bytes | str,
              executable: bool = False) -> Path:
        target = self.target(parts)
        write_file(target, data.encode("utf-8") if isinstance(data, str) else data,
                   executable=executable, left=self._left_in(target.parent))
        self.written.append(target)
        return target

    def write_stream(self, parts: tuple[str, ...] | str, chunks) -> int:
        target = self.target(parts)
        size = write_stream(target, chunks, left=self._left_in(target.parent))
        self.written.append(target)
        return size

    def _left_in(self, folder: Path) -> LeftTemporaries:
        left = self._left.get(folder)
        if left is None:
            left = self._left[folder] = LeftTemporaries(folder)
        return left


def _real_folder(p: Path, what: str) -> None:
    """Make folder ``p`` when missing; refuse it when it is a link, a file or a device."""
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise FileRefused(f"cannot write {_name(p)}: {_os_message(exc)}") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            return
        if stat.S_ISLNK(st.st_mode):
            raise FileRefused(f"{_name(p)} is a symbolic link; {what} is not written through "
                              "it: give a folder name")
        kind = "a file" if stat.S_ISREG(st.st_mode) else _kind(st.st_mode)
        raise FileRefused(f"{_name(p)} is {kind}; {what} is a folder: give a folder name")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FileRefused(f"cannot make folder {_name(p)}: {_os_message(exc)}") from None


def copy_tree(src: str | os.PathLike[str], dest: str | os.PathLike[str], what: str,
              skip: tuple[str, ...] = ()) -> None:
    """Copy the regular files of our own working folder ``src`` into ``dest`` through the
    one write path: links in ``dest`` are replaced or refused, never followed. Names ending in
    one of ``skip`` (sockets' names, say) and anything but folders and files are left out."""
    import shutil

    root = Path(src)
    for here, dirs, files in os.walk(root):
        rel = Path(here).relative_to(root)
        folder = Path(dest) / rel
        _real_folder(folder, what)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(here, d))]
        for name in files:
            s = Path(here) / name
            if name.endswith(skip) or _is_regular(s) is None:
                continue
            with open(s, "rb") as fh:
                atomic_write_with(folder / name, lambda out, fh=fh: shutil.copyfileobj(fh, out),
                                  keep_backup=False)
