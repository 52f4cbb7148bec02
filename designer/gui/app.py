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


def _missing_x11_libraries() -> list[str]:
    """Debian packages of the X11 libraries Qt's xcb plugin lacks (Qt aborts without them)."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return []
    if not os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return []
    import importlib.util
    import re
    import shutil
    import subprocess
    from pathlib import Path

    spec = importlib.util.find_spec("PySide6")
    ldd = shutil.which("ldd")
    if spec is None or spec.origin is None or ldd is None:
        return []
    qt = Path(spec.origin).parent / "Qt"
    libs = [qt / "plugins" / "platforms" / "libqxcb.so", *sorted(qt.glob("lib/libQt6XcbQpa.so*"))]
    missing: dict[str, None] = {}
    for lib in libs:
        if not lib.exists():
            continue
        try:
            out = subprocess.run([ldd, str(lib)], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return []
        for name in re.findall(r"^\s*(\S+) => not found", out.stdout, re.M):
            missing[debian_package(name)] = None
    return list(missing)


def debian_package(soname: str) -> str:
    """Debian's package name for a library: libxcb-icccm.so.4 -> libxcb-icccm4,
    libxkbcommon-x11.so.0 -> libxkbcommon-x11-0 (a dash when the name ends in a digit)."""
    import re

    m = re.match(r"(.+?)\.so\.(\d+)", soname)
    if not m:
        return soname
    base, ver = m.groups()
    return f"{base}-{ver}" if base[-1].isdigit() else f"{base}{ver}"


def make_app(argv: list[str] | None = None):
    """The QApplication with the app's names (for QSettings and app-data) and style."""
    from PySide6.QtWidgets import QApplication

    from designer.gui.base import settings, style

    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName(settings.ORGANIZATION)
    app.setApplicationName(settings.APPLICATION)
    app.setApplicationDisplayName("Fabric Designer")
    # the desktop entry's id: the window is grouped under the menu entry and its icon
    app.setDesktopFileName("fabric-designer")
    if not app.property("fabricDesignerReady"):
        # once: restyling a running app re-polishes every widget it has
        app.setProperty("fabricDesignerReady", True)
        style.apply_app_style(app)
        from designer.gui.base import spin_refusal

        spin_refusal.install(app)
        app.setWindowIcon(app_icon())
        app.aboutToQuit.connect(_release_clipboard)
    return app


def app_icon():
    """The application's icon (``resources/icons/fabric-designer.svg``), empty if missing."""
    from PySide6.QtGui import QIcon

    from designer.core.paths import resources_dir

    path = resources_dir() / "icons" / "fabric-designer.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()


def _release_clipboard() -> None:
    """Drop our devices from the clipboard on exit: PySide6 crashes on exit otherwise."""
    from PySide6.QtGui import QGuiApplication

    from designer.gui.canvas.interactions import DEVICES_MIME

    clip = QGuiApplication.clipboard()
    mime = clip.mimeData()
    if mime is not None and mime.hasFormat(DEVICES_MIME):
        clip.clear()


def _install_excepthook(window) -> None:
    """An unexpected error (a bug in a panel, say) is shown in the status bar and the work is
    autosaved; the window goes on. Never a modal box here: the hook runs inside whatever
    callback failed, and a nested event loop there can re-enter it and take the window down."""

    def hook(kind, value, tb) -> None:
        traceback.print_exception(kind, value, tb)
        try:
            from designer.core.errors import readable

            window.autosave()
            window.doc.say(f"Something went wrong: {readable(value)}. Your design was "
                           "autosaved; the details are in the log.", True)
        except Exception:  # the hook must never raise
            pass

    sys.excepthook = hook


SCREENSHOT_WAIT_S = 300  # the longest a --screenshot run waits for the analysis


def run_app(path: str | None = None, screenshot: str | None = None) -> int:
    """Open the window (on ``path``). With ``screenshot``, save a picture of the window once the
    design is open and analysed, and quit: a check that the window works wherever the app is
    installed, and the source of the documentation's pictures."""
    if _no_display():
        print(
            "designer: no display found (DISPLAY is not set). Run it on a desktop, under "
            "xvfb-run, or set QT_QPA_PLATFORM=offscreen; the commands work without one "
            "(designer --help).",
            file=sys.stderr,
        )
        return 2
    missing = _missing_x11_libraries()
    if missing:
        names = " ".join(missing)
        print(
            f"designer: Qt needs X11 libraries this system lacks to open a window; install "
            f"them (Debian/Ubuntu: sudo apt-get install {names}) or run with "
            "QT_QPA_PLATFORM=offscreen",
            file=sys.stderr,
        )
        return 2
    app = make_app()
    from designer.gui.main_window import MainWindow

    window = MainWindow()
    _install_excepthook(window)
    window.show()
    if screenshot:
        window.resize(1728, 972)  # the default window on a 1920 x 1080 screen
        return _screenshot(app, window, path, screenshot)
    recovered = window.check_recovery()
    if path:
        if recovered:
            window.doc.say(f"A crashed session was recovered; open {path} from File > Open")
        else:
            window.open_path(path, ask=False)
    if window.closing:  # closed (Ctrl+Q) while the file was still being read
        return 0
    return app.exec()


def _screenshot(app, window, path: str | None, out: str) -> int:
    import time

    from PySide6.QtCore import QTimer

    if path and not window.open_path(path, ask=False):
        print(f"designer: could not open {path}", file=sys.stderr)
        return 2
    service = window.analysis.service
    deadline = time.monotonic() + SCREENSHOT_WAIT_S
    result: list[int] = []

    def check() -> None:
        if not service.up_to_date and time.monotonic() < deadline:
            return
        timer.stop()
        # a few more turns: the panels draw in steps after a result
        QTimer.singleShot(800, lambda: finish(service.up_to_date))

    def finish(analysed: bool) -> None:
        ok = window.grab().save(out)
        if not ok:
            print(f"designer: could not write {out}", file=sys.stderr)
        elif not analysed:
            print(f"designer: the analysis did not finish in {SCREENSHOT_WAIT_S} s",
                  file=sys.stderr)
        else:
            print(f"wrote {out}")
        result.append(0 if ok and analysed else 1)
        window.doc.undo_stack.setClean()
        window.close()
        app.quit()

    timer = QTimer()
    timer.timeout.connect(check)
    timer.start(50)
    app.exec()
    return result[0] if result else 1
