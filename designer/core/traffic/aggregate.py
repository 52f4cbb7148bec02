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
    return _spray(net, p, control, nics=True)


def class_spray_port_loads(net: Network, p: Pattern, control=None) -> np.ndarray:
    """The switch-port part of ``class_spray_loads`` (the first ``n_ports`` links), without
    the NIC links' bookkeeping: what a job's load on the fabric needs."""
    return _spray(net, p, control, nics=False)


def class_pair_port_loads(net: Network, src: np.ndarray, dst: np.ndarray,
                          control=None) -> np.ndarray:
    """Switch-port loads (P x K) of K class pairs, column ``k`` the load of class ``src[k]``
    sending to class ``dst[k]`` at its rate (weight and demand 1): each column the same as
    ``class_spray_port_loads`` of that one pair, the pairs pushed down the layers together
    (one pass of array operations for a job's new pairs instead of one per pair)."""
    out = np.zeros((net.n_ports, src.size))
    for k, (ports, gbps) in enumerate(class_pair_port_entries(net, src, dst, control)):
        out[ports, k] = gbps
    return out


class NextHops:
    """One pair's spray, for a replay that sprays thousands of new pairs one or two at a
    time (a job's ring closing from its last leaf to its first).

    Per destination class, every switch's ports that bring traffic one hop closer (CSR by
    switch, in port order) and their capacity total, kept for the run: a fat tree's core
    switch has dozens of ports and one leads down to the destination, and each layer of
    ``_propagate`` looked at all of them. And the layers themselves are kept: a layer's
    output (its port entries and the traffic it hands on) is fixed by the traffic it gets,
    switch by switch, and which ports of those switches are closer (a bit mask per switch):
    those name the layer. On a fat tree most layers recur (a leaf's climb is the same towards
    any other pod, the descent from the cores the same from any pod), and the pair costs a
    few look-ups. The entries come out in ``_propagate``'s order with the same arithmetic: the
    same figures to the last bit.

    Past the first layer the rest of a pair's way is kept too, sorted, named by the
    destination and the traffic it starts from: a leaf's climb hands the same traffic to its
    pod's spines whichever leaf of the pod sent it, so the pairs from one pod to one
    destination share their way down. A port lies at one distance from the destination, so
    it is met in one layer only, and the way is the layers' entries side by side; where a
    port would be met twice the pair is walked and summed layer by layer as before.
    ``limit``: ports kept in tables; ``step_limit``: entries kept in layers; ``rest_limit``:
    entries kept in ways down."""

    def __init__(self, net: Network, limit: int = 16_000_000,
                 step_limit: int = 4_000_000, rest_limit: int = 2_000_000) -> None:
        self.net = net
        self.limit = limit
        self.step_limit = step_limit
        self.rest_limit = rest_limit
        self._kept = 0
        self._step_kept = 0
        self._rest_kept = 0
        self._rests: dict[tuple[int, bytes, bytes], tuple[np.ndarray, np.ndarray]] = {}
        self._by_dst: dict[int, tuple] = {}
        self._words = max(1, -(-int(np.diff(net.port_ptr).max(initial=0)) // 64))
        self._steps: dict[tuple[bytes, bytes, bytes], tuple] = {}
        self.rate = net.c.classes.rate  # a property that sums per call

    def of(self, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """Towards class ``d``: ptr per switch, ports, capacity total per switch, the mask
        of each switch's closer ports, and the layers traffic can take."""
        got = self._by_dst.get(d)
        if got is not None:
            return got
        net = self.net
        S = net.c.n_switches
        dist = net.dist_by_class[d].astype(np.int32)
        port = np.flatnonzero(dist[net.port_dst] == dist[net.port_src] - 1)
        src = net.port_src[port]
        ptr = np.zeros(S + 1, np.int64)
        np.cumsum(np.bincount(src, minlength=S), out=ptr[1:])
        # summed in port order, as the per-layer bincount over a switch's closer ports
        den = np.bincount(src, weights=net.port_cap[port], minlength=S)
        # which of its ports each switch uses, as bits (words of 64 for large radices)
        bit = port - net.port_ptr[src]
        rid = np.zeros(S * self._words, np.uint64)
        if port.size:
            # ports come by switch, then in order: each (switch, word)'s bits are a run,
            # joined in one pass (a per-entry np.add.at took a millisecond a destination)
            word = src * self._words + bit // 64
            run = np.flatnonzero(np.concatenate(([True], word[1:] != word[:-1])))
            rid[word[run]] = np.bitwise_or.reduceat(
                np.left_shift(np.uint64(1), (bit % 64).astype(np.uint64)), run)
        rid = rid.reshape(S, self._words)
        layers = int(dist[dist < UNREACHABLE].max(initial=0)) + 1
        got = (ptr, port, den, rid, layers)
        if self._kept + port.size <= self.limit:
            self._by_dst[d] = got
            self._kept += port.size
        return got

    def walk(self, d: int, at: np.ndarray, amt: np.ndarray, control=None
             ) -> tuple[np.ndarray, np.ndarray]:
        """Traffic ``amt`` (positive) at switches ``at`` (ascending) pushed down to class
        ``d``: its (port, Gb/s) entries, layer by layer, a port repeated where layers add to
        it (``_propagate``'s entries for one column)."""
        tables = self.of(d)
        ports, flows = [], []
        for _ in range(tables[-1]):
            if not at.size:
                break
            p, f, at, amt = self._layer(tables, at, amt)
            ports.append(p)
            flows.append(f)
            if control is not None:
                control.check()
        if not ports:
            return np.empty(0, np.int64), np.empty(0)
        return np.concatenate(ports), np.concatenate(flows)

    def pair(self, s: int, d: int, control=None) -> tuple[np.ndarray, np.ndarray]:
        """``class_pair_port_entries`` of one pair, class ``s`` to class ``d``. A class on
        one switch starts its whole rate there (its one link's share of itself is 1):
        without the arrays the general start builds for every pair."""
        cl = self.net.c.classes
        lo, hi = int(cl.ptr[s]), int(cl.ptr[s + 1])
        if hi - lo != 1:
            return class_pair_port_entries(self.net, np.array([s]), np.array([d]), control,
                                           self)[0]
        sw = int(cl.att_switch[lo])
        amount = float(self.rate[s]) if (cl.att_cap[lo] > 0
                                         and self.net.dist[sw, d] < UNREACHABLE) else 0.0
        if not amount > 0:
            return np.empty(0, np.int64), np.empty(0)
        return self.entries(d, np.array([sw]), np.array([amount]), control)

    def _layer(self, tables: tuple, at: np.ndarray, amt: np.ndarray) -> tuple:
        ptr, port, den, rid, _ = tables
        key = (at.tobytes(), rid[at].tobytes(), amt.tobytes())
        got = self._steps.get(key)
        if got is None:
            got = self._step(ptr, port, den, at, amt)
            if self._step_kept + got[0].size <= self.step_limit:
                self._steps[key] = got
                self._step_kept += got[0].size
        return got

    def _rest(self, d: int, tables: tuple, at: np.ndarray, amt: np.ndarray, depth: int
              ) -> tuple[np.ndarray, np.ndarray] | None:
        """The way from traffic ``amt`` at ``at`` to class ``d``: (ports ascending, Gb/s),
        positive loads; None where a port is met twice (or the layers run out)."""
        if not at.size:
            return _NOTHING
        if depth == 0:
            return None
        key = (d, at.tobytes(), amt.tobytes())
        got = self._rests.get(key)
        if got is not None:
            return got
        p, f, nxt, n_amt = self._layer(tables, at, amt)
        rest = self._rest(d, tables, nxt, n_amt, depth - 1)
        got = None if rest is None else _side_by_side(p, f, *rest)
        if got is not None and self._rest_kept + got[0].size <= self.rest_limit:
            self._rests[key] = got
            self._rest_kept += got[0].size
        return got

    def entries(self, d: int, at: np.ndarray, amt: np.ndarray, control=None
                ) -> tuple[np.ndarray, np.ndarray]:
        """``walk``'s entries summed per port: (ports ascending, Gb/s), positive loads."""
        tables = self.of(d)
        if at.size:
            p, f, nxt, n_amt = self._layer(tables, at, amt)
            rest = self._rest(d, tables, nxt, n_amt, tables[-1] - 1)
            got = None if rest is None else _side_by_side(p, f, *rest)
            if got is not None:
                return got
        port, flow = self.walk(d, at, amt, control)
        # the traffic starts at one distance, so a port is met in one layer only and
        # sorting is summing (0 + x is x); summed in layer order otherwise
        order = np.argsort(port, kind="stable")
        key, tot = port[order], flow[order]
        if key.size > 1 and not (key[1:] > key[:-1]).all():
            key, inv = np.unique(port, return_inverse=True)
            tot = np.bincount(inv.reshape(-1), weights=flow, minlength=key.size)
        pos = tot > 0
        return key[pos], tot[pos]

    def _step(self, ptr, port, den, at, amt):
        # a switch the traffic has reached (or cannot leave) has no closer ports: its
        # traffic ends there, as ``_propagate`` sets it aside
        net = self.net
        rep, k = rows_of(ptr, at)
        p = port[k]
        w = net.port_cap[p]
        dd = den[at]
        with np.errstate(divide="ignore", invalid="ignore"):
            flow = np.where(dd[rep] > 0, amt[rep] * w / dd[rep], 0.0)
        x = np.bincount(net.port_dst[p], weights=flow, minlength=net.c.n_switches)
        nxt = np.flatnonzero(x > 0)
        # ports carrying nothing are no entry (summing a zero changes no sum)
        on = flow > 0
        if not on.all():
            p, flow = p[on], flow[on]
        return p, flow, nxt, x[nxt]


_NOTHING = (np.empty(0, np.int64), np.empty(0))


def _side_by_side(p: np.ndarray, f: np.ndarray, rp: np.ndarray, rf: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """A layer's entries (``p``, ``f``: ports ascending, as a layer gives them, loads
    positive) and the sorted rest of the way joined: ports ascending; None when a port is in
    both (the walk then sums it)."""
    if not rp.size:
        return p, f
    if not p.size:
        return rp, rf
    if p[-1] < rp[0]:  # the usual case on the way down: the layer's ports come first
        return np.concatenate((p, rp)), np.concatenate((f, rf))
    port = np.concatenate((p, rp))
    flow = np.concatenate((f, rf))
    if not (port[1:] > port[:-1]).all():
        order = np.argsort(port, kind="stable")
        port, flow = port[order], flow[order]
        if not (port[1:] > port[:-1]).all():
            return None
    return port, flow


def class_pair_port_entries(net: Network, src: np.ndarray, dst: np.ndarray, control=None,
                            hops: NextHops | None = None
                            ) -> list[tuple[np.ndarray, np.ndarray]]:
    """``class_pair_port_loads`` as each pair's loaded ports (ascending) and their loads: a
    job's pairs touch a small part of the fabric, and a dense ports x pairs matrix per job
    (filled, then searched for its non-zeros) cost more than the spray. ``hops``: tables
    and layers kept across calls (a replay's many small sprays), the pairs then walked one
    by one."""
    c = net.c
    cl = c.classes
    S, P, K = c.n_switches, net.n_ports, src.size
    rep, row = rows_of(cl.ptr, src)
    sw = cl.att_switch[row].astype(np.int64)
    ok = nearest(rep, net.dist[sw, dst[rep]], K)
    share = shares(rep, np.where(ok, cl.att_cap[row], 0.0), K)
    amount = (cl.rate if hops is None else hops.rate)[src][rep] * share
    out = []
    if hops is not None:
        cut = np.searchsorted(rep, np.arange(K + 1))  # rep is non-decreasing
        for k in range(K):
            a, b = cut[k], cut[k + 1]
            x = np.bincount(sw[a:b], weights=amount[a:b], minlength=S)
            at = np.flatnonzero(x > 0)
            out.append(hops.entries(int(dst[k]), at, x[at], control))
        return out
    step = _batch(net)
    for lo in range(0, K, step):
        hi = min(K, lo + step)
        a, b = np.searchsorted(rep, [lo, hi])  # rep is non-decreasing
        x = np.bincount(sw[a:b] * (hi - lo) + (rep[a:b] - lo), weights=amount[a:b],
                        minlength=S * (hi - lo)).reshape(S, hi - lo)
        port, col, flow = _propagate(net, x, dst[lo:hi], control, dense=False)[0]
        # summed per (pair, port) in the order the layers added them, as the dense matrix
        # would: the same figures
        key, inv = np.unique(col * P + port, return_inverse=True)
        tot = np.bincount(inv.reshape(-1), weights=flow, minlength=key.size)
        cut = np.searchsorted(key, np.arange(hi - lo + 1) * P)
        for k in range(hi - lo):
            kk, tt = key[cut[k]:cut[k + 1]] - k * P, tot[cut[k]:cut[k + 1]]
            pos = tt > 0
            out.append((kk[pos], tt[pos]))
    return out


def _spray(net: Network, p: Pattern, control, nics: bool) -> np.ndarray:
    c = net.c
    cl = c.classes
    S, C, P = c.n_switches, cl.n, net.n_ports
    load = np.zeros(net.n_links if nics else P)
    rate = cl.rate
    traffic = p.weight * p.demand * rate[p.src]  # Gb/s per class pair
    # leaving the source class: its attachments nearest the destination, by capacity
    rep, row = rows_of(cl.ptr, p.src)
    sw = cl.att_switch[row]
    ok = nearest(rep, net.dist[sw, p.dst[rep]], p.src.size)
    share = shares(rep, np.where(ok, cl.att_cap[row], 0.0), p.src.size)
    amount = traffic[rep] * share
    first = class_rep(c) if nics else None
    if nics:
        # NIC up links: the class representative's attachment rows (see ranks.class_rep)
        att_k = net.att_ptr[first[p.src[rep]]] + (row - cl.ptr[p.src[rep]])
        np.add.at(load, net.nic_up(att_k), amount)
    dests = np.flatnonzero(np.bincount(p.dst, minlength=C) > 0)
    if p.name == "all-to-all" and dests.size > 2 * SYMMETRY_MIN:
        inj = csr_matrix((amount, (sw, p.dst[rep])), shape=(S, C)).tocsc()
        sym = _by_symmetry(net, inj, dests, control)
        if sym is not None:
            load[:P] += sym
            if nics:
                _deliver_all(net, first, p, traffic, load)
            return load
    # the injection (switch x destination) batch by batch, dense, straight from the rows
    # sorted by destination (a sparse matrix built and sliced per call cost more than the
    # spray for a job's few destinations)
    pos = np.searchsorted(dests, p.dst[rep])
    order = np.argsort(pos, kind="stable")
    sw_o, pos_o, amt_o = sw[order].astype(np.int64), pos[order], amount[order]
    step = _batch(net)
    for lo in range(0, dests.size, step):
        cols = dests[lo:lo + step]
        a, b = np.searchsorted(pos_o, [lo, lo + cols.size])
        x = np.bincount(sw_o[a:b] * cols.size + (pos_o[a:b] - lo), weights=amt_o[a:b],
                        minlength=S * cols.size).reshape(S, cols.size)
        port_load, delivered = _propagate(net, x, cols, control)
        load[:P] += port_load.sum(axis=1)
        if nics:
            for u, j, amt in delivered:
                _deliver(net, first, cols, amt, u, j, load)
    return load


def _batch(net: Network) -> int:
    return max(1, BATCH_CELLS // max(net.n_ports, net.c.n_switches, 1))


def _propagate(net: Network, x: np.ndarray, cols: np.ndarray, control=None,
               dense: bool = True):
    """Push traffic ``x`` (switch x destination) down the distance layers. Returns the load
    of every port per destination (P x B), or with ``dense`` False the entries that make it
    up (port, column, Gb/s; a pair repeated where layers add to it), and what arrived where:
    (switch, column, Gb/s).

    Each layer touches only the ports of the (switch, destination) pairs that hold traffic:
    a job's few destinations spray over a small part of the fabric, and sweeping every port
    of every destination per layer (and building the port-to-switch matrix per call) was
    most of a cluster replay's time."""
    c = net.c
    S, P, B = c.n_switches, net.n_ports, cols.size
    port_dst, cap = net.port_dst, net.port_cap
    dist = net.dist[:, cols].astype(np.int32)
    out = np.zeros((P, B)) if dense else None
    steps = []
    arrived = []
    for _ in range(int(dist[dist < UNREACHABLE].max(initial=0)) + 1):
        u, j = np.nonzero(x > 0)
        if not u.size:
            break
        amt = x[u, j]
        d = dist[u, j]
        here = d == 0
        if here.any():
            arrived.append((u[here], j[here], amt[here]))
            u, j, amt, d = u[~here], j[~here], amt[~here], d[~here]
        # the ports of the switches holding traffic that bring it one hop closer, each
        # taking a share by capacity
        rep, port = rows_of(net.port_ptr, u)
        jr = j[rep]
        good = dist[port_dst[port], jr] == d[rep] - 1
        rep, port, jr = rep[good], port[good], jr[good]
        w = cap[port]
        den = np.bincount(rep, weights=w, minlength=u.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            flow = np.where(den[rep] > 0, amt[rep] * w / den[rep], 0.0)
        if dense:
            out[port, jr] += flow  # one entry per (port, destination) within a layer
        else:
            steps.append((port, jr, flow))
        x = np.bincount(port_dst[port] * B + jr, weights=flow, minlength=S * B).reshape(S, B)
        if control is not None:
            control.check()
    if not dense:
        if not steps:
            return (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)), arrived
        return tuple(np.concatenate(a) for a in zip(*steps, strict=True)), arrived
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
