"""The optional lines of a complete bill of materials (``BomExtras``, each with its switch).

Added after the network lines, in this order: subnet managers (InfiniBand only), the
out-of-band management network, racks and cable management, power (PDUs from the placed racks'
power, cords by connector), spares (by the policy of ``spares``), support. Their prices come
from the project's ``BomExtras`` (estimates, marked as such in the item names); they carry no
catalog id, so the price is edited in the project's extras, not as a catalog override.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np

from designer.core.physical.floor import BomExtras
from designer.core.physical.power import CORD_NAME, cords_by_kind, device_cords, pdus_for_rack
from designer.core.physical.sections import NOTE_UNPLACED
from designer.core.solver.bom import Bom, BomLine
from designer.core.solver.compile import TECHS, Compiled

EXTRA_CATEGORIES = ("management", "racks", "power", "spares", "support")
EST = " (estimate)"


ESTIMATE_SOURCE = "estimate of the project's BOM options (physical.extras); replace with a quote"


def _line(category: str, item: str, qty: int, unit: float, unit_w: float = 0.0,
          ru: float = 0.0) -> BomLine:
    return BomLine(category, item, "", int(qty), float(unit), float(unit) * qty,
                   float(unit_w), float(unit_w) * qty, ru * qty, price_kind="assumption",
                   price_source=ESTIMATE_SOURCE)


def spare_of(line: BomLine, qty: int, label: str) -> BomLine:
    """The spares line of ``line``: its part, price and the price's origin, ``qty`` of it."""
    return BomLine("spares", f"Spare: {line.item} ({label})", "", qty,
                   line.unit_usd, line.unit_usd * qty, price_kind=line.price_kind,
                   price_source=line.price_source, price_date=line.price_date,
                   vendor=line.vendor, part_number=line.part_number,
                   part_source=line.part_source, sku=line.sku, lead_time=line.lead_time)


def rack_count(c: Compiled) -> int:
    """Racks of the project's floor plan, else of the default plan for its fabric."""
    phys = c.project.physical
    floor = phys.floor if phys is not None else None
    if floor is None or not floor.rows:
        from designer.core.physical.rack_count import default_rack_count

        return default_rack_count(c.project, c.catalog)
    return len(floor.racks())


def extra_lines(c: Compiled, bom: Bom, x: BomExtras) -> list[BomLine]:
    out: list[BomLine] = []
    ib = bool(np.isin(c.cable_tech, [TECHS.index("ib-ndr"), TECHS.index("ib-xdr")]).any())
    has_ufm = any("ufm" in line.catalog_id for line in bom.lines)
    if x.subnet_manager and ib and not has_ufm:
        out.append(_line("management", "UFM / subnet manager appliance (active + standby)" + EST,
                         x.subnet_managers, x.subnet_manager_usd, 800.0, 1.0))
    racks = rack_count(c) if (x.management_network or x.racks_and_pdus) else 0
    # a design with its own out-of-band network has these switches there, not here
    oob_net = bool(c.project.networks and "oob" in c.project.networks)
    if x.management_network and racks and not oob_net:
        devices = len(c.fabric.devices)
        out.append(_line("management", "1 GbE management switch, 48 ports, one per rack" + EST,
                         racks, x.management_switch_usd, x.management_switch_w, 1.0))
        # every device's management port, plus one uplink per management switch
        out.append(_line("management", "Cat6 management cable" + EST, devices + racks,
                         x.management_cable_usd))
    if x.racks_and_pdus and racks:
        placed = _placed(c)
        out.append(_line("racks", "Rack, 48U, 600 x 1200 mm" + EST, racks, x.rack_usd))
        if x.cable_management:
            out.extend(_cable_management(c, x, racks, placed))
        if x.pdu_kw is None or placed is None:
            if x.pdus_per_rack:
                out.append(_line("power", "Rack PDU, 3-phase" + EST, racks * x.pdus_per_rack,
                                 x.pdu_usd))
            if x.pdu_kw is not None:
                # sized by power only once devices sit in racks: say so rather than guess
                # silently (files written before ``pdu_kw`` keep their fixed count, no note)
                out.append(_line("power", f"{NOTE_UNPLACED} ({x.pdus_per_rack} a rack "
                                 f"counted above)", 0, 0.0))
        else:
            n = _pdus(c, x, placed)
            if n:
                out.append(_line("power", f"Rack PDU, 3-phase, {x.pdu_kw:g} kW continuous, "
                                 f"A+B feeds" + EST, n, x.pdu_usd))
    if x.power_cords:
        for inlet, n in sorted(cords_by_kind(_models(c), c.catalog).items()):
            unit = x.cord_c13_usd if inlet == "C14" else x.cord_c19_usd
            out.append(_line("power", f"Power cord {CORD_NAME[inlet]}" + EST, n, unit))
    if x.spares:
        for line in bom.lines:
            rule = x.spare_rule(line.category)
            qty = rule.quantity(line.qty) if rule is not None else 0
            if qty:
                out.append(spare_of(line, qty, rule.label))
    if x.support:
        base = [*bom.lines, *out]
        for cls, pct in sorted(x.support_pct.items()):
            hw = sum(line.total_usd for line in base
                     if line.category == cls or (cls == "appliance" and
                                                 line.category == "management"))
            if hw and pct:
                per_year = hw * pct / 100.0
                out.append(BomLine("support", f"Support, {cls} ({pct:g}% a year){EST}", "",
                                   x.years, per_year, per_year * x.years,
                                   price_kind="assumption", price_source=ESTIMATE_SOURCE))
    return out


def _models(c: Compiled) -> Counter:
    """Devices by catalog model: the network's and the servers' (each takes its cords)."""
    return Counter(d.model for d in c.fabric.devices)


def _placed(c: Compiled):
    """(positions, rack usage) of the project's placed floor plan, None before ``floor
    --place``: PDUs follow the racks' power only once devices sit in racks."""
    phys = c.project.physical
    if phys is None or phys.floor is None or not phys.floor.placement:
        return None
    from designer.core.physical.racks import project_usage

    return project_usage(c.project, c.catalog)


def _pdus(c: Compiled, x: BomExtras, placed) -> int:
    pos, use = placed
    k = len(use.names)
    c14 = np.zeros(k, np.int64)
    c20 = np.zeros(k, np.int64)
    # outlets are needed whether or not the cords are bought with this BOM
    per_model: dict[str, tuple[str, int]] = {}
    for i, d in enumerate(c.fabric.devices):
        r = int(pos.rack[i])
        if r < 0:
            continue
        if d.model not in per_model:
            item = c.catalog.get(d.model) if d.model in c.catalog else None
            cd = device_cords(item) if item is not None else None
            per_model[d.model] = (cd.inlet, cd.count) if cd else ("", 0)
        inlet, n = per_model[d.model]
        if inlet == "C14":
            c14[r] += n
        elif inlet == "C20":
            c20[r] += n
    if c.project.networks:  # the other networks' placed devices take outlets too
        from designer.core.physical.network_racks import network_loads

        net = network_loads(c.project, c.catalog, c.project.physical.floor)
        if net is not None:
            c14 += net.c14
            c20 += net.c20
    return sum(pdus_for_rack(float(use.used_kw[r]), int(c14[r]), int(c20[r]),
                             float(x.pdu_kw or 0), x.pdu_c13_outlets, x.pdu_c19_outlets)
               for r in range(k))


def _cable_management(c: Compiled, x: BomExtras, racks: int, placed) -> list[BomLine]:
    """Two vertical cable managers a rack; a 1U horizontal manager for every switch (its
    ports' cables turn into the vertical ones beside it); a blanking panel for every empty U
    of a placed rack (keeps the hot aisle's air out of the cold one). Counts are a rule of
    thumb, not a source: an assumption."""
    out = [_line("racks", "Vertical cable manager, 48U" + EST, 2 * racks,
                 x.vertical_manager_usd)]
    switches = int(np.count_nonzero(c.is_switch))
    if placed is not None and c.project.networks:  # the other networks' racked switches
        floor = c.project.physical.floor
        switches += sum(1 for net in c.project.networks.values() for d in net.devices
                        if d.tier != "storage-node" and d.id in floor.placement)
    if switches:
        out.append(_line("racks", "Horizontal cable manager, 1U" + EST, switches,
                         x.horizontal_manager_usd, ru=1.0))
    if placed is not None:
        _pos, use = placed
        free = int(np.clip(use.cap_u - use.used_u, 0, None).sum())
        if free:
            out.append(_line("racks", "Blanking panel, 1U" + EST, free, x.blanking_panel_usd))
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
