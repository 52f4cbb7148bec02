"""Where the bundled data lives: ``resources/`` beside the package in a source checkout."""

from __future__ import annotations

import sys
from pathlib import Path

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def resources_dir() -> Path:
    """The ``resources`` folder: the checkout's, or the one installed as data files."""
    candidates = (
        _PACKAGE_ROOT / "resources",
        Path(sys.prefix) / "share" / "fabric-designer" / "resources",
    )
    for path in candidates:
        if (path / "catalog").is_dir():
            return path
    return candidates[0]


def projects_dir() -> Path:
    """The bundled example projects."""
    candidates = (
        _PACKAGE_ROOT / "projects",
        Path(sys.prefix) / "share" / "fabric-designer" / "projects",
    )
    for path in candidates:
        if path.is_dir():
            return path
    return candidates[0]


def is_bundled_example(path: str | Path) -> bool:
    """Whether ``path`` is one of the bundled example projects (which Save must not overwrite:
    the window saves an opened example elsewhere on its first Save)."""
    try:
        folder = Path(path).resolve().parent
    except OSError:
        return False
    candidates = (
        _PACKAGE_ROOT / "projects",
        Path(sys.prefix) / "share" / "fabric-designer" / "projects",
    )
    return any(folder == c.resolve() for c in candidates)
