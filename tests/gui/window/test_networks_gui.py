"""The other networks in the window: the generate dialog's choice, the Metrics panel's
figures per network and the canvas's layer switch showing one network or all."""

from __future__ import annotations

from designer.core.model import Role
from tests.gui.helpers import WAIT_MS, current


def _generate_all(window, qtbot):
    dlg = window.show_generate("rail")
    dlg.set_value("sus", 1)
    assert dlg.network_boxes["backend"].isChecked()
    assert not dlg.network_boxes["backend"].isEnabled()  # the back-end is always built
    for name in ("frontend", "storage", "oob"):
        dlg.network_boxes[name].setChecked(True)
    assert dlg.networks() == ("frontend", "storage", "oob")
    svc = window.analysis.service
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=current(window)):
        dlg.replace_btn.click()
    window.scene.flush()


def _visible(items):
    return [i.isVisible() for i in items]


def test_dialog_builds_the_networks_and_metrics_show_them(window, qtbot):
    _generate_all(window, qtbot)
    p = window.doc.project
    assert set(p.networks) == {"frontend", "storage", "oob"}
    panel = window.analysis.metrics
    qtbot.waitUntil(lambda: panel.networks_label.isVisible(), timeout=WAIT_MS)
    text = panel.networks_label.text()
    for label in ("Front-end (in-band)", "Storage", "Out-of-band management"):
        assert label in text
    # 32 DGX, 2 x 200G front-end ports each on 128-port leaves: one leaf pair, two spines
    assert "4 switches" in text.split("Storage")[0]
    assert "GB/s read per GPU (reference 5)" in text


def test_layer_switch_shows_one_network_or_all(window, qtbot, tmp_path):
    _generate_all(window, qtbot)
    scene = window.scene
    layers = scene.networks
    assert set(layers.items) == {"frontend", "storage", "oob"}
    combo = window.actions_.network_combo
    switches = [i for i in scene.device_items.values()
                if i.look.role not in (Role.GPU_SERVER.value, Role.APPLIANCE.value)]
    servers = [i for i in scene.device_items.values()
               if i.look.role == Role.GPU_SERVER.value]
    assert switches and servers

    def choose(key):
        combo.setCurrentIndex(combo.findData(key))
        combo.activated.emit(combo.currentIndex())

    choose("all")
    assert all(_visible(switches)) and all(b.isVisible() for e, b in layers.items.values())
    window.grab().save(str(tmp_path / "all.png"))
    choose("frontend")
    fe_edge, fe_boxes = layers.items["frontend"]
    assert fe_edge.isVisible() and fe_boxes.isVisible()
    assert not any(b.isVisible() for k, (e, b) in layers.items.items() if k != "frontend")
    assert not any(_visible(switches))  # the back-end's switches and links step aside
    assert not any(e.isVisible() for e in scene.edge_layers.values())
    assert all(_visible(servers))  # every network reaches the servers
    window.grab().save(str(tmp_path / "frontend.png"))
    choose("oob")
    # the management network reaches every switch: they stay, their data links do not
    assert all(_visible(switches)) and layers.items["oob"][1].isVisible()
    assert not any(e.isVisible() for e in scene.edge_layers.values())
    choose("backend")
    assert not any(b.isVisible() for _e, b in layers.items.values())
    assert all(_visible(switches)) and any(e.isVisible() for e in scene.edge_layers.values())
    # a redraw of the design keeps the chosen layer
    choose("storage")
    window.doc.undo_stack.undo()
    window.doc.undo_stack.redo()
    window.scene.flush()
    qtbot.waitUntil(lambda: "storage" in layers.items, timeout=WAIT_MS)
    assert layers.items["storage"][1].isVisible()
    assert not layers.items["frontend"][1].isVisible()


def test_view_menu_and_toolbar_box_choose_the_same_layer(window, qtbot):
    _generate_all(window, qtbot)
    acts = window.actions_
    acts.network_actions["oob"].trigger()
    assert window.scene.networks.layer == "oob"
    assert acts.network_combo.currentData() == "oob"
    assert window.scene.networks.items["oob"][1].isVisible()
    assert not window.scene.networks.items["storage"][1].isVisible()
    acts.network_combo.setCurrentIndex(acts.network_combo.findData("all"))
    acts.network_combo.activated.emit(acts.network_combo.currentIndex())
    assert acts.network_actions["all"].isChecked()


def test_dialog_ticks_the_design_s_networks_and_replace_builds_only_those(window, qtbot):
    _generate_all(window, qtbot)
    dlg = window.show_generate("rail")
    assert dlg.networks() == ("frontend", "storage", "oob")
    dlg.set_value("sus", 2)
    dlg.network_boxes["storage"].setChecked(False)
    svc = window.analysis.service
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=current(window)):
        dlg.replace_btn.click()
    assert set(window.doc.project.networks) == {"frontend", "oob"}
    window.scene.flush()
    qtbot.waitUntil(lambda: set(window.scene.networks.items) == {"frontend", "oob"},
                    timeout=WAIT_MS)


def test_edit_networks_dialog_regenerates_a_network_as_one_undoable_step(window, qtbot):
    _generate_all(window, qtbot)
    before = window.doc.project
    nodes = sum(d.tier == "storage-node" for d in before.networks["storage"].devices)
    assert window.actions_.edit_networks in window.actions_.menus["edit"].actions()
    dlg = window.show_network_editor()
    dlg.kind_box.setCurrentIndex(dlg.kind_box.findData("storage"))
    # the automatic node count shows what it came to
    assert dlg.fields["storage_nodes"].text() == ""
    assert dlg.fields["storage_nodes"].placeholderText() == f"automatic: {nodes}"
    # a bad value keeps the dialog open with the error, and changes nothing
    dlg.fields["oversubscription"].setText("0.5")
    dlg.buttons.button(dlg.buttons.StandardButton.Ok).click()
    assert dlg.isVisible() and "oversubscription" in dlg.error.text()
    assert window.doc.project is before
    dlg.fields["oversubscription"].setText("1.0")
    dlg.fields["storage_nodes"].setText(str(nodes + 5))
    dlg.buttons.button(dlg.buttons.StandardButton.Ok).click()
    after = window.doc.project
    assert sum(d.tier == "storage-node" for d in after.networks["storage"].devices) == nodes + 5
    assert after.networks["frontend"] == before.networks["frontend"]
    assert window.doc.undo_stack.undoText() == "Edit Storage network"
    window.doc.undo_stack.undo()
    assert window.doc.project == before
