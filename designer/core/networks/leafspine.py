"""A two-tier leaf/spine Ethernet network over endpoints with ``p`` ports each.

Rules (the ones the tests check the counts against):
- a leaf of radix R at oversubscription o (in line rate: down Gb/s over up Gb/s), its
  endpoints at e Gb/s and its ports at s Gb/s (r = e / s), has d = floor(R / (1 + r / o))
  ports down and u = min(R - d, ceil(d * r / o)) up (e = s: d = floor(R * o / (1 + o)));
- endpoint i's port j goes to leaf (i // d) * p + j, port i % d: the p ports of an endpoint
  land on p different leaves (the two ports of a server on two switches, as the reference
  architectures ask for redundancy), so leaves come in groups of p;
- one leaf: no spine; else every leaf sends its u uplinks round robin over S spines, S the
  fewest from min(2, u) with L * ceil(u / S) <= R (every leaf reaches every spine), uplink
  k of leaf l on spine k % S, port l * ceil(u / S) + k // S. No S fits when L > R: a third
  tier would be needed, which this builder refuses to guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from designer.core.errors import GeneratorError


@dataclass
class Built:
    """Devices (id, model, tier, group) and link columns of a network under construction."""

    devices: list[tuple[str, str, str, int]] = field(default_factory=list)
    a: list[str] = field(default_factory=list)
    a_port: list[int] = field(default_factory=list)
    b: list[str] = field(default_factory=list)
    b_port: list[int] = field(default_factory=list)
    gbps: list[int] = field(default_factory=list)
    cable: list[str] = field(default_factory=list)
    optic: list[str] = field(default_factory=list)

    def link(self, a: str, ap: int, b: str, bp: int, gbps: int, cable: str, optic: str) -> None:
        self.a.append(a)
        self.a_port.append(ap)
        self.b.append(b)
        self.b_port.append(bp)
        self.gbps.append(gbps)
        self.cable.append(cable)
        self.optic.append(optic)


def split_ports(radix: int, oversubscription: float, rate: float = 1.0) -> tuple[int, int]:
    """(down, up) ports of a leaf of ``radix`` ports at ``oversubscription`` (down : up in
    Gb/s) when an endpoint runs at ``rate`` times a switch port's speed."""
    if oversubscription < 1:
        raise GeneratorError(f"oversubscription {oversubscription:g}: give 1 (non-blocking) "
                             "or more")
    k = rate / oversubscription
    # the small slack keeps exact ratios (128 ports at 1:1 -> 64 + 64) off float noise
    down = math.floor(radix / (1 + k) + 1e-9)
    up = min(radix - down, math.ceil(down * k - 1e-9))
    if down < 1 or up < 1:
        raise GeneratorError(f"a {radix}-port switch leaves no port up or down at "
                             f"{oversubscription:g}:1")
    return down, up


def leaf_spine(out: Built, prefix: str, endpoints: list[str], ports_each: int,
               endpoint_gbps: list[int], switch: str, radix: int, switch_gbps: int,
               oversubscription: float, cable: str, optic: str, what: str,
               first_endpoint_port: int = 0) -> tuple[int, int]:
    """Wire ``endpoints`` (``ports_each`` ports each, numbered from ``first_endpoint_port``,
    at ``endpoint_gbps``, one rate per endpoint) to leaves and spines named
    ``{prefix}-leaf-N`` / ``{prefix}-spine-N`` into ``out``; returns (leaves, spines)."""
    if not endpoints or ports_each < 1:
        return 0, 0
    down, up = split_ports(radix, oversubscription,
                           min(max(endpoint_gbps), switch_gbps) / switch_gbps)
    groups = math.ceil(len(endpoints) / down)
    leaves = groups * ports_each
    for n in range(leaves):
        out.devices.append((f"{prefix}-leaf-{n + 1}", switch, "leaf", n // ports_each))
    for i, ep in enumerate(endpoints):
        g, slot = divmod(i, down)
        rate = min(endpoint_gbps[i], switch_gbps)
        for j in range(ports_each):
            out.link(ep, first_endpoint_port + j, f"{prefix}-leaf-{g * ports_each + j + 1}",
                     slot, rate, cable, optic)
    if leaves == 1:
        return 1, 0
    # two spines at least (when a leaf has two uplinks), so one failure leaves a path
    spines = next((s for s in range(min(2, up), up + 1)
                   if leaves * math.ceil(up / s) <= radix), 0)
    if not spines:
        raise GeneratorError(
            f"{what}: {leaves} leaves exceed what {radix}-port spines join in two tiers "
            f"(at most {radix}); raise the oversubscription or use a larger switch")
    per = math.ceil(up / spines)
    for s in range(spines):
        out.devices.append((f"{prefix}-spine-{s + 1}", switch, "spine", 0))
    for n in range(leaves):
        for k in range(up):
            out.link(f"{prefix}-leaf-{n + 1}", down + k, f"{prefix}-spine-{k % spines + 1}",
                     n * per + k // spines, switch_gbps, cable, optic)
    return leaves, spines
