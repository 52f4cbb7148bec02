"""What a subnet-manager check found, as data (for the window) and as text or JSON."""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.core.ibcheck.routes import Balance, HopStats
from designer.core.infiniband.diff import CableDiff


@dataclass(frozen=True)
class SubnetReport:
    """One subnet (a plane of a multi-plane design, or the whole fabric)."""

    name: str
    sm_node: str  # where OpenSM ran (an appliance's HCA, else a switch)
    switches: int
    hcas: int
    cables: int
    engine: str  # asked for
    engine_used: str  # what OpenSM says it configured ("" when none)
    subnet_up: bool
    sm_messages: tuple[str, ...]  # OpenSM's own error lines (empty when clean)
    discovered_cables: int
    routed: HopStats | None  # GPU pairs, following the forwarding tables
    shortest: HopStats | None  # GPU pairs, shortest paths on the design's switch graph
    longer_pairs: int  # pairs routed over more switches than the shortest path
    balance: tuple[Balance, ...]
    times: dict[str, float] = field(default_factory=dict)

    @property
    def fell_back(self) -> bool:
        return bool(self.engine_used) and self.engine_used != self.engine

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "sm_node": self.sm_node,
            "switches": self.switches,
            "hcas": self.hcas,
            "cables": self.cables,
            "engine": self.engine,
            "engine_used": self.engine_used,
            "subnet_up": self.subnet_up,
            "sm_messages": list(self.sm_messages),
            "discovered_cables": self.discovered_cables,
            "routed_hops": self.routed.to_json() if self.routed else None,
            "shortest_hops": self.shortest.to_json() if self.shortest else None,
            "longer_pairs": self.longer_pairs,
            "balance": [b.to_json() for b in self.balance],
            "times_s": {k: round(v, 3) for k, v in self.times.items()},
        }


@dataclass(frozen=True)
class Finding:
    severity: str  # "error" or "warning"
    message: str

    def to_json(self) -> dict:
        return {"severity": self.severity, "message": self.message}


@dataclass(frozen=True)
class IbCheckReport:
    """Everything ``check_ib`` found. ``ok``: no errors (warnings may remain)."""

    project: str
    engine: str
    engine_reason: str
    subnets: tuple[SubnetReport, ...]
    diff: CableDiff | None
    solver_hops: HopStats | None  # the solver's distribution (None: it failed or found no pairs)
    solver_note: str
    findings: tuple[Finding, ...]
    times: dict[str, float]
    skipped: tuple[str, ...] = ()  # parts of the fabric with no HCA (not a subnet to check)

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def to_json(self) -> dict:
        return {
            "project": self.project,
            "ok": self.ok,
            "engine": self.engine,
            "engine_reason": self.engine_reason,
            "subnets": [s.to_json() for s in self.subnets],
            "topology": self.diff.to_json() if self.diff is not None else None,
            "solver_hops": self.solver_hops.to_json() if self.solver_hops else None,
            "solver_note": self.solver_note,
            "findings": [f.to_json() for f in self.findings],
            "skipped": list(self.skipped),
            "times_s": {k: round(v, 3) for k, v in self.times.items()},
        }

    def lines(self, diff_limit: int = 20) -> list[str]:
        out = [f"InfiniBand check of '{self.project}'"]
        out.append(f"routing engine: {self.engine} ({self.engine_reason})")
        for s in self.subnets:
            out.extend(_subnet_lines(s))
        if self.skipped:
            out.append("not checked (no HCA, so no subnet): " + ", ".join(self.skipped[:10]))
        if self.diff is not None:
            state = "as designed" if self.diff.equal else "DIFFERS from the design"
            out.append(f"topology read back by ibnetdiscover: {state}: {self.diff.summary()}")
            out.extend("  " + ln for ln in self.diff.lines(limit=diff_limit))
        out.append(f"solver: {self.solver_note}")
        for f in self.findings:
            out.append(f"{f.severity}: {f.message}")
        total = self.times.get("total", 0.0)
        parts = ", ".join(f"{k} {v:.2f} s" for k, v in self.times.items() if k != "total")
        out.append(f"times: {parts}; total {total:.2f} s")
        out.append(
            "result: "
            + (
                "OK"
                if self.ok and not self.findings
                else "OK with warnings"
                if self.ok
                else "PROBLEMS FOUND"
            )
        )
        return out


def hops_text(h: HopStats) -> str:
    hist = ", ".join(f"{k}: {v:,}" for k, v in sorted(h.histogram.items()))
    extra = f", {h.unreached:,} unreached" if h.unreached else ""
    return f"min {h.min}, mean {h.mean:.3f}, max {h.max} over {h.pairs:,} pairs ({hist}){extra}"


def _subnet_lines(s: SubnetReport) -> list[str]:
    out = [
        f"{s.name}: {s.switches:,} switches, {s.hcas:,} HCAs, {s.cables:,} cables; OpenSM on "
        f"'{s.sm_node}'"
    ]
    if s.subnet_up:
        used = s.engine_used or "?"
        note = f" (asked for {s.engine}; OpenSM fell back)" if s.fell_back else ""
        out.append(f"  SUBNET UP, routed by {used}{note}")
    else:
        out.append("  subnet NOT up")
    for m in s.sm_messages[:5]:
        out.append(f"  OpenSM: {m}")
    if s.routed is not None:
        out.append(f"  routed hops (switches crossed, GPU pairs): {hops_text(s.routed)}")
    if s.shortest is not None:
        same = (
            "the same for every pair"
            if s.longer_pairs == 0 and s.routed and not s.routed.unreached
            else f"{s.longer_pairs:,} pairs routed over more switches"
        )
        out.append(f"  shortest paths on the design: {same}")
    if s.balance:
        out.append("  route balance (destination LIDs per up-link):")
        for b in s.balance:
            flag = "even" if b.even else "UNEVEN"
            out.append(
                f"    {b.layer}: {b.ports:,} ports, min {b.min}, mean {b.mean:.2f}, max {b.max} "
                f"({flag})"
            )
    times = ", ".join(f"{k} {v:.2f} s" for k, v in s.times.items())
    out.append(f"  times: {times}")
    return out
