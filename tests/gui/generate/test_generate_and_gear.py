"""Generate dialogs reproduce the published designs (DOMAIN.md section 5); gear switching."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF

from designer.gui.generate.dialog import GenerateDialog
from designer.gui.project import commands


def _count(project, role):
    return sum(1 for d in project.fabric.devices if d.role.value == role)


def _run(window, kind, values, multi_plane=False, button="replace"):
    dlg = window.show_generate(kind, multi_plane)
    for name, value in values.items():
        dlg.set_value(name, value)
    assert dlg.plan() is not None, dlg.error_text()
    pl = dlg.plan()
    (dlg.replace_btn if button == "replace" else dlg.add_btn).click()
    return pl


def test_rail_4_su_dgx_superpod(window):
    # DGX SuperPOD RA, 4 SU (1,024 GPUs): 32 leaves, 16 spines, 1,024 + 1,024 cables
    pl = _run(window, "rail", {"sus": 4})
    assert pl.switches == {"leaf": 32, "spine": 16}
    p = window.doc.project
    assert (_count(p, "leaf"), _count(p, "spine"), _count(p, "gpu-server")) == (32, 16, 128)
    assert p.fabric.links.n_cables == 2048
    assert p.name.startswith("Rail-optimized 4 SU")
    assert window.doc.undo_stack.undoText().startswith("Generate Rail-optimized 4 SU")
    window.doc.undo_stack.undo()
    assert not window.doc.project.fabric.devices


def test_fat_tree_k8_al_fares(window):
    # Al-Fares k = 8: 128 hosts, 80 switches, 16 core
    pl = _run(window, "fat-tree", {"k_ary": 8})
    assert pl.gpus == 128 and pl.total_switches == 80
    p = window.doc.project
    assert sum(1 for d in p.fabric.devices if d.role.is_switch) == 80
    assert _count(p, "core") == 16


def test_dragonfly_balanced_a4_p2_h2(window):
    # Kim et al.: a = 4, p = h = 2 -> g = 9 groups, 36 routers, 72 GPUs, 36 global, 54 local
    pl = _run(window, "dragonfly", {"a": 4, "p": 2, "h": 2, "gpus_per_server": 1})
    assert pl.links["global"] == 36 and pl.links["local"] == 54 and pl.gpus == 72
    p = window.doc.project
    assert _count(p, "router") == 36
    f = p.fabric
    group = np.array([d.groups.get("group", -1) for d in f.devices])
    routers = np.array([d.role.value == "router" for d in f.devices])
    links = f.links
    rr = routers[links.a] & routers[links.b]
    glob = rr & (group[links.a] != group[links.b])
    assert int(links.count[glob].sum()) == 36
    assert int(links.count[rr & ~glob].sum()) == 54


def test_multi_plane_dialog_doubles_the_fabric(window):
    # RoCE 800G as two 400G planes (B300 Spectrum-X style): each plane is a RoCE 400G fabric
    one = _run(window, "rail", {"sus": 2, "gear": "roce-400", "planes": 1}, multi_plane=True)
    two = _run(window, "rail", {"sus": 2}, multi_plane=True)  # defaults: roce-800, 2 planes
    assert two.planes == 2 and two.total_switches == 2 * one.total_switches
    planes = {d.groups.get("plane") for d in window.doc.project.fabric.devices if d.role.is_switch}
    assert planes == {1, 2}


def test_impossible_parameters_say_why_and_cannot_be_built(window):
    dlg = window.show_generate("rail")
    dlg.set_value("servers_per_su", 40)  # a 64-port leaf serves at most 32 servers at 1:1
    assert dlg.plan() is None
    assert "--servers-per-su 32" in dlg.error_text()
    assert "Cannot build" in dlg.preview.text()
    assert not dlg.replace_btn.isEnabled()
    dlg.reject()


def test_add_to_design_is_one_step(window):
    _run(window, "rail", {"sus": 1})
    before = window.doc.project
    _run(window, "fat-tree", {"k_ary": 4}, button="add")
    p = window.doc.project
    assert len(p.fabric.devices) == len(before.fabric.devices) + 16 + 20
    assert len(set(p.fabric.index)) == len(p.fabric.devices)
    assert p.generator is None  # no longer one generator's output
    window.doc.undo_stack.undo()
    assert window.doc.project is before


def test_gear_profile_switch_is_one_undoable_step(window):
    _run(window, "rail", {"sus": 4})
    window.actions_.relayout.setChecked(False)  # as drawn: the layout is kept
    combo = window.actions_.profile_combo
    before = window.doc.project
    i = combo.findData("roce-400")
    combo.setCurrentIndex(i)
    combo.activated.emit(i)
    p = window.doc.project
    assert p.profile == "roce-400"
    assert {d.model for d in p.fabric.devices if d.role.is_switch} == {"sn5600"}
    # 128-port leaves: 8 spines for 32 leaves of 32 uplinks
    assert (_count(p, "leaf"), _count(p, "spine")) == (32, 8)
    assert "generated again" in window.statusBar().currentMessage()
    # the name said InfiniBand: now it says RoCE, in the title and the Name field too
    assert "InfiniBand" in before.name and "InfiniBand" not in p.name
    # in the Gear box's words: the title and the profile's name agree
    assert p.name.endswith(window.doc.catalog.profile("roce-400").name)
    assert window.windowTitle().startswith(p.name)
    assert window.inspector.p_name.text() == p.name
    window.doc.undo_stack.undo()
    assert window.doc.project is before
    assert combo.currentData() == "ib-ndr"
    assert window.windowTitle().startswith(before.name)
    window.actions_.relayout.setChecked(True)


def test_gear_switch_lays_out_again_like_compare_in_one_undo_step(window):
    """A 4-SU SuperPOD on 128-port RoCE leaves as drawn leaves half of every leaf idle; the
    switch plans the layout again as Compare does, says the plan, and undoes in one step."""
    from designer.core.analysis.best import unused_ports
    from designer.core.solver import solve

    _run(window, "rail", {"sus": 4})
    assert window.actions_.relayout.isChecked()  # the default
    before = window.doc.project
    assert window.switch_profile("roce-400")
    p = window.doc.project
    assert p.profile == "roce-400"
    message = window.statusBar().currentMessage()
    assert "laid out again" in message and "servers under their leaf (ToR)" in message
    assert unused_ports(solve(p))[0] == 0
    assert window.doc.undo_stack.undoText().endswith("laid out again")
    window.doc.undo_stack.undo()
    assert window.doc.project is before


def test_gear_switch_refused_leaves_design_and_combo(window):
    window.switch_profile("roce-400")
    v = window.view
    v.add_gear_at("sn5600", QPointF(0, -260))
    for k in range(9):
        v.add_gear_at("dgx-h100", QPointF(k * 60, 0))
        window.doc.push(commands.connect(window.doc, f"node{k + 1}", "leaf1"))
    before = window.doc.project
    assert not window.switch_profile("ib-ndr")  # 72 ports used, a QM9700 has 64
    assert window.doc.project is before
    assert window.actions_.profile_combo.currentData() == "roce-400"
    assert "fewer ports" in window.view.toast_text()


def test_generate_dialog_kinds_match_the_command_line():
    from designer.cli.commands.generate import COMMON_OPTIONS, KIND_OPTIONS
    from designer.core.catalog import builtin_catalog
    from designer.gui.generate.dialog import KIND_FIELDS, gear_fields

    common = {f.name for f in gear_fields(builtin_catalog(), "ib-ndr", 0)}
    assert common == set(COMMON_OPTIONS)
    for kind, options in KIND_OPTIONS.items():
        assert {f.name for f in KIND_FIELDS[kind]} == set(options)


def test_dialog_modes(window):
    dlg = window.show_generate("dragonfly")
    assert dlg.mode == GenerateDialog.REPLACE
    assert not dlg.add_btn.isEnabled()  # nothing to add to yet
    dlg.reject()


def test_rail_dialog_shows_the_su_unit_of_the_chosen_server(window, qtbot):
    """An SU of 8-GPU servers is counted in servers, an NVL72's in racks: the dialog shows the
    field that governs and hides the one the generator would refuse."""
    dlg = window.show_generate("rail")
    qtbot.addWidget(dlg)
    form = dlg.topology_form
    assert form.isRowVisible(dlg.widgets["servers_per_su"])
    assert not form.isRowVisible(dlg.widgets["racks_per_su"])
    dlg.set_value("servers_per_su", 16)
    dlg.set_value("server", "gb200-nvl72")
    assert form.isRowVisible(dlg.widgets["racks_per_su"])
    assert not form.isRowVisible(dlg.widgets["servers_per_su"])
    assert dlg.plan() is not None, dlg.error_text()  # the hidden 16 servers is not carried
    assert "servers_per_su" not in dlg.values()
    dlg.set_value("server", "dgx-h100")
    assert form.isRowVisible(dlg.widgets["servers_per_su"])
    dlg.reject()


def test_preview_says_the_layout_is_published(window, qtbot):
    """DGX SuperPOD B300 XDR RA, Table 3: one SU is 72 DGX B300 on 8 leaves and 4 spines; the
    dialog's defaults build it and its preview says the layout is published, and where."""
    dlg = window.show_generate("rail", False)
    dlg.set_value("gear", "ib-xdr")
    dlg.set_value("sus", 1)
    pl = dlg.plan()
    assert pl is not None and pl.switches == {"leaf": 8, "spine": 4} and pl.servers == 72
    qtbot.waitUntil(lambda: "layout: published" in dlg.preview.text())
    assert "Table 3" in dlg.preview.text()
    dlg.reject()


def test_fat_tree_striping_choice_reaches_the_plan(window):
    """The dialog's Striping choice is the command line's --striping: balanced (the default)
    takes 43 spines for 6,144 GPUs on XDR, uniform the divisor rule's 72 with the idle ports
    priced in the preview."""
    dlg = window.show_generate("fat-tree")
    dlg.set_value("gear", "ib-xdr")
    dlg.set_value("gpus", 6144)
    assert dlg.plan().switches["spine"] == 43
    dlg.set_value("striping", "uniform")
    pl = dlg.plan()
    assert pl.switches["spine"] == 72
    assert "4,176 spine/core ports idle" in dlg._preview_html()
    dlg.grab().save("/tmp/fat_tree_striping.png")
    dlg.reject()
