"""Power cords by connector and rack PDUs from the racks' power.

Cords: a catalog item may name its power supplies (``psus``) and their inlet (``psu_inlet``:
C14 takes a C13 cord, C20 a C19 cord, ``busbar`` none). Where it does not, they are derived:
two feeds (A and B, each able to carry the device alone), and on each feed as many cords as
the device's power needs at the inlet's continuous rating: IEC 60320 rates C13/C14 at 10 A and
C19/C20 at 16 A; at 230 V and 80% continuous load that is 1.84 kW and 2.94 kW a cord. A device
takes C14 inlets while one such cord a feed carries it, else C20. Trays of a rack-scale
system draw from the rack's busbar (its power shelves are fed by the PDUs), so they take no
cord. These derived counts are an estimate [D]: a datasheet's PSU count replaces them.

PDUs: per rack two feeds; on each feed as many PDUs as the rack's power needs at the PDU's
continuous rating (``pdu_kw``) and as its cords need outlets of each kind.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from designer.core.catalog import Catalog, ServerSpec

VOLTS = 230.0
CONTINUOUS = 0.8  # continuous load as a share of the rating (NEC 80% rule)
CORD_AMPS = {"C14": 10.0, "C20": 16.0}  # IEC 60320 inlet ratings
CORD_KW = {k: VOLTS * a * CONTINUOUS / 1000.0 for k, a in CORD_AMPS.items()}
# the cord each inlet takes, as BOMs name it (outlet end to inlet end)
CORD_NAME = {"C14": "C13 to C14", "C20": "C19 to C20"}
FEEDS = 2  # A and B: each feed carries the whole device (N+N)


@dataclass(frozen=True)
class Cords:
    """Power cords of one device model: ``count`` of the ``inlet`` kind, and whether the
    count comes from the catalog (else derived from the power)."""

    inlet: str  # C14 | C20 | busbar
    count: int
    from_catalog: bool


def device_cords(item) -> Cords:
    """The cords one device of ``item`` takes."""
    inlet = getattr(item, "psu_inlet", "") or ""
    psus = int(getattr(item, "psus", 0) or 0)
    if inlet == "busbar" or (isinstance(item, ServerSpec) and item.rack_scale):
        return Cords("busbar", 0, inlet == "busbar")
    kw = float(item.power_w) / 1000.0
    if not inlet:
        inlet = "C14" if kw <= CORD_KW["C14"] else "C20"
    if psus:
        return Cords(inlet, psus, True)
    if kw <= 0:
        return Cords(inlet, 0, False)
    per_feed = max(1, math.ceil(kw / CORD_KW[inlet] - 1e-9))
    return Cords(inlet, FEEDS * per_feed, False)


def cords_by_kind(models: Counter, catalog: Catalog) -> Counter:
    """Cords of every kind (``C13 to C14``, ``C19 to C20``) for ``models``: catalog id ->
    devices."""
    out: Counter = Counter()
    for model, n in models.items():
        if model not in catalog:
            continue
        c = device_cords(catalog.get(model))
        if c.count:
            out[c.inlet] += c.count * int(n)
    return out


def pdus_for_rack(kw: float, c14: int, c20: int, pdu_kw: float, c13_outlets: int,
                  c19_outlets: int) -> int:
    """PDUs of one rack: per feed, enough for its power and for its cords' outlets."""
    if kw <= 0 and not (c14 or c20):
        return 0
    per_feed = max(
        1,
        math.ceil(kw / pdu_kw - 1e-9) if pdu_kw > 0 else 1,
        math.ceil(c14 / FEEDS / c13_outlets) if c13_outlets else 1,
        math.ceil(c20 / FEEDS / c19_outlets) if c19_outlets else 1,
    )
    return FEEDS * per_feed
