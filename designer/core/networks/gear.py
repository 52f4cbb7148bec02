"""Gear of the extra networks: the management switches, optics, cables and storage nodes in
``resources/catalog/networks/`` plus any switch of the main catalog (an SN5600 leaf), and
each server's front-end, storage and management ports.

Servers' front-end ports follow the reference architectures: two ports on two switches for
redundancy (NVIDIA's HGX Enterprise RA: "two 200 GbE ports to two separate switches"; its
B300 edition two 400 GbE), one port of each of the two dual-port BlueField-3 DPUs a DGX
carries (DGX SuperPOD B200 RA: "2x dual-port QSFP112 NVIDIA BlueField-3 DPU"), the other port
of each to storage; one BMC port to the out-of-band network.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from designer.core.catalog import Catalog, SwitchSpec
from designer.core.catalog_items import GearBase
from designer.core.errors import CatalogError, GeneratorError
from designer.core.paths import resources_dir


class NetGear(GearBase):
    kind: Literal["switch", "optic", "cable", "storage-node"]
    ports: int = Field(default=0, ge=0, le=4096, strict=True)
    port_gbps: int = Field(default=0, ge=0, le=3200, strict=True)
    uplinks: int = Field(default=0, ge=0, le=64, strict=True)
    uplink_gbps: int = Field(default=0, ge=0, le=3200, strict=True)
    read_gbytes_s: float = Field(default=0.0, ge=0, le=1e6)


class ServerPorts(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    frontend_ports: int = Field(ge=0, le=64, strict=True)
    frontend_gbps: int = Field(gt=0, le=3200, strict=True)
    storage_ports: int = Field(ge=0, le=64, strict=True)
    storage_gbps: int = Field(gt=0, le=3200, strict=True)
    oob_ports: int = Field(ge=0, le=8, strict=True)


class _GearFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    schema_version: Annotated[int, Field(ge=1, le=1)]
    items: tuple[NetGear, ...]
    servers: dict[str, ServerPorts]
    default_server: ServerPorts


@dataclass(frozen=True)
class Part:
    """What a BOM line needs of an item, wherever it comes from."""

    id: str
    name: str
    vendor: str
    part_number: str
    part_source: str
    price_usd: float
    power_w: float
    rack_units: float
    ports: int = 0
    port_gbps: int = 0
    uplinks: int = 0
    uplink_gbps: int = 0
    read_gbytes_s: float = 0.0
    price_kind: str = "catalog"
    price_source: str = ""
    price_date: str = ""


def _price_origin(g: GearBase) -> dict[str, str]:
    """Where an item's price comes from, as the BOM's price columns say it."""
    f = g.figure_for("price_usd")
    if f is None:
        return {"price_kind": "assumption"}
    return {"price_kind": "assumption" if f.assumption else "catalog",
            "price_source": f.source, "price_date": f.date}


@functools.cache
def _gear_file() -> _GearFile:
    path = resources_dir() / "catalog" / "networks" / "network-gear.json"
    try:
        return _GearFile.model_validate(orjson.loads(path.read_bytes()))
    except (OSError, orjson.JSONDecodeError, ValidationError) as exc:
        raise CatalogError(f"{path.name}: {str(exc).splitlines()[0]}") from None


def network_items() -> dict[str, NetGear]:
    return {g.id: g for g in _gear_file().items}


def server_ports(model: str) -> ServerPorts:
    f = _gear_file()
    return f.servers.get(model, f.default_server)


def part(gear_id: str, catalog: Catalog, speed_gbps: int | None = None) -> Part:
    """The item ``gear_id``: a network item, else a switch of the main catalog (its port
    mode at ``speed_gbps``, or its first)."""
    own = network_items().get(gear_id)
    if own is not None:
        return Part(own.id, own.name, own.vendor, own.part_number, own.part_number_source(),
                    own.price_usd, own.power_w, own.rack_units, own.ports, own.port_gbps,
                    own.uplinks, own.uplink_gbps, own.read_gbytes_s, **_price_origin(own))
    try:
        g = catalog.get(gear_id)
    except CatalogError:
        known = ", ".join(sorted(network_items()))
        raise GeneratorError(f"unknown network gear '{gear_id}' (network items: {known}; or "
                             "a switch of the catalog)") from None
    if not isinstance(g, SwitchSpec):
        raise GeneratorError(f"'{gear_id}' is no switch")
    m = g.mode(speed_gbps) if speed_gbps and any(
        x.speed_gbps == speed_gbps for x in g.modes) else g.modes[0]
    return Part(g.id, g.name, g.vendor, g.part_number, g.part_number_source(), g.price_usd,
                g.power_w, g.rack_units, m.ports, m.speed_gbps, **_price_origin(g))
