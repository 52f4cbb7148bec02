"""File > Compare with As-Built… and Tools > Check on Subnet Manager… in the window."""

from __future__ import annotations

import pytest

from designer.core import editing
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.ibcheck import missing_reason
from designer.core.infiniband import ib_fabric_of, write_netfile
from designer.gui.checks import infiniband as ib_actions
from tests.gui.helpers import load

WAIT_MS = 60_000
STACK = missing_reason()


@pytest.fixture(scope="module")
def su1():
    return generate(params_from_dict("rail", {"sus": 1}))


def test_compare_with_an_ibnetdiscover_file_lists_and_marks_the_differences(
        window, qtbot, su1, catalog, tmp_path, monkeypatch):
    load(window, qtbot, su1)
    # as cabled: the 8 cables between leaf r1 and spine 1 (32 up-links over 4 spines) were
    # never plugged in
    built = editing.delete(su1, [], [("su1-leaf-r1", "spine1")])
    topo = tmp_path / "ibnetdiscover.out"
    topo.write_text(write_netfile(ib_fabric_of(built, catalog).fabric))
    monkeypatch.setattr(ib_actions, "ask_as_built_path", lambda *a: str(topo))
    ib = window.analysis.ib
    ib.compare.trigger()
    assert ib.task is not None
    with qtbot.waitSignal(ib.task.finished, timeout=WAIT_MS):
        pass
    diff = ib.last_diff
    assert (len(diff.missing), len(diff.extra), len(diff.miswired_plan)) == (8, 0, 0)
    panel = window.analysis.problems
    codes = [p.code for p in panel.asbuilt]
    assert codes == ["as-built-missing"] * 8
    assert all(set(p.devices) == {"su1-leaf-r1", "spine1"} for p in panel.asbuilt)
    assert window.doc.marks["spine1"] == "error" and window.doc.marks["su1-leaf-r1"] == "error"
    assert panel.tree.topLevelItem(0).text(0).startswith("As-built comparison: ibnetdiscover.out")
    assert "As built differs" in window.statusBar().currentMessage()
    # the analysis keeps its own section; clearing the comparison clears its marks
    panel.clear_asbuilt()
    assert "spine1" not in window.doc.marks


def test_compare_with_an_unreadable_file_says_why(window, qtbot, su1, tmp_path, answers):
    load(window, qtbot, su1)
    bad = tmp_path / "notes.txt"
    bad.write_text("this is not ibnetdiscover output\n")
    ib = window.analysis.ib
    task = ib.compare_with(bad)
    with qtbot.waitSignal(task.failed, timeout=WAIT_MS):
        pass
    assert answers.errors and answers.errors[0][0] == "Cannot compare with the as-built"


def test_compare_with_a_project_file_built_as_planned(window, qtbot, su1, tmp_path):
    load(window, qtbot, su1)
    path = tmp_path / "as-built.fabric.json"
    save_project(su1, path)
    ib = window.analysis.ib
    with qtbot.waitSignal(ib.compare_with(path).finished, timeout=WAIT_MS):
        pass
    assert ib.last_diff.equal
    assert window.analysis.problems.asbuilt == ()
    assert "matches the design" in window.statusBar().currentMessage()


def test_check_is_greyed_with_the_reason_when_the_tools_are_missing(window, monkeypatch):
    reason = "the InfiniBand stack is not installed (missing: ibsim)"
    monkeypatch.setattr(ib_actions, "missing_reason", lambda: reason)
    ib = window.analysis.ib
    ib.update_check_state()
    assert not ib.check.isEnabled()
    assert reason in ib.check.toolTip()
    tools = window.actions_.menus["tools"]
    assert ib.check in tools.actions() and tools.toolTipsVisible()


def test_check_refuses_an_ethernet_design_with_the_cores_message(window, qtbot, answers):
    if STACK:
        pytest.skip(STACK)
    roce = generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}))
    load(window, qtbot, roce)
    assert window.analysis.ib.run_check() is None
    ((title, text),) = answers.errors
    assert title == "Check on subnet manager"
    assert "Ethernet (RoCE) design" in text and "InfiniBand" in text


@pytest.mark.ibstack
@pytest.mark.skipif(STACK is not None, reason=STACK or "")
def test_check_on_the_subnet_manager_shows_the_report(window, qtbot, su1, monkeypatch):
    from designer.core.ibcheck import solver_hops

    def no_second_solve(*args):
        raise AssertionError("the check solved again instead of using the window's result")

    monkeypatch.setattr(solver_hops, "_solver_hops", no_second_solve)
    load(window, qtbot, su1)
    ib = window.analysis.ib
    assert ib.check.isEnabled()
    ib.check.trigger()
    with qtbot.waitSignal(ib.task.finished, timeout=WAIT_MS):
        pass
    report = ib.last_report
    assert report.ok
    # the solver's hops came from the window's latest result
    assert report.solver_hops.histogram == window.analysis.service.latest.hops.histogram
    assert "routed hops equal the solver's" in report.solver_note
    text = ib.report_dialog.text.toPlainText()
    assert "SUBNET UP, routed by ftree" in text and "result: OK" in text
    ib.report_dialog.close()


@pytest.mark.ibstack
@pytest.mark.skipif(STACK is not None, reason=STACK or "")
def test_check_can_be_cancelled(window, qtbot, su1):
    load(window, qtbot, su1)
    ib = window.analysis.ib
    task = ib.run_check()
    with qtbot.waitSignal(task.cancelled, timeout=WAIT_MS):
        task.cancel()
    assert not ib.busy
    assert "cancelled" in window.statusBar().currentMessage()
