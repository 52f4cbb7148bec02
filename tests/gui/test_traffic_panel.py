"""The Traffic panel: load runs, "What if this fails?" from the canvas, the N-1 table, the
overlay, and a window that keeps answering while the traffic model runs."""

from __future__ import annotations

import itertools
import time

import pytest
from PySide6.QtCore import QTimer

from designer.core.generators import generate, params_from_dict

WAIT_MS = 60_000


@pytest.fixture(scope="module")
def su4():
    return generate(params_from_dict("rail", {"sus": 4}))


def _loaded(window, qtbot, project):
    svc = window.analysis.service
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS):
        window.doc.replace(project)


def _finish(qtbot, panel):
    assert panel.task is not None
    failed: list[str] = []
    panel.task.failed.connect(failed.append)
    qtbot.waitUntil(lambda: not panel.task.running, timeout=WAIT_MS)
    assert not failed, failed


def test_what_if_from_the_context_menu_rings_the_switch_and_edits_nothing(window, qtbot, su4):
    _loaded(window, qtbot, su4)
    tr = window.traffic
    before = window.doc.project
    revision = window.doc.revision
    from PySide6.QtWidgets import QMenu

    menu = QMenu(window)
    tr.context_actions(menu, "spine3", None)
    (act,) = [a for a in menu.actions() if a.text() == "What if this fails?"]
    tr.panel.routing.setCurrentText("adaptive")
    tr.panel.pattern.setCurrentText("bisection")
    # the GUI thread's gaps while the what-if runs: a 10 ms timer notes each tick
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    act.trigger()
    _finish(qtbot, tr.panel)
    timer.stop()
    text = tr.panel.result.text()
    assert "What if spine3 fails" in text and "Bisection kept: 93.8%" in text
    assert "slowdown 1.067x" in text  # one of 16 spines: 16/15 (DECISION.md 5)
    assert window.doc.project is before and window.doc.revision == revision
    assert len(tr.overlay.items) >= 1
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    # the work runs in a worker thread: the GUI thread keeps ticking. Loose bound: this
    # machine is shared and the progress dialog's first showing takes its own time
    assert gaps and max(gaps) < 1.0
    tr.panel.clear_overlay()
    assert tr.overlay.items == []


def test_bundle_what_if_and_n_minus_1_table(window, qtbot, su4):
    _loaded(window, qtbot, su4)
    tr = window.traffic
    from PySide6.QtWidgets import QMenu

    menu = QMenu(window)
    tr.context_actions(menu, None, ("su1-leaf-r1", "spine1"))
    (act,) = [a for a in menu.actions() if a.text() == "What if this bundle fails?"]
    act.trigger()
    _finish(qtbot, tr.panel)
    assert "bundle:su1-leaf-r1/spine1" in tr.panel.result.text()
    tr.panel.tier.setCurrentText("spine")
    tr.panel.routing.setCurrentText("static")
    tr.panel.run_n1()
    _finish(qtbot, tr.panel)
    t = tr.panel.table
    assert t.rowCount() == 1
    assert (t.item(0, 1).text(), t.item(0, 2).text()) == ("16", "93.8%")


def test_load_run_shows_throughput_and_rings_hot_links(window, qtbot, su4):
    _loaded(window, qtbot, su4)
    p = window.traffic.panel
    p.pattern.setCurrentText("permutation")
    p.routing.setCurrentText("ecmp")
    p.run_load()
    _finish(qtbot, p)
    assert p.last is not None and p.last.routing == "ecmp"
    assert "Throughput of demand" in p.result.text() and "M/M/1" in p.result.text()
    assert window.traffic.overlay.items  # hottest links ringed
    tail = window.analysis.metrics.value("load_latency").text()
    assert tail.startswith("+") and "p99" in tail and "permutation, ecmp" in tail
    window.docks["trafficDock"].raise_()
    qtbot.wait(50)
