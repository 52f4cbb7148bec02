"""Adaptive routing for class-level patterns (all-to-all on large designs) by propagation.

With one row per pair of GPU classes, spraying each row over every shortest path would list
rows x paths entries (billions at 65,536 GPUs). Instead the traffic heading to each
destination class is pushed down the distance layers as a dense switch x destination matrix
(destinations in batches): at a switch it splits over the ports that bring it closer in
proportion to their capacity, exactly as ``route_spray`` splits one flow, so link loads are
the same. Under the fluid model every flow of a uniform pattern moves at the same fraction
``t = min(1, min over links of capacity / load)`` of its demand: the max-concurrent-flow of
the spraying, which is what ideal adaptive routing reaches.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix

from designer.core.traffic.network import UNREACHABLE, Network
from designer.core.traffic.patterns import Pattern

BATCH_CELLS = 4_000_000  # ports x destinations held at once


def class_spray_loads(net: Network, p: Pattern, control=None) -> np.ndarray:
    """Load (Gb/s) on every link when class-level pattern ``p`` runs at its demand; NIC
    links of a class carry the whole class's traffic (see ``load._cap``)."""
    c = net.c
    cl = c.classes
    S, C, P = c.n_switches, cl.n, net.n_ports
    load = np.zeros(net.n_links)
    rate = cl.rate
    traffic = p.weight * p.demand * rate[p.src]  # Gb/s per class pair
    # leaving the source class: its attachments nearest the destination, by capacity
    n_att = cl.n_att
    rep = np.repeat(np.arange(p.src.size), n_att[p.src])
    row = cl.ptr[p.src][rep] + (np.arange(rep.size) - np.repeat(np.cumsum(n_att[p.src])
                                                              - n_att[p.src], n_att[p.src]))
    sw = cl.att_switch[row]
    d = net.dist[sw, p.dst[rep]]
    best = np.full(p.src.size, UNREACHABLE, np.int16)
    np.minimum.at(best, rep, d)
    ok = (d == best[rep]) & (d < UNREACHABLE)
    w = np.where(ok, cl.att_cap[row], 0.0)
    share = w / np.maximum(np.bincount(rep, weights=w, minlength=p.src.size)[rep], 1e-300)
    amount = traffic[rep] * share
    # NIC up links: the class representative's attachment rows (see load._class_rep)
    from designer.core.traffic.load import _class_rep

    first = _class_rep(c)
    att_k = net.att_ptr[first[p.src[rep]]] + (row - cl.ptr[p.src[rep]])
    np.add.at(load, net.nic_up(att_k), amount)
    inj = csr_matrix((amount, (sw, p.dst[rep])), shape=(S, C)).tocsc()
    port_src, port_dst, cap = net.port_src, net.port_dst, net.port_cap
    into = csr_matrix((np.ones(P), (port_dst, np.arange(P))), shape=(S, P))
    batch = max(1, BATCH_CELLS // max(P, S, 1))
    dests = np.flatnonzero(np.bincount(p.dst, minlength=C) > 0)
    for lo in range(0, dests.size, batch):
        cols = dests[lo:lo + batch]
        x = inj[:, cols].toarray()
        dist = net.dist[:, cols].astype(np.int32)
        for _ in range(int(dist[dist < UNREACHABLE].max(initial=0)) + 1):
            here = (dist == 0) & (x > 0)
            if here.any():  # delivered over the destination class's NICs at this switch
                _deliver(net, first, cols, x, here, load)
                x[here] = 0.0
            if not (x > 0).any():
                break
            valid = dist[port_dst] == dist[port_src] - 1  # P x B
            wcap = valid * cap[:, None]
            den = np.add.reduceat(wcap, net.port_ptr[:-1], axis=0) if P else wcap
            den[np.diff(net.port_ptr) == 0] = 0.0
            with np.errstate(divide="ignore", invalid="ignore"):
                flow = np.where(valid, x[port_src] * cap[:, None] / den[port_src], 0.0)
            load[:P] += flow.sum(axis=1)
            x = into @ flow
            if control is not None:
                control.check()
    return load


def _deliver(net: Network, first: np.ndarray, cols: np.ndarray, x: np.ndarray,
             here: np.ndarray, load: np.ndarray) -> None:
    cl = net.c.classes
    u, j = np.nonzero(here)
    d = cols[j]
    n_att = cl.n_att[d]
    rep = np.repeat(np.arange(d.size), n_att)
    row = cl.ptr[d][rep] + (np.arange(rep.size) - np.repeat(np.cumsum(n_att) - n_att, n_att))
    ok = cl.att_switch[row] == u[rep]
    w = np.where(ok, cl.att_cap[row], 0.0)
    tot = np.bincount(rep, weights=w, minlength=d.size)
    att_k = net.att_ptr[first[d[rep]]] + (row - cl.ptr[d[rep]])
    np.add.at(load, net.nic_down(att_k[ok]), (x[u, j][rep] * w / np.maximum(tot[rep], 1e-300))[ok])
