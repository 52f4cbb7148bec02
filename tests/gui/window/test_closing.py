"""Closing the window whatever runs: every worker is told to stop, and close never waits out
one that does not (its wait is bounded; the worker is a daemon thread that ends with the
process)."""

from __future__ import annotations

import threading

from designer.core.solver.control import SolveCancelled
from designer.gui.base import background
from designer.gui.cluster import panel as cluster_panel

WAIT_MS = 20_000


def _start_cluster(window, qtbot, monkeypatch, replay) -> background.BackgroundTask:
    monkeypatch.setattr(cluster_panel, "cluster_project", replay)
    monkeypatch.setattr(cluster_panel, "synthetic", lambda *a, **k: None)
    started = threading.Event()
    monkeypatch.setattr(background.BackgroundTask, "start", _marking(started))
    panel = window.cluster
    panel.run()
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    assert panel.task is not None and panel.task.running
    return panel.task


def _marking(started):
    real = background.BackgroundTask.start

    def start(self):
        real(self)
        started.set()

    return start


def test_closing_cancels_a_cluster_run_in_progress(window, qtbot, monkeypatch):
    inside = threading.Event()
    seen_cancel = threading.Event()

    def replay(*_a, cancelled=None, **_k):
        inside.set()
        while not cancelled():
            threading.Event().wait(0.002)
        seen_cancel.set()
        raise SolveCancelled()

    task = _start_cluster(window, qtbot, monkeypatch, replay)
    qtbot.waitUntil(inside.is_set, timeout=WAIT_MS)
    window.doc.undo_stack.setClean()
    window.close()
    assert not window.isVisible()
    assert seen_cancel.is_set()  # told to stop, and stopped within the close
    assert not task._thread.is_alive()


def test_close_does_not_wait_on_a_worker_that_ignores_the_cancel(window, qtbot, monkeypatch):
    inside = threading.Event()
    release = threading.Event()

    def stubborn(*_a, cancelled=None, **_k):
        inside.set()
        release.wait(60)  # one long call that never looks at the cancel flag
        raise SolveCancelled()

    task = _start_cluster(window, qtbot, monkeypatch, stubborn)
    qtbot.waitUntil(inside.is_set, timeout=WAIT_MS)
    window.doc.undo_stack.setClean()
    window.close()
    try:
        assert not window.isVisible()
        assert task._cancel.is_set()
        # close returned with the worker still inside its call: it did not wait it out
        assert task._thread.is_alive() and not release.is_set()
        assert background._close_by is None  # the budget ends with the close
    finally:
        release.set()
        task._thread.join(10)
