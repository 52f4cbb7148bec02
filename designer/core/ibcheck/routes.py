"""Routes as the subnet manager programmed them: forwarding tables walked for every pair.

``dump_fts`` prints each switch's linear forwarding table (destination LID -> output port).
Following the tables from every switch towards every endpoint, all at once as arrays, gives
the number of switches each packet crosses (``route_hops``); counting how many destination
LIDs each switch port carries gives the route balance (``port_loads``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from designer.core.errors import DesignerError
from designer.core.infiniband.topology import SWITCH, IbFabric

NO_PORT = 255  # an LFT entry that forwards nowhere
UNREACHED = -1  # hop count of a pair whose route is missing or loops
_BLOCK = 4096  # destinations walked at a time (bounds memory on large subnets)

_FTS = re.compile(
    r"^Unicast lids \[0x[0-9a-fA-F]+-0x([0-9a-fA-F]+)\] of switch .*?guid 0x([0-9a-fA-F]+)"
    r"|^0x([0-9a-fA-F]+) (\d+)",
    re.M,
)


class RoutesError(DesignerError):
    """Forwarding tables that cannot be read or do not match the fabric."""


@dataclass(frozen=True, eq=False)
class Lfts:
    """Forwarding tables: ``port[switch position, lid]`` (NO_PORT when unset)."""

    switches: np.ndarray  # IB node index of each table row
    port: np.ndarray  # uint8 (n_switches, max_lid + 1)


def parse_dump_fts(text: str, ib: IbFabric) -> Lfts:
    """The tables of ``dump_fts`` output, rows in the order of ``ib``'s switches."""
    guid_to_node = {int(g): i for i, g in enumerate(ib.guid.tolist()) if ib.kind[i] == SWITCH}
    switches = np.flatnonzero(ib.kind == SWITCH)
    pos = {int(n): k for k, n in enumerate(switches.tolist())}
    rows: list[int] = []
    lids: list[int] = []
    ports: list[int] = []
    top = 0
    current = -1
    seen: set[int] = set()
    for m in _FTS.finditer(text):
        if m.group(2) is not None:
            node = guid_to_node.get(int(m.group(2), 16))
            if node is None:
                raise RoutesError(f"dump_fts names switch GUID 0x{m.group(2)}, not in the fabric")
            current = pos[node]
            seen.add(current)
            top = max(top, int(m.group(1), 16))
        elif current >= 0:
            rows.append(current)
            lids.append(int(m.group(3), 16))
            ports.append(int(m.group(4)))
    if len(seen) < switches.size:
        missing = [ib.desc[int(switches[k])] for k in range(switches.size) if k not in seen]
        raise RoutesError(
            f"dump_fts gave no table for {len(missing)} switch(es), e.g. '{missing[0]}'"
        )
    lid_arr = np.array(lids, dtype=np.int64)
    top = max(top, int(lid_arr.max()) if lid_arr.size else 0)
    table = np.full((switches.size, top + 1), NO_PORT, dtype=np.uint8)
    if lid_arr.size:
        table[np.array(rows), lid_arr] = np.minimum(np.array(ports), NO_PORT)
    return Lfts(switches=switches, port=table)


def peer_table(ib: IbFabric, switches: np.ndarray) -> np.ndarray:
    """``peer[switch position, port]``: the IB node on the other end (-1 none)."""
    width = int(ib.nports[switches].max()) + 1 if switches.size else 1
    peer = np.full((switches.size, max(width, NO_PORT + 1)), -1, dtype=np.int64)
    pos = np.full(ib.n_nodes, -1, np.int64)
    pos[switches] = np.arange(switches.size)
    node, port, other, _, _ = ib.ends()
    on_sw = pos[node] >= 0
    peer[pos[node[on_sw]], port[on_sw]] = other[on_sw]
    return peer


def route_hops(ib: IbFabric, lfts: Lfts, dests: np.ndarray, max_hops: int = 64) -> np.ndarray:
    """Switches crossed from each switch (rows, in ``lfts`` order) to each destination HCA
    node (columns), following the forwarding tables; ``UNREACHED`` when a route is missing,
    loops or ends at the wrong node."""
    switches = lfts.switches
    pos = np.full(ib.n_nodes, -1, np.int64)
    pos[switches] = np.arange(switches.size)
    peer = peer_table(ib, switches)
    dest_lid = ib.lid[dests].astype(np.int64)
    n_sw = switches.size
    out = np.full((n_sw, dests.size), UNREACHED, dtype=np.int16)
    for lo in range(0, dests.size, _BLOCK):
        cols = np.arange(lo, min(lo + _BLOCK, dests.size))
        # every (switch, destination) pair still walking, as flat arrays
        start = np.repeat(np.arange(n_sw), cols.size)
        col = np.tile(cols, n_sw)
        cur = start.copy()
        lid = dest_lid[col]
        ok_lid = (lid > 0) & (lid < lfts.port.shape[1])
        start, col, cur, lid = start[ok_lid], col[ok_lid], cur[ok_lid], lid[ok_lid]
        for hop in range(1, max_hops + 1):
            if not cur.size:
                break
            port = lfts.port[cur, lid].astype(np.int64)
            nxt = peer[cur, port]
            arrived = nxt == dests[col]
            out[start[arrived], col[arrived]] = hop
            onward = ~arrived & (nxt >= 0)
            onward[onward] = pos[nxt[onward]] >= 0  # only switches forward further
            start, col, lid = start[onward], col[onward], lid[onward]
            cur = pos[nxt[onward]]
    return out


@dataclass(frozen=True)
class HopStats:
    """Distribution of switches crossed over ordered pairs of GPUs in different servers (the
    solver's scope; pairs inside a server talk over NVLink)."""

    pairs: int
    histogram: dict[int, int]  # switches crossed -> pairs
    unreached: int = 0

    @property
    def min(self) -> int:
        return min(self.histogram) if self.histogram else 0

    @property
    def max(self) -> int:
        return max(self.histogram) if self.histogram else 0

    @property
    def mean(self) -> float:
        n = sum(self.histogram.values())
        return sum(h * c for h, c in self.histogram.items()) / n if n else 0.0

    def fractions(self) -> dict[int, float]:
        n = sum(self.histogram.values())
        return {h: c / n for h, c in sorted(self.histogram.items())} if n else {}

    def to_json(self) -> dict:
        return {
            "pairs": self.pairs,
            "min": self.min,
            "mean": round(self.mean, 6),
            "max": self.max,
            "histogram": {str(h): c for h, c in sorted(self.histogram.items())},
            "unreached": self.unreached,
        }


SCOPE = "ordered pairs of GPUs in different servers"


def same_group_pairs(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of every ordered pair of members of the same group, i == j included."""
    order = np.argsort(group, kind="stable")
    srt = group[order]
    first = np.searchsorted(srt, srt, side="left")
    size = np.searchsorted(srt, srt, side="right") - first
    left = np.repeat(np.arange(srt.size), size)
    offset = np.arange(left.size) - np.repeat(np.cumsum(size) - size, size)
    return order[left], order[first[left] + offset]


def pair_histogram(
    values: np.ndarray, src_row: np.ndarray, server: np.ndarray
) -> tuple[dict[int, int], int]:
    """Histogram of ``values[switch row, destination]`` over ordered pairs of GPUs in
    different servers: GPU i sends from row ``src_row[i]`` to column i; ``server[i]`` groups
    GPUs of one server (those pairs talk over NVLink). Negative values count as unreached."""
    rows, weight = np.unique(src_row, return_counts=True)
    sub = values[rows].astype(np.int64)
    w = np.repeat(weight, sub.shape[1])
    flat = sub.ravel()
    reached = flat >= 0
    hist = np.bincount(flat[reached], weights=w[reached]).astype(np.int64)
    unreached = int(w[~reached].sum())
    i, j = same_group_pairs(server)
    inner = values[src_row[i], j].astype(np.int64)
    ok = inner >= 0
    if hist.size:
        hist -= np.bincount(inner[ok], minlength=hist.size)[: hist.size]
    unreached -= int((~ok).sum())
    return {int(h): int(c) for h, c in enumerate(hist) if c > 0}, unreached


def pair_stats(values: np.ndarray, src_row: np.ndarray, server: np.ndarray) -> HopStats:
    """``HopStats`` of ``pair_histogram``."""
    histogram, unreached = pair_histogram(values, src_row, server)
    pairs = int(sum(histogram.values())) + unreached
    return HopStats(pairs=pairs, histogram=histogram, unreached=unreached)


@dataclass(frozen=True)
class Balance:
    """How many destination LIDs the ports of one kind of link carry."""

    layer: str  # e.g. "leaf -> spine"
    ports: int
    min: int
    mean: float
    max: int

    @property
    def even(self) -> bool:
        return self.min == self.max

    def to_json(self) -> dict:
        return {
            "layer": self.layer,
            "ports": self.ports,
            "min": self.min,
            "mean": round(self.mean, 3),
            "max": self.max,
        }


def port_loads(lfts: Lfts, dest_lids: np.ndarray) -> np.ndarray:
    """``load[switch position, port]``: destination LIDs (of ``dest_lids``) each port carries."""
    lids = dest_lids[(dest_lids > 0) & (dest_lids < lfts.port.shape[1])]
    ports = lfts.port[:, lids].astype(np.int64)
    n_sw = ports.shape[0]
    flat = ports + (np.arange(n_sw)[:, None] * (NO_PORT + 1))
    return np.bincount(flat.ravel(), minlength=n_sw * (NO_PORT + 1)).reshape(n_sw, NO_PORT + 1)
