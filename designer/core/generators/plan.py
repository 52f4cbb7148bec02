"""What a generator will build, computed before building it (for previews and reports)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from designer.core.generators.gear import GearChoice
from designer.core.generators.plane import Plane, Servers
from designer.core.model import Fabric


@dataclass(frozen=True)
class Plan:
    kind: str
    title: str
    gpus: int
    servers: int
    planes: int
    switches: dict[str, int]  # role -> count over all planes
    links: dict[str, int]  # layer -> port-to-port links over all planes
    oversubscription: dict[str, str]  # tier -> "down:up" as built
    details: tuple[str, ...] = ()
    gear: GearChoice | None = field(default=None, compare=False, repr=False)
    build: Callable[[], tuple[Plane, Servers]] | None = field(
        default=None, compare=False, repr=False
    )
    domain_servers: int = 1  # servers (trays) of one rack-scale domain, 1 for servers
    su_servers: int = 0  # rail designs: servers (trays) of one scalable unit
    # how the built plane becomes a fabric (default: ``plane.assemble``, P copies sharing
    # every server; rail-only designs give each rail its own endpoints)
    assembler: Callable[[Plane, Servers, GearChoice], Fabric] | None = field(
        default=None, compare=False, repr=False)

    @property
    def racks(self) -> int:
        """Rack-scale domains (NVL72 racks); 0 when every server is its own domain."""
        return self.servers // self.domain_servers if self.domain_servers > 1 else 0

    @property
    def total_switches(self) -> int:
        return sum(self.switches.values())

    @property
    def total_links(self) -> int:
        return sum(self.links.values())

    def describe(self) -> str:
        sw = ", ".join(f"{n:,} {role}" for role, n in self.switches.items() if n)
        ln = ", ".join(f"{n:,} {layer}" for layer, n in self.links.items() if n)
        os_ = ", ".join(f"{t} {r}" for t, r in self.oversubscription.items())
        planes = f" x {self.planes} planes" if self.planes > 1 else ""
        where = (f"{self.racks:,} racks ({self.servers:,} trays)" if self.racks
                 else f"{self.servers:,} servers")
        lines = [
            f"{self.title}",
            f"  {self.gpus:,} GPUs in {where}{planes}",
            f"  switches: {sw} ({self.total_switches:,} in all)",
            f"  links: {ln} ({self.total_links:,} in all)",
        ]
        if os_:
            lines.append(f"  oversubscription: {os_}")
        lines.extend(f"  {d}" for d in self.details)
        return "\n".join(lines)
