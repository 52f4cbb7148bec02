"""The multi-vendor RoCE profile in the window: a box of its own in the Compare panel (its
column beside InfiniBand, the premium under the table) and an entry in the Gear menu."""

from __future__ import annotations

import os

from tests.gui.helpers import WAIT_MS, load

SHOT = os.environ.get("MV_COMPARE_SHOT", "")  # save a picture of the panel for a look


def test_compare_panel_and_gear_menu_offer_multi_vendor_roce(window, qtbot, su4):
    window.docks["estimateDock"].show()
    window.docks["estimateDock"].raise_()
    load(window, qtbot, su4)
    assert "mv-roce-400" in window.actions_.profile_actions
    combo = window.actions_.profile_combo
    assert combo.findData("mv-roce-400") >= 0  # the toolbar's Gear box
    panel = window.analysis.decision.compare
    box = panel.boxes["mv-roce-400"]
    assert box.text() == "Multi-vendor RoCE 400G"
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS,
                          check_params_cb=lambda c: len(c.designs) >= 2):
        box.setChecked(True)
    c = panel.compare.latest
    labels = [panel.table.horizontalHeaderItem(j).text()
              for j in range(panel.table.columnCount())]
    assert "Multi-vendor RoCE 400G" in labels
    mv = next(d for d in c.designs if d.label == "Multi-vendor RoCE 400G")
    assert {x.catalog_id for x in mv.result.bom.lines} >= {"fs-n9600-64od", "thor2-400"}
    assert c.premium is not None and "InfiniBand premium" in panel.status.text()
    if SHOT:
        window.docks["compareDock"].show()
        window.docks["compareDock"].raise_()
        panel.resize(1100, 700)
        panel.grab().save(SHOT)
    box.setChecked(False)
