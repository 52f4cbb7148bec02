"""Where the window keeps what it remembers: QSettings (geometry, docks, recent files) and the
app-data folder (autosave recovery files).

Both can be pointed elsewhere, which the tests do so they never touch the user's own:
``QSettings.setPath(IniFormat, UserScope, folder)`` and ``FABRIC_DESIGNER_DATA_DIR``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

ORGANIZATION = "FabricDesigner"
APPLICATION = "Fabric Designer"
SETTINGS_NAME = "fabric-designer"
DATA_DIR_ENV = "FABRIC_DESIGNER_DATA_DIR"
MAX_RECENT = 10


def settings() -> QSettings:
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, SETTINGS_NAME
    )


def data_dir() -> Path:
    """The app-data folder (autosave recovery): ``$XDG_DATA_HOME/fabric-designer`` on Linux
    (``~/.local/share/fabric-designer``), the platform's own data folder elsewhere. Files an
    earlier version kept under the organisation's name move here once."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        path = Path(env)
    else:
        loc = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
        path = (Path(loc) if loc else Path.home() / ".local" / "share") / SETTINGS_NAME
        old = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
        if old and Path(old).is_dir() and not path.exists():
            with contextlib.suppress(OSError):
                Path(old).rename(path)
    path.mkdir(parents=True, exist_ok=True)
    return path


def recent_files() -> list[str]:
    value = settings().value("recentFiles", [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in (value or []) if v]


def add_recent_file(path: str | Path) -> list[str]:
    """First in File > Open Recent, and in the desktop's recently used files (Linux), where
    file dialogs and file managers list it too."""
    p = str(Path(path).resolve())
    files = [p] + [f for f in recent_files() if f != p]
    files = files[:MAX_RECENT]
    settings().setValue("recentFiles", files)
    if sys.platform.startswith("linux") and not os.environ.get(DATA_DIR_ENV):
        from designer.core.desktop import add_recent

        add_recent(p)
    return files


def remove_recent_file(path: str) -> None:
    settings().setValue("recentFiles", [f for f in recent_files() if f != path])


def clear_recent_files() -> None:
    settings().setValue("recentFiles", [])
