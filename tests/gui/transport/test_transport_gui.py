"""The transport in the window: the gear box's picker (one undo step, only transports of the
design's gear), the inspector's line, the Traffic panel naming the transport model it ran with
its incast figures, and Compare's one-click transport columns."""

from __future__ import annotations

import os

from designer.core.generators import generate, params_from_dict
from tests.gui.helpers import WAIT_MS, load


def _roce(gpus: int = 256):
    return generate(params_from_dict("fat-tree", {"gpus": gpus, "gear": "roce-400"}))


def _shot(widget, name: str) -> None:
    """Saved for a look when FD_SCREENSHOTS names a folder (the tests do not need it)."""
    folder = os.environ.get("FD_SCREENSHOTS")
    if folder:
        widget.grab().save(os.path.join(folder, name))


def test_picker_sets_the_transport_in_one_undo_step(window, qtbot):
    load(window, qtbot, _roce())
    picker = window.actions_.transport_picker
    items = [picker.itemData(i) for i in range(picker.count())]
    # RoCE gear: the profile's (RoCE) first, then every Ethernet transport; no InfiniBand
    assert items == ["", "roce", "spectrum-x", "uec", "mrc"]
    assert picker.itemText(0) == "RoCE ECMP (profile's)"
    picker.activated.emit(items.index("uec"))
    assert window.doc.project.transport == "uec"
    assert "Ultra Ethernet" in picker.toolTip() and "trimm" in picker.toolTip()
    note = window.inspector.p_transport_note.text()
    assert "no PFC" in note and "uec-trim" in note
    window.doc.undo_stack.undo()
    assert window.doc.project.transport is None
    assert picker.currentIndex() == 0


def test_picker_on_infiniband_offers_infiniband_only(window, qtbot, su4):
    load(window, qtbot, su4)
    picker = window.actions_.transport_picker
    assert [picker.itemData(i) for i in range(picker.count())] == ["", "infiniband"]


def test_traffic_panel_names_the_transport_model_and_its_incast(window, qtbot):
    load(window, qtbot, _roce(512).evolve(transport="spectrum-x"))
    tr = window.traffic
    tr.panel.pattern.setCurrentText("incast")
    tr.panel.run_load()
    qtbot.waitUntil(lambda: not tr.panel.task.running, timeout=WAIT_MS)
    text = tr.panel.result.text()
    # Spectrum-X sprays: the transport's default routing is packet spraying (the load
    # model's "spray"; "adaptive" was its old name), and the panel says so
    assert "under <b>spray</b>" in text
    assert "Transport model:</b> Spectrum-X" in text and "the transport's default" in text
    assert "<b>Incast</b> <i>incast fluid model, Spectrum-X" in text
    assert "16 senders" in text and "Last-hop queue peak" in text
    assert tr.panel.last_transport.incast.transport == "spectrum-x"
    window.docks["trafficDock"].show() if "trafficDock" in window.docks else None
    _shot(tr.panel, "traffic-incast.png")


def test_compare_one_click_transport_columns(window, qtbot):
    load(window, qtbot, _roce(512))
    window.docks["estimateDock"].show()
    panel = window.analysis.decision.compare
    row = panel.transports
    assert not row.boxes["roce"].isEnabled()  # the design's own transport is column one
    assert not row.boxes["infiniband"].isEnabled()
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS,
                          check_params_cb=lambda c: len(c.designs) == 3):
        row.boxes["spectrum-x"].setChecked(True)
        row.boxes["uec"].setChecked(True)
    c = panel.compare.latest
    assert [d.label for d in c.designs] == ["This design", "Spectrum-X", "Ultra Ethernet"]
    # the same gear: the bill of materials does not move, the transport's tuning does
    assert c.designs[1].figures["capex_usd"] == c.designs[0].figures["capex_usd"]
    t0, t1 = (d.estimate.tco.tuning_usd for d in c.designs[:2])
    assert t0 == 60_000 and t1 == 20_000  # 6 weeks (RoCE) and 2 (Spectrum-X) at $10,000
    window.docks["compareDock"].show()
    window.docks["compareDock"].raise_()
    _shot(panel, "compare-transports.png")
