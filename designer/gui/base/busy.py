"""The application object for code that draws without the window, and the wait cursor.

Below every other part of the GUI: the exports and the file actions use these without
importing the start-up code that builds the window.
"""

from __future__ import annotations

import contextlib
import os


def ensure_app():
    """The running QApplication, or a bare offscreen one for drawing without a window (the
    command line's image and PDF exports)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        # always offscreen: drawing needs no window, and a platform plugin that needs one
        # (QT_QPA_PLATFORM=xcb without a display) aborts the whole process
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        app = QApplication([])
    return app


@contextlib.contextmanager
def busy_cursor():
    """A wait cursor while the GUI thread works; the usual one again on the way out, also when
    the work raises (the error dialog that follows shows the usual cursor)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        yield
    finally:
        QApplication.restoreOverrideCursor()
