"""Editing on the canvas with the mouse and keys, as a user would: drop, link, move, delete,
copy/paste, undo/redo."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from designer.gui.canvas.grid import snap
from designer.gui.canvas.interactions import GEAR_MIME


def _drop(view, gear_id: str, at: QPoint) -> None:
    mime = QMimeData()
    mime.setData(GEAR_MIME, gear_id.encode())
    vp = view.viewport()
    actions = Qt.DropAction.CopyAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    for cls in (QDragEnterEvent, QDragMoveEvent):
        ev = cls(at, actions, mime, buttons, mods)
        QApplication.sendEvent(vp, ev)
        assert ev.isAccepted()
    drop = QDropEvent(QPointF(at), actions, mime, buttons, mods)
    QApplication.sendEvent(vp, drop)
    assert drop.isAccepted()


def _drag(view, a: QPointF, b: QPointF, steps: int = 4) -> None:
    vp = view.viewport()
    pa, pb = view.mapFromScene(a), view.mapFromScene(b)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pa)
    for k in range(1, steps + 1):
        QTest.mouseMove(vp, pa + (pb - pa) * k / steps)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pb)


def _three_devices(window):
    v = window.view
    for gear, x, y in (("dgx-h100", 0, 0), ("qm9700", 0, -260), ("qm9700", 300, -260)):
        assert v.add_gear_at(gear, QPointF(x, y))
    return window.doc


def test_drop_from_palette_creates_device_at_drop_point(window):
    view, doc = window.view, window.doc
    assert "qm9700" in window.palette_panel.visible_gear()
    at = QPoint(420, 330)
    expected = view.mapToScene(at)
    _drop(view, "qm9700", at)
    (dev,) = doc.project.fabric.devices
    assert dev.model == "qm9700" and dev.role.value == "leaf"
    assert (dev.x, dev.y) == (snap(expected.x()), snap(expected.y()))
    assert doc.selection.devices == {dev.id}  # the new device is selected
    assert "leaf1" in window.scene.device_items
    doc.undo_stack.undo()
    assert not doc.project.fabric.devices


def test_palette_search_filters_by_technology_and_name(window):
    palette = window.palette_panel
    palette.search.setText("q3400")
    assert palette.visible_gear() == ["q3400"]
    palette.search.setText("dgx b300")
    assert set(palette.visible_gear()) == {"dgx-b300"}
    palette.search.clear()
    assert len(palette.visible_gear()) > 10


def test_link_by_dragging_creates_bundle_and_refuses_full_ports(window):
    doc = _three_devices(window)
    window.set_link_tool(True)
    _drag(window.view, QPointF(0, 0), QPointF(0, -260))
    links = doc.project.fabric.links
    assert len(links) == 1 and links.n_cables == 8  # every free port of the server
    assert doc.selection.link == ("node1", "leaf1")
    assert window.inspector.stack.currentWidget() is window.inspector.link_page
    before = doc.project
    _drag(window.view, QPointF(0, 0), QPointF(300, -260))  # the server has no free port left
    assert doc.project is before
    assert "no free port" in window.view.toast_text()
    assert "no free port" in window.statusBar().currentMessage()


def test_link_from_the_handle_in_select_mode(window):
    doc = _three_devices(window)
    item = window.scene.device_items["leaf1"]
    handle = item.mapToScene(item.handle_center())
    _drag(window.view, handle, QPointF(300, -260))
    assert doc.project.fabric.links.n_cables == 1  # switch to switch: one cable by default
    assert doc.undo_stack.undoText().startswith("Link leaf1 to leaf2")


def test_link_refuses_technology_mismatch(window):
    doc = _three_devices(window)
    window.view.add_gear_at("sn5600", QPointF(600, -260))
    window.set_link_tool(True)
    before = doc.project
    _drag(window.view, QPointF(0, -260), QPointF(600, -260))
    assert doc.project is before
    assert "no technology in common" in window.view.toast_text()


def test_esc_cancels_a_link_drag(window):
    doc = _three_devices(window)
    window.set_link_tool(True)
    view = window.view
    vp = view.viewport()
    a, b = view.mapFromScene(QPointF(0, 0)), view.mapFromScene(QPointF(0, -260))
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(vp, b)
    assert window.scene.gesture is not None
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    assert window.scene.gesture is None
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    assert not len(doc.project.fabric.links)


def test_drag_is_one_move_step_snapped_and_undo_restores_exactly(window):
    doc = _three_devices(window)
    window.set_link_tool(True)
    _drag(window.view, QPointF(0, 0), QPointF(0, -260))
    window.set_link_tool(False)
    start = doc.project
    depth = doc.undo_stack.count()
    s = window.view.scale_factor()
    _drag(window.view, QPointF(300, -260), QPointF(300 + 57 / s, -260 + 23 / s), steps=6)
    assert doc.undo_stack.count() == depth + 1
    moved = doc.project.fabric.device("leaf2")
    assert moved.x % 10 == 0 and moved.y % 10 == 0 and moved.x > 300
    assert doc.project.fabric.links is start.fabric.links
    doc.undo_stack.undo()
    assert doc.project is start
    doc.undo_stack.redo()
    assert doc.project.fabric.device("leaf2") == moved


def test_esc_cancels_a_move(window):
    doc = _three_devices(window)
    view = window.view
    vp = view.viewport()
    a = view.mapFromScene(QPointF(300, -260))
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(vp, a + QPoint(80, 40))
    assert window.scene.device_items["leaf2"].pos() != QPointF(300, -260)
    QTest.keyClick(vp, Qt.Key.Key_Escape)
    QTest.mouseRelease(
        vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a + QPoint(80, 40)
    )
    assert window.scene.device_items["leaf2"].pos() == QPointF(300, -260)
    assert doc.project.fabric.device("leaf2").x == 300


def test_delete_copy_paste_duplicate_and_round_trip(window):
    doc = _three_devices(window)
    window.set_link_tool(True)
    _drag(window.view, QPointF(0, 0), QPointF(0, -260))
    window.set_link_tool(False)
    history = [doc.project]
    scene = window.scene
    scene.clearSelection()
    scene.device_items["node1"].setSelected(True)
    scene.device_items["leaf1"].setSelected(True)
    window.action("copy").trigger()
    window.action("paste").trigger()
    history.append(doc.project)
    ids = [d.id for d in doc.project.fabric.devices]
    assert ids == ["node1", "leaf1", "leaf2", "node1-2", "leaf1-2"]
    assert doc.project.fabric.links.n_cables == 16  # the copy keeps its link
    assert doc.selection.devices == {"node1-2", "leaf1-2"}
    window.action("duplicate").trigger()
    history.append(doc.project)
    assert len(doc.project.fabric.devices) == 7
    window.action("delete").trigger()
    history.append(doc.project)
    assert len(doc.project.fabric.devices) == 5
    # the link itself can be selected and deleted
    scene.select_edge(scene.find_edge("node1", "leaf1"))
    assert doc.selection.link == ("node1", "leaf1")
    window.action("delete").trigger()
    history.append(doc.project)
    assert doc.project.fabric.links.n_cables == 8
    for expected in reversed(history[:-1]):
        doc.undo_stack.undo()
        assert doc.project is expected
    for expected in history[1:]:
        doc.undo_stack.redo()
        assert doc.project is expected


def test_select_all_rubber_band_and_nudge(window):
    doc = _three_devices(window)
    view, scene = window.view, window.scene
    window.action("select_all").trigger()
    assert doc.selection.devices == {"node1", "leaf1", "leaf2"}
    scene.clearSelection()
    vp = view.viewport()
    a, b = view.mapFromScene(QPointF(-100, -320)), view.mapFromScene(QPointF(120, -200))
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(vp, (a + b) / 2)
    QTest.mouseMove(vp, b)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    assert doc.selection.devices == {"leaf1"}
    view.setFocus()
    depth = doc.undo_stack.count()
    QTest.keyClick(vp, Qt.Key.Key_Right)
    QTest.keyClick(vp, Qt.Key.Key_Right)
    assert doc.project.fabric.device("leaf1").x == 20
    assert doc.undo_stack.count() == depth + 1  # nudges of the same devices merge


def test_tooltips_say_ports_and_link_counts(window):
    doc = _three_devices(window)
    window.set_link_tool(True)
    _drag(window.view, QPointF(0, 0), QPointF(0, -260))
    scene = window.scene
    tip = scene.device_tooltip("leaf1")
    assert "<b>8</b> used" in tip and "<b>56</b> free" in tip
    edge = scene.find_edge("node1", "leaf1")
    assert "<b>8</b> x 400G" in scene.edge_tooltip(edge)
    assert doc.project.fabric.links.n_cables == 8


def test_zoom_and_fit_keys(window):
    view = window.view
    _three_devices(window)
    s = view.scale_factor()
    window.action("zoom_in").trigger()
    assert view.scale_factor() > s
    window.action("zoom_out").trigger()
    window.action("zoom_out").trigger()
    assert view.scale_factor() < s
    window.action("fit").trigger()
    rect = window.scene.content_rect()
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    assert shown.contains(rect)
    assert window.zoom_label.text().endswith("%")
