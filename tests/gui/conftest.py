"""GUI fixtures: a real main window, offscreen, with settings and app data in a temp folder."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path, monkeypatch):
    """Never touch the user's QSettings or app-data folder."""
    from PySide6.QtCore import QSettings

    from designer.gui.base import settings

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "cfg"))
    monkeypatch.setenv(settings.DATA_DIR_ENV, str(tmp_path / "data"))
    yield


@pytest.fixture(autouse=True)
def _garbage_collected_between_tests(qapp):
    """What a test left (closed windows, their canvas items, cycles a large design froze) is
    deleted and collected here, with no event loop running, rather than by a collection that
    happens to start inside the next test's nested event loop (a full pass there once deleted
    a previous test's Qt objects under a running dialog: a segmentation fault)."""
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    yield
    for _ in range(2):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        qapp.processEvents()
    # Only what is not frozen is walked: what this test made (a window that froze a large
    # design handed it back when it closed). What survives is the session's own (modules,
    # caches) and is frozen in turn, so that the next pass skips it: a full walk of it was
    # about 0.15 s a test.
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _no_worker_left():
    """No worker thread or process started by a test outlives it (windows close first)."""
    import multiprocessing
    import threading
    import time

    before = set(threading.enumerate())
    # a process another test left is that test's failure, not every later one's
    before_children = {p.pid for p in multiprocessing.active_children()}
    yield
    deadline = time.monotonic() + 5.0
    while True:
        left = [t for t in threading.enumerate()
                if t not in before and t.is_alive() and not isinstance(t, threading._DummyThread)]
        children = [p for p in multiprocessing.active_children() if p.pid not in before_children]
        if not (left or children) or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not left, f"worker threads left running: {[t.name for t in left]}"
    assert not children, f"worker processes left running: {children}"


@pytest.fixture
def app(qapp):
    from PySide6.QtGui import QGuiApplication

    from designer.gui.app import make_app

    yield make_app()
    # mime data left on the offscreen clipboard crashes the interpreter at exit
    QGuiApplication.clipboard().clear()


@pytest.fixture
def window(app, qapp, qtbot, tmp_path):
    from designer.gui.main_window import MainWindow

    w = MainWindow(data_dir=tmp_path / "data")
    # pytest-qt closes the window before fixtures end: drop unsaved work so closing never asks
    qtbot.addWidget(w, before_close_func=lambda win: win.doc.undo_stack.setClean())
    w.resize(1400, 900)
    w.show()
    qapp.processEvents()
    return w


@pytest.fixture
def answers(monkeypatch):
    """Scripted answers for the window's questions; records what was asked."""
    from designer.gui.base import dialogs

    class Answers:
        open_path = None
        save_path = None
        save_changes = "discard"
        recover = "recover"
        confirm = True
        text = None

        def __init__(self):
            self.errors: list[tuple[str, str]] = []
            self.asked: list[str] = []

    a = Answers()
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *args: a.open_path)
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *args: a.save_path)
    monkeypatch.setattr(
        dialogs, "show_error", lambda _p, title, text: a.errors.append((title, text))
    )

    def save_changes(*args):
        a.asked.append("save_changes")
        return a.save_changes

    def recover(*args):
        a.asked.append("recover")
        return a.recover

    monkeypatch.setattr(dialogs, "ask_save_changes", save_changes)
    monkeypatch.setattr(dialogs, "ask_recover", recover)
    monkeypatch.setattr(dialogs, "confirm", lambda *args: a.confirm)
    monkeypatch.setattr(dialogs, "ask_text", lambda *args, **kw: a.text)
    return a


@pytest.fixture(scope="module")
def su4():
    """The 4-SU DGX SuperPOD-style rail design (1,024 GPUs) as generated."""
    from designer.core.generators import generate, params_from_dict

    return generate(params_from_dict("rail", {"sus": 4}))
