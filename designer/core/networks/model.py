"""The saved form of an extra network: switches, storage nodes and links as columns.

Links name their ends by device id: a switch of this network, a storage node of it, or a
device of the back-end fabric (a GPU server, or a switch for the management network). Ports
are numbered within the network (a server's front-end port 0 and its storage port 0 are
different ports of different networks).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from designer.core.catalog import GearId

NetworkKind = Literal["frontend", "storage", "oob"]
Tier = Literal["leaf", "spine", "access", "storage-node"]
# the back-end's device id pattern (model.DeviceId), repeated: the model imports this module
NetDeviceId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/+-]{0,119}$")]
Port = Annotated[int, Field(ge=0, le=100_000, strict=True)]
MAX_NET_DEVICES = 200_000
MAX_NET_LINKS = 2_000_000


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class NetDevice(_Frozen):
    """A switch or a storage node of an extra network. ``group`` is its rack group or leaf
    pair, for drawing; ``x`` its place along the network's row on the canvas."""

    id: NetDeviceId
    model: GearId
    tier: Tier
    group: int = Field(default=0, ge=0, le=1_000_000, strict=True)


class NetLinks(_Frozen):
    """One row per link: the two ends, the line rate, the cable and the optic at each end
    ("" for a copper cable that needs none)."""

    a: tuple[NetDeviceId, ...] = Field(default=(), max_length=MAX_NET_LINKS)
    a_port: tuple[Port, ...] = Field(default=(), max_length=MAX_NET_LINKS)
    b: tuple[NetDeviceId, ...] = Field(default=(), max_length=MAX_NET_LINKS)
    b_port: tuple[Port, ...] = Field(default=(), max_length=MAX_NET_LINKS)
    gbps: tuple[Annotated[int, Field(gt=0, le=3200, strict=True)], ...] = Field(
        default=(), max_length=MAX_NET_LINKS)
    cable: tuple[GearId, ...] = Field(default=(), max_length=MAX_NET_LINKS)
    optic: tuple[GearId | Literal[""], ...] = Field(default=(), max_length=MAX_NET_LINKS)

    @model_validator(mode="after")
    def _columns_agree(self) -> NetLinks:
        n = len(self.a)
        for name in ("a_port", "b", "b_port", "gbps", "cable", "optic"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"link column '{name}' has {len(getattr(self, name))} rows, "
                                 f"'a' has {n}")
        seen: set[tuple[str, int]] = set()
        for end in zip(self.a, self.a_port, strict=True), zip(self.b, self.b_port, strict=True):
            for dev, port in end:
                if (dev, port) in seen:
                    raise ValueError(f"port {port} of '{dev}' is used by two links")
                seen.add((dev, port))
        return self

    def __len__(self) -> int:
        return len(self.a)


class Network(_Frozen):
    """One extra network: what it was generated from and what it holds."""

    kind: NetworkKind
    params: dict[str, JsonValue] = Field(default_factory=dict, max_length=64)
    devices: tuple[NetDevice, ...] = Field(default=(), max_length=MAX_NET_DEVICES)
    links: NetLinks = Field(default_factory=NetLinks)

    @model_validator(mode="after")
    def _ids_unique(self) -> Network:
        ids = [d.id for d in self.devices]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise ValueError(f"device id '{dup}' appears twice")
        return self


Networks = dict[NetworkKind, Network]


def check_network_ends(networks: Networks, backend_ids: set[str]) -> None:
    """Device ids are unique across the back-end and every network; every link end is one of
    them (the management network reaches the other networks' switches) (ValueError naming
    the first that fails)."""
    known = set(backend_ids)
    for kind, net in networks.items():
        own = {d.id for d in net.devices}
        clash = own & known
        if clash:
            raise ValueError(f"networks.{kind}: device id '{sorted(clash)[0]}' is used twice "
                             "in the design")
        known |= own
        if kind != "storage" and any(d.tier == "storage-node" for d in net.devices):
            raise ValueError(f"networks.{kind}: storage nodes belong to the storage network")
    for kind, net in networks.items():
        for col in (net.links.a, net.links.b):
            stray = set(col) - known
            if stray:
                raise ValueError(f"networks.{kind}: a link ends at '{sorted(stray)[0]}', "
                                 "which is no device of the design")


def prune_networks(networks: Networks, backend_ids: set[str]) -> Networks:
    """``networks`` without the links whose back-end end is gone (a server deleted on the
    canvas), so an edited design still saves and loads."""
    known = set(backend_ids)
    for net in networks.values():
        known |= {d.id for d in net.devices}
    out: Networks = {}
    for kind, net in networks.items():
        lk = net.links
        keep = [i for i, (a, b) in enumerate(zip(lk.a, lk.b, strict=True))
                if a in known and b in known]
        if len(keep) == len(lk):
            out[kind] = net
            continue
        cols = {name: tuple(getattr(lk, name)[i] for i in keep)
                for name in ("a", "a_port", "b", "b_port", "gbps", "cable", "optic")}
        out[kind] = net.model_copy(update={"links": NetLinks.model_construct(**cols)})
    return out
