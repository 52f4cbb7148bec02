"""Install the menu entry, icon and project-file type for the current user, and remove them.

Files go where the XDG Base Directory specification puts a user's own: the entry in
``$XDG_DATA_HOME/applications``, the icon in the hicolor theme, the MIME package in
``$XDG_DATA_HOME/mime/packages`` (compiled by ``update-mime-database``), and the default
application for project files in ``$XDG_CONFIG_HOME/mimeapps.list``. Nothing needs root.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from designer.core.desktop.entry import (
    APP_ID,
    DESKTOP_FILE,
    ICON_NAME,
    MIME_TYPE,
    desktop_entry,
    mime_package,
)
from designer.core.errors import DesignerError
from designer.core.fileformat import atomic_write
from designer.core.paths import resources_dir

DEFAULT_APPS = "Default Applications"
ADDED_ASSOCIATIONS = "Added Associations"


class DesktopError(DesignerError):
    """The desktop files could not be written or removed."""


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text.encode("utf-8"), keep_backup=False)


def _xdg(var: str, default: Path) -> Path:
    """An XDG base folder: the variable when it holds an absolute path; a relative one is
    ignored, as the XDG Base Directory specification says (it would be taken relative to
    whatever folder the command runs in)."""
    value = os.environ.get(var) or ""
    return Path(value) if os.path.isabs(value) else default


def data_home() -> Path:
    return _xdg("XDG_DATA_HOME", Path.home() / ".local" / "share")


def config_home() -> Path:
    return _xdg("XDG_CONFIG_HOME", Path.home() / ".config")


@dataclass(frozen=True)
class Paths:
    desktop: Path
    icon: Path
    mime: Path
    mimeapps: Path

    @classmethod
    def for_user(cls) -> Paths:
        data = data_home()
        return cls(
            desktop=data / "applications" / DESKTOP_FILE,
            icon=data / "icons" / "hicolor" / "scalable" / "apps" / f"{ICON_NAME}.svg",
            mime=data / "mime" / "packages" / f"{APP_ID}.xml",
            mimeapps=config_home() / "mimeapps.list",
        )


@dataclass
class Outcome:
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # tools not found: what the user misses

    def lines(self) -> list[str]:
        return ([f"removed {p}" for p in self.removed] + [f"wrote {p}" for p in self.written]
                + [f"ran {c}" for c in self.ran] + self.skipped)


def _mimeapps(path: Path) -> configparser.ConfigParser:
    cp = configparser.ConfigParser(interpolation=None, strict=False)
    cp.optionxform = str  # MIME types and desktop ids are case-sensitive
    if path.is_file():
        try:
            cp.read(path, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError) as exc:
            raise DesktopError(f"{path}: not a mimeapps.list this can update ({exc})") from None
    return cp


def _write_mimeapps(path: Path, cp: configparser.ConfigParser) -> None:
    lines: list[str] = []
    for section in cp.sections():
        lines.append(f"[{section}]")
        lines += [f"{k}={v}" for k, v in cp.items(section)]
        lines.append("")
    write_text_atomic(path, "\n".join(lines))


def _run(tool: str, *args: str, out: Outcome, why: str) -> None:
    exe = shutil.which(tool)
    if exe is None:
        package = ("shared-mime-info" if tool == "update-mime-database"
                   else "desktop-file-utils")
        out.skipped.append(f"{tool} not found ({why}); on Debian or Ubuntu it comes with "
                           f"{package}")
        return
    done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        out.skipped.append(f"{tool} failed: {(done.stderr or done.stdout).strip()[:200]}")
        return
    out.ran.append(" ".join([tool, *args]))


def install(command: list[str] | None = None, paths: Paths | None = None) -> Outcome:
    """Write the entry, the icon and the MIME package, compile the MIME database and make
    the application the default for project files."""
    p = paths or Paths.for_user()
    out = Outcome()
    icon = resources_dir() / "icons" / f"{ICON_NAME}.svg"
    try:
        write_text_atomic(p.desktop, desktop_entry(command))
        write_text_atomic(p.icon, icon.read_text(encoding="utf-8"))
        write_text_atomic(p.mime, mime_package())
        cp = _mimeapps(p.mimeapps)
        for section in (DEFAULT_APPS, ADDED_ASSOCIATIONS):
            if not cp.has_section(section):
                cp.add_section(section)
        cp.set(DEFAULT_APPS, MIME_TYPE, DESKTOP_FILE)
        added = [x for x in cp.get(ADDED_ASSOCIATIONS, MIME_TYPE, fallback="").split(";") if x]
        cp.set(ADDED_ASSOCIATIONS, MIME_TYPE,
               ";".join([DESKTOP_FILE, *[x for x in added if x != DESKTOP_FILE]]) + ";")
        _write_mimeapps(p.mimeapps, cp)
    except OSError as exc:
        raise DesktopError(f"cannot write the desktop files: {exc.strerror or exc} "
                           f"({exc.filename})") from None
    out.written += [p.desktop, p.icon, p.mime, p.mimeapps]
    _run("update-mime-database", str(p.mime.parent.parent), out=out,
         why="double-clicking a project file will not know its type until it runs")
    _run("update-desktop-database", str(p.desktop.parent), out=out,
         why="the menu may list the application only after the next login")
    return out


def uninstall(paths: Paths | None = None) -> Outcome:
    p = paths or Paths.for_user()
    out = Outcome()
    for f in (p.desktop, p.icon, p.mime):
        if f.is_file():
            f.unlink()
            out.removed.append(f)
    if p.mimeapps.is_file():
        cp = _mimeapps(p.mimeapps)
        changed = False
        for section in (DEFAULT_APPS, ADDED_ASSOCIATIONS):
            if cp.has_option(section, MIME_TYPE):
                rest = [x for x in cp.get(section, MIME_TYPE).split(";")
                        if x and x != DESKTOP_FILE]
                if rest:
                    cp.set(section, MIME_TYPE, ";".join(rest) + (";" if section ==
                                                                  ADDED_ASSOCIATIONS else ""))
                else:
                    cp.remove_option(section, MIME_TYPE)
                changed = True
        if changed:
            _write_mimeapps(p.mimeapps, cp)
            out.written.append(p.mimeapps)
    if p.mime.parent.parent.is_dir():
        _run("update-mime-database", str(p.mime.parent.parent), out=out, why="")
    if p.desktop.parent.is_dir():
        _run("update-desktop-database", str(p.desktop.parent), out=out, why="")
    return out


def status(paths: Paths | None = None) -> dict[str, bool | str]:
    p = paths or Paths.for_user()
    cp = _mimeapps(p.mimeapps) if p.mimeapps.is_file() else None
    default = cp.get(DEFAULT_APPS, MIME_TYPE, fallback="") if cp else ""
    return {"entry": p.desktop.is_file(), "icon": p.icon.is_file(), "mime": p.mime.is_file(),
            "default_for_projects": default == DESKTOP_FILE, "desktop_file": str(p.desktop)}
