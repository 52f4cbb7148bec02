"""The immutable result of a solve, with typed parts and a stable JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.core.problems import Problem
from designer.core.scaleup.domains import DomainSummary
from designer.core.solver.bisection import Bisection
from designer.core.solver.bom import Bom
from designer.core.solver.cables import CableCounts
from designer.core.solver.forwarding import RailForwarding
from designer.core.solver.media import MediaPlan
from designer.core.solver.oversub import Oversubscription
from designer.core.solver.paths import HopStats, LatencyStats
from designer.core.solver.utilisation import PortUse


@dataclass(frozen=True)
class SwitchCounts:
    total: int
    by_tier: dict[str, int]  # leaf, spine, core, router
    by_model: dict[str, int]

    def to_json(self) -> dict:
        return {"total": self.total, "by_tier": dict(self.by_tier),
                "by_model": dict(self.by_model)}


@dataclass(frozen=True)
class LinkCounts:
    total: int  # logical port-to-port links (cables as NVIDIA's tables count them)
    by_layer: dict[str, int]  # endpoint-leaf, leaf-spine, spine-core / endpoint-router, local...

    def to_json(self) -> dict:
        return {"total": self.total, "by_layer": dict(self.by_layer)}


@dataclass(frozen=True)
class Result:
    name: str
    gpus: int
    servers: int
    appliances: int
    unconnected_gpus: int
    switches: SwitchCounts
    links: LinkCounts
    bisection: Bisection
    oversubscription: Oversubscription
    hops: HopStats
    latency: LatencyStats
    bom: Bom
    power_w: float
    power_by_category: dict[str, float]
    rack_units: float
    problems: tuple[Problem, ...]
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage
    media: MediaPlan | None = field(default=None, repr=False, compare=False)
    path_searches: int = 0
    path_colours: int = 0
    path_verified: bool = True
    path_method: str = ""
    # physical cables (a twin copper cable carries two links) and switch port utilisation
    cables: CableCounts = field(default_factory=lambda: CableCounts(0, {}))
    ports: PortUse = field(default_factory=lambda: PortUse(0, 0, ()))
    # the scale-up domains GPUs talk over without the fabric (servers, NVL72 racks)
    domains: DomainSummary = field(
        default_factory=lambda: DomainSummary(0, 0, 0, "", 0.0, 0, "", False, 0, {}))
    # rail-only designs: the figures once the scale-up domains forward between rails
    rail_forwarding: RailForwarding | None = None

    def to_json(self) -> dict:
        """The stable JSON object of ``designer solve --json`` (keys users script against)."""
        return {
            "name": self.name,
            "gpus": self.gpus,
            "servers": self.servers,
            "appliances": self.appliances,
            "unconnected_gpus": self.unconnected_gpus,
            "domain": self.domains.to_json(),
            "switches": self.switches.to_json(),
            "links": self.links.to_json(),
            "cables": self.cables.to_json(),
            "ports": self.ports.to_json(),
            "bisection": self.bisection.to_json(),
            "rail_forwarding": (self.rail_forwarding.to_json()
                                if self.rail_forwarding is not None else None),
            "oversubscription": self.oversubscription.to_json(),
            "hops": self.hops.to_json(),
            "latency_us": self.latency.to_json(),
            "bom": self.bom.to_json(),
            "power_w": round(self.power_w, 2),
            "power_by_category_w": {k: round(v, 2) for k, v in self.power_by_category.items()},
            "rack_units": self.rack_units,
            "problems": [p.to_json() for p in self.problems],
            "path_search": {"searches": self.path_searches, "colours": self.path_colours,
                            "verified": self.path_verified, "method": self.path_method},
            "timings_ms": {k: round(v * 1000, 3) for k, v in self.timings.items()},
        }
