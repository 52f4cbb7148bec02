"""Live analysis in the window: the solver service, metrics, charts, BOM and problems.

Designs are NVIDIA DGX SuperPOD rail-optimized fabrics (DGX H100 SuperPOD reference
architecture: 32 servers and 8 leaf switches per SU, 400G NDR); figures are the solver's.
"""

from __future__ import annotations

import re
import threading
import time

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QTest

from designer.core import editing
from designer.core.errors import DesignerError
from designer.core.generators import generate, params_from_dict
from designer.core.solver import SolveCancelled, solve
from designer.gui.analysis.solver_service import THREAD_PREFIX, SolverService
from designer.gui.panels import bom as bom_panel
from designer.gui.project import commands
from designer.gui.project.document import Document
from tests.gui.helpers import WAIT_MS, current, load


@pytest.fixture(scope="module")
def su1():
    return generate(params_from_dict("rail", {"sus": 1}))


def _tbps(text: str) -> float:
    return float(re.search(r"([\d.,]+) Tb/s", text).group(1).replace(",", ""))


def _solver_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX)]


def test_an_edit_gives_a_new_result_and_the_panel_shows_it(window, qtbot, su1):
    result = load(window, qtbot, su1)
    m = window.analysis.metrics
    assert result.gpus == 256
    assert m.value("gpus").text().startswith("256 · 32 servers")
    assert m.value("switches").text() == "12 · 8 leaf, 4 spine"
    assert _tbps(m.value("bisection").text()) == pytest.approx(51.2)
    assert "exact" in m.value("bisection").text()
    assert m.value("oversub").text() == "1:1 · non-blocking"
    assert m.value("hops").text() == "p50 3 · p99 3 · max 3"
    assert f"${result.bom.total_usd / 1e6:,.2f}M" in m.value("cost").text()

    doc = window.doc
    servers = [d.id for d in doc.project.fabric.devices if d.role.value == "gpu-server"]
    with qtbot.waitSignal(window.analysis.service.resultReady, timeout=WAIT_MS,
                          check_params_cb=current(window)) as got:
        doc.push(commands.delete(doc, servers[:2]))
    assert got.args[1].gpus == 240
    assert m.value("gpus").text().startswith("240 · 30 servers")
    assert "Analysed in" in window.analysis.state_label.text()
    charts = window.analysis.charts  # drawn one chart per event-loop turn after the result
    window.docks["chartsDock"].raise_()  # (only while in front: a tab behind waits)
    # the hops of one rail SU are the same after the edit, so each chart is waited for on
    # what it shows of this result (a chart still drawing the last one shows less)
    categories = {line.category for line in got.args[1].bom.lines}
    qtbot.waitUntil(lambda: charts.shown.get("oversub") is not None and
                    charts.shown.get("hops") == got.args[1].hops.histogram and
                    set(charts.shown.get("cost") or ()) == categories, timeout=WAIT_MS)


def test_removing_a_spine_lowers_the_bisection_shown(window, qtbot, su1):
    load(window, qtbot, su1)
    m = window.analysis.metrics
    before = _tbps(m.value("bisection").text())
    doc = window.doc
    with qtbot.waitSignal(window.analysis.service.resultReady, timeout=WAIT_MS,
                          check_params_cb=current(window)):
        doc.push(commands.delete(doc, ["spine1"]))
    after = _tbps(m.value("bisection").text())
    assert after == pytest.approx(before * 3 / 4)  # one of four spines: 38.4 of 51.2 Tb/s
    assert m.values["bisection"].level == "poor"
    assert "below full bisection" in m.values["bisection"].hint.text()
    assert m.values["oversub"].level == "poor"
    assert "blocking at leaf" in m.values["oversub"].hint.text()


def test_a_burst_of_edits_runs_one_solve(window, qtbot, su1):
    load(window, qtbot, su1)
    svc = window.analysis.service
    # a debounce no stall of the event loop can outlast, ended by hand after the burst: the
    # count then depends on the coalescing alone, not on the machine's speed between edits
    svc._timer.setInterval(600_000)
    started = svc.solves_started
    doc = window.doc
    leaf = "su1-leaf-r1"
    for _ in range(6):
        d = doc.project.fabric.devices[doc.project.fabric.index[leaf]]
        doc.push(commands.move_devices(doc, {leaf: (d.x + 10, d.y)}, nudge=True))
        qtbot.wait(15)
    assert svc.solves_started == started and svc._timer.isActive()
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=current(window)):
        svc._timer.setInterval(0)  # an active timer restarts with its new interval
    assert svc.solves_started == started + 1
    assert svc.latest_project is doc.project


def test_a_stale_result_never_overwrites_a_newer_one(qapp, qtbot, catalog, su1):
    doc = Document(catalog)
    gate = threading.Event()
    first = su1
    second = editing.delete(su1, ["spine1"])

    def slow_first(project, progress=None, cancelled=None, catalog=None):
        if project is first:
            gate.wait(10)  # ignores the cancel request: its result arrives late
        return solve(project, catalog=catalog)

    svc = SolverService(doc, debounce_ms=10, solve_fn=slow_first, auto=True)
    seen = []
    svc.resultReady.connect(lambda rev, r: seen.append((rev, r.bisection.tbps)))
    try:
        with qtbot.waitSignal(svc.solveStarted, timeout=WAIT_MS):
            doc.replace(first)
        doc.replace(second)  # a newer revision while the first still runs
        qtbot.wait(50)
        gate.set()
        with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS):
            pass
    finally:
        gate.set()
        svc.shutdown()
    assert seen == [(doc.revision, pytest.approx(38.4))]
    assert svc.results_dropped == 1
    assert svc.latest_project is second


def test_a_newer_edit_cancels_the_running_solve(qapp, qtbot, catalog, su1):
    """The running solve sees the cancel and stops before the newer edit's solve starts
    (an order of events, not a time: the latency is measured in bench/bench_live.py)."""
    doc = Document(catalog)
    running = threading.Event()
    events: list[str] = []

    def cancellable(project, progress=None, cancelled=None, catalog=None):
        if project is su1:
            running.set()
            while not cancelled():
                time.sleep(0.002)
            events.append("cancel seen")
            raise SolveCancelled()
        events.append("newer solve")
        return solve(project, catalog=catalog)

    svc = SolverService(doc, debounce_ms=10, solve_fn=cancellable)
    try:
        doc.replace(su1)
        qtbot.waitUntil(running.is_set, timeout=WAIT_MS)
        with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS):
            doc.replace(editing.delete(su1, ["spine2"]))
    finally:
        svc.shutdown()
    assert events == ["cancel seen", "newer solve"]
    assert svc.latest.switches.total == 11


def test_a_solver_error_shows_a_message(window, qtbot, su1):
    load(window, qtbot, su1)
    a = window.analysis
    svc = a.service

    def broken(project, progress=None, cancelled=None, catalog=None):
        raise RuntimeError("the bisection stage fell over")

    svc.solve_fn = broken
    doc = window.doc
    with qtbot.waitSignal(svc.solveFailed, timeout=WAIT_MS) as failed:
        doc.push(commands.delete(doc, ["spine1"]))
    # a bug is named, never shown as raw exception text; the traceback goes to the log
    assert failed.args[1] == "an internal error (RuntimeError) stopped this; please report it"
    assert not a.metrics.error_label.isHidden()
    assert "internal error (RuntimeError)" in a.metrics.error_label.text()
    assert "Analysis failed" in a.state_label.text()
    assert "internal error (RuntimeError)" in window.statusBar().currentMessage()

    def refused(project, progress=None, cancelled=None, catalog=None):
        raise DesignerError("too many GPUs for this machine")

    svc.solve_fn = refused
    with qtbot.waitSignal(svc.solveFailed, timeout=WAIT_MS) as failed:
        doc.undo_stack.undo()
    assert failed.args[1] == "too many GPUs for this machine"
    svc.solve_fn = solve
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS):
        doc.undo_stack.redo()
    assert a.metrics.error_label.isHidden()


def _bom_index(panel, catalog_id: str, column: int) -> QModelIndex:
    proxy = panel.proxy
    for row in range(proxy.rowCount()):
        idx = proxy.index(row, column)
        if idx.data(bom_panel.ID_ROLE) == catalog_id and \
                proxy.index(row, bom_panel.UNIT).flags() & Qt.ItemFlag.ItemIsEditable:
            return idx
    raise AssertionError(f"{catalog_id} not in the BOM")


def test_a_price_edit_changes_the_total_and_undoes(window, qtbot, su1):
    result = load(window, qtbot, su1)
    a = window.analysis
    panel, svc, doc = a.bom, a.service, window.doc
    line = next(x for x in result.bom.lines if x.catalog_id == "qm9700")
    total = result.bom.total_usd
    assert panel.model.total_usd == pytest.approx(total)
    idx = _bom_index(panel, "qm9700", bom_panel.UNIT)
    assert idx.data() == "$36,000"  # the catalog's price (public cost sheet, Aug 2024)
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=current(window)):
        assert panel.proxy.setData(idx, "$50,000")
    expected = total + line.qty * 14_000
    assert doc.project.overrides.prices == {"qm9700": 50_000.0}
    assert svc.latest.bom.total_usd == pytest.approx(expected)
    assert panel.model.total_usd == pytest.approx(expected)
    assert f"${expected:,.0f}" in panel.summary.text() and "1 price overridden" in \
        panel.summary.text()
    assert doc.undo_stack.undoText() == "Set price of NVIDIA Quantum-2 QM9700 (managed) to " \
                                        "$50,000.00"
    edited = _bom_index(panel, "qm9700", bom_panel.UNIT)
    assert "catalog price $36,000" in edited.data(Qt.ItemDataRole.ToolTipRole)

    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=current(window)):
        doc.undo_stack.undo()
    assert doc.project.overrides.prices == {}
    assert panel.model.total_usd == pytest.approx(total)
    assert f"${total:,.0f}" in panel.summary.text()

    # not a price: refused without a command
    depth = doc.undo_stack.count()
    assert not panel.proxy.setData(_bom_index(panel, "qm9700", bom_panel.UNIT), "a lot")
    assert doc.undo_stack.count() == depth


def test_bom_sorting_keeps_headings_and_the_total_in_place(window, qtbot, su1):
    load(window, qtbot, su1)
    panel = window.analysis.bom
    proxy, table = panel.proxy, panel.table
    for order in (Qt.SortOrder.DescendingOrder, Qt.SortOrder.AscendingOrder):
        table.sortByColumn(bom_panel.TOTAL, order)
        kinds = [proxy.mapToSource(proxy.index(r, 0)).row() for r in range(proxy.rowCount())]
        rows = [panel.model.rows[k] for k in kinds]
        assert rows[-1].kind == bom_panel.GRAND
        groups = [r.group for r in rows]
        assert groups == sorted(groups)  # headings first in their category, categories fixed
        for cat in {r.category for r in rows if r.kind == bom_panel.ITEM_ROW}:
            totals = [r.total for r in rows if r.kind == bom_panel.ITEM_ROW and r.category == cat]
            want = sorted(totals, reverse=order == Qt.SortOrder.DescendingOrder)
            assert totals == want
    panel.filter.setText("transceiver")
    shown = {panel.model.rows[proxy.mapToSource(proxy.index(r, 0)).row()].category
             for r in range(proxy.rowCount())
             if panel.model.rows[proxy.mapToSource(proxy.index(r, 0)).row()].kind ==
             bom_panel.ITEM_ROW}
    assert shown == {"transceiver"}


def test_clicking_a_problem_selects_and_marks_its_devices(window, qtbot, su1, catalog):
    project, new_id = editing.add_device(su1, catalog, "dgx-h100", 0, 600)
    load(window, qtbot, project)
    panel = window.analysis.problems
    item = panel.item_for("gpu-unconnected")
    assert item is not None
    assert window.doc.marks.get(new_id) == "error"
    tree = panel.tree
    window.analysis.show_panel("problemsDock")
    qtbot.waitUntil(lambda: tree.isVisible())
    tree.scrollToItem(item)
    rect = tree.visualItemRect(item)
    QTest.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton,
                     Qt.KeyboardModifier.NoModifier, rect.center())
    assert window.doc.selection.devices == {new_id}
    assert window.scene.device_items[new_id].isSelected()
    text = window.analysis.metrics.value("problems").text()
    assert "1 error" in text and window.analysis.metrics.values["problems"].level == "bad"


def test_closing_the_window_stops_a_running_solve(window, qtbot, su1):
    running = threading.Event()

    def endless(project, progress=None, cancelled=None, catalog=None):
        running.set()
        while not cancelled():
            time.sleep(0.002)
        raise SolveCancelled()

    svc = window.analysis.service
    svc.solve_fn = endless
    window.doc.replace(su1)
    svc.solve_now()
    qtbot.waitUntil(running.is_set, timeout=WAIT_MS)
    assert _solver_threads()
    window.doc.undo_stack.setClean()
    window.close()
    assert not _solver_threads()  # joined in closeEvent, not left to the test's end


def test_export_gets_the_latest_result_only_for_its_revision(window, qtbot, su1):
    result = load(window, qtbot, su1)
    doc = window.doc
    ctl = window.export_controller
    assert ctl.result_for(doc.project) is result
    doc.push(commands.delete(doc, ["spine1"]))
    assert ctl.result_for(doc.project) is None  # not solved yet: the export would solve
    file_menu = window.actions_.menus["file"]
    titles = [a.text().replace("&", "") for a in file_menu.actions()]
    assert "Export" in titles and "Compare with As-Built…" in titles
    assert titles.index("Compare with As-Built…") < titles.index("Export") < titles.index("Quit")


def test_a_layout_saved_before_the_analysis_panels_is_not_restored(window, tmp_path):
    from designer.gui.base import settings
    from designer.gui.main_window import MainWindow

    # a layout as the window saved it before it had analysis panels (version 0)
    window.docks["metricsDock"].hide()
    settings.settings().setValue("window/state", window.saveState())
    other = MainWindow(data_dir=tmp_path / "data2")
    try:
        assert other.docks["metricsDock"].isVisibleTo(other)  # the default layout instead
        area = other.dockWidgetArea
        assert area(other.docks["metricsDock"]) == Qt.DockWidgetArea.RightDockWidgetArea
        assert area(other.docks["chartsDock"]) == Qt.DockWidgetArea.BottomDockWidgetArea
    finally:
        other.analysis.shutdown()
        other.deleteLater()


def test_a_long_solve_shows_computing_with_progress(window, qtbot, su1):
    load(window, qtbot, su1)
    a = window.analysis
    svc, m = a.service, a.metrics
    release = threading.Event()

    def slow(project, progress=None, cancelled=None, catalog=None):
        progress(0.0, "compile")
        time.sleep(0.06)  # past the service's progress throttle
        progress(0.5, "bisection")
        while not (release.is_set() or cancelled()):
            time.sleep(0.002)
        return solve(project, catalog=catalog)

    svc.solve_fn = slow
    doc = window.doc
    try:
        doc.push(commands.delete(doc, ["spine1"]))
        qtbot.waitUntil(lambda: m.bar.isVisible() and "50%" in m.state_label.text(),
                        timeout=WAIT_MS)
        assert m.state_label.text() == "Computing… 50% (bisection)"
        assert "Analysing… 50%" in a.state_label.text()
        with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS):
            release.set()
    finally:
        release.set()
    assert not m.bar.isVisible()
    assert m.state_label.text().startswith("Up to date")


def test_the_problems_figure_opens_the_problems_panel(window, qtbot, su1, catalog):
    project, _new = editing.add_device(su1, catalog, "dgx-h100", 0, 600)
    load(window, qtbot, project)
    dock = window.docks["problemsDock"]
    window.docks["bomDock"].raise_()
    qtbot.waitUntil(lambda: dock.visibleRegion().isEmpty())
    label = window.analysis.metrics.value("problems")
    label.linkActivated.emit("#problems")
    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty())
