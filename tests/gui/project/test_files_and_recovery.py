"""Files: save/open round trip, the unsaved mark, bad files, recent files, closing with unsaved
work, settings, autosave and recovery after a crash."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QSettings

from designer.core.fileformat import dumps_project, save_project
from designer.core.generators import generate, params_from_dict
from designer.gui.base import settings


def _edit(window):
    window.view.add_gear_at("qm9700", QPointF(0, -260))


def test_save_open_round_trip_and_unsaved_mark(window, answers, tmp_path, catalog):
    doc = window.doc
    window.apply_generated(params_from_dict("rail", {"sus": 2}))
    window.scene.expand_all()
    assert doc.modified and window.isWindowModified()
    assert window.windowTitle().startswith("Rail-optimized 2 SU") and "[*]" in window.windowTitle()
    target = tmp_path / "design.fabric.json"
    answers.save_path = str(target)
    window.action("save").trigger()
    assert target.is_file()
    assert not doc.modified and not window.isWindowModified()
    assert doc.path == target and "design.fabric.json" in window.windowTitle()
    saved = doc.project
    _edit(window)
    assert window.isWindowModified()
    doc.undo_stack.undo()
    assert not window.isWindowModified()  # back at the saved point
    _edit(window)
    answers.open_path = str(target)
    answers.save_changes = "discard"
    window.action("open").trigger()
    assert answers.asked == ["save_changes"]
    assert dumps_project(doc.project.model_copy(update={"view": {}})) == dumps_project(saved)
    assert doc.project.view["collapsed"] == []  # the canvas state travels with the file
    assert not doc.modified and doc.undo_stack.count() == 0
    assert settings.recent_files()[0] == str(target.resolve())
    window.fill_recent_menu()
    names = [a.text() for a in window.actions_.recent_menu.actions()]
    assert any("design.fabric.json" in n for n in names)


def test_corrupt_file_shows_error_and_keeps_the_design(window, answers, tmp_path):
    _edit(window)
    before, path_before = window.doc.project, window.doc.path
    for content, expected in (
        (b'{"schema_version": 1, "fabric": {"devices": [', "ends too early"),
        (b"not json at all", "not valid JSON"),
        (b'{"schema_version": 99}', "newer than this app"),
    ):
        bad = tmp_path / "bad.fabric.json"
        bad.write_bytes(content)
        answers.errors.clear()
        assert not window.open_path(bad, ask=False)
        ((title, text),) = answers.errors
        assert title == "Cannot open the design" and expected in text and "bad.fabric.json" in text
        assert window.doc.project is before and window.doc.path == path_before
    assert window.doc.modified


def test_closing_with_unsaved_work_asks(window, answers, tmp_path):
    _edit(window)
    answers.save_changes = "cancel"
    assert not window.close()
    assert window.isVisible() and answers.asked == ["save_changes"]
    answers.save_changes = "save"
    answers.save_path = str(tmp_path / "kept.fabric.json")
    assert window.close()
    assert (tmp_path / "kept.fabric.json").is_file()


def test_window_layout_is_remembered_in_temporary_settings(window, answers, tmp_path):
    window.docks["historyDock"].hide()
    window.resize(1111, 777)
    window.save_settings()
    s = settings.settings()
    assert s.fileName().startswith(str(tmp_path))  # never the user's own settings
    stored = QSettings(s.fileName(), QSettings.Format.IniFormat)
    from designer.gui.main_window import LAYOUT_VERSION

    assert stored.value("window/state") == window.saveState(LAYOUT_VERSION)
    assert stored.value("window/geometry") == window.saveGeometry()
    from designer.gui.main_window import MainWindow

    other = MainWindow(data_dir=tmp_path / "data2")
    try:
        assert not other.docks["historyDock"].isVisibleTo(other)
        assert other.docks["paletteDock"].isVisibleTo(other)
    finally:
        other.recovery.close()
        other.deleteLater()


def test_autosave_then_crash_then_recover(window, answers, tmp_path, qtbot):
    from designer.gui.main_window import MainWindow

    assert not window.autosave()  # nothing unsaved, nothing written
    window.apply_generated(params_from_dict("fat-tree", {"k_ary": 4}))
    _edit(window)
    assert window.autosave()
    recovery_file = window.recovery.file
    assert recovery_file.is_file() and recovery_file.is_relative_to(tmp_path)
    assert not window.autosave()  # unchanged since the last autosave
    window.recovery.abandon()  # the process dies: its lock goes, the file stays
    lost = window.doc.project

    answers.recover = "recover"
    second = MainWindow(data_dir=tmp_path / "data")
    qtbot.addWidget(second, before_close_func=lambda w: w.doc.undo_stack.setClean())
    assert second.check_recovery()
    assert answers.asked == ["recover"]
    assert dumps_project(second.doc.project) == dumps_project(window.doc.project_to_save())
    assert second.doc.project.fabric.devices == lost.fabric.devices
    assert second.doc.modified and second.isWindowModified()  # recovered work is unsaved
    assert not recovery_file.exists()
    # nothing is offered twice
    third = MainWindow(data_dir=tmp_path / "data")
    qtbot.addWidget(third)
    answers.asked.clear()
    assert not third.check_recovery() and answers.asked == []


def test_clean_exit_removes_the_recovery_file(window, answers):
    _edit(window)
    assert window.autosave()
    f = window.recovery.file
    answers.save_changes = "discard"
    assert window.close()
    assert not f.exists()


def test_open_large_example_collapsed(window, answers, tmp_path, catalog):
    """A 16,384-GPU design opens folded (the time it takes: bench/bench_gui_open.py)."""
    path = tmp_path / "rail64.fabric.json"
    save_project(generate(params_from_dict("rail", {"sus": 64}), catalog), path)
    assert window.open_path(path)
    scene = window.scene
    assert len(window.doc.project.fabric.devices) == 3328
    assert not scene.device_items  # everything folded
    assert len(scene.box_items) == 17  # 16 pods and the core tier
    assert scene.vg.edge_u.size == 16  # pod -> core lines, each labelled with its count
    assert set(scene.vg.edge_count.tolist()) == {1024}
    assert "16,384 GPUs" in window.size_label.text()
    scene.expand("pod=3")
    assert len(scene.device_items) == 32  # the pod's spines; its SUs are still boxes
    assert "pod=3/su=9" in scene.box_items
    window.doc.focus_devices(["su12-node07"])
    assert "su12-node07" in scene.device_items
    assert window.doc.selection.devices == {"su12-node07"}
