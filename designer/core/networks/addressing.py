"""The IP and BGP plan of the other networks (front-end, storage, out-of-band).

Each network is a routed leaf/spine Ethernet design numbered by the back-end plan's rules
(core/ethernet/plan.py, RFC 7938 section 5.2): a /32 loopback per switch, a /31 per
switch-to-switch link (RFC 3021, the lower tier at the even address), one ASN for the top
tier of each plane, the middle tier (the management network's aggregation leaves, below
its spines) one per pod, every leaf (or access switch) its own, and a routed /31 per endpoint port
(a server's, a storage node's, or a managed device's management port) taken from a block per
leaf at the leaf's port number. Each network draws from its own range
(``AddressRanges.network_parts``) and its own ASN band, so nothing collides with the
back-end or another network; an exhausted range is refused naming it.
"""

from __future__ import annotations

import math

import numpy as np

from designer.core.address_ranges import (
    DEFAULT_RANGES,
    NETWORK_ASN_STRIDE,
    NETWORK_RANGE_FIELDS,
    PRIVATE_ASN,
    AddressRanges,
)
from designer.core.errors import DesignerError
from designer.core.ethernet.plan import asn_plan, ip
from designer.core.model import Project
from designer.core.networks.model import Network
from designer.core.networks.names import EXTRA_NETWORKS
from designer.core.writers.network_cabling import SERVER_PORT

TIER = {"access": 1, "leaf": 1, "spine": 2}  # storage nodes are endpoints


class NetworkRangeError(DesignerError):
    """A network's range or ASN band cannot hold its plan."""


def network_rows(project: Project, net: Network, rng: AddressRanges | None = None,
                 names: dict[str, str] | None = None) -> list[tuple]:
    """Rows of ``core.ethernet.addressing.HEADER`` for one network: loopbacks, both ends of
    every switch-to-switch /31, both ends of every endpoint /31."""
    rng = rng or project.addressing or DEFAULT_RANGES
    parts = rng.network_parts(net.kind)
    label = NETWORK_RANGE_FIELDS[net.kind]
    if names is None:
        names = {d.id: d.name for d in project.fabric.devices}
    backend_switch = {d.id for d in project.fabric.devices if d.role.is_switch}
    role_of = {d.id: d.role.value for d in project.fabric.devices}
    switches = [d for d in net.devices if d.tier in TIER]
    sidx = {d.id: k for k, d in enumerate(switches)}
    n = len(switches)
    # the management network's access switches sit below its aggregation leaf/spine
    shift = int(any(d.tier == "access" for d in switches))
    tier = np.array([TIER[d.tier] + (shift if d.tier != "access" else 0) for d in switches],
                    np.int64)
    links = net.links
    fab = [k for k in range(len(links)) if links.a[k] in sidx and links.b[k] in sidx]
    # the lower tier at the a end (even address), as in the back-end plan
    pairs = []
    for k in fab:
        a, ap, b, bp = sidx[links.a[k]], links.a_port[k], sidx[links.b[k]], links.b_port[k]
        if tier[a] > tier[b]:
            a, ap, b, bp = b, bp, a, ap
        pairs.append((a, ap, b, bp))
    pairs.sort()
    a_arr = np.array([p[0] for p in pairs], np.int64)
    b_arr = np.array([p[2] for p in pairs], np.int64)
    plane = _planes(n, a_arr, b_arr)
    place = EXTRA_NETWORKS.index(net.kind) + 1
    band = rng.model_copy(update={"asn_base": rng.asn_base + place * NETWORK_ASN_STRIDE})
    asn = asn_plan(tier, plane, a_arr, b_arr, band) if n else np.zeros(0, np.int64)
    if n and int(asn.max()) > PRIVATE_ASN[1]:
        raise NetworkRangeError(f"{label} network: its ASNs from {band.asn_base:,} run past "
                                f"the private 4-byte range's end ({PRIVATE_ASN[1]:,}); "
                                "lower asn_base")
    if n and int(asn.max()) >= band.asn_base + NETWORK_ASN_STRIDE:
        raise NetworkRangeError(f"{label} network: {n:,} switches need more ASNs than its "
                                f"band of {NETWORK_ASN_STRIDE:,} from {band.asn_base:,}")
    loops = parts["loopback"]
    if n >= loops.num_addresses - 1:
        raise NetworkRangeError(f"{label} network: {n:,} switches, more than its loopback "
                                f"range {loops} holds ({max(0, loops.num_addresses - 2):,})")
    p2p = parts["point-to-point"]
    if 2 * len(pairs) > p2p.num_addresses:
        raise NetworkRangeError(f"{label} network: {len(pairs):,} switch-to-switch links, "
                                f"more than its point-to-point range {p2p} holds "
                                f"({p2p.num_addresses // 2:,} /31s)")

    def sw_name(s: int) -> str:
        return switches[s].id

    def port_name(dev: str, port: int) -> str:
        if dev in sidx:
            return str(port + 1)
        if dev in role_of and dev not in backend_switch:
            word = SERVER_PORT[net.kind]
            return word if word == "BMC" and port == 0 else f"{word}{port + 1}"
        return "mgmt"

    rows: list[tuple] = []
    lo0 = int(loops.network_address)
    for s, d in enumerate(switches):
        rows.append(("loopback", sw_name(s), d.tier, int(asn[s]), "Loopback0",
                     ip(lo0 + 1 + s), 32, "", "", "", str(loops)))
    base = int(p2p.network_address)
    for k, (a, ap, b, bp) in enumerate(pairs):
        lo, hi = ip(base + 2 * k), ip(base + 2 * k + 1)
        ia, ib = port_name(sw_name(a), ap), port_name(sw_name(b), bp)
        rows.append(("p2p", sw_name(a), switches[a].tier, int(asn[a]), ia, lo, 31,
                     sw_name(b), ib, hi, str(p2p)))
        rows.append(("p2p", sw_name(b), switches[b].tier, int(asn[b]), ib, hi, 31,
                     sw_name(a), ia, lo, str(p2p)))
    # endpoint links: exactly one end is a switch of this network
    hosts = []
    for k in range(len(links)):
        ina, inb = links.a[k] in sidx, links.b[k] in sidx
        if ina == inb:
            continue
        s, sp, e, ep = ((links.a[k], links.a_port[k], links.b[k], links.b_port[k]) if ina
                        else (links.b[k], links.b_port[k], links.a[k], links.a_port[k]))
        hosts.append((sidx[s], sp, e, ep))
    hosts.sort(key=lambda h: (h[0], h[1]))
    if hosts:
        host_range = parts["host"]
        top = max(h[1] for h in hosts) + 1
        bits = max(8, math.ceil(math.log2(2 * top)))
        leaves = sorted({h[0] for h in hosts})
        if len(leaves) << bits > host_range.num_addresses:
            raise NetworkRangeError(f"{label} network: {len(leaves):,} leaves of "
                                    f"/{32 - bits} host blocks, more than its host range "
                                    f"{host_range} holds "
                                    f"({host_range.num_addresses >> bits:,} blocks)")
        block = {s: int(host_range.network_address) + (j << bits)
                 for j, s in enumerate(leaves)}
        tier_of = {d.id: d.tier for other in (project.networks or {}).values()
                   for d in other.devices} | {d.id: d.tier for d in net.devices}
        for s, sp, e, ep in hosts:
            gw, host = ip(block[s] + 2 * sp), ip(block[s] + 2 * sp + 1)
            si, ei = port_name(sw_name(s), sp), port_name(e, ep)
            e_name = names.get(e, e)
            e_role = role_of.get(e) or tier_of.get(e) or "switch"
            rows.append(("host-gateway", sw_name(s), switches[s].tier, int(asn[s]), si, gw,
                         31, e_name, ei, host, str(host_range)))
            rows.append(("host", e_name, e_role, "", ei, host, 31, sw_name(s), si, gw,
                         str(host_range)))
    return rows


def _planes(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected parts of the switch graph (as the back-end plan's planes)."""
    if not n:
        return np.zeros(0, np.int64)
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    g = coo_matrix((np.ones(a.size), (a, b)), shape=(n, n))
    return connected_components(g, directed=False)[1].astype(np.int64)


def networks_plan(project: Project, names: dict[str, str] | None = None
                  ) -> dict[str, tuple[list[tuple], dict]]:
    """Per other network present: (rows, summary) in the order front-end, storage, OOB."""
    rng = project.addressing or DEFAULT_RANGES
    out: dict[str, tuple[list[tuple], dict]] = {}
    for kind, net in (project.networks or {}).items():
        rows = network_rows(project, net, rng, names)
        parts = rng.network_parts(kind)
        out[kind] = (rows, {
            "switches": sum(1 for r in rows if r[0] == "loopback"),
            "asns": len({r[3] for r in rows if r[3] != ""}),
            "addresses": len(rows),
            "ranges": {"network": getattr(rng, kind),
                       "loopbacks": str(parts["loopback"]),
                       "p2p": str(parts["point-to-point"]), "hosts": str(parts["host"]),
                       "asn_base": rng.asn_base + (EXTRA_NETWORKS.index(kind) + 1)
                       * NETWORK_ASN_STRIDE}})
    return out
