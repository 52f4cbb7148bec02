"""A large design's edit is drawn a turn later (canvas/sync.py): the canvas must end up showing
exactly the document's design, answer from one design at a time until then, and undo and redo
(which recall what was worked out before, canvas/recall.py) must draw what a rebuild draws.

A small rack-scale design stands in for a large one: ``defer_above`` is set to 0 so its edits
take the deferred path (the same code a 131,040-GPU design takes above 5,000 devices)."""

from __future__ import annotations

import numpy as np
import pytest

from designer.core.generators import generate, params_from_dict
from designer.gui.canvas.groups import GroupIndex, visible_graph
from designer.gui.project import commands


def _matches_document(scene, doc) -> None:
    """Every item the scene holds is what a fresh regroup of the document's design shows."""
    fabric = doc.project.fabric
    assert scene.fabric is fabric and not scene.pending
    index = GroupIndex.build(fabric.devices)
    vg = visible_graph(index, fabric.links, scene.collapsed, len(fabric.devices))
    assert scene.index.keys == index.keys
    assert set(scene.box_items) == set(vg.boxes)
    assert set(scene.frame_items) == set(vg.frames)
    shown = {fabric.devices[i].id: fabric.devices[i] for i in vg.shown_devices.tolist()}
    assert set(scene.device_items) == set(shown)
    for dev_id, item in scene.device_items.items():
        assert (item.pos().x(), item.pos().y()) == (shown[dev_id].x, shown[dev_id].y)
    for key, item in scene.box_items.items():
        members = index.members[index.key_id[key]]
        assert sum(bar.count for bar in item.look.bars) == members.size
    np.testing.assert_array_equal(scene.xs, [d.x for d in fabric.devices])
    assert scene.edge_seg.shape[0] == vg.edge_u.size
    assert int(scene.vg.edge_count.sum()) == int(vg.edge_count.sum())


@pytest.fixture
def rack_design(window, qtbot):
    """Two SUs of eight GB300 NVL72 racks (1,152 GPUs), collapsed as it opens, with the first
    SU and its first rack opened; edits take the deferred path."""
    doc, scene = window.doc, window.scene
    doc.replace(generate(params_from_dict("rail", {"gpus": 1152, "gear": "gb300-ib-xdr"})))
    scene.expand("su=1")
    rack = next(k for k in scene.box_items if k.startswith("su=1/domain="))
    scene.expand(rack)
    assert scene.device_items and "su=2" in scene.box_items
    scene.defer_above = 0
    _matches_document(scene, doc)
    return doc, scene


def test_an_edit_is_drawn_in_a_later_turn_and_undo_redo_draw_what_a_rebuild_draws(
        window, qtbot, rack_design):
    doc, scene = rack_design
    before = doc.project.fabric
    boxes_before = {k: (i.look.summary, i.scene_rect()) for k, i in scene.box_items.items()}
    spine = next(d.id for d in before.devices if d.role.value == "spine")

    doc.push(commands.delete(doc, [spine]))
    # the edit's own turn: the scene still shows, and answers from, the design before
    assert scene.pending
    assert scene.fabric is before
    assert scene.node_of_key(spine) is not None
    qtbot.waitUntil(lambda: not scene.pending)  # the redraw comes by itself
    _matches_document(scene, doc)
    assert scene.node_of_key(spine) is None
    assert window.size_label.text().startswith(f"{len(doc.project.fabric.devices):,} devices")

    doc.undo_stack.undo()
    assert scene.pending
    qtbot.waitUntil(lambda: not scene.pending)
    _matches_document(scene, doc)
    assert {k: (i.look.summary, i.scene_rect()) for k, i in scene.box_items.items()} == \
        boxes_before

    doc.undo_stack.redo()
    qtbot.waitUntil(lambda: not scene.pending)
    _matches_document(scene, doc)


def test_undo_recalls_the_regroup_of_the_design_before(window, qtbot, rack_design):
    doc, scene = rack_design
    index_before = scene.index
    leaf = next(d.id for d in doc.project.fabric.devices if d.role.value == "leaf")
    doc.push(commands.delete(doc, [leaf]))
    qtbot.waitUntil(lambda: not scene.pending)
    assert scene.index is not index_before
    doc.undo_stack.undo()
    qtbot.waitUntil(lambda: not scene.pending)
    assert scene.index is index_before  # recalled, not worked out again
    _matches_document(scene, doc)


def test_a_drag_preview_never_changes_what_undo_recalls(window, qtbot, rack_design):
    doc, scene = rack_design
    tray = next(iter(scene.device_items))
    i = doc.project.fabric.index[tray]
    leaf = next(d.id for d in doc.project.fabric.devices if d.role.value == "leaf")
    doc.push(commands.delete(doc, [leaf]))
    qtbot.waitUntil(lambda: not scene.pending)
    doc.undo_stack.undo()
    qtbot.waitUntil(lambda: not scene.pending)
    # a drag shows the tray elsewhere, then is cancelled (nothing committed)
    scene.preview_positions(np.array([i]), np.array([9999.0]), np.array([-9999.0]))
    doc.undo_stack.redo()
    qtbot.waitUntil(lambda: not scene.pending)
    doc.undo_stack.undo()
    qtbot.waitUntil(lambda: not scene.pending)
    _matches_document(scene, doc)


def test_whoever_reads_the_scene_with_the_document_gets_the_edit_drawn_first(
        window, qtbot, rack_design):
    doc, scene = rack_design
    spine = next(d.id for d in doc.project.fabric.devices if d.role.value == "spine")
    doc.push(commands.delete(doc, [spine]))
    assert scene.pending
    # the window asks for the selection's devices (Delete, Copy): the scene catches up first
    scene.selected_device_ids()
    _matches_document(scene, doc)

    doc.undo_stack.undo()
    assert scene.pending
    scene.clearSelection()  # any event to the scene (a click, a key, a tooltip) does too
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendEvent(scene, QEvent(QEvent.Type.FontChange))
    _matches_document(scene, doc)


def test_several_edits_in_one_turn_get_one_redraw(window, qtbot, rack_design):
    doc, scene = rack_design
    redraws = []
    scene.synced.connect(lambda: redraws.append(doc.revision))
    spines = [d.id for d in doc.project.fabric.devices if d.role.value == "spine"][:2]
    doc.push(commands.delete(doc, [spines[0]]))
    doc.push(commands.delete(doc, [spines[1]]))
    qtbot.waitUntil(lambda: not scene.pending)
    assert redraws == [doc.revision]
    _matches_document(scene, doc)
