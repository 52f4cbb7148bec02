"""The Traffic panel: load runs, "What if this fails?" from the canvas, the N-1 table, the
overlay, and a window that keeps answering while the traffic model runs."""

from __future__ import annotations

import threading

import pytest

from designer.core.generators import generate, params_from_dict
from tests.gui.helpers import WAIT_MS, load, solved_after


def _spy_threads(monkeypatch) -> list[bool]:
    """Wrap the panel's core calls (compile, load, what-if, N-1): each call records whether it
    ran in the GUI thread. How long the GUI thread stalls is a benchmark's question
    (bench/bench_traffic_live.py holds the 50 ms target); a test asks where the work ran."""
    from designer.gui.traffic import panel as panel_mod

    calls: list[bool] = []
    for name in ("compile_project", "run_load", "what_if", "n_minus_1"):
        real = getattr(panel_mod, name)

        def spy(*a, _real=real, **k):
            calls.append(threading.current_thread() is threading.main_thread())
            return _real(*a, **k)

        monkeypatch.setattr(panel_mod, name, spy)
    return calls


def _finish(qtbot, panel):
    assert panel.task is not None
    failed: list[str] = []
    panel.task.failed.connect(failed.append)
    qtbot.waitUntil(lambda: not panel.task.running, timeout=WAIT_MS)
    assert not failed, failed


def test_what_if_from_the_context_menu_rings_the_switch_and_edits_nothing(window, qtbot, su4,
                                                                          monkeypatch):
    load(window, qtbot, su4)
    tr = window.traffic
    before = window.doc.project
    revision = window.doc.revision
    from PySide6.QtWidgets import QMenu

    menu = QMenu(window)
    tr.context_actions(menu, "spine3", None)
    (act,) = [a for a in menu.actions() if a.text() == "What if this fails?"]
    tr.panel.routing.setCurrentIndex(tr.panel.routing.findData("spray"))
    tr.panel.pattern.setCurrentText("bisection")
    in_gui_thread = _spy_threads(monkeypatch)
    act.trigger()
    _finish(qtbot, tr.panel)
    text = tr.panel.result.text()
    assert "What if spine3 fails" in text and "Bisection kept: 93.8%" in text
    assert "slowdown 1.067x" in text  # one of 16 spines: 16/15 (DECISION.md 5)
    assert window.doc.project is before and window.doc.revision == revision
    assert len(tr.overlay.items) >= 1
    assert in_gui_thread and not any(in_gui_thread)  # the work ran in a worker thread
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
    tr.panel.routing.setCurrentIndex(tr.panel.routing.findData("static"))
    tr.panel.run_n1()
    _finish(qtbot, tr.panel)
    t = tr.panel.table
    assert t.rowCount() == 1
    assert (t.item(0, 1).text(), t.item(0, 2).text()) == ("16", "93.8%")


def test_load_run_shows_throughput_and_rings_hot_links(window, qtbot, su4):
    load(window, qtbot, su4)
    p = window.traffic.panel
    p.pattern.setCurrentText("permutation")
    p.routing.setCurrentIndex(p.routing.findData("ecmp"))
    p.run_load()
    _finish(qtbot, p)
    assert p.last is not None and p.last.routing == "ecmp"
    assert "Throughput of demand" in p.result.text() and "M/M/1" in p.result.text()
    assert window.traffic.overlay.items  # hottest links ringed
    tail = window.analysis.metrics.value("load_latency").text()
    assert tail.startswith("+") and "p99" in tail and "permutation, ecmp" in tail
    window.docks["trafficDock"].raise_()
    qtbot.wait(50)


def test_load_and_what_if_at_16k_gpus_run_off_the_gui_thread(window, qtbot, monkeypatch):
    big = generate(params_from_dict("fat-tree", {"gpus": 16384, "tiers": 3}))
    load(window, qtbot, big)
    tr = window.traffic
    tr.panel.pattern.setCurrentText("permutation")
    tr.panel.routing.setCurrentIndex(tr.panel.routing.findData("spray"))
    in_gui_thread = _spy_threads(monkeypatch)
    tr.panel.run_load()
    _finish(qtbot, tr.panel)
    assert tr.panel.last is not None and tr.panel.last.throughput["min"] == pytest.approx(1.0)
    tr.panel.routing.setCurrentText("transport default")
    tr.what_if(["spine:1"])
    _finish(qtbot, tr.panel)
    assert "What if spine" in tr.panel.result.text()
    assert len(in_gui_thread) >= 2 and not any(in_gui_thread)


def test_a_what_if_after_a_load_run_reuses_it_as_the_baseline(window, qtbot, su4, monkeypatch):
    """The intact design's load under the same options is the what-if's baseline: after a
    load run, the what-if routes only the failed design; after an edit, both again."""
    from designer.gui.traffic import panel as panel_mod

    load(window, qtbot, su4)
    tr = window.traffic
    tr.panel.routing.setCurrentIndex(tr.panel.routing.findData("spray"))
    tr.panel.pattern.setCurrentText("permutation")
    calls: list[int] = []
    real = panel_mod.run_load
    monkeypatch.setattr(panel_mod, "run_load", lambda c, *a, **k: calls.append(c.n_gpus)
                        or real(c, *a, **k))
    real_t = panel_mod.run_transport_load  # the load run goes through the transport's model
    monkeypatch.setattr(panel_mod, "run_transport_load",
                        lambda c, *a, **k: calls.append(c.n_gpus) or real_t(c, *a, **k))
    tr.panel.run_load()
    _finish(qtbot, tr.panel)
    assert calls == [1024]
    tr.what_if(["spine:1"])
    _finish(qtbot, tr.panel)
    assert calls == [1024]  # the failed design's run is the core's own, not the panel's
    assert "What if spine:1 fails" in tr.panel.result.text()
    # other options: the baseline is routed afresh
    tr.panel.routing.setCurrentIndex(tr.panel.routing.findData("ecmp"))
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


def test_another_design_clears_the_results_and_an_edit_marks_them_out_of_date(window, qtbot,
                                                                            su4):
    from designer.gui.project import commands
    from designer.gui.traffic.panel import INTRO, STALE

    load(window, qtbot, su4)
    p = window.traffic.panel
    p.tier.setCurrentText("spine")
    p.routing.setCurrentIndex(p.routing.findData("spray"))
    p.run_n1()
    _finish(qtbot, p)
    window.traffic.what_if(["spine3"])
    _finish(qtbot, p)
    assert p.table.rowCount() == 1 and "What if spine3 fails" in p.result.text()
    # an edit: still shown, said to be out of date
    solved_after(window, qtbot, lambda: window.doc.push(commands.delete(window.doc,
                                                                        ["spine16"])))
    assert p.result.text().startswith(STALE) and not p.table.isEnabled()
    # another design (as File > Open does): nothing of the old one stays
    load(window, qtbot, generate(params_from_dict("rail", {"sus": 1})))
    assert p.result.text() == INTRO and p.table.rowCount() == 0 and p.last is None


def test_the_lossless_model_is_a_choice_and_the_answer_names_it(window, qtbot, catalog,
                                                                 tmp_path):
    """On a RoCE design under ECMP the load runs with PFC blocking unless asked otherwise;
    the fluid model gives no flow less, and the text says which model ran."""
    from designer.core.fileformat import load_project
    from tests._paths import PROJECTS

    roce = load_project(PROJECTS / "dgx-superpod-4su-roce-400.fabric.json", catalog)
    load(window, qtbot, roce)
    p = window.traffic.panel
    p.pattern.setCurrentText("permutation")
    p.routing.setCurrentIndex(p.routing.findData("ecmp"))
    assert p.lossless.currentData() == "auto"
    p.run_load()
    _finish(qtbot, p)
    assert "Lossless model:</b> PFC blocking" in p.result.text()
    assert p.last_transport.lossless == "pfc"
    blocked = p.last.t
    window.docks["trafficDock"].raise_()
    bar = p.result_scroll.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.wait(50)
    assert p.grab().save(str(tmp_path / "traffic-lossless.png"))
    p.lossless.setCurrentIndex(p.lossless.findData("off"))
    p.run_load()
    _finish(qtbot, p)
    assert "Lossless model:</b> fluid" in p.result.text()
    fluid = p.last.t
    # the same hash draw: PFC only slows flows, and on this pod it slows some
    assert (blocked <= fluid + 1e-12).all() and blocked.mean() < fluid.mean()
    # spraying leaves no hashed hot port: automatic is the fluid model there
    p.lossless.setCurrentIndex(p.lossless.findData("auto"))
    p.routing.setCurrentIndex(p.routing.findData("spray"))
    p.run_load()
    _finish(qtbot, p)
    assert p.last_transport.lossless == "off"
