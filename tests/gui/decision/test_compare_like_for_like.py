"""Compare like for like in the window: every ticked profile gets a column (or a sentence why)
on the design's own servers, each column names its routing, and the routing choice applies to
every column."""

from __future__ import annotations

from designer.core.fileformat import load_project
from designer.core.paths import projects_dir
from tests.gui.helpers import WAIT_MS, load

FIVE = ("ib-xdr", "roce-400", "roce-800", "spectrum-x-800", "uec-800")


def _five(window, qtbot):
    window.docks["compareDock"].show()
    window.docks["compareDock"].raise_()
    load(window, qtbot, load_project(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json"))
    panel = window.analysis.decision.compare
    for box in panel.boxes.values():
        box.setChecked(False)
    for prof in FIVE[:-1]:
        panel.boxes[prof].setChecked(True)
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS * 3,
                          check_params_cb=lambda c: len(c.designs) == 6):
        panel.boxes[FIVE[-1]].setChecked(True)
    return panel


def test_five_ticked_profiles_give_five_columns_on_the_same_servers(window, qtbot):
    panel = _five(window, qtbot)
    c = panel.compare.latest
    labels = [d.label for d in c.designs]
    assert labels == ["This design", "IB XDR", "RoCE 400G", "RoCE 800G", "Spectrum-X 800G",
                      "UEC 800G"]
    for d in c.designs:
        if d.project is not None:
            assert d.servers.startswith("NVIDIA DGX H100"), (d.label, d.servers)
            assert d.routing is not None and d.routing.name
        else:  # a column that cannot be built says why, in the table's status
            assert "DGX H100" in d.error and d.error in panel.status.text()
    rows = [panel.table.verticalHeaderItem(i).text() for i in range(panel.table.rowCount())]
    assert rows[:2] == ["Servers / GPU", "Routing"]
    roce = labels.index("RoCE 400G")
    assert panel.table.item(1, roce).text().startswith("ECMP")
    assert "Assumes" in panel.status.text() and "If " in panel.status.text()
    dock = window.docks["compareDock"]
    dock.setFloating(True)
    dock.resize(1300, 900)
    qtbot.wait(50)
    dock.setFloating(False)
    for prof in FIVE:
        panel.boxes[prof].setChecked(False)


def test_the_routing_choice_applies_to_every_column(window, qtbot):
    panel = _five(window, qtbot)
    i = panel.routing.findData("ideal")
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS,
                          check_params_cb=lambda c: c.routing == "ideal"):
        panel.routing.setCurrentIndex(i)
        panel.routing.activated.emit(i)
    c = panel.compare.latest
    built = [d for d in c.designs if d.estimate is not None]
    assert len(built) >= 4
    assert all(d.routing.mode == "ideal" and d.figures["network_slowdown"] == 1.0
               for d in built)
    assert "--routing ideal" in " ".join(c.recommendation.assumptions)
    j = panel.routing.findData("transport")
    with qtbot.waitSignal(panel.compare.comparisonReady, timeout=WAIT_MS,
                          check_params_cb=lambda c: c.routing == "transport"):
        panel.routing.setCurrentIndex(j)
        panel.routing.activated.emit(j)
    spx = next(d for d in panel.compare.latest.designs if d.label == "Spectrum-X 800G")
    assert spx.routing.mode == "adaptive" and spx.figures["network_slowdown"] > 1.0
    for prof in FIVE:
        panel.boxes[prof].setChecked(False)
