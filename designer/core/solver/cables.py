"""Physical cables against logical links: which links share one cable.

A link is one port-to-port connection (what NVIDIA's tables count and ``links`` reports). A
physical cable is what an installer pulls. The two differ where one cable carries several
lanes: a twin copper cable joins two ports of one cage to two ports of another cage (two
links, one cable), a splitter cable one switch cage to two NIC ports. Optical links have one
fibre each: a twin-port module has one MPO connector per port, so its two lanes run in two
fibres even when they go to the same far cage.

``cable_ids`` numbers the physical cables of a design, one id per link (links with the same id
share a cable), with whole-array grouping: no Python loop over links. The bill of materials
counts copper cables from the same ids, so the BOM, ``cables`` and the cabling plan agree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CableCounts:
    total: int  # physical cables: one per fibre, one per copper cable whatever its lanes
    by_layer: dict[str, int]

    def to_json(self) -> dict:
        return {"total": self.total, "by_layer": dict(self.by_layer)}


def cable_ids(a: np.ndarray, b: np.ndarray, a_port: np.ndarray, b_port: np.ndarray,
              is_switch: np.ndarray, cage_ports: np.ndarray, copper: np.ndarray,
              per_item: np.ndarray) -> tuple[np.ndarray, int]:
    """(cable id per link, number of cables).

    ``copper``: the copper cable item of every link (-1: optical or none, one cable each);
    ``per_item``: lanes one item carries, indexed by item code. Copper links share a cable
    when they leave the same switch cage with the same item (and, between two switches, land
    on the same far cage), up to the item's lane count: the rule the BOM counts by.
    """
    n = int(a.shape[0])
    ids = np.empty(n, np.int64)
    if n == 0:
        return ids, 0
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    cp = np.maximum(np.asarray(cage_ports, np.int64), 1)
    a_cage = (a_port.astype(np.int64) - 1) // cp[a]
    b_cage = (b_port.astype(np.int64) - 1) // cp[b]
    cu = np.flatnonzero(copper >= 0)
    other = np.flatnonzero(copper < 0)
    ids[other] = np.arange(other.size)
    if cu.size == 0:
        return ids, int(other.size)
    sa, sb = is_switch[a[cu]], is_switch[b[cu]]
    both = sa & sb
    lone = ~(sa | sb)  # NIC to NIC: a cable per link
    sw_dev = np.where(sa, a[cu], b[cu])
    sw_cage = np.where(sa, a_cage[cu], b_cage[cu])
    ot_dev = np.where(sa, b[cu], a[cu])
    ot_cage = np.where(sa, b_cage[cu], a_cage[cu])
    item = copper[cu].astype(np.int64)
    cols = (np.where(lone, cu, sw_dev), np.where(lone, -1, sw_cage) + 1,
            np.where(both, ot_dev, -1) + 1, np.where(both, ot_cage, -1) + 1, item)
    spans = [int(x.max(initial=0)) + 1 for x in cols]
    if float(np.prod([float(x) for x in spans])) < 2.0 ** 62:
        key = np.zeros(cu.size, np.int64)  # one integer per key: a 1-D unique is fast
        for x, span in zip(cols, spans, strict=True):
            key = key * span + x
        _, group = np.unique(key, return_inverse=True)
    else:
        _, group = np.unique(np.stack(cols, 1), axis=0, return_inverse=True)
    group = group.reshape(-1)
    order = np.argsort(group, kind="stable")
    g_sorted = group[order]
    start = np.r_[0, np.flatnonzero(np.diff(g_sorted)) + 1]
    first = np.repeat(start, np.diff(np.r_[start, g_sorted.size]))
    rank = np.empty(cu.size, np.int64)
    rank[order] = np.arange(cu.size) - first
    lanes = np.maximum(np.asarray(per_item, np.int64)[item], 1)
    chunk = rank // lanes
    width = int(chunk.max()) + 1
    _, local = np.unique(group * width + chunk, return_inverse=True)
    local = local.reshape(-1)
    ids[cu] = other.size + local
    return ids, int(other.size + local.max() + 1)


def count_by_layer(ids: np.ndarray, n_cables: int, layer: np.ndarray,
                   layers: tuple[str, ...]) -> CableCounts:
    """Cables per layer; a cable is in the layer of its first link (its lanes share one)."""
    if n_cables == 0:
        return CableCounts(0, {})
    first = np.full(n_cables, -1, np.int64)
    idx = np.arange(ids.shape[0])
    first[ids[::-1]] = idx[::-1]  # the lowest link index of every cable wins
    counts = np.bincount(layer.astype(np.int64)[first], minlength=len(layers))
    return CableCounts(n_cables, {layers[i]: int(k) for i, k in enumerate(counts) if k})
