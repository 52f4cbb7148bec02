"""How many racks the default floor plan (``placement.py``) has, without making it.

The BOM's rack lines of a design not yet placed need only that number, on every solve. The
plan fills racks in order (next fit, by U and kW); here the same fill runs over runs of equal
devices: a run of identical servers or switches fills the open rack one device at a time,
then whole racks of the same content at once (the same additions in the same order, so the
same float sums), then the rest. A 64-SU design is a few hundred runs, not 3,000 devices.

Where the plan's network rows would depend on which pod a long row's later part starts with
(rows holding several pods), the count makes the plan instead: same answer, slower.
"""

from __future__ import annotations

import itertools

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.physical.floor import Geometry
from designer.core.physical.liquid import cdus_needed, domain_members
from designer.core.physical.placement import default_rows, layout_inputs, liquid_cooled

_TOL = 1e-9  # as ``_Rack.fits``


class _Fill:
    """One packer's racks: their count and, in order, each rack's kW."""

    def __init__(self, cap_u: int, cap_kw: float) -> None:
        self.cap_u, self.cap_kw = cap_u, cap_kw
        self.loads: list[float] = []
        self.u = 0
        self.kw = 0.0

    def _open(self) -> None:
        self.loads.append(0.0)
        self.u, self.kw = 0, 0.0

    def _close(self) -> None:
        if self.loads:
            self.loads[-1] = self.kw

    def _fits(self, ru: int, kw: float) -> bool:
        return self.u + ru <= self.cap_u and self.kw + kw <= self.cap_kw + _TOL

    def block(self, ru: int, kw: float) -> None:
        """A block of that total size starts: a new rack unless it fits the open one."""
        if not self.loads:
            self._open()
        elif not self._fits(ru, kw) and (self.u or self.kw):
            self._close()
            self._open()

    def run(self, ru: int, kw: float, m: int) -> None:
        """``m`` devices of one size, each in the open rack if it fits, else in a new one."""
        if not self.loads:
            self._open()
        while m and (self._fits(ru, kw) or not (self.u or self.kw)):
            self.u += ru
            self.kw += kw
            m -= 1
        if not m:
            return
        # a fresh rack takes ``per`` of them (at least one, as the packer adds any device to
        # an empty rack); every full rack of the run then sums the same additions
        u, k, per = 0, 0.0, 0
        while per < m and (per == 0 or (u + ru <= self.cap_u and k + kw <= self.cap_kw + _TOL)):
            u += ru
            k += kw
            per += 1
        full, rest = divmod(m, per)
        self._close()
        self.loads.extend([k] * full)
        self.u, self.kw = u, k
        if rest:
            self._close()
            self._open()
            for _ in range(rest):
                self.u += ru
                self.kw += kw

    def done(self) -> list[float]:
        self._close()
        return self.loads


def _runs(fill: _Fill, ru: list[int], kw: list[float], devices: list[int]) -> None:
    """``devices`` one after another (each a block of its own) into ``fill``, a run of
    equal sizes at a time (plain Python: the runs are short, numpy's per-call cost is not)."""
    if not devices:
        return
    first = devices[0]
    a, b, m = ru[first], kw[first], 0
    for i in devices:
        if ru[i] == a and kw[i] == b:
            m += 1
        else:
            fill.run(a, b, m)
            a, b, m = ru[i], kw[i], 1
    fill.run(a, b, m)


def default_rack_count(project: Project, catalog: Catalog) -> int:
    """Racks of ``default_floor(project, catalog)`` (default geometry)."""
    fabric = project.fabric
    if not fabric.devices:
        return 0
    g = Geometry()
    li = layout_inputs(fabric, catalog)
    n, is_server, tier, key = li.n, li.is_server, li.tier, li.key
    ru_l, kw_l = li.sizes.ru_list, li.sizes.kw_list
    none = n
    cap_u = g.rack_u - g.reserved_u
    tor_of = li.tor_of.copy()
    row_keys = sorted(set(key[is_server].tolist()))
    # each device's row by its label (-1: none); labels run up to 2**31, so no lookup table
    sorted_keys = np.asarray(row_keys, np.int64)
    row_pos = np.full(n, -1, np.int64)
    if row_keys:
        row_pos = np.minimum(np.searchsorted(sorted_keys, key), len(row_keys) - 1)
        row_pos[sorted_keys[row_pos] != key] = -1
    systems = domain_members(fabric, catalog)
    in_system = np.zeros(n, bool)
    for members, _ in systems:
        in_system[members] = True
    liquid = liquid_cooled(fabric, catalog) & is_server & ~in_system
    tor_of[in_system] = none
    placed = np.zeros(n, bool)
    racks = 0
    heat = [0.0] * len(row_keys)
    by_row: dict[int, list[int]] = {}
    for s, (members, _) in enumerate(systems):
        if (key[members] != key[members[0]]).any():  # a system across rows: the plan decides
            rows, _ = default_rows(project, catalog, g)
            return sum(len(r) for _name, r in rows)
        by_row.setdefault(int(key[members[0]]), []).append(s)
    row_of = np.full(n, -1, np.int64)  # the row each device is placed in
    for p, rk in enumerate(row_keys):
        for s in by_row.get(rk, []):
            members, (*_, fixed_kw) = systems[s]
            if placed[members].any():
                continue
            load = fixed_kw
            for i in members.tolist():  # as ``_Packer.system``: one addition a tray
                load += kw_l[i]
            heat[p] += load  # the row's racks in the plan's order: its systems first
            placed[members] = True
            row_of[members] = p
            racks += 1
    # compute racks, every row at once: servers in the plan's order (row, liquid before air,
    # ToR, index), one packer per row and cooling, one block per ToR
    srv = np.flatnonzero(is_server & ~placed)
    rpos = row_pos[srv]
    cool = (~liquid[srv]).astype(np.int64)  # 0: liquid first
    order = np.lexsort((srv, tor_of[srv], cool, rpos))
    srv, rpos, cool, tors = srv[order], rpos[order], cool[order], tor_of[srv][order]
    packer = rpos * 2 + cool
    if srv.size:
        new_block = np.r_[True, (packer[1:] != packer[:-1]) | (tors[1:] != tors[:-1])]
        starts = np.flatnonzero(new_block).tolist()
        ends = [*starts[1:], srv.size]
        srv_l = srv.tolist()
        tor_l, pk_l = tors.tolist(), packer.tolist()
        fill: _Fill | None = None
        current = -1
        for s, e in zip(starts, ends, strict=True):
            if pk_l[s] != current:
                if fill is not None:
                    _finish(fill, current, heat)
                    racks += len(fill.loads)
                current = pk_l[s]
                fill = _Fill(cap_u, g.liquid_rack_kw if current % 2 == 0 else g.rack_kw)
            assert fill is not None
            t = tor_l[s]
            block = srv_l[s:e]
            if t < none and not placed[t]:
                block = [t, *block]
                placed[t] = True
                row_of[t] = current // 2
            fill.block(sum(ru_l[i] for i in block), sum(kw_l[i] for i in block))
            _runs(fill, ru_l, kw_l, block)
        assert fill is not None
        _finish(fill, current, heat)
        racks += len(fill.loads)
        placed[srv] = True
        row_of[srv] = rpos
    # each row's network racks: its other leaves and spines, highest tier first
    rest = np.flatnonzero(~placed & ~is_server & (tier < 3) & (row_pos >= 0))
    if rest.size:
        rest = rest[np.lexsort((rest, -tier[rest], row_pos[rest]))]
        rp = row_pos[rest]
        cut = np.flatnonzero(np.diff(rp)) + 1
        bounds = [0, *cut.tolist(), rest.size]
        rest_l = rest.tolist()
        for s, e in itertools.pairwise(bounds):
            fill = _Fill(cap_u, g.rack_kw)
            _runs(fill, ru_l, kw_l, rest_l[s:e])
            racks += len(fill.done())
        placed[rest] = True
        row_of[rest] = rp
    # each row's CDUs, from its liquid racks' heat (in the plan's order of its racks)
    for p in range(len(row_keys)):
        racks += cdus_needed(heat[p], g, catalog)
    # network rows: a pod's own spines after its rows, then everything left
    pod, plane = fabric.group_label("pod"), fabric.group_label("plane")
    pods_with_rows: set[int] = set()
    if li.prefix != "POD" and pod.max() > 0:
        # a row's pod is its first device's; rows that mix pods need the plan itself
        on_row = row_of >= 0
        lo = np.full(len(row_keys), np.iinfo(np.int64).max, np.int64)
        hi = np.full(len(row_keys), -1, np.int64)
        np.minimum.at(lo, row_of[on_row], pod[on_row])
        np.maximum.at(hi, row_of[on_row], pod[on_row])
        if (lo != hi).any():
            rows, _ = default_rows(project, catalog, g)
            return sum(len(r) for _name, r in rows)
        pods_with_rows = set(lo.tolist()) - {0}
    own = ~placed & (tier < 3) & (np.isin(pod, list(pods_with_rows)) if pods_with_rows else False)
    for p in sorted(pods_with_rows):
        members = np.flatnonzero(own & (pod == p))
        if members.size:
            fill = _Fill(cap_u, g.rack_kw)
            _runs(fill, ru_l, kw_l,
                  members[np.lexsort((members, plane[members], tier[members]))].tolist())
            racks += len(fill.done())
            placed[members] = True
    rest = np.flatnonzero(~placed)
    if rest.size:
        fill = _Fill(cap_u, g.rack_kw)
        _runs(fill, ru_l, kw_l,
              rest[np.lexsort((rest, pod[rest], plane[rest], tier[rest]))].tolist())
        racks += len(fill.done())
    return racks


def _finish(fill: _Fill, packer: int, heat: list[float]) -> None:
    loads = fill.done()
    if packer % 2 == 0:  # a liquid packer: its racks' heat, summed one rack at a time
        for kw in loads:
            heat[packer // 2] += kw
