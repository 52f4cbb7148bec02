"""Panning, arranging, finding, shortcuts and the help dialog."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from designer.core.generators import params_from_dict


def test_middle_drag_and_space_drag_pan(window):
    window.apply_generated(params_from_dict("rail", {"sus": 2}))
    view = window.view
    view.set_scale(1.0)
    vp = view.viewport()
    before = view.mapToScene(vp.rect().center())
    a = QPoint(400, 300)
    QTest.mousePress(vp, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(vp, a + QPoint(-120, 0))
    QTest.mouseRelease(
        vp, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, a + QPoint(-120, 0)
    )
    after = view.mapToScene(vp.rect().center())
    assert after.x() - before.x() > 100  # the canvas followed the hand
    depth = window.doc.undo_stack.count()
    view.setFocus()
    QTest.keyPress(vp, Qt.Key.Key_Space)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    QTest.mouseMove(vp, a + QPoint(0, 90))
    QTest.mouseRelease(
        vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a + QPoint(0, 90)
    )
    QTest.keyRelease(vp, Qt.Key.Key_Space)
    assert view.mapToScene(vp.rect().center()).y() < after.y() - 60
    assert window.doc.undo_stack.count() == depth  # panning is not an edit


def test_wheel_zooms_around_the_pointer(window):
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    window.view.add_gear_at("qm9700", QPointF(0, 0))
    view = window.view
    vp = view.viewport()
    at = QPointF(300, 200)
    under = view.mapToScene(at.toPoint())
    s = view.scale_factor()
    ev = QWheelEvent(
        at,
        vp.mapToGlobal(at),
        QPoint(0, 0),
        QPoint(0, 240),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(vp, ev)
    assert view.scale_factor() > s * 1.3
    moved = view.mapToScene(at.toPoint()) - under
    assert (
        abs(moved.x()) < 3 / view.scale_factor() + 1
        and abs(moved.y()) < 3 / view.scale_factor() + 1
    )


def test_arrange_compactly_is_one_undo_step(window):
    window.apply_generated(params_from_dict("rail", {"sus": 16}))
    before = window.doc.project
    window.action("arrange").trigger()
    rect = window.scene.content_rect()
    assert rect.width() / rect.height() < 4
    assert window.doc.undo_stack.undoText() == "Arrange compactly"
    window.doc.undo_stack.undo()
    assert window.doc.project is before


def test_find_device_expands_and_selects(window, answers):
    window.apply_generated(params_from_dict("rail", {"sus": 16}))
    answers.text = "su7-node03"
    window.action("find").trigger()
    assert window.doc.selection.devices == {"su7-node03"}
    assert window.scene.device_items["su7-node03"].isSelected()
    answers.text = "no-such-thing"
    window.action("find").trigger()
    assert "No device matches" in window.statusBar().currentMessage()


def test_expand_all_asks_for_huge_designs(window, answers):
    window.apply_generated(params_from_dict("rail", {"sus": 128}))
    answers.confirm = False
    window.action("expand_all").trigger()
    assert not window.scene.device_items
    answers.confirm = True
    window.action("expand_all").trigger()
    assert len(window.scene.device_items) == len(window.doc.project.fabric.devices)


def test_palette_double_click_adds_in_the_middle(window):
    window.palette_panel.gearActivated.emit("sn5600")
    (d,) = window.doc.project.fabric.devices
    centre = window.view.viewport_center_scene()
    assert abs(d.x - centre.x()) <= 10 and abs(d.y - centre.y()) <= 10


def test_shortcuts_are_listed_and_unique(window):
    dlg = window.show_shortcuts()
    table = dlg.findChild(__import__("PySide6.QtWidgets", fromlist=["QTableWidget"]).QTableWidget)
    texts = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert texts["Undo"] == "Ctrl+Z" and "Ctrl+Shift+Z" in texts["Redo"]
    assert "Ctrl+0" in texts["Fit Design"] and "F" in texts["Fit Design"]
    assert texts["Duplicate"] == "Ctrl+D" and texts["Select All"] == "Ctrl+A"
    seen: dict[str, str] = {}
    for action in window.actions():
        for seq in action.shortcuts():
            key = seq.toString()
            assert key not in seen, f"{key} is bound to {seen[key]} and {action.text()}"
            seen[key] = action.text()
    dlg.close()


def test_missing_recent_file_is_reported(window, answers, tmp_path):
    from designer.gui.base import settings

    gone = tmp_path / "gone.fabric.json"
    settings.add_recent_file(gone)
    window._open_recent(str(gone.resolve()))
    assert answers.errors and "no such file" in answers.errors[0][1]
    assert str(gone.resolve()) not in settings.recent_files()


def test_hover_tooltips_come_from_the_scene(window):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    from designer.gui.project import commands

    view, doc = window.view, window.doc
    view.add_gear_at("dgx-h100", QPointF(0, 0))
    view.add_gear_at("qm9700", QPointF(0, -260))
    doc.push(commands.connect(doc, "node1", "leaf1", count=3))
    vp = view.viewport()
    for at, expected in (
        (QPointF(0, -260), "<b>3</b> used"),
        (QPointF(0, -130), "<b>3</b> x 400G"),
    ):
        p = view.mapFromScene(at)
        QApplication.sendEvent(vp, QHelpEvent(QEvent.Type.ToolTip, p, vp.mapToGlobal(p)))
        assert expected in QToolTip.text()
    QToolTip.hideText()
