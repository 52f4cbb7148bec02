"""Groups fold into boxes; links between boxes are summed into one labelled line."""

from __future__ import annotations

import numpy as np

from designer.core.generators import generate, params_from_dict
from designer.gui.canvas.groups import GroupIndex, device_chain, key_label, visible_graph


def test_chains_and_labels(catalog):
    p = generate(params_from_dict("rail", {"sus": 16}), catalog)  # 3 tiers, pods
    f = p.fabric
    assert device_chain(f.device("su1-node01")) == ("pod=1", "pod=1/su=1")
    assert device_chain(f.device("pod1-spine1")) == ("pod=1",)
    assert device_chain(f.device("core1-1")) == ("tier=core",)
    assert key_label("pod=1/su=3") == "SU 3" and key_label("tier=core") == "Core switches"


def test_summed_links_match_cables(catalog):
    p = generate(params_from_dict("rail", {"sus": 16}), catalog)
    f = p.fabric
    index = GroupIndex.build(f.devices)
    for collapsed in (set(), index.default_collapsed(), {"pod=1", "tier=core"}):
        vg = visible_graph(index, f.links, collapsed, len(f.devices))
        inside = vg.node_of[f.links.a] == vg.node_of[f.links.b]
        # every cable is either folded inside a box or counted on exactly one line
        assert int(vg.edge_count.sum()) + int(f.links.count[inside].sum()) == f.links.n_cables
        assert np.all(vg.edge_u < vg.edge_v)


def test_canvas_collapse_expand_levels(window, catalog):
    window.apply_generated(params_from_dict("rail", {"sus": 16}))
    scene = window.scene
    assert len(window.doc.project.fabric.devices) > 300
    assert set(scene.box_items) == {f"pod={k}" for k in range(1, 5)} | {"tier=core"}
    assert not scene.device_items
    window.action("expand_level").trigger()
    assert "pod=1/su=1" in scene.box_items and "pod=1" in scene.frame_items
    # DGX SuperPOD 16 SU: 4 pods of 32 spines, and the 64 core switches of the core tier
    assert len(scene.device_items) == 4 * 32 + 64
    window.action("collapse_all").trigger()
    assert not scene.device_items
    scene.expand_all()
    assert len(scene.device_items) == len(window.doc.project.fabric.devices)
    assert not scene.box_items
    assert window.doc.view_state["collapsed"] == []
    assert window.doc.undo_stack.count() == 1  # folding is a view change, not an edit


def test_selecting_a_box_and_moving_it_moves_its_members(window, catalog):
    window.apply_generated(params_from_dict("rail", {"sus": 16}))
    scene, doc = window.scene, window.doc
    box = scene.box_items["pod=2"]
    box.setSelected(True)
    assert doc.selection.groups == {"pod=2"}
    assert window.inspector.stack.currentWidget() is window.inspector.group_page
    members = scene.selected_device_ids()
    assert len(members) == 4 * 32 + 4 * 8 + 32
    from designer.gui.project import commands

    f = doc.project.fabric
    doc.push(commands.move_devices(doc, {m: (f.device(m).x, f.device(m).y + 100) for m in members}))
    assert scene.box_items["pod=2"].pos().y() == box.pos().y()
    window.inspector.g_expand.click()
    assert "pod=2" in scene.frame_items


def test_marks_ring_devices_and_their_boxes(window, catalog):
    window.apply_generated(params_from_dict("rail", {"sus": 16}))
    doc, scene = window.doc, window.scene
    doc.set_marks({"su2-node05": "warning", "su3-leaf-r1": "error"})
    assert scene.box_items["pod=1"].mark == "error"  # the worst member shows
    assert scene.box_items["pod=2"].mark is None
    scene.expand("pod=1")
    assert scene.box_items["pod=1/su=2"].mark == "warning"
    doc.focus_devices(["su3-leaf-r1"])
    assert scene.device_items["su3-leaf-r1"].mark == "error"
    assert doc.undo_stack.count() == 1  # marks are not edits
