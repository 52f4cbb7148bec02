"""The decision panels in the window: Workload edits are undoable and saved, the Estimate follows
the design, and Compare stays live while the design is edited."""

from __future__ import annotations

import pytest

from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from tests.gui.helpers import WAIT_MS, load


def _load(window, qtbot, project):
    # the Estimate panel works only while it is shown (a hidden tab catches up when raised)
    window.docks["estimateDock"].show()
    window.docks["estimateDock"].raise_()
    load(window, qtbot, project)


def test_workload_edit_is_one_undo_step_and_saved(window, qtbot, su4, tmp_path):
    _load(window, qtbot, su4)
    dec = window.analysis.decision
    est = dec.estimate
    qtbot.waitUntil(lambda: est.current is not None, timeout=WAIT_MS)
    before = est.current.step.parallel.tp
    assert before == 8
    assert dec.workload.commit("workload", "tp", "4")
    qtbot.waitUntil(lambda: est.current is not None and est.current.step.parallel.tp == 4,
                    timeout=WAIT_MS)
    assert window.doc.project.decision.workload.tp == 4
    window.doc.undo_stack.undo()
    assert window.doc.project.decision is None
    window.doc.undo_stack.redo()
    path = tmp_path / "w.fabric.json"
    window.doc.save(path)
    assert load_project(path).decision.workload.tp == 4


def test_bad_workload_value_names_the_field(window, qtbot, su4):
    _load(window, qtbot, su4)
    dec = window.analysis.decision
    assert not dec.workload.commit("economics", "gpu_hour_usd", "-3")
    assert "economics.gpu_hour_usd" in dec.workload.error.text()
    # a parallelism the design cannot hold: the Estimate says why, naming the field
    assert dec.workload.commit("workload", "tp", "16")
    qtbot.waitUntil(lambda: "workload.tp" in dec.estimate.summary.text(), timeout=WAIT_MS)


def test_estimate_rules_and_chart(window, qtbot, su4):
    _load(window, qtbot, su4)
    est = window.analysis.decision.estimate
    qtbot.waitUntil(lambda: est.current is not None, timeout=WAIT_MS)
    assert "Communication is" in est.summary.text()
    assert "InfiniBand tuning" in est.summary.text() and "RoCE" not in est.summary.text()
    assert est.rules.rowCount() == len(est.current.recommendation.rules)
    xs, ys = est.curves["all-reduce"].getOriginalDataset()
    assert len(xs) == 25 and (ys > 0).all()
    assert est.chart.getPlotItem().ctrl.logXCheck.isChecked()


def test_compare_stays_live_while_editing(window, qtbot, su4, tmp_path):
    _load(window, qtbot, su4)
    panel = window.analysis.decision.compare
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS):
        panel.boxes["roce-400"].setChecked(True)
    assert panel.table.columnCount() == 2
    assert panel.table.horizontalHeaderItem(1).text() == "RoCE 400G"
    # an edit of the workload updates the comparison (the variants come from the cache)
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS):
        window.analysis.decision.workload.commit("economics", "years", "5")
    assert panel.compare.latest.designs[0].estimate.tco.years == 5
    # a fabric edit (a smaller design) re-solves the variant too
    small = generate(params_from_dict("rail", {"sus": 2}))
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS,
                          check_params_cb=lambda c: c.designs[0].figures["gpus"] == 512):
        window.doc.replace(small)
    assert panel.compare.latest.designs[1].figures["gpus"] == 512
    out = tmp_path / "cmp.xlsx"
    task = panel.save_to(str(out))
    with qtbot.waitSignal(task.finished, timeout=WAIT_MS):
        pass
    assert out.stat().st_size > 0
    window.docks["compareDock"].show()
    window.docks["compareDock"].raise_()
    window.analysis.decision.estimate.refresh()
    window.docks["estimateDock"].raise_()


def test_compare_under_other_oversubscription(window, qtbot):
    ft = generate(params_from_dict("fat-tree", {"gpus": 512, "gear": "roce-400"}))
    _load(window, qtbot, ft)
    panel = window.analysis.decision.compare
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS):
        panel.ratios.setText("3:1")
        panel.ratios.editingFinished.emit()
    c = panel.compare.latest
    assert [d.label for d in c.designs] == ["This design", "3:1 oversubscribed"]
    assert c.designs[1].figures["oversubscription"] == pytest.approx(3.0)
    assert c.designs[1].figures["switches"] < c.designs[0].figures["switches"]
    # a design that is not a generated fat tree says why
    _load(window, qtbot, generate(params_from_dict("rail", {"sus": 1})))
    qtbot.waitUntil(lambda: "only a generated fat tree" in panel.status.text(), timeout=WAIT_MS)


def test_estimate_panel_shows_tabs_when_narrow_and_panes_when_wide(window, qtbot, su4):
    from designer.gui.decision.estimate_panel import SIDE_BY_SIDE_MIN_W

    _load(window, qtbot, su4)
    est = window.analysis.decision.estimate
    est.setParent(None)  # on its own, to size it freely
    est.resize(SIDE_BY_SIDE_MIN_W - 300, 300)
    est.show()
    qtbot.waitUntil(lambda: est.views.currentWidget() is est.tabs)
    assert [est.tabs.tabText(i) for i in range(est.tabs.count())] == [
        "Step and money", "Collectives", "Recommendation"]
    est.resize(SIDE_BY_SIDE_MIN_W + 300, 300)
    qtbot.waitUntil(lambda: est.views.currentWidget() is est.split)
    assert est.split.count() == 3 and est.tabs.count() == 0
    est.close()


def test_workload_values_read_whole_at_the_default_dock_width(window, qtbot, su4):
    """At the default window (1,728 px on a 1,920 x 1,080 screen) no value is cut at the dock's
    right edge: long labels keep their bracketed detail for the tooltip."""
    from PySide6.QtCore import QPoint

    window.resize(1728, 972)
    load(window, qtbot, su4)
    window.analysis.show_panel("workloadDock")
    panel = window.analysis.decision.workload
    qtbot.waitUntil(lambda: panel.isVisible(), timeout=WAIT_MS)
    view = panel.form.parentWidget().parentWidget()  # the scroll area's viewport
    for (part, name), editor in panel.editors.items():
        right = editor.mapTo(view, QPoint(editor.width(), 0)).x()
        assert right <= view.width(), (part, name, right, view.width())
        assert editor.width() >= 100, (part, name, editor.width())
    name = panel.editors[("workload", "name")]
    assert name.fontMetrics().horizontalAdvance(name.text()) < name.width()
    qps = panel.labels[("workload", "qps_per_connection")]
    assert "NCCL_IB_QPS_PER_CONNECTION" not in qps.text()
    assert "NCCL_IB_QPS_PER_CONNECTION" in qps.toolTip()


def test_every_workload_field_has_a_written_label_and_the_model_fields_explain_themselves():
    """A field without an entry in LABELS shows its Python name ("Compute sm share"); the
    fields of the compute model say where their figures come from."""
    from designer.core.analysis.workload import Economics, Workload
    from designer.gui.decision.workload_panel import LABELS, TIPS

    unlabelled = [n for m in (Workload, Economics) for n in m.model_fields
                  if n not in LABELS]
    assert unlabelled == []
    for name in ("compute_efficiency", "attention_width", "compute_sm_share", "cp_split"):
        assert LABELS[name].strip() and "_" not in LABELS[name], name
        assert any(s in TIPS[name] for s in ("arXiv", "Megatron", "Llama 3")), name
