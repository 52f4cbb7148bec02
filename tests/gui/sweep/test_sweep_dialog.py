"""Design > Explore…: the sweep dialog runs the issue's spec, draws the points as they
arrive with the Pareto front, opens a chosen design in a new window, and cancels cleanly."""

from __future__ import annotations

import pytest

ISSUE_YAML = """
generate: {kind: rail, gear: [ib-ndr, roce-400], sus: [1, 2, 4, 8]}
objectives: [cost_per_gpu, bisection_per_gpu]
constraints: {budget: 8.0e6}
"""


def _start_dask_offload_thread() -> None:
    """Dask keeps one "Dask-Offload" thread for the life of the process (not a worker):
    start it now, at collection, so the no-thread-left check sees it as already there."""
    from distributed.utils import _offload_executor

    _offload_executor.submit(lambda: None).result()


_start_dask_offload_thread()


def open_dialog(window, qtbot):
    window.action("explore").trigger()
    dlg = window.sweep_dialog
    assert dlg is not None and dlg.isVisible()
    return dlg


def run_to_end(dlg, qtbot, workers: int, timeout: int = 120_000):
    dlg.editor.setPlainText(ISSUE_YAML)
    dlg.workers.setValue(workers)
    with qtbot.waitSignal(dlg.runner.finished, timeout=timeout):
        assert dlg.start()
    qtbot.waitUntil(lambda: dlg.run_button.isEnabled())


def test_explore_runs_the_issue_spec_and_opens_a_point(window, qtbot, tmp_path):
    from designer.core.paths import projects_dir

    assert window.open_path(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", ask=False)
    dlg = open_dialog(window, qtbot)
    run_to_end(dlg, qtbot, workers=0)
    assert dlg.progress.value() == 8 and "Done: 8 of 8" in dlg.status.text()
    assert "largest design" in dlg.status.text() and "workers up" not in dlg.status.text()
    plot = dlg.plot
    shown = sum(len(item.data) for item in (plot.others, plot.dropped, plot.front_dots))
    assert shown == 8
    assert len(plot.front_dots.data) >= 1
    # a budget of $8M leaves out the 8-SU designs (about $16M each) and any other point over it
    from designer.core.sweep import loads_spec, run_sweep

    run = run_sweep(loads_spec(ISSUE_YAML, "spec.yaml"), workers=0)
    over = [o for o in run.outcomes.values() if o.metrics["network_cost_usd"] > 8e6]
    assert len(over) >= 2 and len(plot.dropped.data) == len(over)
    assert plot.x_name == "cost_per_gpu" and plot.y_name == "bisection_per_gpu"
    plot.y_combo.setCurrentIndex(plot.y_combo.findData("gpus"))
    assert plot.plot.getAxis("left").labelText == "GPUs"
    tip = plot._tip(7765.0, 256.0, 0)
    assert "sus = 1" in tip and "gear = ib-ndr" in tip
    # clicking a point selects it; Open Design builds it off the GUI thread in a new window
    spot = plot.front_dots.points()[0]
    plot._clicked(plot.front_dots, [spot])
    assert dlg.chosen == int(spot.data()) and dlg.open_design.isEnabled()
    seen = []
    dlg.compareRequested.connect(seen.append)
    dlg.compare.click()
    assert seen and seen[0].index == dlg.chosen
    # Add to Compare: the point's design joins the Compare view beside the window's design
    panel = window.analysis.decision.compare
    qtbot.waitUntil(lambda: panel.compare.latest is not None and len(
        panel.compare.latest.designs) == 2, timeout=60_000)
    labels = [d.label for d in panel.compare.latest.designs]
    assert labels[1] == f"point {dlg.chosen}", labels
    before = len(getattr(window, "sweep_windows", []))
    dlg.open_design.click()
    qtbot.waitUntil(lambda: len(getattr(window, "sweep_windows", [])) > before, timeout=30_000)
    other = window.sweep_windows[-1]
    qtbot.addWidget(other, before_close_func=lambda w: w.doc.undo_stack.setClean())
    assert other.doc.project.generator.params["sus"] == seen[0].params["sus"]
    assert dlg.write_table(tmp_path / "t.csv") and (tmp_path / "t.csv").read_text()
    dlg.grab().save(str(tmp_path / "sweep-dialog.png"))  # README's: scripts/shoot_sweep.py
    dlg.close()


def test_a_bad_spec_is_refused_before_anything_starts(window, qtbot):
    dlg = open_dialog(window, qtbot)
    dlg.editor.setPlainText("generate: [unclosed")
    assert not dlg.start()  # not YAML: refused at once
    assert "not valid YAML" in dlg.status.text() and dlg.run_button.isEnabled()
    dlg.workers.setValue(2)  # the checks come before any worker starts
    for text, words in [("generate: {kind: rail, sus: []}", "generate.sus"),
                        ("generate: {kind: rail, susses: [1]}", "generate.susses")]:
        dlg.editor.setPlainText(text)
        with qtbot.waitSignal(dlg.runner.failed, timeout=20_000):
            assert dlg.start()
        assert words in dlg.status.text()
        qtbot.waitUntil(lambda: dlg.run_button.isEnabled())
    dlg.close()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["processes", "dask"])
def test_workers_run_from_the_window_and_cancel_leave_no_worker(window, qtbot, engine):
    dlg = open_dialog(window, qtbot)
    # 64 designs of up to 65,536 GPUs, the largest first: many seconds of work after the first
    # outcome arrives, so the cancel lands mid-sweep even on warm local workers
    dlg.editor.setPlainText(
        "generate: {kind: fat-tree, gpus: {min: 1024, max: 65536, step: 1024}}")
    dlg.workers.setValue(2)
    dlg.engine.setCurrentIndex(dlg.engine.findData(engine))
    with qtbot.waitSignal(dlg.runner.finished, timeout=120_000) as blocker:
        dlg.start()
        # a worker's outcome: on Dask the first designs are solved in a fork of this process
        # while the cluster starts, and a cancel before the workers are up never reaches them
        qtbot.waitUntil(lambda: dlg.run is not None
                        and any(o.worker for o in list(dlg.run.outcomes.values())),
                        timeout=120_000)
        dlg.cancel()
    run = blocker.args[0]
    assert run.cancelled and len(run.outcomes) < len(run.points)
    assert run.scheduler == ("local" if engine == "processes" else "local Dask")
    assert "Cancelled" in dlg.status.text()
    # where the time went: the workers' start-up and the largest design, the report's table
    # of time per worker as the status's tooltip
    assert "workers up" in dlg.status.text() and "largest design" in dlg.status.text()
    assert dlg.status.toolTip().startswith("Time per worker")
    dlg.close()  # the fixture checks that no worker process outlives the test


def test_a_scheduler_address_means_dask_so_the_engine_choice_is_off(window, qtbot):
    dlg = open_dialog(window, qtbot)
    dlg.scheduler.setText("")
    dlg.workers.setValue(2)
    assert dlg.engine.isEnabled() and dlg.engine.currentData() == "processes"
    dlg.scheduler.setText("tcp://10.0.0.5:8786")
    assert not dlg.engine.isEnabled()
    dlg.scheduler.setText("")
    assert dlg.engine.isEnabled()
    dlg.workers.setValue(0)  # this process: no workers to choose an engine for
    assert not dlg.engine.isEnabled()
    dlg.close()


def test_add_axis_rewrites_the_spec(window, qtbot):
    from designer.core.sweep import expand, loads_spec
    from designer.gui.sweep.axis import parse_values

    assert parse_values("1, 2, 4") == [1, 2, 4]
    assert parse_values("1..8 step 2") == {"min": 1, "max": 8, "step": 2}
    assert parse_values("ib-ndr") == "ib-ndr"
    dlg = open_dialog(window, qtbot)
    dlg.editor.setPlainText(ISSUE_YAML)
    dlg.axis_row.param.setCurrentText("servers_per_su")
    dlg.axis_row.values.setText("16, 32")
    assert dlg.axis_row.apply()
    dlg.axis_row.param.setCurrentText("price:qm9700")
    dlg.axis_row.values.setText("30000..40000 step 10000")
    assert dlg.axis_row.apply()
    points = expand(loads_spec(dlg.editor.toPlainText()))
    assert len(points) == 8 * 2 * 2
    dlg.axis_row.values.setText("")
    assert not dlg.axis_row.apply() and "give values" in dlg.status.text()
    dlg.close()
