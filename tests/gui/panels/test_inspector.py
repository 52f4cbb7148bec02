"""The inspector edits the selection; every committed field is one undo step."""

from __future__ import annotations

from PySide6.QtCore import QPointF

from designer.gui.panels.inspector import groups_text, parse_groups
from designer.gui.project import commands
from designer.gui.project.document import Selection


def _linked(window):
    v, doc = window.view, window.doc
    v.add_gear_at("dgx-h100", QPointF(0, 0))
    v.add_gear_at("qm9700", QPointF(0, -260))
    doc.push(commands.connect(doc, "node1", "leaf1", count=2))
    return doc


def test_device_fields_are_undoable(window):
    doc = _linked(window)
    ins = window.inspector
    doc.set_selection(Selection(devices=frozenset({"leaf1"})))
    assert ins.stack.currentWidget() is ins.device_page
    assert "2 of 64 ports used" in ins.d_usage.text()
    assert ins.d_links.count() == 1 and "node1" in ins.d_links.item(0).text()
    start = doc.project
    ins.d_name.setText("ToR A")
    ins.d_name.editingFinished.emit()
    assert doc.project.fabric.device("leaf1").name == "ToR A"
    ins.d_role.setCurrentIndex(ins.d_role.findData("spine"))
    ins.d_role.activated.emit(ins.d_role.currentIndex())
    assert doc.project.fabric.device("leaf1").role.value == "spine"
    ins.d_groups.setText("su=3, pod=1")
    ins.d_groups.editingFinished.emit()
    assert doc.project.fabric.device("leaf1").groups == {"su": 3, "pod": 1}
    assert window.scene.group_of("leaf1") == ["pod=1", "pod=1/su=3"]
    ins.d_model.setCurrentIndex(ins.d_model.findData("qm9790"))
    ins.d_model.activated.emit(ins.d_model.currentIndex())
    assert doc.project.fabric.device("leaf1").model == "qm9790"
    for _ in range(4):
        doc.undo_stack.undo()
    assert doc.project is start


def test_several_devices_are_counted_by_role_and_labels_can_be_cleared(window):
    doc = _linked(window)
    ins = window.inspector
    doc.set_selection(Selection(devices=frozenset({"node1", "leaf1"})))
    assert ins.stack.currentWidget() is ins.multi_page
    assert ins.m_title.text() == "2 selected"
    assert ins.m_text.text() == "1 GPU server · 1 leaf"
    doc.set_selection(Selection(devices=frozenset({"leaf1"})))
    ins.d_groups.setText("su=2")
    ins.d_groups.editingFinished.emit()
    assert doc.project.fabric.device("leaf1").groups == {"su": 2}
    ins.d_groups.setText("")  # no labels at all is a value too
    ins.d_groups.editingFinished.emit()
    assert doc.project.fabric.device("leaf1").groups == {}
    depth = doc.undo_stack.count()
    ins.d_name.setText("  ")  # a blank name is not committed
    ins.d_name.editingFinished.emit()
    assert doc.undo_stack.count() == depth and doc.project.fabric.device("leaf1").name


def test_refused_device_edit_reverts_the_field(window):
    doc = _linked(window)
    ins = window.inspector
    doc.set_selection(Selection(devices=frozenset({"node1"})))
    before = doc.project
    ins.d_model.setCurrentIndex(ins.d_model.findData("dgx-b300"))  # XDR NICs, NDR switch
    ins.d_model.activated.emit(ins.d_model.currentIndex())
    assert doc.project is before
    assert "no technology" in window.statusBar().currentMessage() or "InfiniBand" in (
        window.statusBar().currentMessage()
    )
    assert ins.d_model.currentData() == "dgx-h100"


def test_link_fields(window):
    doc = _linked(window)
    ins = window.inspector
    doc.set_selection(Selection(link=("node1", "leaf1")))
    assert ins.stack.currentWidget() is ins.link_page
    assert ins.l_count.value() == 2
    ins.l_count.setValue(6)
    ins.l_count.editingFinished.emit()
    assert doc.project.fabric.links.n_cables == 6
    ins.l_count.setValue(9)  # the server has 8 ports
    ins.l_count.editingFinished.emit()
    assert doc.project.fabric.links.n_cables == 6
    assert "8" in window.statusBar().currentMessage()
    assert ins.l_count.value() == 6
    ins.l_medium.setCurrentIndex(ins.l_medium.findData("acc"))
    ins.l_medium.activated.emit(ins.l_medium.currentIndex())
    ins.l_length.setValue(4.0)
    ins.l_length.editingFinished.emit()
    info = __import__("designer.core.editing", fromlist=["x"]).bundle_info(
        doc.project, None, "node1", "leaf1"
    )
    assert (info.medium, info.length_m, info.count) == ("acc", 4.0, 6)
    assert [s for s in (ins.l_speed.itemData(i) for i in range(ins.l_speed.count()))] == [
        100,
        200,
        400,
    ]
    ins.l_delete.click()
    assert not len(doc.project.fabric.links)


def test_design_page_renames(window):
    ins = window.inspector
    assert ins.stack.currentWidget() is ins.design_page
    ins.p_name.setText("Cluster B")
    ins.p_name.editingFinished.emit()
    assert window.doc.project.name == "Cluster B"
    assert window.windowTitle().startswith("Cluster B")
    window.doc.undo_stack.undo()
    assert window.doc.project.name == "Untitled fabric"


def test_group_labels_text():
    assert parse_groups("su=1, pod=2") == {"su": 1, "pod": 2}
    assert groups_text({"su": 1, "rail": 3}) == "su=1, rail=3"
    try:
        parse_groups("su=x")
    except ValueError as exc:
        assert "su=x" in str(exc)
    else:
        raise AssertionError("bad label accepted")
