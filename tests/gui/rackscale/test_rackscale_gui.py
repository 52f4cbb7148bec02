"""Rack-scale systems in the window: the palette's section, a drop that adds a whole rack drawn
as one rack that opens to its trays, the domain in the metrics and the Workload panel, and
Compare of an NVL72 design against 8-GPU servers of the same GPU count."""

from __future__ import annotations

from PySide6.QtCore import QPointF

from designer.core.generators import generate, params_from_dict
from designer.gui.panels.palette import GEAR_ROLE, SUBTITLE_ROLE
from tests.gui.helpers import WAIT_MS, load, solved_after


def nvl72(gpus=576):
    return generate(params_from_dict("rail", {"gpus": gpus, "gear": "gb200-ib-ndr"}))


def test_palette_lists_rack_scale_systems_apart(window):
    palette = window.palette_panel
    tree = palette.tree
    sections = {tree.topLevelItem(i).text(0): tree.topLevelItem(i)
                for i in range(tree.topLevelItemCount())}
    racks = sections["Rack-scale systems (a rack each)"]
    ids = {racks.child(i).data(0, GEAR_ROLE) for i in range(racks.childCount())}
    assert {"gb200-nvl72", "gb300-nvl72", "vr-nvl72", "helios-72"} <= ids
    # not among the 8-GPU servers of the technology sections
    ndr = sections["InfiniBand NDR · 400G"]
    assert "gb200-nvl72" not in {ndr.child(i).data(0, GEAR_ROLE) for i in range(ndr.childCount())}
    sub = next(racks.child(i) for i in range(racks.childCount())
               if racks.child(i).data(0, GEAR_ROLE) == "gb200-nvl72").data(0, SUBTITLE_ROLE)
    assert sub.startswith("72 GPUs in 18 trays · NVLink 5")


def test_dropping_a_rack_adds_its_trays_as_one_rack(window, qtbot):
    doc = window.doc
    result = solved_after(window, qtbot,
                          lambda: window.view.add_gear_at("gb300-nvl72", QPointF(100, 100)))
    trays = [d for d in doc.project.fabric.devices if d.model == "gb300-nvl72"]
    assert len(trays) == 18 and {d.groups["domain"] for d in trays} == {1}
    assert doc.selection.devices == {d.id for d in trays}
    # drawn as one rack: collapsed, a rack look with its 9 switch trays
    assert "domain=1" in window.scene.collapsed
    box = window.scene.box_items["domain=1"]
    assert box.look.rack is not None and box.look.rack.switch_trays == 9
    assert "72 GPUs" in box.look.summary and box.look.title == "Rack 1"
    assert result.domains.count == 1 and result.domains.gpus == 72
    # one undo step takes the whole rack away
    doc.undo_stack.undo()
    assert not any(d.model == "gb300-nvl72" for d in doc.project.fabric.devices)
    doc.undo_stack.redo()
    # double-clicking (expanding) the rack shows its trays
    window.scene.expand("domain=1")
    assert all(d.id in window.scene.device_items for d in trays)
    # a second rack gets a rack of its own
    window.view.add_gear_at("gb300-nvl72", QPointF(400, 100))
    labels = {d.groups["domain"] for d in doc.project.fabric.devices}
    assert labels == {1, 2}


def test_metrics_and_workload_show_the_design_domain(window, qtbot):
    window.docks["workloadDock"].show()
    window.docks["workloadDock"].raise_()
    load(window, qtbot, nvl72())
    m = window.analysis.metrics.values
    assert m["scale_up"].text.text() == "8 x 72-GPU NVLink 5 racks · 72 switch trays"
    assert m["gpus"].text.text().startswith("576 · 8 racks (144 trays)")
    wl = window.analysis.decision.workload
    assert wl.domain.text().startswith("72 GPUs (NVLink 5 rack")
    # an 8-GPU server design gives its server as the domain
    load(window, qtbot, generate(params_from_dict("rail", {"sus": 1})))
    assert wl.domain.text().startswith("8 GPUs (NVLink 4 server")


def test_compare_nvl72_with_8_gpu_servers_of_the_same_gpu_count(window, qtbot):
    load(window, qtbot, nvl72(1152))
    panel = window.analysis.decision.compare
    i = panel.server.findData("dgx-b200")
    assert i > 0
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS):
        panel.server.setCurrentIndex(i)
        panel._server_changed()
    c = panel.compare.latest
    assert [d.label for d in c.designs] == ["This design", "on NVIDIA DGX B200"]
    a, b = c.designs
    assert a.figures["gpus"] == b.figures["gpus"] == 1152
    assert (a.figures["domain_gpus"], b.figures["domain_gpus"]) == (72, 8)
    assert panel.table.horizontalHeaderItem(1).text() == "on NVIDIA DGX B200"
