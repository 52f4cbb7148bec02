"""The Cluster panel: a trace replayed on the open design in a worker thread, the timeline,
the per-job table, the side-by-side with a second design, cancel, and bad rates refused."""

from __future__ import annotations

import threading

from designer.core.fileformat import save_project
from tests.gui.helpers import WAIT_MS, load

TRACE = ("job,arrival_h,gpus,duration_h,workload,tenant\n"
         "a,0,256,10,,t1\nb,0.5,512,6,ring,t2\nc,1,8,3,none,t1\nd,2,300,4,,t2\n")


def _finish(qtbot, panel):
    failed: list[str] = []
    panel.task.failed.connect(failed.append)
    qtbot.waitUntil(lambda: not panel.task.running, timeout=WAIT_MS)
    assert not failed, failed


def test_run_fills_timeline_jobs_and_side_by_side_off_the_gui_thread(window, qtbot, su4,
                                                                      tmp_path, monkeypatch):
    load(window, qtbot, su4)
    from designer.gui.cluster import panel as panel_mod

    where: list[bool] = []
    real = panel_mod.cluster_project

    def spy(*a, **k):
        where.append(threading.current_thread() is threading.main_thread())
        return real(*a, **k)

    monkeypatch.setattr(panel_mod, "cluster_project", spy)
    path = tmp_path / "t.csv"
    path.write_text(TRACE)
    other = tmp_path / "other.fabric.json"
    save_project(su4, other)
    p = window.cluster
    p.set_trace(str(path))
    p.policy.setCurrentText("scattered")
    p.vs.setText(str(other))
    p.run()
    _finish(qtbot, p)
    assert where == [False, False]  # both designs ran in the worker
    r = p.results[0]
    assert r.policy == "scattered" and len(r.job) == 4
    assert p.jobs_model.rowCount() == 4
    assert p.compare.columnCount() == 2
    # the same design twice: the same answers side by side
    goodput_row = [p.compare.verticalHeaderItem(i).text()
                   for i in range(p.compare.rowCount())].index("Goodput")
    assert p.compare.item(goodput_row, 0).text() == p.compare.item(goodput_row, 1).text()
    assert "goodput" in p.summary.text()
    assert len(p.timeline.gpus.listDataItems()) >= 2


def test_bad_rate_is_refused_with_the_cell_named(window, qtbot, su4):
    load(window, qtbot, su4)
    p = window.cluster
    p.rates.item(0, 1).setText("lots")
    p.run()
    assert p.task is None
    assert "gpu, failures per 1,000 days: 'lots' is not a number" in p.summary.text()


def test_cancel_stops_the_run(window, qtbot, su4):
    load(window, qtbot, su4)
    p = window.cluster
    p.jobs.setValue(200_000)  # long enough to be cancelled
    p.run()
    p.task.cancel()
    qtbot.waitUntil(lambda: not p.task.running, timeout=WAIT_MS)
    assert p.summary.text() in ("Cancelled.",) or p.results
    assert p.run_btn.isEnabled()


def test_run_and_its_answer_are_in_view_in_the_default_docked_layout(window, qtbot, su4):
    from PySide6.QtCore import QPoint, QRect

    window.resize(1728, 972)  # the default window on a 1920 x 1080 screen
    load(window, qtbot, su4)
    dock = window.docks["clusterDock"]
    assert not dock.isFloating()
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: window.cluster.run_btn.isVisible(), timeout=WAIT_MS)
    p = window.cluster
    shown = QRect(dock.mapTo(window, QPoint(0, 0)), dock.size())
    for w in (p.run_btn, p.summary):
        r = QRect(w.mapTo(window, QPoint(0, 0)), w.size())
        assert shown.contains(r.topLeft()) and shown.bottom() >= r.top() + 20, w
    # the inputs are a tab of their own, scrolled inside it: Run never moves below the fold
    assert p.tabs.tabText(0) == "Setup"


def test_checkpoint_defaults_to_each_jobs_optimum_and_keeps_a_set_interval(window, qtbot,
                                                                          su4):
    """Young/Daly by default (the spin box at 0 shows it); a set interval is kept."""
    load(window, qtbot, su4)
    p = window.cluster
    assert p.checkpoint.text() == "optimum"
    assert "Young/Daly" in p.checkpoint.toolTip() and "Llama 3" in p.checkpoint.toolTip()
    # the restart's 15 minutes has no published figure: the box says it is an assumption
    assert p.restart.toolTip().startswith("assumption") and "14 minutes" in p.restart.toolTip()
    assert p.failure_settings().checkpoint_h is None
    p.checkpoint.setValue(2.0)
    assert p.failure_settings().checkpoint_h == 2.0
