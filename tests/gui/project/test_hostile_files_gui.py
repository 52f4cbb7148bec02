"""The window and hostile files: one readable message, the design kept, never a crash, and a
load that keeps the window drawing."""

from __future__ import annotations

import json
import threading
import time

import pytest

from designer.core.paths import projects_dir

K8 = projects_dir() / "k-ary-fat-tree-k8.fabric.json"


def hostile_files(tmp_path):
    raw = json.loads(K8.read_text())
    own = dict(raw)
    own["overrides"] = dict(raw["overrides"])
    own["overrides"]["gear"] = [dict(g) for g in raw["overrides"]["gear"]]
    own["overrides"]["gear"][0]["price_usd"] = 1e308
    bomb = {"schema_version": 2, "fabric": {
        "devices": [{"id": "s1", "name": "s1", "model": "qm9700", "role": "leaf"},
                    {"id": "s2", "name": "s2", "model": "qm9700", "role": "spine"}],
        "links": {"a": [0] * 400, "a_port": [1] * 400, "b": [1] * 400, "b_port": [1] * 400,
                  "count": [1_000_000] * 400}}}
    labels = json.loads(K8.read_text())
    labels["fabric"]["devices"][0]["groups"] = {"pod": 2**31}
    files = {}
    for name, data, expected in (
        ("price", own, "price_usd"),
        ("bomb", bomb, "cables"),
        ("labels", labels, "groups.pod"),
    ):
        path = tmp_path / f"{name}.fabric.json"
        path.write_text(json.dumps(data))
        files[name] = (path, expected)
    return files


def test_hostile_files_give_one_readable_message_and_keep_the_design(window, answers, tmp_path):
    assert window.open_path(K8, ask=False)
    before, path_before = window.doc.project, window.doc.path
    for path, expected in hostile_files(tmp_path).values():
        answers.errors.clear()
        assert not window.open_path(path, ask=False)
        ((title, text),) = answers.errors
        assert title == "Cannot open the design" and expected in text, text
        assert "Error" not in text and "Traceback" not in text
        assert window.doc.project is before and window.doc.path == path_before


def test_a_cancelled_open_keeps_the_design(window, answers, monkeypatch, qtbot):
    from designer.core import fileformat
    from designer.gui.project import files

    before = window.doc.project
    started = threading.Event()

    def slow_load(path, catalog, progress, cancelled):
        started.set()
        deadline = time.monotonic() + 20
        while not cancelled():
            if time.monotonic() > deadline:
                raise AssertionError("Cancel never reached the load")
            time.sleep(0.01)
        raise fileformat.LoadCancelled

    monkeypatch.setattr(files, "load_project", slow_load)
    # press Cancel on the progress dialog once the load runs
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QProgressDialog

    def press_cancel():
        dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QProgressDialog)]
        if started.is_set() and dialogs:
            dialogs[-1].canceled.emit()  # what the Cancel button sends
            return
        QTimer.singleShot(20, press_cancel)

    QTimer.singleShot(20, press_cancel)
    assert not window.open_path(K8, ask=False)
    assert window.doc.project is before and not answers.errors


def test_a_file_opens_while_the_window_keeps_drawing(window, answers, qapp, monkeypatch):
    """The file is read and checked in a worker: the (held) load finishes only once a timer
    in the window has fired ten times, which it cannot do if the load holds the GUI thread;
    the progress it reports reaches the dialog."""
    from PySide6.QtCore import QTimer

    from designer.core import fileformat
    from designer.gui.project import files

    beats: list[int] = []
    reported: list[float] = []

    def held_load(path, catalog, progress, cancelled):
        deadline = time.monotonic() + 120  # only a hang's backstop, never a measure
        while len(beats) < 10:
            if time.monotonic() > deadline:
                raise AssertionError("the window's event loop never ran during the load")
            time.sleep(0.005)
            progress(min(len(beats), 9) / 10, "checking devices")
            reported.append(len(beats) / 10)
        return fileformat.load_project(path, catalog)

    monkeypatch.setattr(files, "load_project", held_load)
    timer = QTimer()
    timer.timeout.connect(lambda: beats.append(1))
    timer.start(10)
    try:
        assert window.open_path(projects_dir() / "dgx-superpod-64su-ib-ndr.fabric.json",
                                ask=False)
    finally:
        timer.stop()
    assert len(window.doc.project.fabric.devices) == 3_328
    assert reported and len(beats) >= 10


@pytest.mark.qt_no_exception_capture
def test_an_error_in_a_panel_shows_in_the_status_bar_never_a_modal_box(window, answers, qtbot,
                                                                      monkeypatch):
    import sys

    from designer.gui import app as gui_app

    messages: list[tuple[str, bool]] = []
    window.doc.message.connect(lambda text, refusal: messages.append((text, refusal)))
    old_hook = sys.excepthook
    gui_app._install_excepthook(window)
    try:
        def broken(*args):
            raise OverflowError("cannot convert float infinity to integer")

        monkeypatch.setattr(window.analysis.bom, "show_result", broken)
        window.analysis.service.resultReady.disconnect()
        window.analysis.service.resultReady.connect(broken)
        window.analysis.service.resultReady.connect(window.analysis.metrics.show_result)
        assert window.open_path(K8, ask=False)
        with qtbot.waitSignal(window.analysis.service.resultReady, timeout=20_000):
            window.analysis.service.solve_now()
        qtbot.waitUntil(lambda: any("Something went wrong" in m for m, _ in messages))
    finally:
        sys.excepthook = old_hook
    assert not answers.errors  # no modal error box
    text = next(m for m, _ in messages if "Something went wrong" in m)
    assert "OverflowError" in text and "autosaved" in text
    assert window.isVisible()
