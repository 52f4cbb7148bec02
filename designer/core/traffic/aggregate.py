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

from designer.core.solver.oversub import oversubscription
from designer.core.solver.symmetry import class_colours
from designer.core.traffic.network import UNREACHABLE, Network, nearest, rows_of, shares
from designer.core.traffic.patterns import Pattern
from designer.core.traffic.ranks import class_rep, switch_classes

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
    rep, row = rows_of(cl.ptr, p.src)
    sw = cl.att_switch[row]
    ok = nearest(rep, net.dist[sw, p.dst[rep]], p.src.size)
    share = shares(rep, np.where(ok, cl.att_cap[row], 0.0), p.src.size)
    amount = traffic[rep] * share
    # NIC up links: the class representative's attachment rows (see ranks.class_rep)
    first = class_rep(c)
    att_k = net.att_ptr[first[p.src[rep]]] + (row - cl.ptr[p.src[rep]])
    np.add.at(load, net.nic_up(att_k), amount)
    inj = csr_matrix((amount, (sw, p.dst[rep])), shape=(S, C)).tocsc()
    dests = np.flatnonzero(np.bincount(p.dst, minlength=C) > 0)
    if p.name == "all-to-all" and dests.size > 2 * SYMMETRY_MIN:
        sym = _by_symmetry(net, inj, dests, control)
        if sym is not None:
            load[:P] += sym
            _deliver_all(net, first, p, traffic, load)
            return load
    for lo in range(0, dests.size, _batch(net)):
        cols = dests[lo:lo + _batch(net)]
        port_load, delivered = _propagate(net, inj[:, cols].toarray(), cols, control)
        load[:P] += port_load.sum(axis=1)
        for u, j, amt in delivered:
            _deliver(net, first, cols, amt, u, j, load)
    return load


def _batch(net: Network) -> int:
    return max(1, BATCH_CELLS // max(net.n_ports, net.c.n_switches, 1))


def _propagate(net: Network, x: np.ndarray, cols: np.ndarray, control=None):
    """Push traffic ``x`` (switch x destination) down the distance layers. Returns the load
    of every port per destination (P x B) and what arrived where: (switch, column, Gb/s)."""
    c = net.c
    S, P = c.n_switches, net.n_ports
    port_src, port_dst, cap = net.port_src, net.port_dst, net.port_cap
    into = csr_matrix((np.ones(P), (port_dst, np.arange(P))), shape=(S, P))
    dist = net.dist[:, cols].astype(np.int32)
    out = np.zeros((P, cols.size))
    arrived = []
    for _ in range(int(dist[dist < UNREACHABLE].max(initial=0)) + 1):
        here = (dist == 0) & (x > 0)
        if here.any():
            u, j = np.nonzero(here)
            arrived.append((u, j, x[u, j].copy()))
            x[here] = 0.0
        if not (x > 0).any():
            break
        valid = dist[port_dst] == dist[port_src] - 1  # P x B
        wcap = valid * cap[:, None]
        den = np.add.reduceat(wcap, net.port_ptr[:-1], axis=0) if P else wcap
        den[np.diff(net.port_ptr) == 0] = 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            flow = np.where(valid, x[port_src] * cap[:, None] / den[port_src], 0.0)
        out += flow
        x = into @ flow
        if control is not None:
            control.check()
    return out, arrived


SYMMETRY_MIN = 4  # destinations per colour below which symmetry is not worth it


def _by_symmetry(net: Network, inj, dests: np.ndarray, control=None) -> np.ndarray | None:
    """Port loads of a uniform all-to-all from two destinations per colour.

    Destination classes with the same colour (colour refinement) see the fabric alike, and
    links alike (same colours of their two switches, same capacity) form one orbit, so the
    whole pattern loads every link of an orbit equally: (destinations of the colour) x (the
    orbit's total from one of them) / (links in the orbit). A second destination of each
    colour checks that its orbit totals agree; None (solve destination by destination) when
    they do not."""
    c = net.c
    colour = class_colours(c)[dests]
    sk = switch_classes(c, oversubscription(c))
    key = np.stack([sk[net.port_src], sk[net.port_dst], np.round(net.port_cap, 3)], axis=1)
    orbit = np.unique(key, axis=0, return_inverse=True)[1].reshape(-1)
    n_orbit = int(orbit.max()) + 1 if orbit.size else 0
    size = np.bincount(orbit, minlength=n_orbit).astype(np.float64)
    total = np.zeros(net.n_ports)
    for col in np.unique(colour).tolist():
        members = dests[colour == col]
        pick = members[: 2] if members.size > 1 else members
        port_load, _ = _propagate(net, inj[:, pick].toarray(), pick, control)
        sums = np.stack([np.bincount(orbit, weights=port_load[:, j], minlength=n_orbit)
                         for j in range(pick.size)], axis=1)
        if pick.size > 1 and not np.allclose(sums[:, 0], sums[:, 1], rtol=1e-6, atol=1e-9):
            return None
        total += members.size * sums[orbit, 0] / size[orbit]
    return total


def _deliver_all(net: Network, first: np.ndarray, p: Pattern, traffic: np.ndarray,
                 load: np.ndarray) -> None:
    """NIC down links: each destination class receives its traffic over its attachments in
    proportion to their capacity."""
    cl = net.c.classes
    into = np.bincount(p.dst, weights=traffic, minlength=cl.n)
    n_att = cl.n_att
    owner = cl.owner
    share = cl.att_cap / np.bincount(owner, weights=cl.att_cap, minlength=cl.n)[owner]
    att_k = net.att_ptr[first[owner]] + (np.arange(owner.size) - cl.ptr[owner])
    np.add.at(load, net.nic_down(att_k), into[owner] * share)
    _ = n_att


def _deliver(net: Network, first: np.ndarray, cols: np.ndarray, amount: np.ndarray,
             u: np.ndarray, j: np.ndarray, load: np.ndarray) -> None:
    """Traffic ``amount`` arrived at switch ``u`` for destination ``cols[j]``: over the
    destination class's NICs on that switch, by capacity."""
    cl = net.c.classes
    d = cols[j]
    n_att = cl.n_att[d]
    rep = np.repeat(np.arange(d.size), n_att)
    row = cl.ptr[d][rep] + (np.arange(rep.size) - np.repeat(np.cumsum(n_att) - n_att, n_att))
    ok = cl.att_switch[row] == u[rep]
    w = np.where(ok, cl.att_cap[row], 0.0)
    tot = np.bincount(rep, weights=w, minlength=d.size)
    att_k = net.att_ptr[first[d[rep]]] + (row - cl.ptr[d[rep]])
    np.add.at(load, net.nic_down(att_k[ok]), (amount[rep] * w / np.maximum(tot[rep], 1e-300))[ok])
