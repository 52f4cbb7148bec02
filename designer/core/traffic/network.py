"""The links traffic crosses, as arrays: one directed link per cable direction.

Switch-to-switch cables give two directed links each (one per direction), held in CSR order
by their source switch so that the candidate next hops of a flow at switch ``u`` are the rows
``port_ptr[u]:port_ptr[u+1]``. Every GPU attachment (one NIC cable) gives an up link (GPU to
switch) and a down link (switch to GPU); GPU ``g``'s attachments are ``att_ptr[g]:att_ptr[g+1]``
and their links ``P + 2*k`` (up) and ``P + 2*k + 1`` (down), ``P`` the number of switch ports.

Distances are counted in switch-to-switch hops from every switch to every GPU class (a class
is reached at a switch it attaches to), the quantity shortest-path routing (ECMP, ftree,
adaptive minimal routing) descends.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from designer.core.solver.bisection import nominal_rate
from designer.core.solver.compile import Compiled, mix64

UNREACHABLE = np.int16(32767)


@dataclass(frozen=True, eq=False)
class Network:
    c: Compiled
    # switch ports (directed switch-to-switch cables), CSR by source switch
    port_ptr: np.ndarray
    port_src: np.ndarray
    port_dst: np.ndarray
    port_cap: np.ndarray  # Gb/s
    port_cable: np.ndarray  # index into Compiled.cables
    # GPU attachments
    att_ptr: np.ndarray  # per GPU, len n_gpus + 1
    att_switch: np.ndarray
    att_cap: np.ndarray
    att_cable: np.ndarray  # cable index of each attachment (-1 when not known)
    line_rate: np.ndarray  # per GPU, Gb/s (sum of its attachments)
    nominal_gbps: float
    dist_by_class: np.ndarray  # int16 (n_classes, n_switches): hops from switch to class
    link_cap: np.ndarray  # every link: switch ports, then NIC up/down pairs
    link_layer: np.ndarray  # int code into layers
    layers: tuple[str, ...]

    @property
    def dist(self) -> np.ndarray:
        """(switch x class) view of ``dist_by_class``, which is stored class by class: a
        flow's lookups over its candidate next hops then read one row, as the routing walks
        do (and a 16,416-router dragonfly's table is 540 MB: one copy only)."""
        return self.dist_by_class.T

    @property
    def n_ports(self) -> int:
        return int(self.port_src.size)

    @property
    def n_links(self) -> int:
        return int(self.link_cap.size)

    def attachments(self, gpus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every attachment (NIC cable) of each of ``gpus``: (position in ``gpus``,
        attachment row), grouped by GPU."""
        return rows_of(self.att_ptr, gpus)

    def ports_leaving(self, switches: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every port leaving each of ``switches``: (position in ``switches``, port)."""
        return rows_of(self.port_ptr, switches)

    def nic_up(self, k: np.ndarray) -> np.ndarray:
        return self.n_ports + 2 * k

    def nic_down(self, k: np.ndarray) -> np.ndarray:
        return self.n_ports + 2 * k + 1

    def link_ends(self, links: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Device index at the sending and receiving end of each link."""
        c = self.c
        links = np.asarray(links, np.int64)
        src = np.empty(links.size, np.int64)
        dst = np.empty(links.size, np.int64)
        sw = links < self.n_ports
        src[sw] = c.sw[self.port_src[links[sw]]]
        dst[sw] = c.sw[self.port_dst[links[sw]]]
        k = (links[~sw] - self.n_ports) // 2
        up = (links[~sw] - self.n_ports) % 2 == 0
        gpu = np.searchsorted(self.att_ptr, k, side="right") - 1
        # gpu_base is not monotone over non-servers: map through the servers only
        srv_idx = np.flatnonzero(c.is_server)
        server = srv_idx[np.searchsorted(c.gpu_base[srv_idx], gpu, side="right") - 1]
        swdev = c.sw[self.att_switch[k]]
        src[~sw] = np.where(up, server, swdev)
        dst[~sw] = np.where(up, swdev, server)
        return src, dst


def rows_of(ptr: np.ndarray, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows ``ptr[i]:ptr[i+1]`` of each of ``items``, flattened: (position in
    ``items``, row), no loop over items."""
    items = np.asarray(items, np.int64)
    start = ptr[items]
    deg = ptr[items + 1] - start
    rep = np.repeat(np.arange(items.size), deg)
    # a row's entries run on from its start: the start less the entries before it, repeated
    # (one repeat, where a gather of the starts by ``rep`` cost more)
    return rep, np.arange(rep.size) + np.repeat(start - (np.cumsum(deg) - deg), deg)


def nearest(rep: np.ndarray, d: np.ndarray, n: int) -> np.ndarray:
    """Of the entries of ``n`` groups (``rep``: group of each), those at their group's
    least distance ``d``, when that is reachable."""
    best = np.full(n, UNREACHABLE, np.int16)
    np.minimum.at(best, rep, d)
    return (d == best[rep]) & (d < UNREACHABLE)


def shares(rep: np.ndarray, weight: np.ndarray, n: int) -> np.ndarray:
    """Each entry's part of its group's total ``weight`` (0 where the group has none):
    traffic leaving or arriving over several NICs splits by their capacity."""
    tot = np.bincount(rep, weights=weight, minlength=n)
    return np.where(weight > 0, weight / np.maximum(tot[rep], 1e-300), 0.0)


def build_network(c: Compiled, control=None) -> Network:
    """Arrays of ``c``'s links and the switch-to-class distances. No loop over links."""
    cab = c.cables
    a = cab["a"].astype(np.int64)
    b = cab["b"].astype(np.int64)
    speed = cab["speed_gbps"].astype(np.float64)
    both = c.is_switch[a] & c.is_switch[b]
    idx = np.flatnonzero(both)
    su, sv = c.sw_index[a[idx]], c.sw_index[b[idx]]
    src = np.concatenate([su, sv])
    dst = np.concatenate([sv, su])
    cable = np.concatenate([idx, idx])
    order = np.lexsort((dst, src))
    src, dst, cable = src[order], dst[order], cable[order]
    S = c.n_switches
    port_ptr = np.zeros(S + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=S), out=port_ptr[1:])

    cl = c.classes
    gcls = c.gpu_class
    n_att = np.where(gcls >= 0, cl.n_att[np.maximum(gcls, 0)] if cl.n else 0, 0)
    att_ptr = np.zeros(c.n_gpus + 1, np.int64)
    np.cumsum(n_att, out=att_ptr[1:])
    owner = np.repeat(np.arange(c.n_gpus), n_att)
    row = cl.ptr[gcls[owner]] + (np.arange(att_ptr[-1]) - att_ptr[owner])
    att_switch = cl.att_switch[row] if row.size else np.empty(0, np.int64)
    att_cap = cl.att_cap[row] if row.size else np.empty(0)
    line = np.bincount(owner, weights=att_cap, minlength=c.n_gpus)
    att_cable = _attachment_cables(c, owner, att_switch)

    n_ports = src.size
    link_cap = np.empty(n_ports + 2 * att_switch.size)
    link_cap[:n_ports] = speed[cable]
    link_cap[n_ports::2] = att_cap
    link_cap[n_ports + 1::2] = att_cap
    layers = tuple(c.layers)
    link_layer = np.zeros(link_cap.size, np.int16)
    link_layer[:n_ports] = c.cable_layer[cable]
    nic_layer = np.where(att_cable >= 0, c.cable_layer[np.maximum(att_cable, 0)], 0)
    link_layer[n_ports::2] = nic_layer
    link_layer[n_ports + 1::2] = nic_layer
    return Network(
        c=c, port_ptr=port_ptr, port_src=src, port_dst=dst, port_cap=speed[cable],
        port_cable=cable, att_ptr=att_ptr, att_switch=att_switch, att_cap=att_cap,
        att_cable=att_cable, line_rate=line, nominal_gbps=nominal_rate(c),
        dist_by_class=class_distances(c, control), link_cap=link_cap, link_layer=link_layer,
        layers=layers,
    )


def _attachment_cables(c: Compiled, owner: np.ndarray, att_switch: np.ndarray) -> np.ndarray:
    """The cable of each GPU attachment, for its layer name (first cable from the GPU's
    server to that switch; GPUs of one server on one switch share the layer anyway)."""
    cab = c.cables
    a = cab["a"].astype(np.int64)
    b = cab["b"].astype(np.int64)
    srv_a = c.is_server[a] & c.is_switch[b]
    srv_b = c.is_server[b] & c.is_switch[a]
    servers = np.concatenate([a[srv_a], b[srv_b]])
    switches = c.sw_index[np.concatenate([b[srv_a], a[srv_b]])]
    cables = np.concatenate([np.flatnonzero(srv_a), np.flatnonzero(srv_b)])
    S = max(c.n_switches, 1)
    key = servers * S + switches
    order = np.argsort(key, kind="stable")
    key, cables = key[order], cables[order]
    if owner.size == 0 or key.size == 0:
        return np.full(owner.size, -1, np.int64)
    srv_idx = np.flatnonzero(c.is_server)
    gpu_server = srv_idx[np.searchsorted(c.gpu_base[srv_idx], owner, side="right") - 1]
    want = gpu_server * S + att_switch
    pos = np.minimum(np.searchsorted(key, want), key.size - 1)
    return np.where(key[pos] == want, cables[pos], -1)


def class_distances(c: Compiled, control=None) -> np.ndarray:
    """Switch-to-switch hops to the nearest switch of every GPU class from every switch:
    int16 (classes, switches).

    For a target switch ``x`` and any other switch ``u``, ``d(u, x) = 1 + d(u, N(x))``: a path
    enters ``x`` through a neighbour. Targets with the same neighbour set (the leaves of one
    pod or one SU) therefore share one search: a virtual node joined to that set, searched
    from once, gives ``d(u, x)`` for all of them (65,536 GPUs: 64 searches, not 2,048).
    """
    cl = c.classes
    S = c.n_switches
    if S == 0 or cl.n == 0:
        return np.zeros((cl.n, S), np.int16)
    targets, inv = np.unique(cl.att_switch, return_inverse=True)
    deg = np.diff(c.indptr)
    row_of = np.repeat(np.arange(S), deg)
    with np.errstate(over="ignore"):
        h = np.zeros(S, np.uint64)
        np.add.at(h, row_of, mix64(c.indices.astype(np.uint64)))
        h = mix64(h ^ deg.astype(np.uint64))
    groups, g_of = np.unique(h[targets], return_inverse=True)
    g_of = g_of.reshape(-1)
    G = groups.size
    first = np.zeros(G, np.int64)
    first[g_of[::-1]] = targets[::-1]  # one target per group stands for its neighbour set
    # the search from a virtual node joined to N(x) reaches N(x) at 1 hop
    n_nb = deg[first]
    seed_ptr = np.zeros(G + 1, np.int64)
    np.cumsum(n_nb, out=seed_ptr[1:])
    rows = np.repeat(c.indptr[first], n_nb) + (np.arange(seed_ptr[-1])
                                               - np.repeat(seed_ptr[:-1], n_nb))
    d = hops_from_sets(c.indptr, c.indices, seed_ptr, c.indices[rows], first_hop=1,
                       control=control)
    inv = inv.reshape(-1)
    # attachment rows x S: the row of the target's neighbour set, 0 at the target itself
    per_att = d[g_of[inv]]
    per_att[np.arange(inv.size), targets[inv]] = 0
    if inv.size == cl.n:  # one attachment switch per class (most designs): rows are classes
        return per_att
    return np.minimum.reduceat(per_att, cl.ptr[:-1], axis=0)


SOURCES_PER_PASS = 4096  # searches run side by side as bits: 64 uint64 words per switch
EDGES_PER_CALL = 100_000  # cable ends gathered per numpy call (50 MB of words)


def hops_from_sets(indptr: np.ndarray, indices: np.ndarray, seed_ptr: np.ndarray,
                   seeds: np.ndarray, first_hop: int = 0, control=None) -> np.ndarray:
    """Breadth-first hop counts on the graph ``(indptr, indices)`` (CSR, both directions
    listed) from each of ``G`` seed sets (set ``g`` is ``seeds[seed_ptr[g]:seed_ptr[g+1]]``,
    its members at ``first_hop``): int16 (G, n), ``UNREACHABLE`` where no path.

    The searches advance together, one bit per search: a level is a gather of the frontier
    words over the edges and an OR per node, so the cost is (searches / 64) x edges per
    level, with levels as few as the graph's diameter. One search at a time (scipy's BFS)
    was 300 s for a 16,416-router dragonfly, one search per router."""
    n = indptr.size - 1
    G = seed_ptr.size - 1
    out = np.full((G, n), UNREACHABLE, np.int16)
    deg = np.diff(indptr)
    has = np.flatnonzero(deg > 0)
    cuts = np.searchsorted(np.cumsum(deg[has]), np.arange(EDGES_PER_CALL, indptr[-1],
                                                          EDGES_PER_CALL))
    bounds = np.unique(np.r_[0, cuts, has.size]).tolist()
    spans = [(a, b) for a, b in itertools.pairwise(bounds) if a < b]
    for g0 in range(0, G, SOURCES_PER_PASS):
        g1 = min(G, g0 + SOURCES_PER_PASS)
        words = (g1 - g0 + 63) // 64
        frontier = np.zeros((n, words), "<u8")
        lo, hi = seed_ptr[g0], seed_ptr[g1]
        search = np.repeat(np.arange(g1 - g0), np.diff(seed_ptr[g0:g1 + 1]))
        np.bitwise_or.at(frontier, (seeds[lo:hi], search // 64),
                         np.left_shift(np.uint64(1), (search % 64).astype(np.uint64)))
        seen = np.zeros_like(frontier)
        hop = first_hop
        # node-major as the bits unpack; transposed into ``out`` once per pass
        block = np.full((n, 64 * words), UNREACHABLE, np.int16)
        while frontier.any():
            seen |= frontier
            bits = np.unpackbits(frontier.view(np.uint8), axis=1, bitorder="little")
            np.putmask(block, bits.view(bool), hop)
            nxt = np.zeros_like(frontier)
            # a few hundred thousand cables at a time: one numpy call over all of them
            # (400 MB of words on a large dragonfly) would hold the GIL for a second
            for lo, hi in spans:
                rows = has[lo:hi]
                start = indptr[rows[0]]
                nxt[rows] = np.bitwise_or.reduceat(frontier[indices[start:indptr[rows[-1] + 1]]],
                                                   indptr[rows] - start, axis=0)
            frontier = nxt & ~seen
            hop += 1
            if control is not None:
                control.check()
        out[g0:g1] = block[:, : g1 - g0].T
    return out
