"""The design: a Project holds settings, gear choices and a Fabric of devices and links.

Models are frozen; edits build new objects (``model_copy``), so a snapshot handed to the solver
never changes under it. Devices are pydantic objects (tens of thousands validate in a fraction
of a second); links are columns in a ``LinkTable``.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

from designer.core.address_ranges import AddressRanges
from designer.core.analysis.workload import DecisionSettings
from designer.core.catalog import Catalog, GearId, GearItem, Price
from designer.core.limits import MAX_CABLES, MAX_DEVICES, MAX_GROUP_LABEL, MAX_LINK_ROWS
from designer.core.links import LinkTable
from designer.core.networks.model import (
    Network,
    NetworkKind,
    check_network_ends,
    prune_networks,
)
from designer.core.physical.floor import Physical
from designer.core.sources.apply import apply_sources
from designer.core.sources.model import Sources
from designer.core.text import Name, Notes
from designer.core.transport.profiles import TRANSPORT_IDS

# 2: optional sections for the decision analysis, traffic, floor plan, measured latencies and
# price books; a version-1 file has none of them and takes their defaults.
SCHEMA_VERSION = 2


class Role(StrEnum):
    GPU_SERVER = "gpu-server"
    LEAF = "leaf"
    SPINE = "spine"
    CORE = "core"
    ROUTER = "router"
    APPLIANCE = "appliance"

    @property
    def is_switch(self) -> bool:
        return self in SWITCH_ROLES

    @property
    def label(self) -> str:
        return ROLE_LABELS[self]


SWITCH_ROLES = frozenset({Role.LEAF, Role.SPINE, Role.CORE, Role.ROUTER})
ENDPOINT_ROLES = frozenset({Role.GPU_SERVER, Role.APPLIANCE})
ROLE_LABELS = {
    Role.GPU_SERVER: "GPU server",
    Role.LEAF: "Leaf",
    Role.SPINE: "Spine",
    Role.CORE: "Core",
    Role.ROUTER: "Router",
    Role.APPLIANCE: "Appliance",
}
# Fill and outline colour of each role, shared by the canvas and the exported diagrams so a
# design reads the same everywhere (plain hex: the core knows no Qt).
ROLE_COLORS: dict[str, tuple[str, str]] = {
    Role.GPU_SERVER.value: ("#FFFFFF", "#6B7787"),
    Role.APPLIANCE.value: ("#FBF6E6", "#9A8433"),
    Role.LEAF.value: ("#E3EFFB", "#2D6DA3"),
    Role.SPINE.value: ("#EBE7FA", "#5A4AA6"),
    Role.CORE.value: ("#F9E6EE", "#A33A67"),
    Role.ROUTER.value: ("#E2F4EC", "#2B7A57"),
}
# Switch tiers counted from the endpoints up; routers of a dragonfly are one flat tier.
TIER_OF_ROLE = {Role.LEAF: 1, Role.SPINE: 2, Role.CORE: 3, Role.ROUTER: 1}

# Group labels a generator may put on a device; the canvas collapses by these.
GROUP_KEYS = ("plane", "pod", "su", "group", "rail", "domain")

DeviceId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/+-]{0,119}$")]
Coordinate = Annotated[float, Field(allow_inf_nan=False, ge=-1e9, le=1e9, strict=True)]
GroupLabel = Annotated[int, Field(ge=0, le=MAX_GROUP_LABEL, strict=True)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Device(_Frozen):
    """A GPU server, switch, router or appliance placed on the canvas."""

    id: DeviceId
    name: Name
    model: GearId
    role: Role
    groups: dict[Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,31}$")], GroupLabel] = Field(
        default_factory=dict, max_length=16
    )
    x: Coordinate = 0.0
    y: Coordinate = 0.0
    # The port mode, by its speed (an SN5600 runs 64 x 800G or 128 x 400G); None: the first.
    port_speed_gbps: int | None = Field(default=None, gt=0, le=3200, strict=True)
    # Servers only: the NIC model and count when they differ from the server's catalog entry.
    nic: GearId | None = None
    nics: int | None = Field(default=None, gt=0, le=1024, strict=True)

    @classmethod
    def block(
        cls,
        ids: Sequence[str],
        groups: Sequence[dict[str, int]],
        x: np.ndarray,
        y: np.ndarray,
        *,
        model: str,
        role: Role,
        **fixed: Any,
    ) -> list[Device]:
        """Devices a generator made alike in all but id (also their name), groups and place.

        The first device, and the first of every other set of group keys, is validated in
        full; places and group labels are checked as columns; the rest are built as
        validation would lay them out, without its per-device cost (about 20 us each: at
        131,040 GPUs in NVL72 trays, 37,752 devices took longer than generating a whole
        design of 8-GPU servers). Ids come from the generator's own format strings, so the
        first one checked stands for all. Devices may share a groups dict (the trays of one
        rack): a device's fields are never changed in place (a copy that changes them gets
        new ones), and pydantic's own copies share them too."""
        n = len(ids)
        if not (len(groups) == len(x) == len(y) == n):
            raise ValueError("device columns of different lengths")
        if n == 0:
            return []
        xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        for col in (xs, ys):
            if not np.isfinite(col).all() or (np.abs(col) > 1e9).any():
                raise ValueError("a device's place is not a finite coordinate within 1e9")
        unknown = set(fixed) - _BLOCK_FIXED
        if unknown:
            raise ValueError(f"not a per-block device field: {', '.join(sorted(unknown))}")
        first = cls.model_validate({"id": ids[0], "name": ids[0], "model": model,
                                    "role": role, "groups": groups[0], "x": float(xs[0]),
                                    "y": float(ys[0]), **fixed})
        shapes = {tuple(groups[0])}
        for k, keys in enumerate(map(tuple, groups)):
            if keys not in shapes:
                shapes.add(keys)
                cls.model_validate({"id": ids[k], "name": ids[k], "model": model,
                                    "role": role, "groups": groups[k], "x": float(xs[k]),
                                    "y": float(ys[k]), **fixed})
        # labels: every distinct dict (a rack's trays share one), in range and of type int
        for g in dict(zip(map(id, groups), groups, strict=True)).values():
            for v in g.values():
                if type(v) is not int or not 0 <= v <= MAX_GROUP_LABEL:
                    raise ValueError(f"group label {v!r} is not a whole number from 0 to "
                                     f"{MAX_GROUP_LABEL:,}")
        # one set of field names for the block: pydantic copies it before any change
        # (model_copy), so sharing it is safe and spares a tracked object per device
        fields_set = first.__pydantic_fields_set__
        role_v = first.role
        speed, nic, nics = (fixed.get("port_speed_gbps"), fixed.get("nic"), fixed.get("nics"))
        new = object.__new__
        # the slots' own setters: a third of object.__setattr__'s cost
        set_dict, set_fields, set_extra, set_private = _SLOT_SETTERS
        out = [first]
        append = out.append
        for i, g, xv, yv in zip(ids[1:], groups[1:], xs[1:].tolist(), ys[1:].tolist(),
                                strict=True):
            d = new(cls)
            # the fields in the model's order (checked below the class): a file's bytes
            # must not depend on how a device was built
            set_dict(d, {"id": i, "name": i, "model": model, "role": role_v, "groups": g,
                         "x": xv, "y": yv, "port_speed_gbps": speed, "nic": nic, "nics": nics})
            set_fields(d, fields_set)
            set_extra(d, None)
            set_private(d, None)
            append(d)
        return out


_BLOCK_FIXED = frozenset({"port_speed_gbps", "nic", "nics"})
_SLOT_SETTERS = tuple(BaseModel.__dict__[slot].__set__ for slot in (
    "__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))
if list(Device.model_fields) != ["id", "name", "model", "role", "groups", "x", "y",
                                 "port_speed_gbps", "nic", "nics"]:
    raise RuntimeError("Device.block lays out fields in an order the model no longer has")

_DEVICE_ID = operator.attrgetter("id")
_DEVICE_GROUPS = operator.attrgetter("groups")
_DEVICE_ROLE = operator.attrgetter("role")
_ROLE_VALUE = {r: r.value for r in Role}


class Fabric(_Frozen):
    """Devices and the link bundles between their ports."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True,
                              defer_build=True)

    devices: tuple[Device, ...] = Field(default=(), max_length=MAX_DEVICES)
    links: LinkTable = Field(default_factory=LinkTable.empty)

    @model_validator(mode="after")
    def _check_references(self) -> Fabric:
        ids = list(map(_DEVICE_ID, self.devices))
        if len(set(ids)) != len(ids):
            seen: set[str] = set()
            dup = next(i for i in ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
            raise ValueError(f"device id '{dup}' is used twice")
        check_link_table(self.links, len(self.devices), ids)
        return self

    def __eq__(self, other: object) -> bool:
        # the fields only: pydantic compares whole __dict__s first, which hold the cached
        # numpy columns below, and an array compared with another has no single truth value
        if not isinstance(other, Fabric):
            return NotImplemented
        return self.devices == other.devices and self.links == other.links

    __hash__ = None  # type: ignore[assignment]  # devices hold dicts: never hashable

    @functools.cached_property
    def index(self) -> dict[str, int]:
        """Device id -> position in ``devices``."""
        # C-level map and zip: a 37,752-device fabric makes a new index on every delete
        return dict(zip(map(_DEVICE_ID, self.devices), itertools.count()))

    @functools.cached_property
    def group_dicts(self) -> list[dict[str, int]]:
        """Every device's group labels, in device order (the devices' own dicts: read only)."""
        return list(map(_DEVICE_GROUPS, self.devices))

    @functools.cached_property
    def group_keys(self) -> frozenset[str]:
        """Every group key some device carries."""
        return frozenset().union(*self.group_dicts)

    @functools.cached_property
    def label_columns(self) -> dict[tuple[str, int], np.ndarray]:
        """Columns made by ``group_label``, kept with the fabric (a snapshot never changes)."""
        return {}

    def group_label(self, key: str, missing: int = 0) -> np.ndarray:
        """Each device's label for ``key`` (``missing`` where it has none): a read-only int64
        column, made once per fabric with C-level maps, not a Python call per device."""
        col = self.label_columns.get((key, missing))
        if col is None:
            col = np.fromiter(map(dict.get, self.group_dicts, itertools.repeat(key),
                                  itertools.repeat(missing)), np.int64, len(self.devices))
            col.flags.writeable = False
            self.label_columns[(key, missing)] = col
        return col

    def device(self, device_id: str) -> Device:
        return self.devices[self.index[device_id]]

    @functools.cached_property
    def roles(self) -> np.ndarray:
        """Role of every device as an array of strings, for vectorised masks."""
        values = map(_ROLE_VALUE.__getitem__, map(_DEVICE_ROLE, self.devices))
        return np.array(list(values), dtype=object)

    def with_devices(self, devices: tuple[Device, ...]) -> Fabric:
        return Fabric(devices=devices, links=self.links)

    def with_links(self, links: LinkTable) -> Fabric:
        return Fabric(devices=self.devices, links=links)

    def remove_devices(self, device_ids: set[str]) -> Fabric:
        """Drop devices and every link that touches them."""
        # a delete removes a few of tens of thousands of devices: find them by the id index
        # and keep the rest with C-level calls, not a Python test per device
        index = self.index
        keep = np.ones(len(self.devices), dtype=bool)
        keep[[index[i] for i in device_ids if i in index]] = False
        new_index = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int32)
        keep_list = keep.tolist()
        devices = tuple(itertools.compress(self.devices, keep_list))
        # What is left of a valid fabric is valid: ids stay unique, the renumbering drops
        # every link to a removed device, and a subset of the links reuses no port, makes no
        # loop and holds no more than the whole. So the delta needs no second validation (at
        # 13,312 devices and 196,608 links that validation is most of a delete's time).
        out = Fabric.model_construct(devices=devices, links=self.links.remap_devices(new_index))
        if "roles" in self.__dict__:  # cached: the survivors' roles, without a Python loop
            out.__dict__["roles"] = self.roles[keep]
        # the survivors' ids in order are the index's keys, kept: a new index in C calls
        out.__dict__["index"] = dict(zip(itertools.compress(index, keep_list),
                                         itertools.count()))
        return out

    def add(self, devices: tuple[Device, ...], links: LinkTable | None = None) -> Fabric:
        """Append devices, and links whose device indices count from the current end."""
        base = len(self.devices)
        extra = links if links is not None else LinkTable.empty()
        if len(extra):
            shift = np.full(base + len(devices), -1, dtype=np.int32)
            shift[: len(devices)] = np.arange(base, base + len(devices))
            extra = extra.remap_devices(shift)
        return Fabric(
            devices=self.devices + tuple(devices),
            links=LinkTable.concat([self.links, extra]),
        )


def check_link_table(links: LinkTable, n_devices: int, ids: list[str] | None = None) -> None:
    """Links must name existing devices, never join a device to itself, use each port once."""
    if not len(links):
        return
    for col in (links.a, links.b):
        bad = np.flatnonzero(col >= n_devices)
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"link {i} refers to device #{int(col[i])}, but the fabric has {n_devices} devices"
            )
    loops = np.flatnonzero(links.a == links.b)
    if loops.size:
        i = int(loops[0])
        name = ids[int(links.a[i])] if ids else f"#{int(links.a[i])}"
        raise ValueError(f"link {i} joins device '{name}' to itself")
    if len(links) > MAX_LINK_ROWS:
        raise ValueError(f"{len(links):,} link bundles; a design holds at most {MAX_LINK_ROWS:,}")
    cables = links.n_cables
    if cables > MAX_CABLES:
        raise ValueError(f"the links hold {cables:,} cables; a design holds at most "
                         f"{MAX_CABLES:,}")
    first = np.concatenate([links.a_port, links.b_port]).astype(np.int64)
    count = np.concatenate([links.count, links.count]).astype(np.int64)
    last_port = first + count - 1
    if (last_port > 1_000_000).any():
        raise ValueError("a link bundle runs past port 1,000,000")
    # A device whose bundles hold more cables than the highest port they reach uses some port
    # twice; found by counting, before the bundles are spread into one entry per cable.
    ends = np.concatenate([links.a, links.b]).astype(np.int64)
    held = np.bincount(ends, weights=count, minlength=n_devices)
    reach = np.zeros(n_devices, np.int64)
    np.maximum.at(reach, ends, last_port)
    crowded = np.flatnonzero(held > reach)
    if crowded.size:
        d = int(crowded[0])
        name = ids[d] if ids else f"#{d}"
        raise ValueError(
            f"device '{name}' has {int(held[d]):,} cables on ports 1..{int(reach[d]):,}: "
            "a port is used by more than one link"
        )
    dev, port = links.port_ends()
    key = (dev << 32) | port
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    dup = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if dup.size:
        k = int(sorted_key[dup[0]])
        d, p = k >> 32, k & 0xFFFFFFFF
        name = ids[d] if ids else f"#{d}"
        raise ValueError(f"port {p} of device '{name}' is used by more than one link")


class GeneratorSpec(_Frozen):
    """How a fabric was generated, so it can be generated again with other gear."""

    kind: str = Field(pattern=r"^[a-z][a-z0-9-]{0,31}$")
    params: dict[str, JsonValue] = Field(default_factory=dict, max_length=64)


class Overrides(_Frozen):
    """The project's own catalog additions and price overrides (saved with the project)."""

    prices: dict[GearId, Price] = Field(
        default_factory=dict, max_length=10_000
    )
    gear: tuple[GearItem, ...] = Field(default=(), max_length=10_000)


DEFAULT_LENGTHS_M = {
    "endpoint-leaf": 10.0,
    "leaf-spine": 30.0,
    "spine-core": 50.0,
    "endpoint-router": 3.0,
    "local": 5.0,
    "global": 40.0,
    "other": 20.0,
}


class AnalysisSettings(_Frozen):
    """Assumptions of the solver that the user may edit."""

    # A small message by default (one 4 KiB MTU), so latency shows the fabric, not the
    # serialisation of a bulk transfer; users raise it to see a collective's chunk.
    message_bytes: int = Field(default=4096, ge=1, le=1 << 40, strict=True)
    propagation_ns_per_m: float = Field(default=5.0, ge=0, le=100, strict=True)
    default_length_m: dict[str, Annotated[float, Field(ge=0, le=100_000, strict=True)]] = Field(
        default_factory=lambda: dict(DEFAULT_LENGTHS_M), max_length=32
    )

    def length_for(self, layer: str) -> float:
        return self.default_length_m.get(layer, self.default_length_m.get("other", 20.0))


class Project(_Frozen):
    """Everything a user saves: name, notes, gear profile, overrides, fabric, generator."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True,
                              defer_build=True)

    schema_version: int = SCHEMA_VERSION
    name: Name = "Untitled fabric"
    notes: Notes = ""
    profile: str = Field(default="ib-ndr", pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")
    # the transport chosen for this design (core/transport); None: its gear profile's. Files
    # written before transports had no such key and read as None.
    transport: str | None = None
    overrides: Overrides = Field(default_factory=Overrides)
    fabric: Fabric = Field(default_factory=Fabric)
    generator: GeneratorSpec | None = None
    analysis: AnalysisSettings = Field(default_factory=AnalysisSettings)
    # Canvas state the GUI keeps with the design (collapsed groups, ...). Free-form.
    view: dict[str, JsonValue] = Field(default_factory=dict, max_length=64)
    # Racks, rows and where each device sits; the optional BOM lines (None: not planned).
    physical: Physical | None = None
    # The workload, economics and decision answers of the decision analysis (None: defaults).
    decision: DecisionSettings | None = None
    # Price books and measured latencies that override the catalog for this project.
    sources: Sources = Field(default_factory=Sources)
    # Address ranges and ASN base of an Ethernet design's underlay (None: the defaults).
    addressing: AddressRanges | None = None
    # The cluster's other networks (front-end, storage, out-of-band), each generated from the
    # back-end's servers; None: the back-end alone (files written before have no such key and
    # are saved without one).
    networks: dict[NetworkKind, Network] | None = None

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, v: int) -> int:
        if v != SCHEMA_VERSION:
            raise ValueError(f"schema_version must be {SCHEMA_VERSION} after migration, got {v}")
        return v

    @field_validator("transport")
    @classmethod
    def _known_transport(cls, v: str | None) -> str | None:
        if v is not None and v not in TRANSPORT_IDS:
            raise ValueError(f"unknown transport '{v}' (known: {', '.join(TRANSPORT_IDS)})")
        return v

    @model_validator(mode="after")
    def _network_ends_known(self) -> Project:
        if self.networks:
            check_network_ends(self.networks, {d.id for d in self.fabric.devices})
        return self

    def catalog(self, base: Catalog) -> Catalog:
        """``base`` with this project's added gear and price overrides applied."""
        cat = base.with_items(self.overrides.gear) if self.overrides.gear else base
        if not self.sources.empty:
            cat = apply_sources(cat, self.sources, self.profile,
                                self.analysis.propagation_ns_per_m)
        prices = self.overrides.prices
        if prices and self.networks:
            # the other networks' own gear (management switches, their optics, storage
            # nodes) is priced by their solve from these same overrides, not in this catalog
            from designer.core.networks.gear import network_items

            own = network_items()
            prices = {k: v for k, v in prices.items() if k in cat or k not in own}
        return cat.with_prices(prices) if prices else cat

    def with_fabric(self, fabric: Fabric) -> Project:
        update: dict[str, Any] = {"fabric": fabric}
        if self.networks:
            # the other networks lose their links to back-end devices that are gone
            update["networks"] = prune_networks(self.networks, {d.id for d in fabric.devices})
        return self.model_copy(update=update)

    def evolve(self, **changes: Any) -> Project:
        """A copy with ``changes``, validated like a fresh project."""
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(changes)
        return Project(**data)
