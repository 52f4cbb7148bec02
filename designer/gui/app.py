"""Start the application: ``designer`` or ``designer FILE``."""

from __future__ import annotations

import os
import sys
import traceback


def _no_display() -> bool:
    """On Linux without X11/Wayland, Qt would abort; say so instead."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def make_app(argv: list[str] | None = None):
    """The QApplication with the app's names (for QSettings and app-data) and style."""
    from PySide6.QtWidgets import QApplication

    from designer.gui import settings, style

    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName(settings.ORGANIZATION)
    app.setApplicationName(settings.APPLICATION)
    app.setApplicationDisplayName("Fabric Designer")
    if not app.property("fabricDesignerReady"):
        # once: restyling a running app re-polishes every widget it has
        app.setProperty("fabricDesignerReady", True)
        style.apply_app_style(app)
        app.aboutToQuit.connect(_release_clipboard)
    return app


def _release_clipboard() -> None:
    """Drop our devices from the clipboard on exit: PySide6 crashes on exit otherwise."""
    from PySide6.QtGui import QGuiApplication

    from designer.gui.canvas.interactions import DEVICES_MIME

    clip = QGuiApplication.clipboard()
    mime = clip.mimeData()
    if mime is not None and mime.hasFormat(DEVICES_MIME):
        clip.clear()


def _install_excepthook(window) -> None:
    """An unexpected error shows a dialog instead of vanishing; work is autosaved anyway."""

    def hook(kind, value, tb) -> None:
        traceback.print_exception(kind, value, tb)
        try:
            from designer.gui import dialogs

            window.autosave()
            dialogs.show_error(
                window,
                "Unexpected error",
                f"{kind.__name__}: {value}\n\nYour design was autosaved; please report this.",
            )
        except Exception:  # the hook must never raise
            pass

    sys.excepthook = hook


def run_app(path: str | None = None) -> int:
    if _no_display():
        print(
            "designer: no display found (DISPLAY is not set). Run it on a desktop, under "
            "xvfb-run, or set QT_QPA_PLATFORM=offscreen; the commands work without one "
            "(designer --help).",
            file=sys.stderr,
        )
        return 2
    app = make_app()
    from designer.gui.main_window import MainWindow

    window = MainWindow()
    _install_excepthook(window)
    window.show()
    recovered = window.check_recovery()
    if path:
        if recovered:
            window.doc.say(f"A crashed session was recovered; open {path} from File > Open")
        else:
            window.open_path(path, ask=False)
    return app.exec()
