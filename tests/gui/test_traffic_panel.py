"""The Traffic panel: load runs, "What if this fails?" from the canvas, the N-1 table, the
overlay, and a window that keeps answering while the traffic model runs."""

from __future__ import annotations

import itertools
import time

import pytest
from PySide6.QtCore import QTimer

from designer.core.generators import generate, params_from_dict
from tests.gui.helpers import WAIT_MS, load

# the target is 50 ms (issue 13); measured on a shared 2-core machine the longest gap at
# 16,384 GPUs was 15-44 ms over a load run and what-ifs (bench/bench_traffic_live.py). CI's
# two cores also run the worker and the offscreen painter, and the OS may preempt the GUI
# thread: the bound leaves room for that, while a core call that holds the GIL (a single
# numpy call over millions of entries, several hundred ms) or work on the GUI thread (seconds)
# fails it. The benchmark, not this test, holds the 50 ms target.
GAP_BOUND_S = 0.25


def _finish(qtbot, panel):
    assert panel.task is not None
    failed: list[str] = []
    panel.task.failed.connect(failed.append)
    qtbot.waitUntil(lambda: not panel.task.running, timeout=WAIT_MS)
    assert not failed, failed


def test_what_if_from_the_context_menu_rings_the_switch_and_edits_nothing(window, qtbot, su4):
    load(window, qtbot, su4)
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
    # the work runs in a worker thread: the GUI thread keeps ticking
    assert gaps and max(gaps) < GAP_BOUND_S, f"GUI thread blocked {max(gaps) * 1000:.0f} ms"
    tr.panel.clear_overlay()
    assert tr.overlay.items == []


def test_bundle_what_if_and_n_minus_1_table(window, qtbot, su4):
    load(window, qtbot, su4)
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
    load(window, qtbot, su4)
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


class _Beats:
    """A 10 ms timer in the GUI thread; the gaps between its ticks are how long the thread
    was kept from its event loop (as bench/bench_live.py and bench_traffic_live.py measure)."""

    def __init__(self) -> None:
        self.ticks: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))

    def __enter__(self):
        self.ticks.append(time.perf_counter())
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.stop()
        self.ticks.append(time.perf_counter())

    @property
    def gaps(self) -> list[float]:
        return [b - a for a, b in itertools.pairwise(self.ticks)]


def test_gui_keeps_ticking_at_16k_gpus_during_load_and_what_if(window, qtbot):
    big = generate(params_from_dict("fat-tree", {"gpus": 16384, "tiers": 3}))
    load(window, qtbot, big)
    # the analysis panels draw their charts in steps after a result (charts.py); at this
    # size a step takes tens of ms of the GUI thread's own: let them finish, so that the
    # gaps below are the traffic work's
    qtbot.wait(1500)
    tr = window.traffic
    tr.panel.pattern.setCurrentText("permutation")
    tr.panel.routing.setCurrentText("adaptive")
    with _Beats() as load_beats:
        tr.panel.run_load()
        _finish(qtbot, tr.panel)
        qtbot.wait(20)
    assert tr.panel.last is not None and tr.panel.last.throughput["min"] == pytest.approx(1.0)
    tr.panel.routing.setCurrentText("technology default")
    t0 = time.perf_counter()
    with _Beats() as wi_beats:
        tr.what_if(["spine:1"])
        _finish(qtbot, tr.panel)
    answered = time.perf_counter() - t0
    assert "What if spine" in tr.panel.result.text()
    # issue 13 asks for 1 s at 16,384 GPUs (bench_traffic_live measures it); a loaded CI runner
    # gets twice that
    assert answered < 2.0
    worst = max(load_beats.gaps + wi_beats.gaps)
    assert worst < GAP_BOUND_S, f"GUI thread blocked {worst * 1000:.0f} ms"


def test_a_what_if_after_a_load_run_reuses_it_as_the_baseline(window, qtbot, su4, monkeypatch):
    """The intact design's load under the same options is the what-if's baseline: after a
    load run, the what-if routes only the failed design; after an edit, both again."""
    from designer.gui.traffic import panel as panel_mod

    load(window, qtbot, su4)
    tr = window.traffic
    tr.panel.routing.setCurrentText("adaptive")
    tr.panel.pattern.setCurrentText("permutation")
    calls: list[int] = []
    real = panel_mod.run_load
    monkeypatch.setattr(panel_mod, "run_load", lambda c, *a, **k: calls.append(c.n_gpus)
                        or real(c, *a, **k))
    tr.panel.run_load()
    _finish(qtbot, tr.panel)
    assert calls == [1024]
    tr.what_if(["spine:1"])
    _finish(qtbot, tr.panel)
    assert calls == [1024]  # the failed design's run is the core's own, not the panel's
    assert "What if spine:1 fails" in tr.panel.result.text()
    tr.panel.routing.setCurrentText("ecmp")  # other options: the baseline is routed afresh
    tr.what_if(["spine:1"])
    _finish(qtbot, tr.panel)
    assert calls == [1024, 1024]


def test_n_minus_1_offers_the_tiers_the_design_has(window, qtbot, su4):
    """A rail design fails leaves or spines; a dragonfly has routers only."""
    from designer.core.fileformat import load_project
    from designer.core.paths import projects_dir

    load(window, qtbot, su4)
    combo = window.traffic.panel.tier
    assert [combo.itemText(i) for i in range(combo.count())] == ["leaf", "spine"]
    assert combo.currentText() == "spine"
    load(window, qtbot, load_project(projects_dir() / "dragonfly-1056-gpus.fabric.json"))
    assert [combo.itemText(i) for i in range(combo.count())] == ["router"]
    assert combo.currentText() == "router"
