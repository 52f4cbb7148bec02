"""What a new user meets in the first hour (issue 17): names and files after Generate > Replace,
bundled examples that Save must not overwrite, and the small messages of the window."""

from __future__ import annotations

import shutil

from designer.core.fileformat import load_project
from designer.core.generators import params_from_dict
from designer.core.paths import is_bundled_example, projects_dir

EXAMPLE = projects_dir() / "dragonfly-1056-gpus.fabric.json"


def test_replace_takes_the_generated_name_and_leaves_the_file(window, answers, tmp_path):
    own = tmp_path / "mine.fabric.json"
    shutil.copy(EXAMPLE, own)
    assert window.open_path(own, ask=False)
    doc = window.doc
    old_name = doc.project.name
    assert "mine.fabric.json" in window.windowTitle()
    window.apply_generated(params_from_dict("rail", {"sus": 2}))
    assert doc.project.name.startswith("Rail-optimized 2 SU") and doc.project.name != old_name
    assert doc.path is None and "mine.fabric.json" not in window.windowTitle()
    assert "untitled" in window.windowTitle()
    # Save asks where: it never overwrites the design that was replaced
    answers.save_path = None
    before = own.read_bytes()
    assert not window.save()
    assert own.read_bytes() == before
    target = tmp_path / "rail.fabric.json"
    answers.save_path = str(target)
    assert window.save() and doc.path == target
    assert load_project(target).name.startswith("Rail-optimized 2 SU")


def test_replace_is_one_undo_step_that_restores_name_and_file(window, answers, tmp_path):
    own = tmp_path / "mine.fabric.json"
    shutil.copy(EXAMPLE, own)
    window.open_path(own, ask=False)
    doc = window.doc
    old_name = doc.project.name
    window.apply_generated(params_from_dict("rail", {"sus": 2}))
    assert doc.undo_stack.count() == 1
    doc.undo_stack.undo()
    assert doc.project.name == old_name and doc.path == own
    assert not doc.modified and "mine.fabric.json" in window.windowTitle()
    doc.undo_stack.redo()
    assert doc.path is None and doc.project.name.startswith("Rail-optimized")


def test_a_bundled_example_is_saved_elsewhere_on_first_save(window, answers, tmp_path):
    assert is_bundled_example(EXAMPLE) and not is_bundled_example(tmp_path / "x.fabric.json")
    window.open_path(EXAMPLE, ask=False)
    doc = window.doc
    assert doc.example and "example" in window.windowTitle()
    before = EXAMPLE.read_bytes()
    answers.save_path = None  # the user cancels the Save As dialog
    assert not window.save()
    assert EXAMPLE.read_bytes() == before
    target = tmp_path / "copy.fabric.json"
    answers.save_path = str(target)
    assert window.save()
    assert doc.path == target and not doc.example and target.is_file()
    assert EXAMPLE.read_bytes() == before


# -- small things ---------------------------------------------------------------------------------
def test_a_full_server_is_not_told_to_use_a_larger_switch(window):
    from PySide6.QtCore import QPointF

    from tests.gui.canvas.test_canvas_editing import _drag, _three_devices

    doc = _three_devices(window)
    window.set_link_tool(True)
    _drag(window.view, QPointF(0, 0), QPointF(0, -260))
    _drag(window.view, QPointF(0, 0), QPointF(300, -260))  # the server has no free port left
    toast = window.view.toast_text()
    assert "'node1' has no free port" in toast
    assert "larger switch" not in toast and "remove one of its links" in toast
    assert doc.project.fabric.links.n_cables == 8


def test_after_linking_the_status_bar_counts_the_ports_left(window):
    from PySide6.QtCore import QPointF

    from tests.gui.canvas.test_canvas_editing import _drag, _three_devices

    _three_devices(window)
    window.set_link_tool(True)
    _drag(window.view, QPointF(0, 0), QPointF(0, -260))
    # the server's 8 ports went to the leaf: 0 left on it, 64 - 8 = 56 on the QM9700
    message = window.statusBar().currentMessage()
    assert "ports free now: node1 0, leaf1 56" in message, message


def test_history_names_what_was_deleted(window):
    from PySide6.QtCore import QPointF

    from designer.gui.project import commands

    doc = window.doc
    for x in (0, 200, 400, 600, 800):
        window.view.add_gear_at("qm9700", QPointF(x, -260))
    doc.push(commands.delete(doc, ["leaf3"]))
    assert doc.undo_stack.undoText() == "Delete leaf3"
    doc.push(commands.delete(doc, ["leaf1", "leaf2"]))
    assert doc.undo_stack.undoText() == "Delete leaf1, leaf2"
    for x in (0, 200):
        window.view.add_gear_at("qm9700", QPointF(x, 0))
    ids = [d.id for d in doc.project.fabric.devices]
    assert len(ids) == 4
    doc.push(commands.delete(doc, ids))
    assert doc.undo_stack.undoText().startswith(f"Delete {len(ids)} devices (")


def test_the_generated_row_names_the_gear_profile(window):
    window.apply_generated(params_from_dict("rail", {"sus": 2}))
    window.doc.set_selection(type(window.doc.selection)())
    window.inspector.refresh()
    text = window.inspector.p_generator.text()
    assert "InfiniBand NDR" in text and "ib-ndr" not in text


def test_hovering_the_latency_figure_shows_its_tooltip(window, qtbot):
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    window.open_path(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", ask=False)
    metrics = window.analysis.metrics
    value = metrics.values["latency"]
    qtbot.waitUntil(lambda: "p50" in value.text.text(), timeout=10_000)
    # the figure, its text and the row's name all explain it
    for widget in (value.text, metrics._names["latency"]):
        assert "GPU to GPU" in widget.toolTip()
        QToolTip.hideText()
        at = QPoint(3, 3)
        QApplication.sendEvent(widget, QHelpEvent(QEvent.Type.ToolTip, at,
                                                  widget.mapToGlobal(at)))
        assert "GPU to GPU" in QToolTip.text()
    QToolTip.hideText()


def test_palette_names_wrap_and_are_never_cut_at_the_front(app):
    """Issue 27: a narrow palette showed "...QM9700 (managed)" (cut at the front). Names now
    wrap at spaces; the model number always shows, and the start of the name too."""
    from PySide6.QtGui import QFontMetrics

    from designer.gui.base import style
    from designer.gui.panels.palette import wrapped_name

    fm = QFontMetrics(style.ui_font(9.0))
    for name in ("NVIDIA Quantum-2 QM9700 (managed)",
                 "NVIDIA Quantum-2 QM9790 (externally managed)",
                 "Tomahawk 5 class switch, 64 x 800G (7060X6 class)"):
        lines = wrapped_name(name, fm, 130)
        assert lines[0].startswith(name.split()[0]) and len(lines) <= 3
        assert all(fm.horizontalAdvance(x) <= 130 for x in lines)
        assert " ".join(lines) == name  # the whole name, in order, at this width
    assert wrapped_name("NVIDIA Quantum-2 QM9700 (managed)", fm, 2000) == [
        "NVIDIA Quantum-2 QM9700 (managed)"]
    tight = wrapped_name("NVIDIA Quantum-2 QM9790 (externally managed)", fm, 60, lines=2)
    assert len(tight) == 2 and tight[-1].endswith("…")


def test_palette_rows_grow_when_the_dock_narrows(window, qtbot):
    tree = window.palette_panel.tree
    item = next(tree.topLevelItem(0).child(k) for k in range(tree.topLevelItem(0).childCount())
                if "QM9790" in tree.topLevelItem(0).child(k).text(0))
    dock = window.docks["paletteDock"]
    dock.setFloating(True)
    dock.resize(520, 600)
    qtbot.waitUntil(lambda: tree.viewport().width() > 400)
    wide = tree.visualItemRect(item).height()
    dock.resize(170, 600)
    qtbot.waitUntil(lambda: tree.viewport().width() < 200)
    qtbot.waitUntil(lambda: tree.visualItemRect(item).height() > wide)


def test_bom_panel_shows_ten_rows(window, qtbot):
    window.open_path(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", ask=False)
    table = window.analysis.bom.table
    qtbot.waitUntil(lambda: table.model().rowCount() > 8, timeout=10_000)
    window.analysis.show_panel("bomDock")
    qtbot.wait(50)
    rows = table.viewport().height() // table.verticalHeader().defaultSectionSize()
    assert rows >= 9


# -- the generate dialog's preview -------------------------------------------------------------
def test_generate_preview_adds_cost_bisection_oversubscription_and_latency(window, qtbot):
    from designer.core.solver import solve

    dlg = window.show_generate("rail")
    dlg.set_value("sus", 2)
    assert "analysing" in dlg.preview.text()  # the dialog does not wait for the solve
    qtbot.waitUntil(lambda: dlg.analysis.result is not None, timeout=20_000)
    text = dlg.preview.text()
    # the same figures the window would show after Replace (DGX SuperPOD 2 SU: full bisection)
    expected = solve(_generated(window, dlg), catalog=window.doc.catalog)
    assert f"${expected.bom.per_gpu_usd:,.0f}"[:4] in text
    assert "100% of full" in text and "1:1" in text
    assert f"p50 {expected.latency.p50_us:,.2f} µs" in text
    assert f"p99 {expected.latency.p99_us:,.2f} µs" in text
    dlg.reject()


def _generated(window, dlg):
    from designer.core.generators import generate

    return generate(dlg.params(), window.doc.catalog)


def test_preview_solves_off_the_gui_thread(window, qtbot):
    import threading

    from designer.gui.generate import preview as generate_preview

    seen = []
    real = generate_preview._generate_and_solve

    def spy(*args, **kwargs):
        seen.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    dlg = window.show_generate("dragonfly")
    dlg.analysis.service.solve_fn = spy  # the service calls the function it holds
    dlg.set_value("groups", 9)
    qtbot.waitUntil(lambda: dlg.analysis.result is not None, timeout=20_000)
    assert seen and not any(seen)
    dlg.reject()


def test_dragonfly_dialog_starts_at_the_bundled_examples_size(window):
    dlg = window.show_generate("dragonfly")
    pl = dlg.plan()
    # Balanced dragonfly a = 8, p = h = 4: 33 groups, 264 routers, 1,056 GPUs (not 262,656)
    assert pl is not None and pl.gpus == 1056 and pl.switches.get("router") == 264
    dlg.reject()


def test_canvas_labels_keep_whole_parts(app):
    """A pod's label "1,024 GPUs · 128 GPU servers · 32 leaves" in a narrow box drops whole
    parts from the end ("128 GP…" was shown); one part alone is cut at its end."""
    from PySide6.QtGui import QFont, QFontMetricsF

    from designer.gui.canvas.items import fit_text

    fm = QFontMetricsF(QFont("DejaVu Sans", 9))
    label = "1,024 GPUs · 128 GPU servers · 32 leaves · 16 spines"
    assert fit_text(label, fm, 10_000) == label
    two = "1,024 GPUs · 128 GPU servers"
    assert fit_text(label, fm, fm.horizontalAdvance(two) + 5) == two
    assert fit_text(label, fm, fm.horizontalAdvance("1,024 GPUs") + 1) == "1,024 GPUs"
    cut = fit_text(label, fm, 30)
    assert cut.endswith("…") and "·" not in cut
