"""Switches that the spray cannot tell apart, merged: the fabric's equitable partition.

Adaptive routing splits a flow at every switch over the ports that bring it closer to its
destination, in proportion to their capacity. In a 3-tier fat tree a flow leaving a pod
reaches all 32 aggregation switches of its pod and then all 1,024 spines, so the chain of
(switch, destination class) states that ``spray.spray_op`` walks holds every spine for every
destination: 70 million hops at 65,536 GPUs.

Cells of switches fix that when they satisfy two conditions:

- *equitable*: every member of cell ``X`` has the same capacity into cell ``Y`` (out of
  it, and from it), for every pair of cells;
- a switch with GPUs attached is a cell of its own (so members of a cell are at the same
  distance from every GPU class: checked too).

Then every member of a cell has the same valid next cells towards any destination and the
same capacity into each, so traffic that enters a cell spreads evenly over its members,
whichever cell it came from and wherever it goes (each member receives the same capacity's
worth from the cell before). The chain can walk (cell, destination class) states instead,
and a cell-to-cell hop's load spreads over the cables between the two cells by capacity:
the numbers are those of the switch-level chain, without its fan-out (65,536 GPUs: 2,048
leaves, 64 pods of aggregation switches and one cell of spines).

The partition is found by colour refinement on capacities (the coarsest equitable one
refining the start), and checked exactly afterwards: a hash collision never merges two
switches that differ (they are split back into cells of their own).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.solver.compile import mix64
from designer.core.traffic.network import Network

SEED_OUT = np.uint64(0x9E3779B97F4A7C15)
SEED_IN = np.uint64(0xC2B2AE3D27D4EB4F)
MAX_ROUNDS = 64  # refinement ends in as many rounds as the fabric's diameter, and a few


@dataclass(frozen=True, eq=False)
class Cells:
    """``cell`` of each switch; ``rep`` one member per cell (its lowest switch index);
    ``size`` members per cell. Cell-level hops: ``ptr`` (CSR by cell) over ``nxt`` (the
    next cell), ``cap`` (capacity from one member into it, Gb/s) and ``pair`` (the id of the
    cell pair, for ``port_pair``); ``port_pair`` (per switch port) and ``port_share`` (a
    port's part of its cell pair's capacity)."""

    cell: np.ndarray
    rep: np.ndarray
    size: np.ndarray
    ptr: np.ndarray
    nxt: np.ndarray
    cap: np.ndarray
    pair: np.ndarray
    n_pairs: int
    port_pair: np.ndarray
    port_share: np.ndarray

    @property
    def n(self) -> int:
        return int(self.rep.size)


def capacity_units(cap: np.ndarray) -> np.ndarray:
    """Capacities as integers (mGb/s) for exact comparison."""
    return np.round(cap * 1000.0).astype(np.int64)


def _sums(key_a: np.ndarray, key_b: np.ndarray, w: np.ndarray, nb: int
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sum ``w`` over equal (a, b): (a, b, sums) sorted by a then b."""
    k, inv = np.unique(key_a * nb + key_b, return_inverse=True)
    s = np.bincount(inv.ravel(), weights=w, minlength=k.size).astype(np.int64)
    return k // nb, k % nb, s


def signature(colour: np.ndarray, src: np.ndarray, dst: np.ndarray, w: np.ndarray,
               seed: np.uint64) -> np.ndarray:
    """Per switch, a hash of its capacity into each neighbour colour: the sum over its
    links of the capacity (integer units) times a random odd 64-bit number of the
    neighbour's colour, modulo 2^64. Linear in the capacities, so parallel links to one
    colour count by their total as one link of that capacity would, and no grouping of
    the links by (switch, colour) is needed (a sort of every link each round). Unlike
    totals collide with a chance near 2^-61; ``_check`` finds any that do."""
    S = colour.size
    nc = int(colour.max()) + 1 if S else 1
    with np.errstate(over="ignore"):
        r = mix64(np.arange(nc, dtype=np.uint64) ^ seed) | np.uint64(1)
        h = w.astype(np.uint64) * r[colour[dst]]
        out = np.zeros(S, np.uint64)
        np.add.at(out, src, h)
    return out


def relabel(*keys: np.ndarray) -> np.ndarray:
    """Dense labels of equal key tuples, numbered in order of their first item (the
    numbering does not hang on the hash)."""
    with np.errstate(over="ignore"):
        h = np.zeros(keys[0].size, np.uint64)
        for k in keys:
            h = mix64(h ^ k.astype(np.uint64))
    _, first, inv = np.unique(h, return_index=True, return_inverse=True)
    rank = np.empty(first.size, np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inv.reshape(-1)]


def _start(net: Network) -> np.ndarray:
    """Starting colours: switches with GPUs each alone, the others together (refinement
    splits them by what they see; distances follow, and ``_check`` confirms them)."""
    S = net.c.n_switches
    colour = np.zeros(S, np.int64)
    alone = np.unique(net.att_switch)
    colour[alone] = np.arange(1, alone.size + 1)
    return colour


def _check(colour: np.ndarray, net: Network) -> np.ndarray:
    """Switches whose cell's members differ from them (none, unless hashes collided): the
    (neighbour cell, capacity) lists out and in, and the distance columns, compared with the
    cell's first member's exactly."""
    S = colour.size
    rep = np.full(int(colour.max()) + 1, S, np.int64)
    np.minimum.at(rep, colour, np.arange(S))
    bad = np.zeros(S, bool)
    nc = rep.size
    w = capacity_units(net.port_cap)
    for s, d in ((net.port_src, net.port_dst), (net.port_dst, net.port_src)):
        a, b, v = _sums(s.astype(np.int64), colour[d], w, nc)
        ptr = np.zeros(S + 1, np.int64)
        np.cumsum(np.bincount(a, minlength=S), out=ptr[1:])
        deg = np.diff(ptr)
        r = rep[colour]
        bad |= deg != deg[r]
        ok = np.flatnonzero(~bad)
        n = deg[ok]
        off = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
        mine = np.repeat(ptr[ok], n) + off
        theirs = np.repeat(ptr[r[ok]], n) + off
        diff = (b[mine] != b[theirs]) | (v[mine] != v[theirs])
        bad[ok[np.unique(np.repeat(np.arange(ok.size), n)[diff])]] = True
    shared = np.flatnonzero(np.bincount(colour)[colour] > 1)
    if shared.size:
        table = net.dist_by_class
        for lo in range(0, table.shape[0], 512):  # a block of classes at a time
            blk = table[lo:lo + 512]
            bad[shared] |= (blk[:, shared] != blk[:, rep[colour[shared]]]).any(axis=0)
    return bad


def cells_of(net: Network) -> Cells:
    """The coarsest equitable partition of ``net``'s switches that keeps switches with GPUs
    alone and distances alike, with the cell-level hops."""
    S = net.c.n_switches
    src, dst = net.port_src.astype(np.int64), net.port_dst.astype(np.int64)
    w = capacity_units(net.port_cap)
    colour = _start(net) if S else np.zeros(0, np.int64)
    n_col = int(colour.max()) + 1 if S else 0
    for _ in range(MAX_ROUNDS):
        if not src.size:
            break
        new = relabel(colour, signature(colour, src, dst, w, SEED_OUT),
                      signature(colour, dst, src, w, SEED_IN))
        n_new = int(new.max()) + 1
        colour = new
        if n_new == n_col:
            break
        n_col = n_new
    if S:
        bad = _check(colour, net)
        if bad.any():  # a collision merged unlike switches: those stand alone
            colour = relabel(np.where(bad, np.arange(S) + int(colour.max()) + 1, colour))
    return _hops(net, colour)


def _hops(net: Network, colour: np.ndarray) -> Cells:
    S = colour.size
    nc = int(colour.max()) + 1 if S else 0
    rep = np.full(nc, S, np.int64)
    np.minimum.at(rep, colour, np.arange(S))
    size = np.bincount(colour, minlength=nc)
    src, dst = net.port_src.astype(np.int64), net.port_dst.astype(np.int64)
    pair_key, port_pair = np.unique(colour[src] * max(nc, 1) + colour[dst],
                                    return_inverse=True)
    port_pair = port_pair.reshape(-1).astype(np.int64)
    pair_cap = np.bincount(port_pair, weights=net.port_cap, minlength=pair_key.size)
    port_share = net.port_cap / np.maximum(pair_cap[port_pair], 1e-300)
    # a member's capacity into the next cell: the pair's total over the cell's members
    a, b = pair_key // max(nc, 1), pair_key % max(nc, 1)
    ptr = np.zeros(nc + 1, np.int64)
    np.cumsum(np.bincount(a, minlength=nc), out=ptr[1:])
    return Cells(cell=colour, rep=rep, size=size, ptr=ptr, nxt=b, cap=pair_cap / size[a],
                 pair=np.arange(pair_key.size), n_pairs=int(pair_key.size),
                 port_pair=port_pair, port_share=port_share)
