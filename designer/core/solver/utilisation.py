"""Port utilisation per switch model and tier, and the paid-for ports left unused.

A switch is bought whole: a RoCE leaf that runs 64 of its 128 ports, or a dragonfly router
wired on 15 of 64, carries the price of the ports it does not use. ``port_use`` counts used
and total ports per (model, tier) from the actual cables and prices the unused share pro rata
at the switch's unit price (with the project's price overrides), so a design can be
compared on what it strands, not only on what it buys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.problems import Problem, Severity
from designer.core.solver.compile import ROLES, Compiled

# Unused share of a (model, tier)'s ports above which a note is raised. A quarter keeps the
# reserved ports of an NVIDIA SuperPOD leaf (a few UFM/storage ports) quiet and flags a
# switch run at half its radix.
STRANDED_THRESHOLD = 0.25


@dataclass(frozen=True)
class PortGroup:
    model: str
    tier: str
    switches: int
    used: int
    total: int
    unit_usd: float  # price of one switch

    @property
    def unused(self) -> int:
        return self.total - self.used

    @property
    def utilisation(self) -> float:
        return self.used / self.total if self.total else 0.0

    @property
    def unused_usd(self) -> float:
        """The unused ports' share of what the switches cost."""
        return self.unit_usd * self.switches * (self.unused / self.total) if self.total else 0.0

    def to_json(self) -> dict:
        return {
            "model": self.model, "tier": self.tier, "switches": self.switches,
            "used": self.used, "total": self.total, "unused": self.unused,
            "utilisation": round(self.utilisation, 6),
            "unused_usd": round(self.unused_usd, 2),
        }


@dataclass(frozen=True)
class PortUse:
    used: int
    total: int
    groups: tuple[PortGroup, ...]
    threshold: float = STRANDED_THRESHOLD

    @property
    def utilisation(self) -> float:
        return self.used / self.total if self.total else 0.0

    @property
    def stranded(self) -> tuple[PortGroup, ...]:
        """Groups leaving more than ``threshold`` of their ports unused."""
        return tuple(g for g in self.groups if g.total and
                     g.unused / g.total > self.threshold + 1e-12)

    @property
    def stranded_usd(self) -> float:
        return float(sum(g.unused_usd for g in self.stranded))

    def to_json(self) -> dict:
        return {
            "used": self.used,
            "total": self.total,
            "utilisation": round(self.utilisation, 6),
            "by_model_tier": [g.to_json() for g in self.groups],
            "stranded_threshold": self.threshold,
            "stranded": [{"model": g.model, "tier": g.tier} for g in self.stranded],
            "stranded_usd": round(self.stranded_usd, 2),
            "note": "switch ports only; unused ports priced pro rata at the switch's price",
        }


def port_use(c: Compiled) -> PortUse:
    cab = c.cables
    n_dev = len(c.fabric.devices)
    used = np.bincount(cab["a"].astype(np.int64), minlength=n_dev)
    used = used + np.bincount(cab["b"].astype(np.int64), minlength=n_dev)
    sw = c.sw
    t = c.table
    known = t.known[sw]
    sw = sw[known]
    if sw.size == 0:
        return PortUse(0, 0, ())
    gear = t.gear[sw]
    role = c.role[sw].astype(np.int64)
    key = gear * len(ROLES) + role
    uk, inv = np.unique(key, return_inverse=True)
    inv = inv.reshape(-1)
    n = np.bincount(inv)
    u = np.bincount(inv, weights=used[sw])
    tot = np.bincount(inv, weights=t.ports[sw])
    groups = []
    for k, key_k in enumerate(uk.tolist()):
        model = t.choices[key_k // len(ROLES)][0]
        price = float(c.catalog.get(model).price_usd) if model in c.catalog else 0.0
        groups.append(PortGroup(model, ROLES[key_k % len(ROLES)].value, int(n[k]),
                                round(float(u[k])), round(float(tot[k])), price))
    groups.sort(key=lambda g: (-g.unused_usd, g.model, g.tier))
    return PortUse(int(sum(g.used for g in groups)), int(sum(g.total for g in groups)),
                   tuple(groups))


def stranded_problems(use: PortUse) -> list[Problem]:
    """One note per (model, tier) that leaves paid-for ports unused above the threshold."""
    out = []
    for g in use.stranded:
        out.append(Problem(
            Severity.INFO, "stranded-ports",
            f"{g.switches:,} {g.tier} switch(es) {g.model} use {g.used:,} of {g.total:,} ports "
            f"({g.utilisation:.0%}): {g.unused:,} paid-for ports unused, about "
            f"${g.unused_usd:,.0f} of switch price"))
    return out
