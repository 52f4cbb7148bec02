"""``solve_networks(project)``: the figures of each extra network, apart from the back-end's
solve (which never reads ``Project.networks``, so it is not slowed by them).

Per network: switches by tier and model, links, cables (one per link), optics (one at each
end of an optical link), the worst leaf's oversubscription in line rate (down Gb/s over up
Gb/s), bandwidth per GPU, and a bill of materials with cost and power. The servers' own
front-end NICs (a DGX's BlueField-3 DPUs) come with the server and are not counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.model import Project
from designer.core.networks.gear import Part, network_items, part
from designer.core.networks.generate import REFERENCE_READ_GBYTES_S_PER_GPU, gpu_count
from designer.core.networks.model import Network
from designer.core.networks.names import NETWORK_LABELS
from designer.core.physical.floor import BomExtras
from designer.core.physical.power import CORD_NAME, device_cords
from designer.core.solver.bom import BomLine
from designer.core.sources.apply import supplier_terms

TIER_RANK = {"access": 0, "leaf": 1, "spine": 2}
CATEGORY = {"switch": "switch", "optic": "transceiver", "cable": "cable",
            "storage-node": "storage"}


@dataclass(frozen=True)
class NetworkResult:
    kind: str
    switches: int
    switches_by_tier: dict[str, int]
    switches_by_model: dict[str, int]
    links: int
    cables: int
    optics: int
    oversubscription: float  # worst switch: down Gb/s / up Gb/s (0: no uplinks)
    gbps_per_gpu: float  # what a GPU's share of its server's ports carries into this network
    lines: tuple[BomLine, ...]
    cost_usd: float
    power_w: float
    rack_units: float
    storage: dict[str, float] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return NETWORK_LABELS[self.kind]

    def to_json(self) -> dict:
        out = {
            "label": self.label,
            "switches": {"total": self.switches, "by_tier": self.switches_by_tier,
                         "by_model": self.switches_by_model},
            "links": self.links,
            "cables": self.cables,
            "optics": self.optics,
            "oversubscription": round(self.oversubscription, 3),
            "gbps_per_gpu": round(self.gbps_per_gpu, 3),
            "cost_usd": round(self.cost_usd, 2),
            "power_w": round(self.power_w, 2),
            "rack_units": self.rack_units,
            "bom": [x.to_json() for x in self.lines],
        }
        if self.storage:
            out["storage"] = {k: round(v, 3) for k, v in self.storage.items()}
        return out


def _line(p: Part, category: str, qty: int, project: Project | None = None) -> BomLine:
    """The line of ``qty`` of ``p``, priced as the back-end's lines are: the project's own
    price, else the latest price book's, else the item's (with the book's SKU and lead
    time)."""
    unit, kind, source, date = p.price_usd, p.price_kind, p.price_source, p.price_date
    sku = lead = ""
    if project is not None:
        if p.id in project.overrides.prices:
            unit, kind, source, date = float(project.overrides.prices[p.id]), "project", "", ""
        else:
            for book in reversed(project.sources.price_books):
                if p.id in book.prices:
                    unit, kind, source, date = book.usd(p.id), "book", book.label, book.date
                    break
        sku, lead = supplier_terms(project, p.id)
    return BomLine(category=category, item=p.name, catalog_id=p.id, qty=qty,
                   unit_usd=unit, total_usd=unit * qty,
                   unit_power_w=p.power_w, power_w=p.power_w * qty,
                   rack_units=p.rack_units * qty, price_kind=kind,
                   price_source=source, price_date=date, vendor=p.vendor,
                   part_number=p.part_number, part_source=p.part_source, sku=sku,
                   lead_time=lead)


def _extra_lines(net: Network, lines: list[BomLine], cat: Catalog,
                 x: BomExtras, placement: dict | None = None) -> list[BomLine]:
    """The network's own spares and power cords by the project's BOM options, and a note
    when some of its devices have no rack (so the PDUs leave them out)."""
    # (after the solver package: the extras module is loaded by it)
    from designer.core.physical.extras import ESTIMATE_SOURCE, spare_of

    placement = placement or {}
    out: list[BomLine] = []
    if x.power_cords:
        cords: Counter = Counter()
        for model, n in Counter(d.model for d in net.devices).items():
            item = network_items().get(model) or (cat.get(model) if model in cat else None)
            c = device_cords(item) if item is not None else None
            if c is not None and c.count:
                cords[c.inlet] += c.count * n
        for inlet, n in sorted(cords.items()):
            unit = x.cord_c13_usd if inlet == "C14" else x.cord_c19_usd
            out.append(BomLine("power", f"Power cord {CORD_NAME[inlet]} (estimate)", "", n,
                               unit, unit * n, price_kind="assumption",
                               price_source=ESTIMATE_SOURCE))
    off = [d for d in net.devices if d.id not in placement]
    if x.racks_and_pdus and off:
        kw = sum(x.power_w for x in lines) / 1000.0 * len(off) / len(net.devices)
        out.append(BomLine("power", f"Note: {len(off):,} devices of this network "
                           f"(about {kw:,.1f} kW) are not placed in racks; the PDUs count "
                           "the placed racks only ('designer floor --place' places them)",
                           "", 0, 0.0, 0.0))
    if x.spares:
        for line in [*lines, *out]:
            rule = x.spare_rule(line.category)
            qty = rule.quantity(line.qty) if rule is not None else 0
            if qty:
                out.append(spare_of(line, qty, rule.label))
    return out


def solve_network(net: Network, gpus: int, servers: int, cat: Catalog,
                  project: Project | None = None) -> NetworkResult:
    tier = {d.id: d.tier for d in net.devices}
    switches = [d for d in net.devices if d.tier != "storage-node"]
    links = net.links
    down: Counter = Counter()
    up: Counter = Counter()
    server_gbps = 0
    for a, b, g in zip(links.a, links.b, links.gbps, strict=True):
        ra, rb = TIER_RANK.get(tier.get(a, ""), -1), TIER_RANK.get(tier.get(b, ""), -1)
        lo, hi = (a, b) if ra < rb else (b, a)
        if max(ra, rb) < 0:
            continue
        down[hi] += g
        if TIER_RANK.get(tier.get(lo, ""), -1) >= 0:
            up[lo] += g
        elif lo not in tier:  # a back-end device: a server (or a switch on the OOB network)
            server_gbps += g
    over = max((down[s] / up[s] for s in up if up[s]), default=0.0)
    optics = Counter()
    cables = Counter(links.cable)
    for o in links.optic:
        if o:
            optics[o] += 2
    lines = []
    for model, n in sorted(Counter(d.model for d in switches).items()):
        lines.append(_line(part(model, cat), "switch", n, project))
    for model, n in sorted(Counter(d.model for d in net.devices
                                   if d.tier == "storage-node").items()):
        lines.append(_line(part(model, cat), "storage", n, project))
    for o, n in sorted(optics.items()):
        lines.append(_line(part(o, cat), "transceiver", n, project))
    optical = {c for c, o in zip(links.cable, links.optic, strict=True) if o}
    for c, n in sorted(cables.items()):
        lines.append(_line(part(c, cat), "fibre" if c in optical else "cable", n, project))
    phys = project.physical if project is not None else None
    if phys is not None and phys.extras.any:
        lines += _extra_lines(net, lines, cat, phys.extras,
                              phys.floor.placement if phys.floor is not None else None)
    per_gpu = server_gbps / gpus if gpus and net.kind != "oob" else 0.0
    storage: dict[str, float] = {}
    if net.kind == "storage":
        nodes = [d for d in net.devices if d.tier == "storage-node"]
        read = sum(part(d.model, cat).read_gbytes_s for d in nodes)
        storage = {
            "nodes": float(len(nodes)),
            "read_gbytes_s": read,
            "read_gbytes_s_per_gpu": read / gpus if gpus else 0.0,
            "fabric_gbytes_s_per_gpu": per_gpu / 8 / max(over, 1.0),
            "reference_read_gbytes_s_per_gpu": REFERENCE_READ_GBYTES_S_PER_GPU,
        }
    return NetworkResult(
        kind=net.kind, switches=len(switches),
        switches_by_tier=dict(sorted(Counter(d.tier for d in switches).items())),
        switches_by_model=dict(sorted(Counter(d.model for d in switches).items())),
        links=len(links), cables=len(links), optics=sum(optics.values()),
        oversubscription=over, gbps_per_gpu=per_gpu, lines=tuple(lines),
        cost_usd=sum(x.total_usd for x in lines), power_w=sum(x.power_w for x in lines),
        rack_units=sum(x.rack_units for x in lines), storage=storage)


def solve_networks(project: Project, catalog: Catalog | None = None) -> dict[str, NetworkResult]:
    """Every extra network's figures ({} when the project has none)."""
    if not project.networks:
        return {}
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    gpus, servers = gpu_count(project, cat)
    return {k: solve_network(n, gpus, sum(servers.values()), cat, project)
            for k, n in project.networks.items()}


def backend_summary(r) -> dict:
    """The back-end's figures in the shape of an extra network's (``r``: the solve Result)."""
    return {
        "label": NETWORK_LABELS["backend"],
        "switches": {"total": r.switches.total, "by_tier": r.switches.by_tier,
                     "by_model": r.switches.by_model},
        "links": r.links.total,
        "cables": r.cables.total,
        "oversubscription": round(r.oversubscription.worst, 3),
        "gbps_per_gpu": round(r.bisection.per_gpu_rate_gbps, 3),
        "cost_usd": round(r.bom.total_usd, 2),
        "power_w": round(r.power_w, 2),
        "rack_units": r.rack_units,
    }


def networks_json(r, nets: dict[str, NetworkResult]) -> dict:
    """The ``networks`` object of ``designer solve --json``: the back-end, then each other."""
    return {"backend": backend_summary(r)} | {k: v.to_json() for k, v in nets.items()}


def networks_report(nets: dict[str, NetworkResult]) -> list[str]:
    """The text report's section on the other networks."""
    out = ["", "Other networks of the cluster"]
    for n in nets.values():
        tiers = ", ".join(f"{v:,} {k}" for k, v in n.switches_by_tier.items())
        models = ", ".join(f"{v:,} {k}" for k, v in n.switches_by_model.items())
        out.append(f"  {n.label}")
        out.append(f"    switches     {n.switches:,}: {tiers}  [{models}]")
        out.append(f"    links        {n.links:,} ({n.cables:,} cables, {n.optics:,} optics); "
                   f"oversubscription {n.oversubscription:.2f}:1 in line rate")
        if n.gbps_per_gpu:
            out.append(f"    per GPU      {n.gbps_per_gpu:,.1f} Gb/s of its server's ports")
        if n.storage:
            s = n.storage
            out.append(f"    storage      {s['nodes']:,.0f} nodes, {s['read_gbytes_s']:,.0f} GB/s "
                       f"read = {s['read_gbytes_s_per_gpu']:.2f} GB/s per GPU (reference "
                       f"{s['reference_read_gbytes_s_per_gpu']:.1f} GB/s per GPU; fabric "
                       f"{s['fabric_gbytes_s_per_gpu']:.2f} GB/s per GPU)")
        out.append(f"    cost, power  ${n.cost_usd:,.0f}, {n.power_w / 1000:,.1f} kW, "
                   f"{n.rack_units:,.0f} RU")
    return out
