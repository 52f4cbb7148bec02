"""The gear catalog: switches, NICs, GPU servers, optics and cables, and gear profiles.

The built-in catalog lives in ``resources/catalog/*.json``. A user catalog file (same format)
adds gear; a project adds its own gear and price overrides on top. Every figure carries its
source and a confidence (H primary source, M secondary, L weak) because prices and latencies
of this gear are not published reliably. The item models are in ``catalog_items``.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from designer.core.catalog_items import (
    NOT_KNOWN,
    TECH_LABELS,
    Confidence,
    CoolingSpec,
    Covered,
    Figure,
    GearBase,
    GearId,
    GearItem,
    LaserSpec,
    LatencyNs,
    LatencyParts,
    MediumSpec,
    NicSpec,
    Ported,
    PortMode,
    Price,
    Profile,
    RackUnits,
    ScaleUp,
    ScaleUpSwitchSpec,
    ServerSpec,
    SwitchSpec,
    Tech,
    Watts,
)
from designer.core.errors import CatalogError, UnknownGear
from designer.core.paths import resources_dir
from designer.core.safe_io import FileRefused, read_bytes

__all__ = [
    "NOT_KNOWN", "TECH_LABELS", "Catalog", "CatalogFile", "Confidence", "CoolingSpec",
    "Covered", "Figure",
    "GearBase", "GearId", "GearItem", "LaserSpec", "LatencyNs", "LatencyParts", "MediumSpec",
    "NicSpec",
    "PortMode", "Ported", "Price", "Profile", "RackUnits", "ScaleUp", "ScaleUpSwitchSpec",
    "ServerSpec", "SwitchSpec", "Tech", "Watts", "builtin_catalog", "load_catalog",
    "parse_catalog_bytes", "read_catalog_file", "user_catalog_path",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


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
                tray = item.scale_up.switch_tray if item.scale_up else None
                if tray is not None:
                    self._typed(tray, ScaleUpSwitchSpec, "scale-up switch tray",
                                f"scale-up switch tray of '{item.id}'")
            if isinstance(item, SwitchSpec) and item.laser_module:
                self._typed(item.laser_module, LaserSpec, "laser module",
                            f"laser module of '{item.id}'")
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

    def scale_up_switch(self, gear_id: str, where: str = "") -> ScaleUpSwitchSpec:
        return self._typed(gear_id, ScaleUpSwitchSpec, "scale-up switch tray", where)

    def laser(self, gear_id: str, where: str = "") -> LaserSpec:
        return self._typed(gear_id, LaserSpec, "laser module", where)

    def cdu(self, gear_id: str, where: str = "") -> CoolingSpec:
        return self._typed(gear_id, CoolingSpec, "coolant distribution unit", where)

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
        data = read_bytes(path, limit=MAX_CATALOG_BYTES, what="catalog file")
    except FileRefused as exc:
        raise CatalogError(str(exc)) from None
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
