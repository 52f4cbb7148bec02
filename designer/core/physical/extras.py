"""The optional lines of a complete bill of materials (``BomExtras``, each with its switch).

Added after the network lines, in this order: subnet managers (InfiniBand only), the
out-of-band management network, racks and PDUs, spares, support. Their prices come from the
project's ``BomExtras`` (estimates, marked as such in the item names); they carry no catalog
id, so the price is edited in the project's extras, not as a catalog override.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from designer.core.physical.floor import BomExtras
from designer.core.solver.bom import Bom, BomLine
from designer.core.solver.compile import TECHS, Compiled

EXTRA_CATEGORIES = ("management", "racks", "spares", "support")
EST = " (estimate)"


def _line(category: str, item: str, qty: int, unit: float, unit_w: float = 0.0,
          ru: float = 0.0) -> BomLine:
    return BomLine(category, item, "", int(qty), float(unit), float(unit) * qty,
                   float(unit_w), float(unit_w) * qty, ru * qty)


def rack_count(c: Compiled) -> int:
    """Racks of the project's floor plan, else of the default plan for its fabric."""
    phys = c.project.physical
    floor = phys.floor if phys is not None else None
    if floor is None or not floor.rows:
        from designer.core.physical.placement import default_floor

        floor = default_floor(c.project, c.catalog)
    return len(floor.racks())


def extra_lines(c: Compiled, bom: Bom, x: BomExtras) -> list[BomLine]:
    out: list[BomLine] = []
    ib = bool(np.isin(c.cable_tech, [TECHS.index("ib-ndr"), TECHS.index("ib-xdr")]).any())
    has_ufm = any("ufm" in line.catalog_id for line in bom.lines)
    if x.subnet_manager and ib and not has_ufm:
        out.append(_line("management", "UFM / subnet manager appliance (active + standby)" + EST,
                         x.subnet_managers, x.subnet_manager_usd, 800.0, 1.0))
    racks = rack_count(c) if (x.management_network or x.racks_and_pdus) else 0
    if x.management_network and racks:
        devices = len(c.fabric.devices)
        out.append(_line("management", "1 GbE management switch, 48 ports, one per rack" + EST,
                         racks, x.management_switch_usd, x.management_switch_w, 1.0))
        # every device's management port, plus one uplink per management switch
        out.append(_line("management", "Cat6 management cable" + EST, devices + racks,
                         x.management_cable_usd))
    if x.racks_and_pdus and racks:
        out.append(_line("racks", "Rack, 48U, 600 x 1200 mm" + EST, racks, x.rack_usd))
        if x.pdus_per_rack:
            out.append(_line("racks", "Rack PDU, 3-phase" + EST, racks * x.pdus_per_rack,
                             x.pdu_usd))
    if x.spares:
        for line in bom.lines:
            pct = x.spares_pct.get(line.category, 0.0)
            qty = math.ceil(line.qty * pct / 100.0 - 1e-9) if pct else 0
            if qty:
                out.append(BomLine("spares", f"Spare: {line.item} ({pct:g}%)", "", qty,
                                   line.unit_usd, line.unit_usd * qty, vendor=line.vendor,
                                   part_number=line.part_number,
                                   part_source=line.part_source, sku=line.sku,
                                   lead_time=line.lead_time))
    if x.support:
        base = [*bom.lines, *out]
        for cls, pct in sorted(x.support_pct.items()):
            hw = sum(line.total_usd for line in base
                     if line.category == cls or (cls == "appliance" and
                                                 line.category == "management"))
            if hw and pct:
                per_year = hw * pct / 100.0
                out.append(BomLine("support", f"Support, {cls} ({pct:g}% a year){EST}", "",
                                   x.years, per_year, per_year * x.years))
    return out


def with_extras(c: Compiled, bom: Bom) -> Bom:
    """``bom`` with the project's optional lines added (itself when none is switched on)."""
    phys = c.project.physical
    if phys is None or not phys.extras.any:
        return bom
    extra = extra_lines(c, bom, phys.extras)
    if not extra:
        return bom
    lines = (*bom.lines, *extra)
    total = float(sum(x.total_usd for x in lines))
    power_by = dict(bom.power_by_category)
    for x in extra:
        if x.power_w:
            power_by[x.category] = power_by.get(x.category, 0.0) + x.power_w
    return replace(
        bom,
        lines=lines,
        total_usd=total,
        per_gpu_usd=total / c.n_gpus if c.n_gpus else 0.0,
        power_w=float(sum(power_by.values())),
        power_by_category=power_by,
        rack_units=bom.rack_units + sum(x.rack_units for x in extra),
    )
