"""A default floor plan for any fabric, following the published designs.

The rules (DGX SuperPOD H100 reference architecture; Meta's Llama 3 cluster for ToR racks):

* one row per scalable unit (the ``su`` label; else ``group`` for a dragonfly, ``pod`` for a
  fat tree; a fabric without labels is one row);
* compute racks hold GPU servers, filled until the rack's U or power runs out (four 10.2 kW
  DGX H100 in a 44 kW rack, as the SU's eight racks of four);
* a leaf that is not part of a rail (a ToR) sits at the top of the rack of the servers it
  serves, and its servers are kept together;
* a rack-scale system (an NVL72) is a rack of its own: its trays, with its switch trays and
  power shelves counted in (``liquid.rack_loads``), at the rack's rated power; other
  liquid-cooled servers fill liquid-cooled racks (``Geometry.liquid_rack_kw``);
* rail leaves, appliances (UFM) and the row's other switches go into the row's network racks
  at the end of the row, then the coolant distribution units its liquid heat needs (N+1);
* spines and cores without a row (and everything else left) go into network rows, tier by
  tier.

Servers fill a rack from U1 up, switches from the top down below the reserved U. Nothing loops
over cables in Python; the loops here go over devices (tens of thousands at most).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from designer.core.catalog import Catalog, ServerSpec
from designer.core.model import TIER_OF_ROLE, Fabric, Project, Role
from designer.core.physical.floor import FloorPlan, Geometry, Rack, Row, Slot
from designer.core.physical.liquid import cdus_needed, domain_members

ROW_KEYS = (("su", "SU"), ("group", "G"), ("pod", "POD"))


@dataclass(frozen=True, eq=False)
class Sizes:
    """Per device: height in U (at least 1) and power in kW (0 for unknown gear)."""

    ru: np.ndarray  # int64
    kw: np.ndarray  # float64

    # as Python lists: the packer sums a few devices at a time, where numpy's per-call
    # cost is most of the work (a third of the default plan's time at 16,384 GPUs)
    @functools.cached_property
    def ru_list(self) -> list[int]:
        return self.ru.tolist()

    @functools.cached_property
    def kw_list(self) -> list[float]:
        return self.kw.tolist()


def model_size(catalog: Catalog, model: str) -> tuple[int, float]:
    """(U, kW) of one model; unknown gear counts as 1U and 0 kW."""
    g = catalog.get(model) if model in catalog else None
    return (max(1, int(np.ceil(float(getattr(g, "rack_units", 0) or 0)))),
            float(getattr(g, "power_w", 0) or 0) / 1000.0)


def device_sizes(fabric: Fabric, catalog: Catalog) -> Sizes:
    """Looked up once per model; unknown gear counts as 1U and 0 kW."""
    models = [d.model for d in fabric.devices]
    ru_of: dict[str, int] = {}
    kw_of: dict[str, float] = {}
    for m in set(models):
        ru_of[m], kw_of[m] = model_size(catalog, m)
    return Sizes(np.array([ru_of[m] for m in models], np.int64),
                 np.array([kw_of[m] for m in models], np.float64))


@dataclass
class _Rack:
    name: str
    kind: str
    cap_u: int
    cap_kw: float
    used_u: int = 0
    used_kw: float = 0.0
    servers: list[int] = field(default_factory=list)
    switches: list[int] = field(default_factory=list)
    cooling: str = "air"
    kw: float | None = None  # the rack's own rating (a rack-scale system's), else the default
    u: int | None = None

    def fits(self, ru: int, kw: float) -> bool:
        return self.used_u + ru <= self.cap_u and self.used_kw + kw <= self.cap_kw + 1e-9

    def add(self, i: int, ru: int, kw: float, switch: bool) -> None:
        (self.switches if switch else self.servers).append(i)
        self.used_u += ru
        self.used_kw += kw


class _Packer:
    """Fills racks of one row in order, opening a new rack when the next block does not fit.
    Packers of one row share ``names`` so their racks are numbered in one sequence."""

    def __init__(self, row: str, kind: str, g: Geometry, sizes: Sizes, is_switch: np.ndarray,
                 prefix: str = "", cooling: str = "air",
                 names: list[str] | None = None) -> None:
        self.row, self.kind, self.g, self.sizes, self.is_switch = row, kind, g, sizes, is_switch
        self.prefix = prefix
        self.cooling = cooling
        self.names = names if names is not None else []
        self.racks: list[_Rack] = []

    def _new(self, kw: float | None = None, u: int | None = None) -> _Rack:
        self.names.append("")
        cap_kw = kw if kw is not None else (self.g.liquid_rack_kw if self.cooling == "liquid"
                                            else self.g.rack_kw)
        r = _Rack(f"{self.row}-{self.prefix}{len(self.names):02d}", self.kind,
                  (u if u is not None else self.g.rack_u) - self.g.reserved_u, cap_kw,
                  cooling=self.cooling, kw=kw, u=u)
        self.racks.append(r)
        return r

    def system(self, devices: list[int], kw: float | None, u: int | None, fixed_u: int,
               fixed_kw: float) -> None:
        """A rack-scale system's trays in a rack of their own, its switch trays and shelves
        (``fixed_u``, ``fixed_kw``) counted in."""
        rack = self._new(kw, u)
        rack.used_u += fixed_u
        rack.used_kw += fixed_kw
        for i in devices:
            rack.add(i, int(self.sizes.ru[i]), float(self.sizes.kw[i]), False)

    def block(self, devices: list[int]) -> None:
        """Keep ``devices`` in one rack when they fit one, else spill them over."""
        ru_of, kw_of = self.sizes.ru_list, self.sizes.kw_list
        ru = sum(ru_of[i] for i in devices)
        kw = sum(kw_of[i] for i in devices)
        rack = self.racks[-1] if self.racks else self._new()
        if not rack.fits(ru, kw) and (rack.used_u or rack.used_kw):
            rack = self._new()
        for i in devices:
            r_u, r_kw = ru_of[i], kw_of[i]
            if not rack.fits(r_u, r_kw) and (rack.used_u or rack.used_kw):
                rack = self._new()
            rack.add(i, r_u, r_kw, bool(self.is_switch[i]))


def _row_key(fabric: Fabric, endpoint: np.ndarray) -> tuple[str, str, np.ndarray]:
    """The label rows follow, its row-name prefix and each device's value (0: none)."""
    n = len(fabric.devices)
    for key, prefix in ROW_KEYS:
        vals = fabric.group_label(key)
        if (vals[endpoint] > 0).any():
            return key, prefix, vals
    return "", "ROW", np.zeros(n, np.int64)


def default_floor(project: Project, catalog: Catalog,
                  geometry: Geometry | None = None) -> FloorPlan:
    """Rows, racks and a slot for every device of ``project`` (see the module docstring)."""
    g = geometry or Geometry()
    if not project.fabric.devices:
        return FloorPlan(geometry=g)
    rows, sizes = default_rows(project, catalog, g)
    return _plan(rows, g, sizes, project.fabric)


@dataclass(frozen=True, eq=False)
class Inputs:
    """What the default plan reads of a fabric, per device: shared with the rack count
    (``rack_count.py``) so the two cannot drift apart."""

    n: int
    sizes: Sizes
    is_switch: np.ndarray
    is_server: np.ndarray
    tier: np.ndarray
    key: np.ndarray  # the row label (a ToR takes its first server's)
    tor_of: np.ndarray  # a server's ToR, else ``n``
    prefix: str


_SWITCH_OF = {r.value: r.is_switch for r in Role}
_TIER_OF = {r.value: TIER_OF_ROLE.get(r, 0) for r in Role}


def layout_inputs(fabric: Fabric, catalog: Catalog) -> Inputs:
    n = len(fabric.devices)
    sizes = device_sizes(fabric, catalog)
    roles = fabric.roles.tolist()  # cached per fabric
    is_switch = np.fromiter(map(_SWITCH_OF.__getitem__, roles), bool, n)
    is_server = fabric.roles == Role.GPU_SERVER.value
    tier = np.fromiter(map(_TIER_OF.__getitem__, roles), np.int64, n)
    rail = fabric.group_label("rail", -1) >= 0
    torable = is_switch & (tier == 1) & ~rail
    # a server's ToR: the lowest-numbered non-rail leaf or router it is cabled to
    none = n
    tor_of = np.full(n, none, np.int64)
    links = fabric.links
    la, lb = links.a.astype(np.int64), links.b.astype(np.int64)
    for x, y in ((la, lb), (lb, la)):
        m = is_server[x] & torable[y]
        np.minimum.at(tor_of, x[m], y[m])
    _, prefix, key = _row_key(fabric, is_server)
    # a ToR takes the row of its first server
    has_tor = tor_of < none
    srv = np.flatnonzero(has_tor)
    first = np.full(n + 1, -1, np.int64)
    first[tor_of[srv][::-1]] = srv[::-1]
    key = key.copy()
    tors = np.flatnonzero(first[:n] >= 0)
    key[tors] = key[first[tors]]
    return Inputs(n, sizes, is_switch, is_server, tier, key, tor_of, prefix)


def default_rows(project: Project, catalog: Catalog,
                  g: Geometry) -> tuple[list[tuple[str, list[_Rack]]], Sizes]:
    fabric = project.fabric
    li = layout_inputs(fabric, catalog)
    n, sizes, is_switch, is_server, tier = li.n, li.sizes, li.is_switch, li.is_server, li.tier
    key, prefix, none = li.key, li.prefix, n
    tor_of = li.tor_of.copy()

    placed = np.zeros(n, bool)
    rows: list[tuple[str, list[_Rack]]] = []
    row_keys = sorted(set(key[is_server].tolist()))
    systems = domain_members(fabric, catalog)
    in_system = np.zeros(n, bool)
    for members, _ in systems:
        in_system[members] = True
    liquid = liquid_cooled(fabric, catalog) & is_server & ~in_system
    tor_of[in_system] = none  # a rack-scale system's leaves stand in the network racks
    for rk in row_keys:
        name = f"{prefix}{rk}" if rk else prefix + "1"
        names: list[str] = []
        racks_of_row: list[_Rack] = []
        # rack-scale systems of this row, a rack each (in the order of their first tray)
        sysp = _Packer(name, "compute", g, sizes, is_switch, cooling="liquid", names=names)
        for members, load in systems:
            if key[members[0]] == rk and not placed[members].any():
                sysp.system(members.tolist(), *load)
                placed[members] = True
        racks_of_row += sysp.racks
        for cooled in ("liquid", "air"):
            compute = _Packer(name, "compute", g, sizes, is_switch, cooling=cooled, names=names)
            wanted = liquid if cooled == "liquid" else ~liquid
            members = np.flatnonzero(is_server & (key == rk) & wanted & ~placed)
            order = members[np.lexsort((members, tor_of[members]))]
            t_sorted = tor_of[order]
            starts = np.flatnonzero(np.r_[True, t_sorted[1:] != t_sorted[:-1]])
            for s, e in zip(starts.tolist(), [*starts[1:].tolist(), order.size], strict=True):
                if s == e:
                    continue
                t = int(t_sorted[s])
                block = ([t] if t < none and not placed[t] else []) + order[s:e].tolist()
                compute.block(block)
                placed[block] = True
            racks_of_row += compute.racks
        network = _Packer(name, "network", g, sizes, is_switch, prefix="N")
        rest = np.flatnonzero(~placed & (key == rk) & ~is_server & (tier < 3))
        for i in rest[np.lexsort((rest, -tier[rest]))].tolist():
            network.block([i])
            placed[i] = True
        heat = sum(r.used_kw for r in racks_of_row if r.cooling == "liquid")
        cdus = [_Rack(f"{name}-C{k + 1:02d}", "cdu", 0, 0.0, cooling="liquid")
                for k in range(cdus_needed(heat, g, catalog))]
        _add_rows(rows, name, racks_of_row + network.racks + cdus, g.racks_per_row)
    # network rows: everything left, tier by tier, grouped by pod / plane labels; a pod's own
    # switches (its spines) get a network row right after the pod's last compute row
    pod, plane = fabric.group_label("pod"), fabric.group_label("plane")
    row_pod: dict[str, int] = {}
    last = 0
    for name, racks in rows:
        # a row's last part may hold only its CDUs: it stays with the row's pod
        first = _first_device(racks)
        row_pod[name] = last = last if first is None else int(pod[first])
    big = int(pod.max()) + 1
    if prefix == "POD":  # rows are pods already: their spines join them
        row_pod = {}
    pods_with_rows = set(row_pod.values()) - {0}
    own = ~placed & np.isin(pod, list(pods_with_rows)) & (tier < 3)
    for p in sorted(pods_with_rows):
        members = np.flatnonzero(own & (pod == p))
        if members.size:
            net = _Packer(f"POD{p}", "network", g, sizes, is_switch, prefix="N")
            for i in members[np.lexsort((members, plane[members], tier[members]))].tolist():
                net.block([i])
            placed[members] = True
            _add_rows(rows, f"POD{p}", net.racks, g.racks_per_row)
            row_pod[rows[-1][0]] = p
    rest = np.flatnonzero(~placed)
    if rest.size:
        order = rest[np.lexsort((rest, pod[rest], plane[rest], tier[rest]))]
        network = _Packer("NET", "network", g, sizes, is_switch)
        for i in order.tolist():
            network.block([i])
        _add_rows(rows, "NET", network.racks, g.racks_per_row)
    # keep a pod's rows together: its compute rows, then its network row
    position = {name: k for k, (name, _) in enumerate(rows)}
    rows.sort(key=lambda r: (row_pod.get(r[0], 0) or big, position[r[0]]))
    return rows, sizes


def _first_device(racks: list[_Rack]) -> int | None:
    """The first server of ``racks``, else the first switch (None: CDUs only)."""
    for r in racks:
        if r.servers:
            return r.servers[0]
    return next((r.switches[0] for r in racks if r.switches), None)


def liquid_cooled(fabric: Fabric, catalog: Catalog) -> np.ndarray:
    """Devices whose catalog gear is liquid-cooled."""
    models = {d.model for d in fabric.devices}
    cool = {m for m in models if m in catalog and isinstance(catalog.get(m), ServerSpec)
            and catalog.server(m).cooling == "liquid"}
    return np.array([d.model in cool for d in fabric.devices], bool)


def _add_rows(rows: list[tuple[str, list[_Rack]]], name: str, racks: list[_Rack],
              per_row: int) -> None:
    """A long row continues in the next row (``SU1``, ``SU1.2`` ...)."""
    for k in range(0, max(len(racks), 1), per_row):
        part = racks[k:k + per_row]
        if part:
            rows.append((name if k == 0 else f"{name}.{k // per_row + 1}", part))


def _plan(rows: list[tuple[str, list[_Rack]]], g: Geometry, sizes: Sizes,
          fabric: Fabric) -> FloorPlan:
    ids = [d.id for d in fabric.devices]
    placement: dict[str, Slot] = {}
    out_rows: list[Row] = []
    for name, racks in rows:
        out_rows.append(Row(name=name, racks=tuple(
            Rack(name=r.name, kind=r.kind, cooling=r.cooling,  # type: ignore[arg-type]
                 kw=r.kw, u=r.u) for r in racks)))
        for r in racks:
            u = 1
            for i in r.servers:  # from the bottom up
                placement[ids[i]] = Slot(rack=r.name, u=min(u, g.rack_u))
                u += int(sizes.ru[i])
            top = g.rack_u - g.reserved_u + 1
            for i in r.switches:  # from the top down (ToR at the top)
                top -= int(sizes.ru[i])
                placement[ids[i]] = Slot(rack=r.name, u=max(top, 1))
    return FloorPlan(geometry=g, rows=tuple(out_rows), placement=placement)


def place_missing(project: Project, catalog: Catalog) -> FloorPlan | None:
    """The project's plan with devices added since it was made placed in new racks of a
    network row named ``NEW`` (None when the project has no plan)."""
    phys = project.physical
    if phys is None or phys.floor is None:
        return None
    floor = phys.floor
    missing = [d for d in project.fabric.devices if d.id not in floor.placement]
    if not missing:
        return floor
    sub = project.with_fabric(Fabric(devices=tuple(missing)))
    extra = default_floor(sub, catalog, floor.geometry)
    taken = {r.name for _, _, r in floor.racks()}
    rename = {r.name: f"NEW-{k + 1:02d}" for k, (_, _, r) in enumerate(extra.racks())}
    if taken & set(rename.values()):
        rename = {old: f"NEW{len(taken)}-{k + 1:02d}" for k, old in enumerate(rename)}
    racks = tuple(r.model_copy(update={"name": rename[r.name]}) for _, _, r in extra.racks())
    placement = dict(floor.placement)
    placement.update({d: Slot(rack=rename[s.rack], u=s.u) for d, s in extra.placement.items()})
    return FloorPlan(geometry=floor.geometry, rows=(*floor.rows, Row(name="NEW", racks=racks)),
                     placement=placement)
