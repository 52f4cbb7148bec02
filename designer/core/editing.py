"""Edit operations on a Project: add, move, delete, connect, change devices and links, paste.

Every function takes a Project and returns a new one (projects are immutable), so the window's
undo commands only hold the project before and after. Rules live here, not in the GUI: a link
needs free ports on both devices, a shared technology and a speed both ends can run; breaking
a rule raises ``PortsExhausted``, ``SpeedMismatch`` or ``FabricError`` with a message a person
can act on.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from designer.core.catalog import TECH_LABELS, Catalog, GearItem, ServerSpec, SwitchSpec
from designer.core.errors import CatalogError, FabricError, PortsExhausted, SpeedMismatch
from designer.core.links import MEDIA, MEDIUM_CODE, LinkTable
from designer.core.model import (
    ENDPOINT_ROLES,
    TIER_OF_ROLE,
    Device,
    Fabric,
    Overrides,
    Project,
    Role,
)
from designer.core.ports import PortLayout, port_layout
from designer.core.text import plain_error

_ID_CHARS = re.compile(r"[^A-Za-z0-9_.:/+-]+")
# Devices closer than this in y to an existing switch row take that row's role when dropped.
ROW_SNAP = 120.0
UNSET: Any = object()  # "leave this field as it is" (None is a meaningful value for some fields)


# ids ---------------------------------------------------------------------------------------------
def clean_id(text: str) -> str:
    """``text`` turned into a valid device id (letters, digits and ``_.:/+-``)."""
    out = _ID_CHARS.sub("-", text.strip()).strip("-_.:/+")
    return (out or "device")[:100]


def unique_id(taken: Collection[str], base: str) -> str:
    """``base``, or ``base-2``, ``base-3`` ... whichever ``taken`` does not hold yet."""
    base = clean_id(base)
    if base not in taken:
        return base
    stem = re.sub(r"-\d+$", "", base) or base
    n = 2
    while f"{stem}-{n}" in taken:
        n += 1
    return f"{stem}-{n}"


def numbered_id(taken: Collection[str], prefix: str) -> str:
    """The first of ``prefix1``, ``prefix2`` ... not in ``taken``."""
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


_ID_PREFIX = {
    Role.GPU_SERVER: "node",
    Role.APPLIANCE: "appliance",
    Role.LEAF: "leaf",
    Role.SPINE: "spine",
    Role.CORE: "core",
    Role.ROUTER: "router",
}


# devices -------------------------------------------------------------------------------------
def roles_for(spec: GearItem) -> tuple[Role, ...]:
    """Roles a device of this gear may take."""
    if isinstance(spec, SwitchSpec):
        return (Role.LEAF, Role.SPINE, Role.CORE, Role.ROUTER)
    if isinstance(spec, ServerSpec):
        return (Role.GPU_SERVER, Role.APPLIANCE) if spec.gpus else (Role.APPLIANCE,)
    return ()


def infer_role(fabric: Fabric, spec: GearItem, y: float) -> Role:
    """The role a new device of ``spec`` dropped at height ``y`` most likely has.

    Switches join the tier of the switch row they are dropped on (generated designs put
    tiers in rows), else they are leaves; servers with GPUs are GPU servers.
    """
    allowed = roles_for(spec)
    if not allowed:
        raise FabricError(f"'{spec.id}' is a {spec.kind}; only switches and servers are placed")
    if not isinstance(spec, SwitchSpec):
        return allowed[0]
    near = Counter(d.role for d in fabric.devices if d.role.is_switch and abs(d.y - y) <= ROW_SNAP)
    return near.most_common(1)[0][0] if near else Role.LEAF


def _profile_modes(spec: GearItem, project: Project, catalog: Catalog) -> dict[str, Any]:
    """Port mode fields for a new device so it runs the project's gear profile when it can."""
    try:
        profile = catalog.profile(project.profile)
    except CatalogError:
        return {}
    if isinstance(spec, SwitchSpec):
        mode = spec.mode_for(profile.switch_speed_gbps, profile.tech)
        if mode is not None and mode != spec.modes[0]:
            return {"port_speed_gbps": mode.speed_gbps}
        return {}
    if isinstance(spec, ServerSpec):
        nic = catalog.nic(spec.nic)
        mode = nic.mode_for(profile.nic_speed_gbps, profile.tech)
        if mode is not None and mode.speed_gbps != nic.modes[0].speed_gbps:
            return {"port_speed_gbps": mode.speed_gbps}
    return {}


def new_device(
    project: Project,
    catalog: Catalog,
    gear_id: str,
    x: float,
    y: float,
    role: Role | None = None,
    taken: Collection[str] | None = None,
) -> Device:
    """A device of catalog item ``gear_id`` at (x, y) with a fresh id (not yet in the design)."""
    spec = catalog.get(gear_id, "palette")
    role = role or infer_role(project.fabric, spec, y)
    if role not in roles_for(spec):
        raise FabricError(f"a {spec.name} cannot be a {role.label.lower()}")
    ids = taken if taken is not None else project.fabric.index
    dev_id = numbered_id(ids, _ID_PREFIX[role])
    return Device(
        id=dev_id,
        name=dev_id,
        model=gear_id,
        role=role,
        x=_coord(x),
        y=_coord(y),
        **_profile_modes(spec, project, catalog),
    )


def add_device(
    project: Project,
    catalog: Catalog,
    gear_id: str,
    x: float,
    y: float,
    role: Role | None = None,
) -> tuple[Project, str]:
    """``project`` with a new device of ``gear_id`` at (x, y); returns it and the new id."""
    dev = new_device(project, catalog, gear_id, x, y, role)
    return project.with_fabric(project.fabric.add((dev,))), dev.id


def _coord(v: float) -> float:
    if not math.isfinite(v):
        raise FabricError("a position must be a finite number")
    return float(min(max(v, -1e9), 1e9))


def _fast_devices(fabric: Fabric, devices: tuple[Device, ...]) -> Fabric:
    """A fabric with the same ids in the same order and the same links: nothing to re-check."""
    return Fabric.model_construct(devices=devices, links=fabric.links)


def move_devices(project: Project, positions: Mapping[str, tuple[float, float]]) -> Project:
    """``project`` with the devices of ``positions`` moved there."""
    if not positions:
        return project
    fabric = project.fabric
    devices = list(fabric.devices)
    for dev_id, (x, y) in positions.items():
        i = _index(fabric, dev_id)
        devices[i] = devices[i].model_copy(update={"x": _coord(x), "y": _coord(y)})
    return project.with_fabric(_fast_devices(fabric, tuple(devices)))


def _index(fabric: Fabric, dev_id: str) -> int:
    try:
        return fabric.index[dev_id]
    except KeyError:
        raise FabricError(f"no device '{dev_id}' in the design") from None


def update_device(
    project: Project,
    catalog: Catalog,
    device_id: str,
    *,
    name: str = UNSET,
    model: str = UNSET,
    role: Role | str = UNSET,
    groups: Mapping[str, int] = UNSET,
    port_speed_gbps: int | None = UNSET,
) -> Project:
    """Change fields of one device, checking that its links still fit the new gear."""
    fabric = project.fabric
    i = _index(fabric, device_id)
    old = fabric.devices[i]
    data = old.model_dump()
    if name is not UNSET:
        data["name"] = name.strip()
    if groups is not UNSET:
        data["groups"] = dict(groups)
    if role is not UNSET:
        data["role"] = Role(role)
    if model is not UNSET and model != old.model:
        spec = catalog.get(model, "new model")
        data["model"] = model
        data["nic"] = data["nics"] = None
        speeds = {m.speed_gbps for m in getattr(spec, "modes", ())}
        if isinstance(spec, ServerSpec):
            speeds = {m.speed_gbps for m in catalog.nic(spec.nic).modes}
        if old.port_speed_gbps not in speeds:
            data["port_speed_gbps"] = None
    if port_speed_gbps is not UNSET:
        data["port_speed_gbps"] = port_speed_gbps
    try:
        new = Device.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in err["loc"])
        raise FabricError(f"{field}: {plain_error(err)}") from None
    spec = catalog.get(new.model, f"device '{device_id}'")
    if new.role not in roles_for(spec):
        kinds = ", ".join(r.label.lower() for r in roles_for(spec))
        raise FabricError(f"a {spec.name} can be a {kinds}, not a {new.role.label.lower()}")
    if new == old:
        return project
    devices = list(fabric.devices)
    devices[i] = new
    candidate = _fast_devices(fabric, tuple(devices))
    if (new.model, new.port_speed_gbps, new.nic, new.nics) != (
        old.model,
        old.port_speed_gbps,
        old.nic,
        old.nics,
    ):
        _check_links_fit(candidate, i, catalog)
    return project.with_fabric(candidate)


def _check_links_fit(fabric: Fabric, i: int, catalog: Catalog) -> None:
    """The links of device ``i`` still land on ports it has, at a speed and tech it runs."""
    dev = fabric.devices[i]
    lay = port_layout(dev, catalog)
    links = fabric.links
    rows = np.flatnonzero((links.a == i) | (links.b == i))
    if not rows.size:
        return
    top = int(
        np.max(
            np.where(links.a[rows] == i, links.a_port[rows], links.b_port[rows]).astype(np.int64)
            + links.count[rows]
            - 1
        )
    )
    if top > lay.count:
        raise PortsExhausted(
            f"'{dev.id}' would have {lay.count} ports, but its links use port {top}; remove "
            "or move those links first"
        )
    fastest = int(links.speed_gbps[rows].max())
    if fastest > lay.speed_gbps:
        raise SpeedMismatch(
            f"'{dev.id}' would run {lay.speed_gbps}G ports, but a link of it runs {fastest}G"
        )
    others = np.unique(np.where(links.a[rows] == i, links.b[rows], links.a[rows]))
    for j in others.tolist():
        other = fabric.devices[j]
        if not set(lay.techs) & set(port_layout(other, catalog).techs):
            raise SpeedMismatch(
                f"'{dev.id}' would run {_techs(lay)}, but it links to '{other.id}', which runs "
                f"{_techs(port_layout(other, catalog))}"
            )


def _techs(layout: PortLayout) -> str:
    return "/".join(TECH_LABELS.get(t, t) for t in layout.techs)


# links ---------------------------------------------------------------------------------------
def pair_rows(fabric: Fabric, a_id: str, b_id: str) -> np.ndarray:
    """Rows of the link bundles between two devices (either direction)."""
    a, b = _index(fabric, a_id), _index(fabric, b_id)
    links = fabric.links
    return np.flatnonzero(((links.a == a) & (links.b == b)) | ((links.a == b) & (links.b == a)))


def used_ports(fabric: Fabric, i: int, n_ports: int) -> np.ndarray:
    """Boolean array, index = port number (0 unused): which ports of device ``i`` are wired."""
    used = np.zeros(n_ports + 2, dtype=bool)
    links = fabric.links
    for side, port in ((links.a, links.a_port), (links.b, links.b_port)):
        for r in np.flatnonzero(side == i).tolist():
            start = int(port[r])
            used[start : min(start + int(links.count[r]), n_ports + 1)] = True
    used[0] = True
    used[n_ports + 1 :] = True
    return used


def free_runs(used: np.ndarray) -> list[tuple[int, int]]:
    """(first port, length) of every run of free ports, in port order."""
    free = ~used
    edges = np.diff(np.concatenate([[0], free.astype(np.int8), [0]]))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    return [(int(s), int(e - s)) for s, e in zip(starts, ends, strict=True)]


def _allocate(
    runs_a: list[tuple[int, int]], runs_b: list[tuple[int, int]], count: int
) -> list[tuple[int, int, int]]:
    """Split ``count`` cables into bundles (a_port, b_port, n) over free runs of both ends."""
    out: list[tuple[int, int, int]] = []
    ra, rb = [list(r) for r in runs_a], [list(r) for r in runs_b]
    ia = ib = 0
    left = count
    while left > 0 and ia < len(ra) and ib < len(rb):
        n = min(left, ra[ia][1], rb[ib][1])
        out.append((ra[ia][0], rb[ib][0], n))
        for run in (ra[ia], rb[ib]):
            run[0] += n
            run[1] -= n
        left -= n
        if ra[ia][1] == 0:
            ia += 1
        if rb[ib][1] == 0:
            ib += 1
    return out


@dataclass(frozen=True)
class LinkDefaults:
    """What dragging from one device to another would create, and what the ports allow."""

    a: str
    b: str
    count: int
    speed_gbps: int
    free_a: int
    free_b: int
    techs: tuple[str, ...]


def _end_checks(fabric: Fabric, catalog: Catalog, a_id: str, b_id: str):
    if a_id == b_id:
        raise FabricError("a device cannot be linked to itself")
    ia, ib = _index(fabric, a_id), _index(fabric, b_id)
    da, db = fabric.devices[ia], fabric.devices[ib]
    if da.role in ENDPOINT_ROLES and db.role in ENDPOINT_ROLES:
        raise FabricError(
            f"'{a_id}' and '{b_id}' are both endpoints; link each of them to a switch"
        )
    la, lb = port_layout(da, catalog), port_layout(db, catalog)
    techs = tuple(t for t in la.techs if t in lb.techs)
    if not techs:
        raise SpeedMismatch(
            f"'{a_id}' runs {_techs(la)} and '{b_id}' runs {_techs(lb)}: no technology in common"
        )
    return ia, ib, la, lb, techs


def link_defaults(project: Project, catalog: Catalog, a_id: str, b_id: str) -> LinkDefaults:
    """Default bundle between two devices: all of an endpoint's free ports, else one cable."""
    fabric = project.fabric
    ia, ib, la, lb, techs = _end_checks(fabric, catalog, a_id, b_id)
    free_a = int((~used_ports(fabric, ia, la.count)).sum())
    free_b = int((~used_ports(fabric, ib, lb.count)).sum())
    endpoint = (
        fabric.devices[ia].role in ENDPOINT_ROLES or fabric.devices[ib].role in ENDPOINT_ROLES
    )
    count = max(1, min(free_a, free_b)) if endpoint else 1
    return LinkDefaults(a_id, b_id, count, min(la.speed_gbps, lb.speed_gbps), free_a, free_b, techs)


def _check_speed(speed: int, fabric: Fabric, pairs: Iterable[tuple[int, PortLayout]]) -> None:
    for i, lay in pairs:
        if speed > lay.speed_gbps:
            raise SpeedMismatch(
                f"{speed}G is faster than the {lay.speed_gbps}G ports of '{fabric.devices[i].id}'"
            )
    if speed <= 0:
        raise SpeedMismatch("a link speed must be positive")


def _medium_code(medium: str) -> int:
    try:
        return MEDIUM_CODE[medium]
    except KeyError:
        raise FabricError(f"unknown medium '{medium}' (known: {', '.join(MEDIA)})") from None


def _length(length_m: float | None) -> float:
    if length_m is None or (isinstance(length_m, float) and math.isnan(length_m)):
        return float("nan")
    if not 0 <= length_m <= 100_000:
        raise FabricError(f"a length of {length_m} m is not between 0 and 100 km")
    return float(length_m)


def _not_enough(dev: Device, lay: PortLayout, free: int, count: int) -> PortsExhausted:
    if free == 0:
        # a larger switch helps a switch; a server's ports are its NICs, so only a link can go
        way_out = (
            "remove one of its links"
            if dev.role in ENDPOINT_ROLES
            else "remove a link or use a larger switch"
        )
        return PortsExhausted(
            f"'{dev.id}' has no free port (all {lay.count} are used); {way_out}"
        )
    return PortsExhausted(
        f"'{dev.id}' has {free} free port(s) of {lay.count}, but {count} are needed"
    )


def connect(
    project: Project,
    catalog: Catalog,
    a_id: str,
    b_id: str,
    count: int | None = None,
    speed_gbps: int | None = None,
    medium: str = "auto",
    length_m: float | None = None,
) -> Project:
    """Link ``a_id`` and ``b_id`` with ``count`` cables (default: see ``link_defaults``).

    Cables take the lowest free ports of each device; when the free ports are not one
    contiguous run, the cables are split into several bundles.
    """
    fabric = project.fabric
    defaults = link_defaults(project, catalog, a_id, b_id)
    ia, ib, la, lb, _techs_common = _end_checks(fabric, catalog, a_id, b_id)
    n = defaults.count if count is None else int(count)
    if n < 1:
        raise FabricError("a link bundle needs at least one cable")
    speed = defaults.speed_gbps if speed_gbps is None else int(speed_gbps)
    _check_speed(speed, fabric, ((ia, la), (ib, lb)))
    for i, lay, free in ((ia, la, defaults.free_a), (ib, lb, defaults.free_b)):
        if free < n:
            raise _not_enough(fabric.devices[i], lay, free, n)
    # endpoints first, then the lower tier, like the generators do
    if _order_key(fabric.devices[ib]) < _order_key(fabric.devices[ia]):
        ia, ib, la, lb = ib, ia, lb, la
    runs = _allocate(
        free_runs(used_ports(fabric, ia, la.count)), free_runs(used_ports(fabric, ib, lb.count)), n
    )
    new = LinkTable(
        a=[ia] * len(runs),
        a_port=[r[0] for r in runs],
        b=[ib] * len(runs),
        b_port=[r[1] for r in runs],
        count=[r[2] for r in runs],
        speed_gbps=speed,
        medium=_medium_code(medium),
        length_m=_length(length_m),
    )
    return project.with_fabric(fabric.with_links(LinkTable.concat([fabric.links, new])))


def _order_key(d: Device) -> int:
    return 0 if d.role in ENDPOINT_ROLES else TIER_OF_ROLE[d.role]


@dataclass(frozen=True)
class BundleInfo:
    """All cables between two devices, summed over their bundles."""

    a: str
    b: str
    rows: tuple[int, ...]
    count: int
    speed_gbps: int
    medium: str
    length_m: float | None
    a_ports: str
    b_ports: str


def _port_text(starts: np.ndarray, counts: np.ndarray, lay: PortLayout | None) -> str:
    parts = []
    for s, c in sorted(zip(starts.tolist(), counts.tolist(), strict=True)):
        name = (lambda p: lay.name(p)) if lay else str
        parts.append(name(s) if c == 1 else f"{name(s)}-{name(s + c - 1)}")
    return ", ".join(parts)


def bundle_info(project: Project, catalog: Catalog | None, a_id: str, b_id: str) -> BundleInfo:
    fabric = project.fabric
    rows = pair_rows(fabric, a_id, b_id)
    if not rows.size:
        raise FabricError(f"'{a_id}' and '{b_id}' are not linked")
    links = fabric.links
    ia = fabric.index[a_id]
    a_side = links.a[rows] == ia
    a_start = np.where(a_side, links.a_port[rows], links.b_port[rows])
    b_start = np.where(a_side, links.b_port[rows], links.a_port[rows])
    lays: list[PortLayout | None] = [None, None]
    if catalog is not None:
        for k, dev_id in enumerate((a_id, b_id)):
            try:
                lays[k] = port_layout(fabric.device(dev_id), catalog)
            except CatalogError:
                lays[k] = None
    lengths = links.length_m[rows]
    length = None if np.isnan(lengths).all() else float(np.nanmax(lengths))
    return BundleInfo(
        a=a_id,
        b=b_id,
        rows=tuple(rows.tolist()),
        count=int(links.count[rows].sum()),
        speed_gbps=int(links.speed_gbps[rows].max()),
        medium=MEDIA[int(links.medium[rows][0])],
        length_m=length,
        a_ports=_port_text(a_start, links.count[rows], lays[0]),
        b_ports=_port_text(b_start, links.count[rows], lays[1]),
    )


def update_bundle(
    project: Project,
    catalog: Catalog,
    a_id: str,
    b_id: str,
    *,
    count: int = UNSET,
    speed_gbps: int = UNSET,
    medium: str = UNSET,
    length_m: float | None = UNSET,
) -> Project:
    """Change the cables between two devices. Growing keeps the ports already used and takes
    the next free ones; shrinking frees the highest ports of the bundle."""
    fabric = project.fabric
    rows = pair_rows(fabric, a_id, b_id)
    if not rows.size:
        raise FabricError(f"'{a_id}' and '{b_id}' are not linked")
    ia, ib, la, lb, _t = _end_checks(fabric, catalog, a_id, b_id)
    links = fabric.links
    cols: dict[str, Any] = {}
    if speed_gbps is not UNSET:
        _check_speed(int(speed_gbps), fabric, ((ia, la), (ib, lb)))
        cols["speed_gbps"] = int(speed_gbps)
    if medium is not UNSET:
        cols["medium"] = _medium_code(medium)
    if length_m is not UNSET:
        cols["length_m"] = _length(length_m)
    if cols:
        links = links.replace(rows, **cols)
    fabric = fabric.with_links(links)
    if count is not UNSET:
        fabric = _resize_bundle(fabric, rows, int(count), (ia, la), (ib, lb))
    return project.with_fabric(fabric)


def _resize_bundle(
    fabric: Fabric,
    rows: np.ndarray,
    count: int,
    end_a: tuple[int, PortLayout],
    end_b: tuple[int, PortLayout],
) -> Fabric:
    links = fabric.links
    have = int(links.count[rows].sum())
    if count < 1:
        raise FabricError("a link bundle needs at least one cable; delete the link to remove it")
    if count == have:
        return fabric
    order = rows[np.argsort(np.minimum(links.a_port[rows], links.b_port[rows]), kind="stable")]
    if count < have:
        before = np.cumsum(links.count[order]) - links.count[order]  # cables in earlier rows
        keep = np.clip(count - before, 0, links.count[order])
        mask = np.ones(len(links), bool)
        mask[order[keep == 0]] = False
        return fabric.with_links(links.replace(order, count=keep).take(mask))
    extra = count - have
    (ia, la), (ib, lb) = end_a, end_b
    used_a, used_b = used_ports(fabric, ia, la.count), used_ports(fabric, ib, lb.count)
    free_a, free_b = int((~used_a).sum()), int((~used_b).sum())
    for i, lay, free in ((ia, la, free_a), (ib, lb, free_b)):
        if free < extra:
            raise _not_enough(fabric.devices[i], lay, free, extra)
    # first extend the last bundle while the next ports on both ends are free
    last = int(order[-1])
    a_is_ia = int(links.a[last]) == ia
    end_pa = int(links.a_port[last] + links.count[last])
    end_pb = int(links.b_port[last] + links.count[last])
    used_at_a, used_at_b = (used_a, used_b) if a_is_ia else (used_b, used_a)
    grow = 0
    while grow < extra and not used_at_a[end_pa + grow] and not used_at_b[end_pb + grow]:
        grow += 1
    if grow:
        links = links.replace([last], count=int(links.count[last]) + grow)
        extra -= grow
        fabric = fabric.with_links(links)
    if extra:
        runs = _allocate(
            free_runs(used_ports(fabric, ia, la.count)),
            free_runs(used_ports(fabric, ib, lb.count)),
            extra,
        )
        ref = int(order[0])
        new = LinkTable(
            a=[ia] * len(runs),
            a_port=[r[0] for r in runs],
            b=[ib] * len(runs),
            b_port=[r[1] for r in runs],
            count=[r[2] for r in runs],
            speed_gbps=int(links.speed_gbps[ref]),
            medium=int(links.medium[ref]),
            length_m=float(links.length_m[ref]),
        )
        fabric = fabric.with_links(LinkTable.concat([links, new]))
    return fabric


# delete, copy, paste ---------------------------------------------------------------------------
def delete(
    project: Project,
    device_ids: Collection[str] = (),
    pairs: Iterable[tuple[str, str]] = (),
) -> Project:
    """Remove devices (with every link touching them) and the links between device pairs."""
    fabric = project.fabric
    drop_rows: list[np.ndarray] = [pair_rows(fabric, a, b) for a, b in pairs]
    if drop_rows:
        mask = np.ones(len(fabric.links), bool)
        for rows in drop_rows:
            mask[rows] = False
        fabric = fabric.with_links(fabric.links.take(mask))
    ids = set(device_ids)
    if ids:
        for dev_id in ids:
            _index(fabric, dev_id)
        fabric = fabric.remove_devices(ids)
    return project.with_fabric(fabric)


def extract(project: Project, device_ids: Collection[str]) -> Project:
    """A project holding only ``device_ids`` and the links among them (for the clipboard)."""
    fabric = project.fabric
    ids = set(device_ids)
    keep = np.array([d.id in ids for d in fabric.devices], dtype=bool)
    new_index = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int32)
    devices = tuple(d for d, k in zip(fabric.devices, keep, strict=True) if k)
    sub = Fabric(devices=devices, links=fabric.links.remap_devices(new_index))
    return Project(
        name=project.name,
        profile=project.profile,
        overrides=Overrides(gear=project.overrides.gear),
        fabric=sub,
    )


def merge(
    project: Project,
    other: Project,
    dx: float = 0.0,
    dy: float = 0.0,
    id_prefix: str = "",
) -> tuple[Project, list[str]]:
    """``project`` with the devices and links of ``other`` added, shifted by (dx, dy).

    Ids that clash get a ``-2``-style suffix (after ``id_prefix``); gear that ``other``
    carries in its overrides is added. Returns the new project and the new ids in order.
    """
    taken = set(project.fabric.index)
    new_ids: list[str] = []
    devices: list[Device] = []
    for d in other.fabric.devices:
        new_id = unique_id(taken, id_prefix + d.id)
        taken.add(new_id)
        new_ids.append(new_id)
        name = new_id if d.name == d.id else d.name
        devices.append(
            d.model_copy(
                update={"id": new_id, "name": name, "x": _coord(d.x + dx), "y": _coord(d.y + dy)}
            )
        )
    fabric = project.fabric.add(tuple(devices), other.fabric.links)
    gear = {g.id: g for g in project.overrides.gear}
    for g in other.overrides.gear:
        gear.setdefault(g.id, g)
    updates: dict[str, Any] = {"fabric": fabric}
    if len(gear) != len(project.overrides.gear):
        updates["overrides"] = project.overrides.model_copy(update={"gear": tuple(gear.values())})
    return project.model_copy(update=updates), new_ids


def bounds(fabric: Fabric) -> tuple[float, float, float, float] | None:
    """(min x, min y, max x, max y) of the device positions, None for an empty fabric."""
    if not fabric.devices:
        return None
    xs = np.fromiter((d.x for d in fabric.devices), float, len(fabric.devices))
    ys = np.fromiter((d.y for d in fabric.devices), float, len(fabric.devices))
    return float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())
