"""The window's generate dialog builds lanes-to-planes and rail-only designs; the inspector
says which planes a device is on."""

from __future__ import annotations

from designer.gui.project.document import Selection


def _run(window, kind, values):
    dlg = window.show_generate(kind)
    for name, value in values.items():
        dlg.set_value(name, value)
    assert dlg.plan() is not None, dlg.error_text()
    pl = dlg.plan()
    dlg.replace_btn.click()
    return pl


def test_lanes_to_planes_from_the_dialog_and_the_inspector(window):
    pl = _run(window, "fat-tree", {"gpus": 2048, "gear": "roce-400", "nic": "thor-ultra",
                                   "switch": "th5-64x800", "plane_split": 8})
    assert pl.planes == 8 and pl.gear.leaf.radix == 512
    doc = window.doc
    server = next(d.id for d in doc.project.fabric.devices if d.role.value == "gpu-server")
    doc.set_selection(Selection(devices=frozenset({server})))
    text = window.inspector.d_planes.text()
    assert "split into 8 x 100G" in text and "links on 8 planes" in text
    leaf = next(d.id for d in doc.project.fabric.devices if d.role.value == "leaf")
    doc.set_selection(Selection(devices=frozenset({leaf})))
    assert window.inspector.d_planes.text().startswith("plane ")


def test_a_split_the_nic_cannot_do_shows_why(window):
    dlg = window.show_generate("fat-tree")
    dlg.set_value("gear", "roce-400")
    dlg.set_value("plane_split", 8)
    assert dlg.plan() is None
    assert "cannot split its 400G port" in dlg.error_text()
    dlg.reject()


def test_rail_only_from_the_dialog(window):
    pl = _run(window, "rail-only", {"gpus": 1024, "gear": "roce-400"})
    assert pl.switches == {"leaf": 8}
    p = window.doc.project
    assert p.generator.kind == "rail-only"
    rails = {d.groups.get("rail") for d in p.fabric.devices if d.role.is_switch}
    assert rails == set(range(1, 9))


def test_traffic_panel_says_which_connections_were_forwarded(window, qtbot):
    from designer.core.generators import generate, params_from_dict
    from tests.gui.helpers import WAIT_MS, load

    r = load(window, qtbot, generate(params_from_dict("rail-only", {"gear": "roce-400",
                                                                  "gpus": 256})))
    assert r.rail_forwarding is not None and r.rail_forwarding.rails == 8
    assert "with forwarding" in window.analysis.metrics.value("bisection").text()
    p = window.traffic.panel
    p.pattern.setCurrentText("permutation")
    p.routing.setCurrentIndex(p.routing.findData("spray"))
    p.run_load()
    qtbot.waitUntil(lambda: not p.task.running, timeout=WAIT_MS)
    assert p.last is not None and p.last.unrouted == 0
    assert "forwarded over the scale-up domain" in p.result.text()
