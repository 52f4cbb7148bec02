"""File > Check Acceptance Results…, Write Acceptance Test Plan…, Import InfraGraph… and the
InfraGraph, htsim and ASTRA-sim exports, in the real window."""

from __future__ import annotations

import json
from pathlib import Path

from designer.core.fileformat import load_project
from tests import _paths
from tests.core.acceptance_cases import DATA, PROJECTS, two_node_roce
from tests.gui.helpers import load

WAIT_MS = 120_000


def _wait(qtbot, task) -> None:
    with qtbot.waitSignal(task.finished, timeout=WAIT_MS):
        pass


def test_the_entries_are_in_the_file_menu(window):
    acc = window.analysis.acceptance
    file_actions = window.actions_.menus["file"].actions()
    for act in (acc.check, acc.plan, acc.import_ig):
        assert act in file_actions
    assert acc.check.shortcut().toString() == "Ctrl+Shift+K"
    export_menu = window.export_controller.menu.actions()
    assert all(a in export_menu for a in acc.exports.values())


def test_check_results_in_the_dialog(window, qtbot, tmp_path):
    load(window, qtbot, two_node_roce(window.doc.base_catalog))
    dlg = window.analysis.acceptance.open_check()
    assert not dlg.check_btn.isEnabled()  # nothing to check yet
    dlg.add_files([str(DATA / "nccl_tests_232_all_reduce_perf.txt"),
                   str(DATA / "ib_write_bw_node1_node2_rail0.txt")])
    assert dlg.check_btn.isEnabled()
    task = dlg.run_check()
    _wait(qtbot, task)
    assert dlg.table.rowCount() == 2
    verdicts = {dlg.table.item(i, 1).text(): dlg.table.item(i, 3).text() for i in range(2)}
    assert verdicts == {"all_reduce_perf": "MISS", "ib_write_bw": "PASS"}
    assert "3 of 4 rails" in dlg.causes.toPlainText()
    assert "miss" in dlg.summary.text()
    out = dlg.save_to("json", tmp_path / "check.json")
    assert json.loads(Path(out).read_text())["passed"] is False
    report = dlg.save_to("html", tmp_path / "check.html")
    assert "Acceptance: likely causes" in Path(report).read_text()
    dlg.grab().save(str(tmp_path / "dialog.png"))


def test_plan_and_exports_from_the_window(window, qtbot, tmp_path):
    project = load_project(PROJECTS / "dgx-superpod-4su-ib-ndr.fabric.json",
                           window.doc.base_catalog)
    load(window, qtbot, project)
    acc = window.analysis.acceptance
    _wait(qtbot, acc.write_plan(tmp_path / "plan"))
    assert (tmp_path / "plan" / "run_nccl_tests.sh").is_file()
    for key, out in (("infragraph", tmp_path / "d.json"), ("htsim", tmp_path / "h"),
                     ("astrasim", tmp_path / "a")):
        _wait(qtbot, acc.export(key, out))
    assert (tmp_path / "h" / "design.topo").is_file()
    assert (tmp_path / "a" / "network.yml").is_file()
    # the InfraGraph file opens back as a design of the same size, unsaved
    assert acc.import_path(tmp_path / "d.json")
    assert len(window.doc.project.fabric.devices) == 176
    assert window.doc.project.fabric.links.n_cables == 2048


def test_a_bad_infragraph_file_is_refused_with_its_reason(window, answers, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"devices": []}')
    before = window.doc.project
    assert not window.analysis.acceptance.import_path(bad)
    ((title, text),) = answers.errors
    assert "InfraGraph" in title and "no cables" in text
    assert window.doc.project is before


def test_htsim_export_offers_the_check_when_output_is_there(window, qtbot, answers, tmp_path,
                                                             monkeypatch):
    import shutil

    ran = tmp_path / "run"
    shutil.copytree(_paths.DATA / "htsim-128", ran)
    acc = window.analysis.acceptance
    # the user picks the folder of an export htsim has run in: offered the check, not a write
    monkeypatch.setattr(acc, "_folder", lambda *a: ran / "design-htsim")
    answers.confirm = True
    acc.ask_export("htsim")
    dlg = acc.sim_dialog
    assert dlg is not None and not (ran / "design-htsim").exists()
    text = dlg.text.toPlainText()
    assert "permutation  ecmp" in text and "119/119" in text and "ratio" in text
    dlg.grab().save(str(tmp_path / "simcheck.png"))
    # a folder without output: the export itself, no question
    answers.confirm = False
    monkeypatch.setattr(acc, "_folder", lambda *a: tmp_path / "fresh" / "design-htsim")
    calls = []
    monkeypatch.setattr(acc, "export", lambda key, out: calls.append((key, out)))
    acc.ask_export("htsim")
    assert calls == [("htsim", tmp_path / "fresh" / "design-htsim")]
