"""The BOM table takes new figures in place when a result has the same lines (panels/bom.py):
what it shows is the new result's, and it is only reset (rows and columns measured again) when
the lines, their widths or the user's sort order may change."""

from __future__ import annotations

from PySide6.QtCore import Qt

from designer.core.generators import generate, params_from_dict
from designer.gui.panels.bom import QTY, TOTAL
from designer.gui.project import commands
from tests.gui.helpers import load, solved_after


def _shown(panel, catalog_id: str) -> tuple[str, str]:
    """The Qty and Total cells the table shows for a catalog item."""
    proxy = panel.proxy
    for row in range(proxy.rowCount()):
        if panel.model.rows[proxy.mapToSource(proxy.index(row, 0)).row()].catalog_id == \
                catalog_id:
            return (proxy.index(row, QTY).data(Qt.ItemDataRole.DisplayRole),
                    proxy.index(row, TOTAL).data(Qt.ItemDataRole.DisplayRole))
    raise AssertionError(f"{catalog_id} not in the table")


def test_new_figures_in_the_same_lines_are_shown_without_a_reset(window, qtbot):
    panel = window.analysis.bom
    doc = window.doc
    load(window, qtbot, generate(params_from_dict("rail", {"sus": 4})))
    resets = []
    panel.model.modelReset.connect(lambda: resets.append(1))
    spines = [d for d in doc.project.fabric.devices if d.role.value == "spine"]
    model_id = spines[0].model
    switches = sum(d.model == model_id for d in doc.project.fabric.devices)
    result = solved_after(window, qtbot,
                          lambda: doc.push(commands.delete(doc, [spines[0].id])))
    line = next(x for x in result.bom.lines if x.catalog_id == model_id)
    assert _shown(panel, model_id) == (f"{line.qty:,}", f"${line.total_usd:,.0f}")
    assert line.qty == switches - 1
    assert not resets  # the same lines, as wide: no reset

    result = solved_after(window, qtbot, doc.undo_stack.undo)
    line = next(x for x in result.bom.lines if x.catalog_id == model_id)
    assert _shown(panel, model_id) == (f"{line.qty:,}", f"${line.total_usd:,.0f}")
    assert not resets

    # sorted by a figure, new figures may reorder the rows: the table is reset and resorted
    panel.table.sortByColumn(QTY, Qt.SortOrder.AscendingOrder)
    result = solved_after(window, qtbot,
                          lambda: doc.push(commands.delete(doc, [spines[1].id])))
    line = next(x for x in result.bom.lines if x.catalog_id == model_id)
    assert _shown(panel, model_id)[0] == f"{line.qty:,}"
    assert resets
