"""The live check's findings: one phase with every switch up, one after failing a spine (a core
or router when the design has no spines)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class PhaseReport:
    sessions_up: int
    sessions_expected: int
    routes_checked: int  # ordered leaf pairs
    routes_missing: int
    ecmp_mismatches: int
    hop_mismatches: int
    converged_s: float | None  # None: not converged within the time limit
    ecmp_widths: dict[int, int]  # width -> leaf pairs
    ecmp_expected: dict[int, int]
    hops: dict[int, int]  # switches crossed -> leaf pairs (-1: no answer)
    hops_expected: dict[int, int]
    examples: tuple[str, ...] = ()
    failed: str | None = None  # the switch failed before this phase
    failed_role: str = "spine"  # spine; core or router when the design has no spines

    @property
    def up(self) -> bool:
        return (self.converged_s is not None and self.sessions_up == self.sessions_expected
                and not self.routes_missing and not self.ecmp_mismatches
                and not self.hop_mismatches)

    def with_name(self, name: str, role: str = "spine") -> PhaseReport:
        return dataclasses.replace(self, failed=name, failed_role=role)

    def to_json(self) -> dict:
        out = {
            "up": self.up,
            "sessions_up": self.sessions_up,
            "sessions_expected": self.sessions_expected,
            "routes_checked": self.routes_checked,
            "routes_missing": self.routes_missing,
            "ecmp_mismatches": self.ecmp_mismatches,
            "hop_mismatches": self.hop_mismatches,
            "converged_s": self.converged_s,
            "ecmp_widths": {str(k): v for k, v in self.ecmp_widths.items()},
            "ecmp_expected": {str(k): v for k, v in self.ecmp_expected.items()},
            "switch_hops": {str(k): v for k, v in self.hops.items()},
            "switch_hops_expected": {str(k): v for k, v in self.hops_expected.items()},
            "examples": list(self.examples),
        }
        if self.failed:
            out = {self.failed_role: self.failed, **out}
        return out

    def lines(self, indent: str = "  ") -> list[str]:
        conv = (f"converged in {self.converged_s:.2f} s" if self.converged_s is not None
                else "did NOT converge within the time limit")
        def hist(h: dict[int, int]) -> str:
            return ", ".join(f"{k} x {v}" for k, v in sorted(h.items())) or "none"
        out = [
            f"{indent}BGP sessions up: {self.sessions_up} of {self.sessions_expected}; {conv}",
            f"{indent}routes leaf to leaf: {self.routes_checked} checked, "
            f"{self.routes_missing} missing, {self.ecmp_mismatches} with another ECMP width "
            "than the design",
            f"{indent}ECMP widths (width x pairs): {hist(self.ecmp_widths)}; design "
            f"{hist(self.ecmp_expected)}",
            f"{indent}traceroute switches (hops x pairs): {hist(self.hops)}; design "
            f"{hist(self.hops_expected)}; {self.hop_mismatches} differ",
        ]
        out += [f"{indent}  {e}" for e in self.examples]
        return out


@dataclass(frozen=True)
class RoceReport:
    design: str
    switches: int
    switches_in_design: int
    host_namespaces: int
    slice: str | None
    first: PhaseReport
    failure: PhaseReport | None
    wall_s: float
    solver_hops: tuple[int, int] | None = None  # (min, max) switches over GPU pairs
    solver_note: str = ""

    @property
    def beyond_solver(self) -> int:
        """Leaf pairs whose traced switch count lies outside the solver's range."""
        if self.solver_hops is None:
            return 0
        lo, hi = self.solver_hops
        return sum(n for h, n in self.first.hops.items() if h >= 0 and not lo <= h <= hi)

    @property
    def ok(self) -> bool:
        return (self.first.up and (self.failure is None or self.failure.up)
                and not self.beyond_solver)

    def to_json(self) -> dict:
        return {
            **{k: v for k, v in self.first.to_json().items()},
            "failure": self.failure.to_json() if self.failure else None,
            "ok": self.ok,
            "switches": self.switches,
            "switches_in_design": self.switches_in_design,
            "host_namespaces": self.host_namespaces,
            "slice": self.slice,
            "solver_switch_hops": (None if self.solver_hops is None else
                                   {"min": self.solver_hops[0], "max": self.solver_hops[1]}),
            "hops_beyond_solver": self.beyond_solver,
            "wall_s": round(self.wall_s, 2),
        }

    def lines(self) -> list[str]:
        scope = (f"a slice: {self.slice}" if self.slice else "the whole design")
        out = [
            f"Routed-fabric check of '{self.design}' on FRR in network namespaces",
            f"  brought up {self.switches} switches ({scope}) and {self.host_namespaces} "
            f"host namespaces; {self.wall_s:.1f} s in all",
            "All switches up:",
            *self.first.lines(),
        ]
        if self.solver_hops is not None:
            out.append(f"  solver: {self.solver_note}; {self.beyond_solver} traced leaf pairs "
                       "outside the solver's range")
        if self.failure is not None:
            out += [f"After failing {self.failure.failed_role} {self.failure.failed}:",
                    *self.failure.lines()]
        else:
            out.append("No switch failed (asked not to).")
        out.append("OK" if self.ok else "PROBLEMS FOUND")
        return out
