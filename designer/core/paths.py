"""Where the bundled data lives.

In a source checkout (and an editable install) ``resources/`` and ``projects/`` sit at the top
of the repository, beside the package; an installed wheel carries the same folders inside the
package (``designer/_bundled/``, put there by setup.py's build step) and they are found with
``importlib.resources``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parents[2]


def _bundled(name: str) -> Path | None:
    """``designer/_bundled/NAME`` of an installed package, when it is a real folder."""
    try:
        folder = resources.files("designer") / "_bundled" / name
    except (ModuleNotFoundError, TypeError):
        return None
    path = Path(str(folder))
    return path if path.is_dir() else None


def _data_dir(name: str, marker: str | None = None) -> Path:
    checkout = _CHECKOUT / name
    if (checkout / marker).is_dir() if marker else checkout.is_dir():
        return checkout
    return _bundled(name) or checkout


def resources_dir() -> Path:
    """The ``resources`` folder (catalog, icons, desktop files, schemas)."""
    return _data_dir("resources", "catalog")


def projects_dir() -> Path:
    """The bundled example projects."""
    return _data_dir("projects")


def docs_dir() -> Path:
    """The documentation's pages (``docs/``; mkdocs.yml beside it gives their order)."""
    return _data_dir("docs", "window")


def is_bundled_example(path: str | Path) -> bool:
    """Whether ``path`` is one of the bundled example projects (which Save must not overwrite:
    the window saves an opened example elsewhere on its first Save)."""
    try:
        folder = Path(path).resolve().parent
    except OSError:
        return False
    candidates = [_CHECKOUT / "projects", _bundled("projects")]
    return any(c is not None and folder == c.resolve() for c in candidates)
