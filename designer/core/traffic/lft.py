"""InfiniBand static routing from OpenSM's own forwarding tables.

``opensm_tables`` brings the design up under OpenSM on ibsim (the ``check-ib`` run) and keeps
the ``dump_fts`` tables; ``route_lft`` then walks every flow through them, all flows one hop at
a time as arrays: at a switch, the table entry for the destination GPU's LID names an output
port, the port names a cable of the design, the cable the next switch. Where the tools are
absent, ``static`` routing uses the internal d-mod-k equivalent (``routing``).

One subnet only: a multi-plane design has one subnet and one OpenSM per plane, and which
plane a flow takes is the NCCL's choice, not the tables'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.ibcheck.routes import NO_PORT, parse_dump_fts
from designer.core.infiniband.topology import SWITCH, ib_fabric_of
from designer.core.model import Project
from designer.core.traffic.network import Network
from designer.core.traffic.routing import Routed, RoutingError, delivery_port

MAX_HOPS = 16


@dataclass(frozen=True, eq=False)
class OpenSmTables:
    row_of_switch: np.ndarray  # per switch index: row of ``port`` (-1: not in the subnet)
    port: np.ndarray  # uint8 (rows, max LID + 1): output IB port
    base: np.ndarray  # per row: design port = base + IB port
    device: np.ndarray  # per row: design device of the switch
    gpu_lid: np.ndarray  # per GPU: the LID of its NIC (0 unknown)
    engine: str


def opensm_tables(project: Project, catalog: Catalog, net: Network,
                  cancelled=None) -> OpenSmTables:
    """Run OpenSM on the design (as ``check-ib`` does) and keep its forwarding tables."""
    from designer.core.ibcheck.check import check_ib

    tables: list = []
    report = check_ib(project, catalog, cancelled=cancelled, tables=tables)
    if len(tables) != 1:
        raise RoutingError(
            f"routing on OpenSM's tables needs one subnet that comes up; this design has "
            f"{len(report.subnets)} subnet(s), {len(tables)} up (use the internal static "
            "routing instead)")
    nodes, disc, fts_text = tables[0]
    pib = ib_fabric_of(project, catalog)
    lfts = parse_dump_fts(fts_text, disc)
    desc = pib.fabric.desc
    by_desc = {desc[int(n)]: int(n) for n in nodes.tolist()}
    to_pib = np.array([by_desc.get(d, -1) for d in disc.desc], np.int64)
    c = net.c
    sw_nodes = lfts.switches
    pib_sw = to_pib[sw_nodes]
    dev = np.where(pib_sw >= 0, pib.device[np.maximum(pib_sw, 0)], -1)
    base = np.where(pib_sw >= 0, pib.port_base[np.maximum(pib_sw, 0)], 0)
    row_of_switch = np.full(c.n_switches, -1, np.int64)
    ok = dev >= 0
    row_of_switch[c.sw_index[dev[ok]]] = np.flatnonzero(ok)
    # each GPU's NIC: the HCA whose design (server, port) is the GPU's attachment cable
    hca = np.flatnonzero((disc.kind != SWITCH) & (to_pib >= 0))
    h_dev = pib.device[to_pib[hca]]
    h_port = pib.port_base[to_pib[hca]] + 1
    key = h_dev.astype(np.int64) * (1 << 20) + h_port
    order = np.argsort(key)
    key, lids = key[order], disc.lid[hca][order].astype(np.int64)
    gpu_lid = np.zeros(c.n_gpus, np.int64)
    first = net.att_ptr[:-1]
    has = net.att_ptr[1:] > first
    cab = net.att_cable[np.minimum(first, max(net.att_cable.size - 1, 0))]
    has &= cab >= 0
    a, b = c.cables["a"], c.cables["b"]
    srv = np.where(c.is_server[a[cab]], a[cab], b[cab])
    srv_port = np.where(c.is_server[a[cab]], c.cables["a_port"][cab], c.cables["b_port"][cab])
    want = srv.astype(np.int64) * (1 << 20) + srv_port
    pos = np.minimum(np.searchsorted(key, want), max(key.size - 1, 0))
    hit = has & (key.size > 0) & (key[pos] == want)
    gpu_lid[hit] = lids[pos[hit]]
    engine = report.subnets[0].engine_used or report.engine
    return OpenSmTables(row_of_switch, lfts.port, base, dev, gpu_lid, engine)


def _port_lookup(net: Network) -> tuple[np.ndarray, np.ndarray]:
    """Sorted (device * 2^20 + device port) keys of every switch port link, and the links."""
    c = net.c
    cab = net.port_cable
    dev = c.sw[net.port_src]
    a = c.cables["a"][cab]
    port = np.where(a == dev, c.cables["a_port"][cab], c.cables["b_port"][cab])
    key = dev.astype(np.int64) * (1 << 20) + port
    order = np.argsort(key)
    return key[order], order


def route_lft(net: Network, t: OpenSmTables, src: np.ndarray, dst: np.ndarray) -> Routed:
    """Every flow along OpenSM's tables: NIC up, switch hops, NIC down."""
    F = src.size
    key_all = np.zeros(F, np.uint64)
    first = net.att_ptr[src]
    start = np.where(net.att_ptr[src + 1] > first, net.att_switch[np.minimum(
        first, max(net.att_switch.size - 1, 0))], -1)
    lid = t.gpu_lid[dst]
    keys, links = _port_lookup(net)
    flows = [np.flatnonzero(start >= 0)]
    out = [net.nic_up(first[start >= 0])]
    cur = start.copy()
    # the destination's switch: its first attachment (one NIC per GPU in one subnet)
    d_first = net.att_ptr[dst]
    d_sw = np.where(net.att_ptr[dst + 1] > d_first, net.att_switch[np.minimum(
        d_first, max(net.att_switch.size - 1, 0))], -2)
    active = np.flatnonzero((cur >= 0) & (cur != d_sw) & (lid > 0))
    cur[(lid <= 0) | (start < 0)] = -1
    for _ in range(MAX_HOPS):
        if not active.size:
            break
        u = cur[active]
        row = t.row_of_switch[u]
        okr = row >= 0
        p = np.full(active.size, NO_PORT, np.int64)
        inside = okr & (lid[active] < t.port.shape[1])
        p[inside] = t.port[row[inside], lid[active][inside]]
        want = t.device[np.maximum(row, 0)].astype(np.int64) * (1 << 20) + \
            t.base[np.maximum(row, 0)] + p
        pos = np.minimum(np.searchsorted(keys, want), max(keys.size - 1, 0))
        found = inside & (p != NO_PORT) & (keys.size > 0) & (keys[pos] == want)
        e = links[pos]
        flows.append(active[found])
        out.append(e[found])
        cur[active[~found]] = -1
        cur[active[found]] = net.port_dst[e[found]]
        active = active[found]
        active = active[cur[active] != d_sw[active]]
    cur[active] = -1  # still walking after MAX_HOPS: a loop
    arrived = (cur >= 0) & (cur == d_sw)
    d = np.full(F, -1, np.int64)
    d[arrived] = delivery_port(net, dst[arrived], cur[arrived], key_all[arrived])
    fin = d >= 0
    flows.append(np.flatnonzero(fin))
    out.append(net.nic_down(d[fin]))
    flow = np.concatenate(flows)
    link = np.concatenate(out)
    keep = fin[flow]
    return Routed(flow[keep], link[keep], np.ones(int(keep.sum())), fin)
