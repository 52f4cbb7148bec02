"""The Floor panel in the real window: placing racks, selecting with the canvas, moving a
device by dragging (elevation and floor drop), each one undo step; media follow the move.

Design: NVIDIA DGX SuperPOD, 1 SU (DGX H100 SuperPOD reference architecture: 32 DGX H100 in
eight racks of four, the SU's eight rail leaves in its network rack).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtTest import QTest

from designer.core.generators import generate, params_from_dict
from designer.gui.floor.floor_view import DEVICE_MIME
from designer.gui.project.document import Selection

WAIT_MS = 20_000


@pytest.fixture(scope="module")
def su1():
    return generate(params_from_dict("rail", {"sus": 1}))


def _current(window):
    return lambda revision, _r: revision == window.doc.revision


def _placed(window, qtbot, project):
    svc = window.analysis.service
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=_current(window)):
        window.doc.replace(project)
    panel = window.floor_panel
    assert panel.data is None
    # the lengths line follows results only while the panel is shown
    window.docks["floorDock"].show()
    window.docks["floorDock"].raise_()
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=_current(window)):
        panel.place_button.click()
    return panel


def test_place_racks_is_one_undo_step(window, qtbot, su1):
    panel = _placed(window, qtbot, su1)
    doc = window.doc
    assert panel.data is not None
    u = panel.data.usage
    assert [n for n, k in zip(u.names, u.kinds, strict=True) if k == "compute"] == [
        f"SU1-{k:02d}" for k in range(1, 9)]
    assert len(panel.view.items_) == len(u.names)
    assert "rows" in panel.summary.text()
    assert doc.undo_stack.undoText() == "Place racks"
    qtbot.waitUntil(lambda: "endpoint-leaf" in panel.lengths.text(), timeout=WAIT_MS)
    doc.undo_stack.undo()
    assert doc.project.physical is None and panel.data is None
    doc.undo_stack.redo()
    assert panel.data is not None


def test_canvas_and_floor_select_together(window, qtbot, su1):
    panel = _placed(window, qtbot, su1)
    doc = window.doc
    k = panel.data.rack_index("SU1-03")
    # a click on a rack selects its four servers in the document (and so on the canvas)
    QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=panel.view.rack_centre(k).toPoint())
    assert len(doc.selection.devices) == 4
    qtbot.waitUntil(lambda: set(window.scene.selected_device_ids()) == set(doc.selection.devices),
                    timeout=5000)
    # selecting a leaf (as the canvas does) outlines its network rack and shows its elevation
    doc.set_selection(Selection(devices=frozenset({"su1-leaf-r1"})))
    net = panel.data.rack_index("SU1-N01")
    assert panel.current_rack == net and net in panel.view._marked
    assert "su1-leaf-r1" in panel.elevation.boxes


def test_drag_in_elevation_and_drop_on_floor_move_the_device(window, qtbot, su1):
    panel = _placed(window, qtbot, su1)
    doc = window.doc
    svc = window.analysis.service
    place = lambda d: doc.project.physical.floor.placement[d]  # noqa: E731
    node = "su1-node32"
    before = place(node)
    doc.set_selection(Selection(devices=frozenset({node})))
    ev = panel.elevation
    box = ev.boxes[node]
    start = ev.mapFromScene(box.sceneBoundingRect().center())
    # four U up or down: the box moves with the mouse, snapped to whole U
    dy = round(4 * 14 * ev.transform().m22())
    end = start + QPoint(0, -dy) if before.u < 30 else start + QPoint(0, dy)
    QTest.mousePress(ev.viewport(), Qt.MouseButton.LeftButton, pos=start)
    QTest.mouseMove(ev.viewport(), pos=start + (end - start) / 2)
    QTest.mouseMove(ev.viewport(), pos=end)
    QTest.mouseRelease(ev.viewport(), Qt.MouseButton.LeftButton, pos=end)
    moved = place(node)
    assert moved.rack == before.rack and moved.u != before.u
    assert doc.undo_stack.undoText().startswith(f"Move {node} to {before.rack}")
    # a drop on the far rack of the row (as a drag out of the elevation ends)
    far = panel.data.rack_index("SU1-01")
    md = QMimeData()
    md.setData(DEVICE_MIME, node.encode())
    drop = QDropEvent(QPointF(panel.view.rack_centre(far)), Qt.DropAction.MoveAction, md,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    e = doc.project.fabric.links.expand()
    i = doc.project.fabric.index[node]
    mine = (e["a"] == i) | (e["b"] == i)
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=_current(window)):
        panel.view.dropEvent(drop)
    assert place(node).rack == "SU1-01"
    far_lengths = svc.latest.media.length_m[mine]
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert place(node) == before
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=_current(window)):
        doc.undo_stack.redo()
    # farther from the network rack: longer cables than next to it
    assert (far_lengths > svc.latest.media.length_m[mine]).all()


def test_a_move_that_does_not_fit_is_refused_with_a_message(window, qtbot, su1):
    panel = _placed(window, qtbot, su1)
    doc = window.doc
    said = []
    doc.message.connect(lambda text, refusal: said.append((text, refusal)))
    depth = doc.undo_stack.count()
    assert not panel.move("su1-node01", panel.data.rack_index("SU1-02"), 1)
    assert doc.undo_stack.count() == depth
    assert said and said[-1][1] and "taken" in said[-1][0]


def test_bom_line_switches_are_undoable_and_reach_the_bom(window, qtbot, su1):
    panel = _placed(window, qtbot, su1)
    svc = window.analysis.service
    racks = len(panel.data.usage.names)
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=_current(window)):
        panel.extra_actions["racks_and_pdus"].trigger()
    assert window.doc.project.physical.extras.racks_and_pdus
    lines = [x for x in svc.latest.bom.lines if x.category == "racks"]
    assert [x.qty for x in lines[:2]] == [racks, 2 * racks]  # racks, vertical managers
    pdus = [x for x in svc.latest.bom.lines if x.category == "power"]
    assert pdus and pdus[0].qty >= 2 * racks
    window.doc.undo_stack.undo()
    assert not panel.extra_actions["racks_and_pdus"].isChecked()


def test_file_export_writes_the_install_plan_and_netbox_files(window, qtbot, su1, tmp_path):
    panel = _placed(window, qtbot, su1)
    menu_texts = [a.text() for a in window.analysis.export.menu.actions()]
    assert panel.exports.plan_action.text() in menu_texts
    assert panel.exports.netbox_action.text() in menu_texts
    task = panel.exports.export_plan(tmp_path / "plan.xlsx")
    with qtbot.waitSignal(task.finished, timeout=WAIT_MS) as got:
        pass
    assert "cables in" in got.args[0] and (tmp_path / "plan.xlsx").stat().st_size > 0
    task = panel.exports.export_netbox(tmp_path / "nb")
    with qtbot.waitSignal(task.finished, timeout=WAIT_MS):
        pass
    assert len(list((tmp_path / "nb").glob("*.csv"))) == 8


def test_a_design_generated_or_new_in_the_window_carries_the_bom_sections(window, answers):
    # the window opens on a blank design like File > New's: a drawn design starts with them too
    x = window.doc.project.physical.extras
    assert x.racks_and_pdus and x.power_cords and x.spares
    # the window's Generate (Replace) gives the new design racks, power cords and spares; the
    # floor panel's BOM menu shows them on, and one click switches a section off (saved)
    window.apply_generated(params_from_dict("rail", {"sus": 1}))
    x = window.doc.project.physical.extras
    assert x.racks_and_pdus and x.power_cords and x.spares
    actions = window.floor_panel.extra_actions
    assert actions["spares"].isChecked() and actions["power_cords"].isChecked()
    assert not actions["support"].isChecked()
    actions["spares"].trigger()
    assert not window.doc.project.physical.extras.spares
    # File > New: a blank design with the same sections on
    answers.save_changes = "discard"
    window.action("new").trigger()
    assert not window.doc.project.fabric.devices
    x = window.doc.project.physical.extras
    assert x.racks_and_pdus and x.power_cords and x.spares
