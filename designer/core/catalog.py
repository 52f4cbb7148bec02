"""The gear catalog: switches, NICs, GPU servers, optics and cables, and gear profiles.

The built-in catalog lives in ``resources/catalog/*.json``. A user catalog file (same format)
adds gear; a project adds its own gear and price overrides on top. Every figure carries its
source and a confidence (H primary source, M secondary, L weak) because prices and latencies
of this gear are not published reliably.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from designer.core.errors import CatalogError, UnknownGear
from designer.core.paths import resources_dir
from designer.core.text import Name, Notes, ShortText, check_name, check_notes

Confidence = Literal["H", "M", "L"]
# Link technology families: two ports can be linked only if they share one.
Tech = Literal["ib-ndr", "ib-xdr", "eth"]
TECH_LABELS: dict[str, str] = {
    "ib-ndr": "InfiniBand NDR",
    "ib-xdr": "InfiniBand XDR",
    "eth": "Ethernet",
}

GearId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]


def _bounded(le: float, gt: float | None = None) -> Any:
    """A figure of gear: a real number (never a string that looks like one), finite, within
    what any real part has, so a typo cannot turn into an infinite total."""
    if gt is not None:
        return Field(gt=gt, le=le, allow_inf_nan=False, strict=True)
    return Field(ge=0, le=le, allow_inf_nan=False, strict=True)


# Upper bounds well past any real part: a price of a billion dollars, a megawatt, a millisecond
# per hop, a 100-unit rack space, 200 km of reach.
Price = Annotated[float, _bounded(1e9)]
Watts = Annotated[float, _bounded(1e6)]
LatencyNs = Annotated[float, _bounded(1e6)]
RackUnits = Annotated[float, _bounded(100)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


# The figures of an item a Figure can vouch for (what the catalog's sources check covers).
Covered = Literal["price_usd", "power_w", "latency_ns", "ports", "other"]


class Figure(_Frozen):
    """Where one figure of a gear item comes from.

    ``covers`` names the item's fields this figure stands behind; ``date`` is when the source
    said it (a price is only as good as its date); ``assumption`` marks a figure no source
    gives, in which case ``what`` carries the reasoning behind the number.
    """

    what: Annotated[str, Field(max_length=2000), AfterValidator(check_name)]
    source: Annotated[str, Field(max_length=2000), AfterValidator(check_notes)]
    confidence: Confidence
    covers: tuple[Covered, ...] = ()
    tech: Tech | None = None  # a latency figure of one technology only
    date: str = Field(default="", pattern=r"^$|^\d{4}(-\d{2}(-\d{2})?)?$")
    assumption: bool = False


class LatencyParts(_Frozen):
    """One end's latency split by where it is spent (ns): the NIC's own pipeline, the host
    side (PCIe doorbell, descriptor and data DMA, completion write) and the protocol stack
    (posting and polling in user-space verbs). Their sum is the mode's per-end latency."""

    nic_ns: LatencyNs
    host_ns: LatencyNs
    stack_ns: LatencyNs

    @property
    def total_ns(self) -> float:
        return self.nic_ns + self.host_ns + self.stack_ns

    def as_dict(self) -> dict[str, float]:
        return {"nic": self.nic_ns, "host_pcie": self.host_ns, "stack": self.stack_ns}


class PortMode(_Frozen):
    """One way of running a device's cages: ``ports`` ports of ``speed_gbps`` each."""

    ports: int = Field(gt=0, le=100_000, strict=True)
    speed_gbps: int = Field(gt=0, le=3200, strict=True)
    techs: tuple[Tech, ...] = Field(min_length=1)
    # NIC latency differs between InfiniBand and RoCE on the same silicon.
    latency_ns: LatencyNs | None = None
    latency_parts: LatencyParts | None = None

    @model_validator(mode="after")
    def _parts_add_up(self) -> PortMode:
        if self.latency_parts is not None:
            total = self.latency_parts.total_ns
            if self.latency_ns is None or abs(total - self.latency_ns) > 0.5:
                raise ValueError(f"latency_parts add up to {total:g} ns, latency_ns is "
                                 f"{self.latency_ns}")
        return self

    @property
    def label(self) -> str:
        return f"{self.ports} x {self.speed_gbps}G"


class _Gear(_Frozen):
    id: GearId
    name: Name
    vendor: ShortText = ""
    price_usd: Price
    power_w: Watts
    rack_units: RackUnits = 0
    figures: tuple[Figure, ...] = Field(default=(), max_length=64)
    notes: Notes = ""

    def figure_for(self, field: str, tech: str | None = None) -> Figure | None:
        """The figure that covers ``field`` (price_usd, power_w, latency_ns), if any; for a
        latency, the one about ``tech`` first, then one about every technology."""
        hits = [f for f in self.figures if field in f.covers]
        for f in hits:
            if tech is not None and f.tech == tech:
                return f
        return next((f for f in hits if f.tech is None), None)


class Ported(_Gear):
    modes: tuple[PortMode, ...] = Field(min_length=1)
    latency_ns: LatencyNs

    def mode(self, speed_gbps: int | None = None) -> PortMode:
        """The port mode running at ``speed_gbps`` (the first mode when None)."""
        if speed_gbps is None:
            return self.modes[0]
        for m in self.modes:
            if m.speed_gbps == speed_gbps:
                return m
        speeds = ", ".join(f"{m.speed_gbps}G" for m in self.modes)
        raise CatalogError(f"{self.id} has no {speed_gbps}G port mode (it has {speeds})")

    def mode_for(self, speed_gbps: int, tech: str) -> PortMode | None:
        for m in self.modes:
            if m.speed_gbps == speed_gbps and tech in m.techs:
                return m
        return None

    def mode_of_tech(self, tech: str) -> PortMode | None:
        """The first mode running ``tech`` with a latency of its own."""
        for m in self.modes:
            if tech in m.techs and m.latency_ns is not None:
                return m
        return None

    def latency_for(self, tech: str | None = None) -> float:
        """Per-hop latency in ns, the mode's own figure for ``tech`` when it has one."""
        for m in self.modes:
            if (tech is None or tech in m.techs) and m.latency_ns is not None:
                return m.latency_ns
        return self.latency_ns

    @property
    def techs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for m in self.modes for t in m.techs))


class SwitchSpec(Ported):
    kind: Literal["switch"] = "switch"
    cages: int = Field(gt=0, le=100_000, strict=True)
    modular: bool = False

    @model_validator(mode="after")
    def _cages_divide_ports(self) -> SwitchSpec:
        for m in self.modes:
            if m.ports % self.cages:
                raise ValueError(f"{m.label} does not split evenly over {self.cages} cages")
        return self

    def ports_per_cage(self, speed_gbps: int | None = None) -> int:
        return self.mode(speed_gbps).ports // self.cages


class NicSpec(Ported):
    kind: Literal["nic"] = "nic"


class ServerSpec(_Gear):
    kind: Literal["server"] = "server"
    gpus: int = Field(ge=0, le=1024, strict=True)  # 0 for appliances such as a UFM
    gpu_model: ShortText = ""
    nic: GearId
    nics: int = Field(gt=0, le=1024, strict=True)
    # NIC cages on the node (None: one cage per NIC port, as on PCIe cards). A DGX H100
    # reaches its 8 ConnectX-7 ports through 4 twin-port OSFP cages; the modules that fit a
    # cage serve as many ports as the cage has.
    cages: int | None = Field(default=None, gt=0, le=4096, strict=True)

    def ports_per_cage(self, ports: int) -> int:
        """NIC ports behind one cage when the server has ``ports`` ports in all."""
        if not self.cages or ports % self.cages:
            return 1
        return ports // self.cages


class MediumSpec(_Gear):
    """A cable, a transceiver or a fibre.

    ``medium_class`` is what a link's medium names (dac, acc, mmf, smf). ``links_per_item``
    is how many port-to-port links one item serves: a twin-port module or cable serves two.
    """

    kind: Literal["transceiver", "cable", "fiber"]
    medium_class: Literal["dac", "acc", "mmf", "smf"]
    techs: tuple[Tech, ...] = Field(min_length=1)
    link_speed_gbps: int = Field(gt=0, le=3200, strict=True)
    links_per_item: int = Field(default=1, ge=1, le=8, strict=True)
    reach_m: Annotated[float, _bounded(200_000, gt=0)]
    # transceivers: the cage they plug into; cables: which two kinds of device they join.
    host: Literal["switch", "nic", "any"] = "any"
    joins: Literal["switch-switch", "switch-nic", "any"] = "any"


GearItem = Annotated[SwitchSpec | NicSpec | ServerSpec | MediumSpec, Field(discriminator="kind")]


class Profile(_Frozen):
    """A gear profile: the defaults a design is generated and converted with."""

    id: GearId
    name: str
    tech: Tech
    description: str = ""
    switch: GearId
    switch_speed_gbps: int
    nic: GearId
    nic_speed_gbps: int
    server: GearId
    planes: int = Field(default=1, ge=1, le=16)
    spine_switch: GearId | None = None
    # how design names mention this profile, the short form first: switching a design's gear
    # renames "..., InfiniBand NDR" to "..., RoCE 400G" (empty: the name alone)
    aliases: tuple[str, ...] = Field(default=(), max_length=16)

    @property
    def short_name(self) -> str:
        return self.aliases[0] if self.aliases else self.name

    def mentions(self) -> tuple[str, ...]:
        """Every way a design name may mention this profile, longest first."""
        return tuple(sorted({self.name, *self.aliases}, key=len, reverse=True))


class CatalogFile(_Frozen):
    schema_version: Literal[1] = 1
    items: tuple[GearItem, ...] = ()
    profiles: tuple[Profile, ...] = ()


@functools.cache
def _file_adapter() -> TypeAdapter:
    """Built on first use: building a validator at import costs every command's start."""
    return TypeAdapter(CatalogFile)

MAX_CATALOG_BYTES = 8 * 1024 * 1024


class Catalog:
    """All gear known to a design, looked up by id. Immutable; derive new ones with ``with_*``."""

    def __init__(self, items: Iterable[GearItem] = (), profiles: Iterable[Profile] = ()) -> None:
        self._items: dict[str, GearItem] = {}
        for item in items:
            self._items[item.id] = item
        self._profiles: dict[str, Profile] = {p.id: p for p in profiles}
        self._check_references()

    def _check_references(self) -> None:
        for item in self._items.values():
            if isinstance(item, ServerSpec):
                self.nic(item.nic)
        for p in self._profiles.values():
            sw = self.switch(p.switch)
            sw.mode(p.switch_speed_gbps)
            self.nic(p.nic).mode(p.nic_speed_gbps)
            self.server(p.server)
            if p.spine_switch:
                self.switch(p.spine_switch)

    # lookups -----------------------------------------------------------------------------
    def __contains__(self, gear_id: object) -> bool:
        return gear_id in self._items

    def __iter__(self) -> Iterator[GearItem]:
        return iter(self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def ids(self) -> list[str]:
        return list(self._items)

    def get(self, gear_id: str, where: str = "") -> GearItem:
        try:
            return self._items[gear_id]
        except KeyError:
            raise UnknownGear(gear_id, where, list(self._items)) from None

    def _typed(self, gear_id: str, cls: type, label: str, where: str):
        item = self.get(gear_id, where)
        if not isinstance(item, cls):
            raise CatalogError(f"'{gear_id}' is a {item.kind}, not a {label}")
        return item

    def switch(self, gear_id: str, where: str = "") -> SwitchSpec:
        return self._typed(gear_id, SwitchSpec, "switch", where)

    def nic(self, gear_id: str, where: str = "") -> NicSpec:
        return self._typed(gear_id, NicSpec, "NIC", where)

    def server(self, gear_id: str, where: str = "") -> ServerSpec:
        return self._typed(gear_id, ServerSpec, "GPU server", where)

    def of_kind(self, *kinds: str) -> list[GearItem]:
        return [i for i in self._items.values() if i.kind in kinds]

    @property
    def profiles(self) -> dict[str, Profile]:
        return dict(self._profiles)

    def profile(self, profile_id: str) -> Profile:
        try:
            return self._profiles[profile_id]
        except KeyError:
            known = ", ".join(self._profiles)
            raise CatalogError(f"unknown gear profile '{profile_id}' (known: {known})") from None

    def price(self, gear_id: str) -> float:
        return self.get(gear_id).price_usd

    # derivation --------------------------------------------------------------------------
    def with_items(self, items: Iterable[GearItem]) -> Catalog:
        merged = dict(self._items)
        for item in items:
            merged[item.id] = item
        return Catalog(merged.values(), self._profiles.values())

    def with_prices(self, prices: dict[str, float]) -> Catalog:
        merged = dict(self._items)
        for gear_id, price in prices.items():
            merged[gear_id] = self.get(gear_id, "price override").model_copy(
                update={"price_usd": float(price)}
            )
        return Catalog(merged.values(), self._profiles.values())


def parse_catalog_bytes(data: bytes, source: str) -> CatalogFile:
    if len(data) > MAX_CATALOG_BYTES:
        raise CatalogError(f"{source}: {len(data):,} bytes is too large for a catalog file")
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise CatalogError(f"{source}: not valid JSON ({exc})") from None
    try:
        return _file_adapter().validate_python(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise CatalogError(f"{source}: {loc}: {first['msg']}") from None


def read_catalog_file(path: Path) -> CatalogFile:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CatalogError(f"cannot read catalog file {path}: {exc.strerror}") from None
    return parse_catalog_bytes(data, str(path))


USER_CATALOG_ENV = "FABRIC_DESIGNER_CATALOG"


def user_catalog_path() -> Path | None:
    """The user catalog: ``$FABRIC_DESIGNER_CATALOG``, else ``~/.config/fabric-designer``."""
    env = os.environ.get(USER_CATALOG_ENV)
    if env:
        return Path(env)
    default = Path.home() / ".config" / "fabric-designer" / "catalog.json"
    return default if default.is_file() else None


@functools.cache
def builtin_catalog() -> Catalog:
    items: list[GearItem] = []
    profiles: list[Profile] = []
    folder = resources_dir() / "catalog"
    files = sorted(folder.glob("*.json"))
    if not files:
        raise CatalogError(f"no catalog files found in {folder}")
    for path in files:
        f = read_catalog_file(path)
        items.extend(f.items)
        profiles.extend(f.profiles)
    try:
        return Catalog(items, profiles)
    except UnknownGear as exc:
        raise CatalogError(f"built-in catalog: {exc}") from None


def load_catalog(user_file: Path | None = None) -> Catalog:
    """The built-in catalog plus the user's catalog file, when there is one."""
    base = builtin_catalog()
    path = user_file if user_file is not None else user_catalog_path()
    if path is None:
        return base
    extra = read_catalog_file(path)
    try:
        merged = base.with_items(extra.items)
        if extra.profiles:
            merged = Catalog(list(merged), [*base.profiles.values(), *extra.profiles])
        return merged
    except UnknownGear as exc:
        raise CatalogError(f"{path}: {exc}") from None
