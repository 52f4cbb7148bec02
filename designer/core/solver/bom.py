"""Bill of materials, power and rack units, counted from the actual devices and links.

Network gear only in the total: switches, the laser modules of co-packaged-optics switches,
NICs, transceivers, copper cables, fibres and management appliances. GPU servers are compute;
they are listed apart for information.
Counting rules: a twin-port module serves the two ports of one cage, on a switch or on a
server whose NICs sit behind twin-port cages (a DGX H100: 4 modules for 8 ports; modules are
counted per used cage), a single-port NIC cage takes one module per port, one fibre per
optical link, and a twin or splitter copper cable serves two links from one switch cage.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from designer.core.catalog import NOT_KNOWN, MediumSpec, ServerSpec, SwitchSpec
from designer.core.errors import CatalogError
from designer.core.model import Role
from designer.core.physical.liquid import cdu_count
from designer.core.solver.cables import CableCounts, cable_ids, count_by_layer
from designer.core.solver.compile import ROLE_CODE, Compiled
from designer.core.solver.media import MediaPlan
from designer.core.sources.apply import price_origin, supplier_terms

CATEGORY_ORDER = ("switch", "laser", "nic", "transceiver", "cable", "fibre", "appliance")


@dataclass(frozen=True)
class BomLine:
    category: str
    item: str  # gear name
    catalog_id: str
    qty: int
    unit_usd: float
    total_usd: float
    unit_power_w: float = 0.0
    power_w: float = 0.0
    rack_units: float = 0.0
    # where the unit price comes from: catalog (sourced), assumption, book or project
    price_kind: str = "catalog"
    price_source: str = ""
    price_date: str = ""
    # what to order: the manufacturer and its part number ("" when not known) with where the
    # number comes from, and a price book's supplier SKU and lead time
    vendor: str = ""
    part_number: str = ""
    part_source: str = ""
    sku: str = ""
    lead_time: str = ""

    @property
    def part_number_text(self) -> str:
        return self.part_number or NOT_KNOWN

    def to_json(self) -> dict:
        return {
            "category": self.category,
            "item": self.item,
            "catalog_id": self.catalog_id,
            "qty": self.qty,
            "unit_usd": round(self.unit_usd, 2),
            "total_usd": round(self.total_usd, 2),
            "unit_power_w": round(self.unit_power_w, 2),
            "power_w": round(self.power_w, 2),
            "price_source": {"kind": self.price_kind, "label": self.price_source,
                             "date": self.price_date},
            "vendor": self.vendor,
            "part_number": self.part_number or None,
            "part_number_source": self.part_source,
            "supplier_sku": self.sku,
            "lead_time": self.lead_time,
        }


@dataclass(frozen=True)
class Bom:
    lines: tuple[BomLine, ...]
    total_usd: float
    per_gpu_usd: float
    power_w: float
    power_by_category: dict[str, float]
    rack_units: float
    compute_lines: tuple[BomLine, ...] = field(default=())  # servers: information only
    # physical cables (a twin copper cable carries two links): per layer, and the cable id of
    # every link in ``LinkTable.expand()`` order, which the cabling plan groups rows by
    cables: CableCounts = field(default_factory=lambda: CableCounts(0, {}))
    cable_id: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False,
                                 compare=False)
    price_books: tuple[dict, ...] = field(default=())  # the project's books, as applied

    def to_json(self) -> dict:
        return {
            "total_usd": round(self.total_usd, 2),
            "per_gpu_usd": round(self.per_gpu_usd, 2),
            "lines": [x.to_json() for x in self.lines],
            "compute_lines": [x.to_json() for x in self.compute_lines],
            "price_books": list(self.price_books),
            "usd_by_price_source": _by_source(self.lines),
            "note": "network gear only; GPU servers are listed under compute_lines and not "
                    "counted in the total. Prices are estimates: replace them with quotes.",
        }


# cages (devices x cages of the widest) counted in a table rather than by sorting: 16 M
# entries are 128 MB for a moment, about 400,000 switches of 144 ports
DENSE_CAGES = 16_000_000


def _sum_by(item: np.ndarray, qty: np.ndarray) -> Counter:
    out: Counter = Counter()
    if item.size:
        tot = np.bincount(item, weights=qty)
        for i in np.flatnonzero(tot).tolist():
            out[int(i)] += round(float(tot[i]))
    return out


def bill_of_materials(c: Compiled, media: MediaPlan, control=None) -> Bom:
    cat = c.catalog
    lines: list[BomLine] = []
    compute_lines: list[BomLine] = []

    def line(category: str, gear_id: str, qty: int, into: list[BomLine]) -> None:
        try:
            g = cat.get(gear_id)
        except CatalogError:
            return
        ru = float(getattr(g, "rack_units", 0.0)) * qty
        origin = price_origin(c.project, cat, g.id)
        sku, lead = supplier_terms(c.project, g.id)
        into.append(BomLine(category, g.name, g.id, int(qty), float(g.price_usd),
                            float(g.price_usd) * qty, float(g.power_w), float(g.power_w) * qty,
                            ru, origin.kind, origin.label, origin.date, g.vendor,
                            g.part_number, g.part_number_source(), sku, lead))

    # switches, servers, appliances and NICs by model, looked up once per gear choice ------------
    t = c.table
    server_spec = np.zeros(len(t.choices), bool)  # model is a server (GPU server or appliance)
    gpu_spec = np.zeros(len(t.choices), bool)
    for g, (model, *_) in enumerate(t.choices):
        spec = cat.get(model) if model in cat else None
        server_spec[g] = isinstance(spec, ServerSpec)
        gpu_spec[g] = isinstance(spec, ServerSpec) and spec.gpus > 0
    endpoint = ~c.is_switch & server_spec[t.gear]
    compute = endpoint & gpu_spec[t.gear] & (c.role == ROLE_CODE[Role.GPU_SERVER])
    nics: Counter = Counter()
    per_choice = np.bincount(t.gear[compute], minlength=len(t.choices))
    for g in np.flatnonzero(per_choice).tolist():
        model, _, nic, n_nics = t.choices[g]
        server = cat.server(model)
        nics[nic or server.nic] += int(per_choice[g]) * (n_nics or server.nics)
    if control is not None:
        control.check()
    lasers: Counter = Counter()
    for m, q in sorted(t.models(c.is_switch).items()):
        line("switch", m, q, lines)
        spec = cat.get(m) if m in cat else None
        if isinstance(spec, SwitchSpec) and spec.cpo and spec.laser_module:
            lasers[spec.laser_module] += q * spec.laser_modules
    for m, q in sorted(lasers.items()):  # co-packaged optics: the switches' laser modules
        line("laser", m, q, lines)
    for m, q in sorted(nics.items()):
        line("nic", m, q, lines)

    # optics and cables from the media plan ---------------------------------------------------
    cab = c.cables
    per_cage = np.maximum(t.cage_ports, 1)  # modules and cables serve cages, servers' too
    a, b = cab["a"].astype(np.int64), cab["b"].astype(np.int64)
    a_cage = (cab["a_port"].astype(np.int64) - 1) // per_cage[a]
    b_cage = (cab["b_port"].astype(np.int64) - 1) // per_cage[b]
    n_items = len(media.items)
    per_item = np.ones(max(n_items, 1), np.int64)
    for k, gid in enumerate(media.items):
        g = cat.get(gid)
        if isinstance(g, MediumSpec):
            per_item[k] = g.links_per_item
    modules: Counter = Counter()
    # modules: per (device, cage, item), both ends
    dev = np.r_[a, b]
    cage = np.r_[a_cage, b_cage]
    mod = np.r_[media.a_module, media.b_module]
    modules += count_items(dev, cage, mod, per_item)
    # copper: one item per physical cable (cables.py groups the links a cable carries)
    ids, n_cables = cable_ids(a, b, cab["a_port"], cab["b_port"], c.is_switch, per_cage,
                              media.cable, per_item)
    if control is not None:
        control.check()
    cu = np.flatnonzero(media.cable >= 0)
    cable_item = np.full(max(n_cables, 1), -1, np.int64)
    cable_item[ids[cu]] = media.cable[cu]
    cables = _sum_by(cable_item[cable_item >= 0], np.ones(int((cable_item >= 0).sum())))
    # one fibre per optical link
    fib = media.fibre[media.fibre >= 0].astype(np.int64)
    fibres = _sum_by(np.arange(n_items), -(-np.bincount(fib, minlength=n_items)
                                           // per_item[:n_items])) if n_items else Counter()
    for counter, category in ((modules, "transceiver"), (cables, "cable"), (fibres, "fibre")):
        for k, q in sorted(counter.items(), key=lambda kv: media.items[kv[0]]):
            line(category, media.items[k], q, lines)
    for m, q in sorted(t.models(endpoint & ~compute).items()):
        line("appliance", m, q, lines)
    for m, q in sorted(t.models(compute).items()):
        line("server", m, q, compute_lines)
    # scale-up switch trays: a rack-scale domain has its own (9 NVLink switch trays an NVL72)
    for tray, q in sorted(scale_up_trays(c).items()):
        line("scale-up", tray, q, compute_lines)
    # coolant distribution units for liquid-cooled racks (the floor plan's, else N+1 a row)
    cdu, n_cdu = cdu_count(c.project, cat, c)
    if n_cdu:
        line("cooling", cdu, n_cdu, compute_lines)

    lines.sort(key=lambda x: (CATEGORY_ORDER.index(x.category), x.catalog_id))
    total = float(sum(x.total_usd for x in lines))
    power_by: dict[str, float] = {}
    for x in lines:
        power_by[x.category] = power_by.get(x.category, 0.0) + x.power_w
    ru = float(sum(x.rack_units for x in lines if x.category in ("switch", "appliance")))
    n = c.n_gpus
    return Bom(
        lines=tuple(lines),
        total_usd=total,
        per_gpu_usd=total / n if n else 0.0,
        power_w=float(sum(power_by.values())),
        power_by_category=power_by,
        rack_units=ru,
        compute_lines=tuple(compute_lines),
        cables=count_by_layer(ids, n_cables, c.cable_layer, c.layers),
        cable_id=ids,
        price_books=tuple(
            {"name": b.name, "currency": b.currency, "usd_per_unit": b.usd_per_unit,
             "date": b.date, "source": b.source, "items": len(b.prices)}
            for b in c.project.sources.price_books),
    )


def scale_up_trays(c: Compiled) -> Counter:
    """Scale-up switch trays by catalog id: every domain of a rack-scale system has its
    system's trays, however many of its compute trays are filled."""
    out: Counter = Counter()
    dom = c.domains
    for model, n in Counter(dom.spec_id).items():
        spec = c.catalog.get(model) if model in c.catalog else None
        su = spec.scale_up if isinstance(spec, ServerSpec) else None
        if su is not None and su.switch_tray and su.switch_trays:
            out[su.switch_tray] += n * su.switch_trays
    return out


def _by_source(lines) -> dict[str, float]:
    """Network total split by where the prices come from (catalog, assumption, each book,
    the project's own prices), so a buyer sees how much of it is quoted."""
    out: dict[str, float] = {}
    for x in lines:
        key = x.price_source if x.price_kind == "book" else x.price_kind
        out[key] = round(out.get(key, 0.0) + x.total_usd, 2)
    return out


def count_items(dev: np.ndarray, cage: np.ndarray, item: np.ndarray,
                per_item: np.ndarray) -> Counter:
    """Items needed when the links that share a device's cage and an item (``item`` per link,
    -1: none) share items of ``per_item`` links each."""
    sel = item >= 0
    if not sel.any():
        return Counter()
    d, cg, it = dev[sel].astype(np.int64), cage[sel].astype(np.int64), item[sel].astype(np.int64)
    width = int(cg.max()) + 1
    flat = d * width + cg
    span = (int(d.max()) + 1) * width
    if (flat >= 0).all() and span <= DENSE_CAGES:
        # a count per cage in a table, and the item each cage holds: a cage holds one item in
        # every design the generators make (a sort of 794,304 link ends took 3x as long)
        per_cage = np.bincount(flat, minlength=span)
        held = np.full(span, -1, np.int32)
        held[flat] = it
        if (held[flat] == it).all():
            cages = np.flatnonzero(per_cage)
            counts, gi = per_cage[cages], held[cages].astype(np.int64)
            return _sum_by(gi, -(-counts // per_item[gi]))
    # cages of mixed items (a hand-made design), or a table too large: sort the keys
    n_it = max(per_item.size, 1)
    key = np.sort(flat * n_it + it)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    counts = np.diff(np.r_[starts, key.size])
    gi = key[starts] % n_it
    return _sum_by(gi, -(-counts // per_item[gi]))
