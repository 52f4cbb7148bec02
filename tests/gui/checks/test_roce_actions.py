"""Tools > Check Routed Fabric… and Compare with As-Built on LLDP tables, in the window."""

from __future__ import annotations

import os
import subprocess

import pytest

from designer.core.ethernet.lab import missing_reason
from designer.core.ethernet.lldp import write_lldp_view
from designer.core.generators import generate, params_from_dict
from designer.gui.checks import infiniband as ib_actions
from designer.gui.checks import roce as roce_actions
from tests.gui.helpers import load

WAIT_MS = 120_000
STACK = missing_reason()


@pytest.fixture(scope="module")
def fat_tree():
    """Al-Fares k = 4 fat-tree on RoCE gear: 20 switches, 16 servers."""
    return generate(params_from_dict("fat-tree", {"k_ary": 4, "gear": "roce-400"}))


def _ours() -> list[str]:
    """This process's lab namespaces: a lab is named after the process that builds it, and a
    parallel test worker's check may be running at the same time."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [x.split()[0] for x in out.splitlines() if x.startswith(f"fdroce{os.getpid()}x")]


def test_the_action_sits_in_tools_and_says_why_when_greyed(window, monkeypatch):
    reason = "the routed-fabric check needs vtysh (Debian package frr)"
    monkeypatch.setattr(roce_actions, "missing_reason", lambda: reason)
    roce = window.analysis.roce
    roce.update_state()
    assert not roce.check.isEnabled() and reason in roce.check.toolTip()
    assert roce.check in window.actions_.menus["tools"].actions()


def test_an_infiniband_design_is_refused_with_the_cores_message(window, qtbot, answers,
                                                                monkeypatch):
    monkeypatch.setattr(roce_actions, "missing_reason", lambda: None)
    load(window, qtbot, generate(params_from_dict("rail", {"sus": 1})))
    assert window.analysis.roce.run_check() is None
    ((title, text),) = answers.errors
    assert title == roce_actions.TITLE and "not an Ethernet design" in text


def test_compare_with_one_lldp_file_reads_its_folder(window, qtbot, fat_tree, tmp_path,
                                                     monkeypatch):
    load(window, qtbot, fat_tree)
    write_lldp_view(fat_tree, window.doc.catalog, tmp_path)
    picked = tmp_path / "rack1-tor.json"
    assert picked.exists()
    monkeypatch.setattr(ib_actions, "ask_as_built_path", lambda *a: str(picked))
    ib = window.analysis.ib
    ib.compare.trigger()
    with qtbot.waitSignal(ib.task.finished, timeout=WAIT_MS):
        pass
    assert ib.last_diff.equal and ib.last_diff.counts["as_planned"] == 48
    assert "matches the design" in window.statusBar().currentMessage()


@pytest.mark.roce
@pytest.mark.skipif(STACK is not None, reason=STACK or "")
def test_check_runs_in_the_background_and_shows_the_report(window, qtbot, fat_tree, tmp_path):
    load(window, qtbot, fat_tree)
    roce = window.analysis.roce
    assert roce.check.isEnabled()
    roce.check.trigger()
    task = roce.task
    assert task is not None and task.running
    qtbot.wait(30)  # the window keeps handling events while the lab comes up
    with qtbot.waitSignal(task.finished, timeout=WAIT_MS):
        pass
    report = roce.last_report
    assert report.ok, report.lines()
    text = roce.report_dialog.text.toPlainText()
    assert "BGP sessions up: 32 of 32" in text and "After failing spine" in text
    # docs/screenshots/roce-check.png is this picture
    shot = tmp_path / "roce-check.png"
    assert roce.report_dialog.grab().save(str(shot)) and shot.stat().st_size > 1000
    roce.report_dialog.close()


@pytest.mark.roce
@pytest.mark.skipif(STACK is not None, reason=STACK or "")
def test_check_can_be_cancelled_and_leaves_nothing(window, qtbot, fat_tree):
    load(window, qtbot, fat_tree)
    before = set(_ours())
    roce = window.analysis.roce
    task = roce.run_check()
    qtbot.waitUntil(lambda: "BGP" in task.dialog.labelText()
                    or "waiting" in task.dialog.labelText().lower(), timeout=WAIT_MS)
    with qtbot.waitSignal(task.cancelled, timeout=WAIT_MS):
        task.cancel()
    assert not roce.busy and "cancelled" in window.statusBar().currentMessage()
    assert set(_ours()) <= before
