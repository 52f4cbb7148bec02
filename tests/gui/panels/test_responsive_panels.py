"""The window stays responsive with every panel in use: a result's work is spread over turns
of the event loop, hidden panels wait until shown, the comparison's estimates run off the GUI
thread, and large designs are kept out of the garbage collector's full passes.

These tests check where and when the work happens (a later turn, a worker, only when shown);
how long the GUI thread is held is measured against the 50 ms rule in bench/bench_live.py.
"""

from __future__ import annotations

import gc
import threading

from designer.core.generators import generate, params_from_dict
from designer.gui.base import gc_freeze
from designer.gui.decision import compare_service
from tests.gui.helpers import WAIT_MS, load


def test_a_hidden_estimate_waits_until_shown(window, qtbot, su4):
    d = window.docks
    d["chartsDock"].raise_()  # the Estimate tab behind the Charts tab
    qtbot.waitUntil(lambda: not window.analysis.decision.estimate.lazy.shown(), timeout=WAIT_MS)
    est = window.analysis.decision.estimate
    runs = est.lazy.runs
    load(window, qtbot, su4)
    qtbot.wait(100)
    assert est.lazy.runs == runs and est.lazy.dirty  # nothing computed for a hidden tab
    d["estimateDock"].raise_()
    qtbot.waitUntil(lambda: est.current is not None and not est.lazy.dirty, timeout=WAIT_MS)
    assert est.current.step.parallel.gpus == 1024
    assert "Communication is" in est.summary.text()


def test_results_in_a_burst_make_one_refresh(window, qtbot, su4):
    d = window.docks
    d["estimateDock"].show()
    d["estimateDock"].raise_()
    load(window, qtbot, su4)
    est = window.analysis.decision.estimate
    qtbot.waitUntil(lambda: not est.lazy.dirty, timeout=WAIT_MS)
    runs = est.lazy.runs
    for _ in range(5):  # in one turn of the event loop
        est.lazy.request()
    qtbot.waitUntil(lambda: est.lazy.runs > runs, timeout=WAIT_MS)
    qtbot.wait(50)
    assert est.lazy.runs == runs + 1


def test_the_comparison_is_estimated_off_the_gui_thread(window, qtbot, su4, monkeypatch):
    threads: list[str] = []
    real = compare_service.compare

    def spy(*a, **k):
        threads.append(threading.current_thread().name)
        return real(*a, **k)

    monkeypatch.setattr(compare_service, "compare", spy)
    load(window, qtbot, su4)
    panel = window.analysis.decision.compare
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS):
        panel.boxes["roce-400"].setChecked(True)
    assert threads and all(t.startswith(compare_service.THREAD_PREFIX) for t in threads)
    assert threading.main_thread().name not in threads
    # the same inputs again (a result for the same design): no second estimate
    n = len(threads)
    panel.compare._try_compare()
    qtbot.wait(100)
    assert len(threads) == n
    # a workload edit: estimated again, still in a worker, and the table follows
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS):
        window.analysis.decision.workload.commit("economics", "years", "7")
    assert len(threads) == n + 1 and threads[-1] != threading.main_thread().name
    assert panel.compare.latest.designs[1].estimate.tco.years == 7
    panel.boxes["roce-400"].setChecked(False)


def test_large_designs_are_frozen_out_of_the_collector(window, qtbot, su4, monkeypatch):
    monkeypatch.setattr(gc_freeze, "MIN_DEVICES", 1)  # the 1,024-GPU design counts as large
    freezer = window.analysis.gc_freezer
    gc.unfreeze()
    load(window, qtbot, su4)
    qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=WAIT_MS)
    assert freezer.freezes >= 1
    window.doc.replace(generate(params_from_dict("rail", {"sus": 1})))
    assert gc.get_freeze_count() == 0  # a new design: the old one may be collected
    qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=WAIT_MS)
    window.analysis.shutdown()  # the window closing hands everything back too
    assert gc.get_freeze_count() == 0


def test_a_window_that_froze_nothing_thaws_nothing(window, qtbot, su4):
    """A small design's window leaves the permanent generation as it found it when its design
    is replaced or it closes: what froze it (another window, the process) still holds it."""
    freezer = window.analysis.gc_freezer
    gc.freeze()  # as another window of a large design would have
    load(window, qtbot, su4)  # 1,024 GPUs: under the size that is frozen
    qtbot.waitUntil(lambda: window.analysis.service.latest is not None, timeout=WAIT_MS)
    window.doc.replace(generate(params_from_dict("rail", {"sus": 1})))
    window.analysis.shutdown()
    assert freezer.freezes == 0 and gc.get_freeze_count() > 0
    gc.unfreeze()


def test_a_result_reaching_every_panel_is_spread_over_later_turns(window, qtbot):
    """8,192 GPUs with Estimate and Floor in front and Compare beside RoCE 400G: inside the
    result's emit the panels only take note; the estimate follows on a later turn of the event
    loop and the comparison in a worker."""
    big = generate(params_from_dict("rail", {"sus": 32}))
    load(window, qtbot, big)
    d = window.docks
    for name in ("estimateDock", "floorDock"):
        d[name].show()
        d[name].raise_()
    d["compareDock"].show()
    panel = window.analysis.decision.compare
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS):
        panel.boxes["roce-400"].setChecked(True)

    svc = window.analysis.service
    est = window.analysis.decision.estimate
    qtbot.waitUntil(lambda: not est.lazy.dirty, timeout=WAIT_MS)
    runs = est.lazy.runs
    panel.compare._inputs = ()  # as if the inputs were new: the comparison is made again
    try:
        with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS):
            svc.resultReady.emit(svc.latest_revision, svc.latest)
            assert est.lazy.runs == runs and est.lazy.dirty  # not inside the emit
            assert panel.compare._comparing is not None  # estimating in its worker
        qtbot.waitUntil(lambda: not est.lazy.dirty, timeout=WAIT_MS)
    finally:
        panel.boxes["roce-400"].setChecked(False)
    assert est.lazy.runs == runs + 1, "the estimate never followed the result"


def test_charts_behind_another_tab_draw_when_brought_forward(window, qtbot, su4):
    d = window.docks
    charts = window.analysis.charts
    d["estimateDock"].raise_()  # the Charts tab behind the Estimate tab
    qtbot.waitUntil(lambda: not charts._lazy.shown(), timeout=WAIT_MS)
    charts.shown.clear()
    load(window, qtbot, su4)
    qtbot.wait(100)
    assert charts.shown == {}  # nothing drawn for a tab that cannot be seen
    with qtbot.waitSignal(charts.drawn, timeout=WAIT_MS):
        d["chartsDock"].raise_()
    assert charts.shown["hops"] == window.analysis.service.latest.hops.histogram


def test_charts_stand_two_by_two_when_the_panel_is_narrow(window, qtbot):
    from designer.gui.panels.charts import FOUR_IN_A_ROW_MIN_W

    charts = window.analysis.charts
    charts.setParent(None)  # on its own, to size it freely
    charts.resize(FOUR_IN_A_ROW_MIN_W - 200, 340)
    charts.show()
    qtbot.waitUntil(lambda: charts.columns == 2)
    rows = {charts.grid.getItemPosition(charts.grid.indexOf(w))[0] for w in charts.charts}
    assert rows == {0, 1}
    charts.resize(FOUR_IN_A_ROW_MIN_W + 200, 340)
    qtbot.waitUntil(lambda: charts.columns == 4)
    rows = {charts.grid.getItemPosition(charts.grid.indexOf(w))[0] for w in charts.charts}
    assert rows == {0}
    charts.close()
