"""The application on the user's desktop: a menu entry and icon, a MIME type for project files
so a double-click opens them, and the desktop's list of recently used files.

Nothing here imports Qt; the command ``designer desktop`` and the window call it.
"""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "install": "installer",
    "status": "installer",
    "uninstall": "installer",
    "add_recent": "recent",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.desktop.installer import install, status, uninstall
    from designer.core.desktop.recent import add_recent

__all__ = [
    "add_recent",
    "install",
    "status",
    "uninstall",
]
