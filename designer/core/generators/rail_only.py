"""Rail-only fabrics: one network per rail and no spine joining the rails.

A rail is one NIC port position of a scale-up (high-bandwidth) domain: NIC i of an 8-GPU
server, or port k of tray t of an NVL72 rack. A rail-optimized fabric joins its rail leaves
with spines; a rail-only fabric (Wang et al., "Rail-only: A Low-Cost High-Performance Network
for Training LLMs with Trillion Parameters", arXiv 2307.12169) drops that spine: each rail is a
network of its own (one switch when a rail's domains fit its ports, else a two-tier Clos of
that rail's GPUs), and GPUs on different rails meet only through their scale-up domain, which
forwards the traffic onto the destination's rail (``designer.core.solver.forwarding``).

Sizing: R rails (ports of a domain), D domains; every rail has D endpoints. One switch per
rail when D fits its ports; else leaves of K/2 down and K/2 up ports and the divisor rule's
spines (``clos.plan_clos``), per rail.
"""

from __future__ import annotations

import math

import numpy as np

from designer.core.catalog import Catalog
from designer.core.errors import GeneratorError
from designer.core.generators.clos import ClosSpec, build_clos, plan_clos
from designer.core.generators.gear import GearChoice, resolve_gear
from designer.core.generators.params import RailOnlyParams, Ratio
from designer.core.generators.plan import Plan
from designer.core.generators.plane import (
    LinkChunk,
    Plane,
    Servers,
    SwitchRow,
    compose_ids,
    plane_y,
    server_devices,
    spread,
    switch_block,
)
from designer.core.links import LinkTable
from designer.core.model import Fabric, Role

SERVER_DX = 60.0
TRAY_DY = 22.0


def _title(gear: GearChoice, body: str) -> str:
    return f"{body}, {gear.profile.name}"


def plan_rail_only(params: RailOnlyParams, catalog: Catalog) -> Plan:
    gear = resolve_gear(params, catalog)
    G, T = gear.gpus_per_server, gear.domain_servers
    gpus = params.gpus or (1024 if T == 1 else 8 * T * G)
    if gpus % (G * T):
        what = f"{T}-tray '{gear.server.id}' racks" if T > 1 else f"{G}-GPU servers"
        raise GeneratorError(f"{gpus:,} GPUs is not a whole number of {what} ({G * T} GPUs "
                             f"each, one scale-up domain); use a multiple of {G * T}")
    servers = gpus // G
    domains = servers // T
    ports = gear.ports_per_server  # every NIC port of a server, all planes
    rails = T * ports
    K = gear.leaf.radix
    tiers = params.tiers or (1 if domains <= K else 2)
    details = list(gear.notes)
    if tiers == 1:
        if domains > K:
            raise GeneratorError(
                f"a rail of {domains:,} domains needs {domains:,} ports, '{gear.leaf.model}' has "
                f"{K}; use --tiers 2 (a two-tier Clos per rail) or a larger radix")
        cp = None
        switches = {"leaf": rails}
        links = {"endpoint-leaf": rails * domains}
        os_: dict[str, str] = {}
    else:
        d1 = K // 2
        units = math.ceil(domains / d1)
        spec = ClosSpec(endpoints=1, servers=domains, placement="tor", unit=d1, units=units,
                        u1=d1, tiers=2, leaves_per_pod=units, spine_ratio=Ratio(down=1, up=1),
                        leaf=gear.leaf, upper=gear.upper)
        try:
            cp = plan_clos(spec)
        except GeneratorError:
            raise GeneratorError(
                f"a rail of {domains:,} domains needs more than two tiers of "
                f"'{gear.leaf.model}' ({K} ports: at most {K * d1:,} domains a rail, "
                f"{K * d1 * G * T:,} GPUs); rail-only builds one or two tiers per rail: use a "
                "larger radix or fewer GPUs") from None
        switches = {"leaf": rails * units, "spine": rails * cp.spines}
        links = {"endpoint-leaf": rails * domains, "leaf-spine": rails * units * d1}
        os_ = {"leaf": "1:1"}
    hb = gear.server.scale_up
    fabric_name = hb.fabric if hb else "the server's scale-up links"
    details.append(
        f"{rails} rails ({ports} NIC ports a server x {T} server(s) a domain), each its own "
        f"{'switch' if tiers == 1 else 'two-tier Clos'} of {domains:,} domains; no spine "
        f"joins the rails: cross-rail traffic is forwarded over {fabric_name} onto the "
        "destination's rail (arXiv 2307.12169)")
    plan = Plan(
        kind="rail-only", title=_title(gear, f"Rail-only ({gpus:,} GPUs, {rails} rails)"),
        gpus=gpus, servers=servers, planes=1, switches=switches, links=links,
        oversubscription=os_, details=tuple(details), gear=gear,
        build=lambda: _build(cp, gear, domains, tiers),
        domain_servers=T, assembler=lambda pl, sv, g: assemble_rails(pl, sv, g, rails),
    )
    return plan


def _build(cp, gear: GearChoice, domains: int, tiers: int) -> tuple[Plane, Servers]:
    """One rail's network over ``domains`` endpoints (endpoint j: domain j), and the
    servers' positions."""
    T = gear.domain_servers
    if tiers == 1:
        x = spread(domains, 0.0, max(domains - 1, 1) * SERVER_DX * T)
        row = SwitchRow(Role.LEAF, ["leaf"], [{}], np.array([x.mean() if x.size else 0.0]),
                        gear.leaf.model, gear.leaf.speed_gbps, 1)
        plane = Plane([row], [], np.zeros(domains, np.int32),
                      np.arange(1, domains + 1, dtype=np.int32))
        dom_x = x
    else:
        plane, dom = build_clos(cp, gear)
        dom_x = dom.x
    # servers: the trays of domain j stand around the domain's endpoint column
    s = np.arange(domains * T)
    d, t = s // T, s % T
    if T > 1:
        ids = compose_ids([f"rack{a + 1}-tray" for a in range(domains)],
                          [f"{b + 1:02d}" for b in range(T)], d, t)
    else:
        ids = [f"node{a + 1}" for a in d.tolist()]
    servers = Servers(ids, [{} for _ in ids], dom_x[d].astype(float),
                      dy=(t * TRAY_DY).astype(float))
    return plane, servers


def assemble_rails(plane: Plane, servers: Servers, gear: GearChoice, rails: int) -> Fabric:
    """Devices and links of ``rails`` copies of ``plane``: endpoint j of rail r is NIC port
    ``r % P + 1`` of server ``j * T + r // P`` (P ports a server, T servers a domain)."""
    P = gear.ports_per_server
    T = gear.domain_servers
    devices = server_devices(servers, gear)
    n_servers = len(servers.ids)
    tiers = max(r.tier for r in plane.rows)
    below = float(servers.dy.max()) if servers.dy is not None and servers.dy.size else 0.0
    n_sw = plane.n_switches
    D = plane.attach_sw.shape[0]
    j = np.arange(D, dtype=np.int64)
    chunks: list[LinkTable] = []
    for r in range(rails):
        prefix = f"r{r + 1}-"
        base = n_servers + r * n_sw
        for row in plane.rows:
            y0 = plane_y(row.tier, r, rails, tiers, below)
            devices += switch_block(row, prefix, y0, {"rail": r + 1})
        chunks.append(LinkTable(
            a=(j * T + r // P).astype(np.int32), a_port=np.full(D, r % P + 1, np.int32),
            b=(base + plane.attach_sw).astype(np.int32), b_port=plane.attach_port,
            count=1, speed_gbps=gear.endpoint_speed, length_m=plane.attach_length_m))
        for ch in plane.links:
            chunks.append(_rail_chunk(ch, base))
    return Fabric(devices=tuple(devices), links=LinkTable.concat(chunks))


def _rail_chunk(ch: LinkChunk, base: int) -> LinkTable:
    return LinkTable(a=(base + ch.a).astype(np.int32), a_port=ch.a_port,
                     b=(base + ch.b).astype(np.int32), b_port=ch.b_port, count=ch.count,
                     speed_gbps=ch.speed_gbps, length_m=ch.length_m)
