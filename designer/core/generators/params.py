"""Parameters of the generators, shared by the command line and the generate dialogs."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

GEAR_PROFILES = ("ib-ndr", "ib-xdr", "roce-400", "roce-800", "gb200-ib-ndr", "gb300-ib-xdr",
                 "gb300-spectrum-x", "vr-ib-xdr", "vr-spectrum-x", "amd-roce-400",
                 "spectrum-x-800", "uec-800", "mv-roce-400")


class Ratio(BaseModel):
    """An oversubscription ``down:up``, such as 1:1, 7:1 or 2.8:1 (decimals as designs write
    them: Meta's Llama 3 cluster runs its cross-zone tier at 1:2.8, i.e. 2.8:1 down:up). A tier
    may also have more uplink than downlink, 1:2: Meta doubled its rack switches' uplinks
    against ECMP collisions (Gangidi et al., SIGCOMM 2024, section 5)."""

    model_config = ConfigDict(frozen=True, defer_build=True)
    down: float = Field(ge=1, le=1000)
    up: float = Field(ge=1, le=1000)

    @classmethod
    def parse(cls, text: str) -> Ratio:
        parts = str(text).strip().split(":")
        try:
            down, up = (float(p) for p in parts)
        except ValueError:
            raise ValueError(f"'{text}' is not a ratio such as 1:1, 7:1, 2.8:1 or 1:2") from None
        if not (math.isfinite(down) and math.isfinite(up)) or down <= 0 or up <= 0:
            raise ValueError(f"'{text}' is not a ratio such as 1:1, 7:1, 2.8:1 or 1:2")
        if max(down, up) / min(down, up) > 1000:
            raise ValueError(f"'{text}': a tier's down:up ratio must lie within 1000:1 and "
                             "1:1000")
        # scale so that the smaller side is 1 when it is not already a whole ratio
        if up != int(up) or down != int(down):
            low = min(down, up)
            down, up = down / low, up / low
        return cls(down=down, up=up)

    @property
    def undersubscribed(self) -> bool:
        """More uplink than downlink (1:2): the tier carries more than its GPUs can send."""
        return self.up > self.down

    @field_serializer("down", "up")
    def _whole(self, v: float) -> float | int:
        return int(v) if float(v).is_integer() else v

    @property
    def value(self) -> float:
        return self.down / self.up

    def uplinks(self, down_ports: int) -> int:
        """Fewest uplinks that keep ``down_ports`` at or under this ratio (never under the
        uplink the ratio asks for: 64 down at 2.8:1 take 23 up, 2.78:1)."""
        return math.ceil(down_ports * self.up / self.down - 1e-9)

    def __str__(self) -> str:
        return f"{_num(self.down)}:{_num(self.up)}"


def _num(x: float) -> str:
    return f"{x:g}"


class CommonParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    gear: str = Field(default="ib-ndr", description="gear profile")
    switch: str | None = Field(
        default=None, description="switch catalog id (default: the profile's)"
    )
    spine_switch: str | None = Field(
        default=None, description="switch for the spine and core tiers (default: --switch)"
    )
    radix: int | None = Field(
        default=None, ge=3, le=4096, description="a generic switch of this many ports"
    )
    server: str | None = Field(default=None, description="GPU server catalog id")
    gpus_per_server: int | None = Field(default=None, ge=1, le=1024)
    planes: int | None = Field(default=None, ge=1, le=16, description="parallel planes")
    # lanes to planes: each NIC port split into this many ports of 1/P its speed and lanes,
    # each on its own plane (an 800G port as 8 x 100G, OCP MRC's multi-plane NIC)
    plane_split: Literal[1, 2, 4, 8] | None = Field(
        default=None, description="split each NIC port into P planes"
    )
    nic: str | None = Field(default=None, description="NIC catalog id (default: the server's)")
    nics: int | None = Field(default=None, ge=1, le=1024, description="NICs per server")
    name: str | None = None


class RailParams(CommonParams):
    kind: Literal["rail"] = "rail"
    sus: int | None = Field(default=None, ge=1, le=10_000, description="scalable units")
    # servers per SU (default: a rail leaf's down ports at 1:1, core/generators/reference.py);
    # a rack-scale system's SU is counted in racks (default 8)
    servers_per_su: int | None = Field(default=None, ge=1, le=4096)
    racks_per_su: int | None = Field(default=None, ge=1, le=4096)
    servers: int | None = Field(default=None, ge=1, le=1_000_000, description="total servers")
    gpus: int | None = Field(default=None, ge=1, le=10_000_000, description="total GPUs")
    reserve_leaf_ports: int = Field(default=0, ge=0, le=4096)
    tiers: Literal[2, 3] | None = None


class FatTreeParams(CommonParams):
    kind: Literal["fat-tree"] = "fat-tree"
    gpus: int | None = Field(default=None, ge=1, le=10_000_000)
    k_ary: int | None = Field(default=None, ge=2, le=1024)
    tiers: Literal[2, 3] | None = None
    oversubscription: tuple[Ratio, ...] = (Ratio(down=1, up=1),)
    placement: Literal["rail", "tor"] = "tor"
    servers_per_leaf: int | None = Field(default=None, ge=1, le=4096)
    pod_gpus: int | None = Field(default=None, ge=1, le=10_000_000)
    # "balanced": the fewest spines and cores that hold every uplink, each switch's uplinks
    # spread round-robin over the tier above (no port idles beyond less than a switch a tier);
    # "uniform": every leaf as many links to every spine (the divisor rule), whatever idles
    striping: Literal["balanced", "uniform"] = "balanced"

    @field_validator("oversubscription", mode="before")
    @classmethod
    def _parse_ratios(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(Ratio.parse(p) for p in value.split(",") if p.strip())
        if isinstance(value, list | tuple):
            return tuple(Ratio.parse(v) if isinstance(v, str) else v for v in value)
        return value


class DragonflyParams(CommonParams):
    kind: Literal["dragonfly"] = "dragonfly"
    p: int | None = Field(default=None, ge=1, le=1024, description="GPU ports per router")
    a: int | None = Field(default=None, ge=1, le=1024, description="routers per group")
    h: int | None = Field(default=None, ge=1, le=1024, description="global links per router")
    groups: int | None = Field(default=None, ge=2, le=100_000)
    links_per_pair: int | None = Field(default=None, ge=1, le=1024)
    arrangement: Literal["absolute", "relative", "circulant"] = "absolute"


class RailOnlyParams(CommonParams):
    """A rail-only fabric (arXiv 2307.12169): one network per rail, no spine between rails."""

    kind: Literal["rail-only"] = "rail-only"
    gpus: int | None = Field(default=None, ge=1, le=10_000_000, description="total GPUs")
    tiers: Literal[1, 2] | None = None  # within one rail: one switch, or a two-tier Clos


GeneratorParams = RailParams | FatTreeParams | DragonflyParams | RailOnlyParams
PARAMS_BY_KIND: dict[str, type[CommonParams]] = {
    "rail": RailParams,
    "fat-tree": FatTreeParams,
    "dragonfly": DragonflyParams,
    "rail-only": RailOnlyParams,
}
