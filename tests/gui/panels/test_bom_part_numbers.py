"""The BOM panel's item tooltip names the part to order (vendor, part number or "not
known")."""

from __future__ import annotations

from PySide6.QtCore import Qt

from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.gui.panels.bom import ITEM, BomModel


def test_item_tooltip_names_the_part_number(qapp):
    r = solve(generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"})))
    model = BomModel()
    model.set_result(r)
    tips = {}
    for row in range(model.rowCount()):
        idx = model.index(row, ITEM)
        cid = model.data(idx, Qt.ItemDataRole.UserRole + 3)
        if cid:
            tips[cid] = model.data(idx, Qt.ItemDataRole.ToolTipRole)
    assert "part number: MCX75310AAS-NEAT (NVIDIA)" in tips["connectx-7"]
    assert "part number: not known" in tips["sn5600"]
