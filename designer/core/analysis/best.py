"""Each technology at its best: the design a buyer would really order for the same GPUs.

A gear-profile swap keeps the layout it was drawn with, which can waste a switch's radix (a
128-port RoCE leaf serving one rail of one 32-server SU runs half empty). When the swapped
design leaves paid-for ports idle, the layout is planned again with the existing generators
for the same servers and the same target (the original's bisection share and worst
oversubscription): a rail leaf serving the same rail of more SUs, a fat tree with servers
under their leaf (ToR) or by rail. Every candidate is solved and the cheapest network that
meets the target is taken; the text says what was chosen and why. "As drawn" stays an option.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from designer.core.analysis.workload import WorkloadError
from designer.core.catalog import Catalog
from designer.core.convert import convert_profile
from designer.core.errors import DesignerError
from designer.core.generators import generate, params_from_dict, plan
from designer.core.model import Project
from designer.core.solver import Result, solve

TOLERANCE = 1e-6
MAX_CANDIDATES = 6

Solver = Callable[[Project], Result]


@dataclass(frozen=True)
class Target:
    """What every candidate must give: at least this share of full bisection and at most this
    worst end-to-end oversubscription."""

    bisection_fraction: float
    oversubscription: float

    @classmethod
    def of(cls, result: Result) -> Target:
        return cls(min(1.0, result.bisection.fraction_of_full or 0.0),
                   max(1.0, result.oversubscription.worst or 1.0))

    def met_by(self, r: Result) -> bool:
        return ((r.bisection.fraction_of_full or 0.0) >= self.bisection_fraction - TOLERANCE
                and (r.oversubscription.worst or 1.0) <= self.oversubscription + TOLERANCE)

    def text(self) -> str:
        return (f"{self.bisection_fraction:.0%} of full bisection, "
                f"{self.oversubscription:g}:1 at worst")


@dataclass(frozen=True)
class Candidate:
    layout: str  # how it is laid out, in words
    project: Project
    result: Result

    @property
    def capex_usd(self) -> float:
        return self.result.bom.total_usd

    @property
    def unused_ports(self) -> int:
        return unused_ports(self.result)[0]


@dataclass(frozen=True)
class Best:
    """The design chosen for one profile, the one as drawn, and why."""

    profile: str
    chosen: Candidate
    as_drawn: Candidate
    considered: tuple[Candidate, ...]
    reason: str

    @property
    def replanned(self) -> bool:
        return self.chosen is not self.as_drawn


def unused_ports(result: Result) -> tuple[int, float]:
    """Switch ports bought and not cabled, and their share of the switches' price."""
    ports = result.ports
    unused = max(0, ports.total - ports.used)
    usd = float(sum(g.unused_usd for g in ports.groups))
    return unused, usd


def _layouts(project: Project, catalog: Catalog) -> list[tuple[str, str, dict[str, Any]]]:
    """Generator (kind, words, parameters) of the other layouts for the same servers."""
    gen = project.generator
    if gen is None or gen.kind not in ("rail", "fat-tree"):
        return []
    values = dict(gen.params)
    try:
        pl = plan(params_from_dict(gen.kind, values), project.catalog(catalog))
    except DesignerError:
        return []
    assert pl.gear is not None
    servers, G = pl.servers, pl.gear.gpus_per_server
    radix = pl.gear.leaf.radix
    keep = {k: values.get(k) for k in ("gear", "server", "gpus_per_server", "planes", "name",
                                       "switch", "spine_switch", "radix", "nic", "nics")
            if values.get(k)}
    out: list[tuple[str, str, dict[str, Any]]] = []
    if gen.kind == "rail":
        per_su = int(values.get("servers_per_su") or pl.su_servers or 32)
        reserve = int(values.get("reserve_leaf_ports") or 0)
        s = per_su * 2
        while 2 * s <= radix and s <= servers + per_su:
            out.append(("rail", f"rail-optimized, {s} servers per leaf ({s // per_su} SUs of "
                        f"{per_su} share each rail leaf)",
                        keep | {"servers": servers, "servers_per_su": s,
                                "reserve_leaf_ports": reserve}))
            s *= 2
        ratio = "1:1"
    else:
        ratio = ",".join(str(r) for r in values.get("oversubscription", ["1:1"])) \
            if isinstance(values.get("oversubscription"), list) else \
            str(values.get("oversubscription") or "1:1")
    gpus = servers * G
    for placement, words in (("tor", "servers under their leaf (ToR)"),
                             ("rail", "rail placement")):
        if gen.kind == "fat-tree" and values.get("placement", "tor") == placement:
            continue
        out.append(("fat-tree", f"fat-tree, {words}",
                    keep | {"gpus": gpus, "placement": placement, "oversubscription": ratio}))
    return out[:MAX_CANDIDATES]


def best_design(project: Project, profile: str, catalog: Catalog, *,
                target: Target | None = None, solver: Solver | None = None,
                as_drawn: bool = False) -> Best:
    """``project`` under gear ``profile``, laid out as it would be bought (unless
    ``as_drawn``). ``target``: what the layout must give (default: what the converted design
    gives). ``solver``: how to solve a candidate (default ``solve``)."""
    run = solver or (lambda p: solve(p, catalog=p.catalog(catalog)))
    drawn_p = project if profile == project.profile else \
        convert_profile(project, profile, catalog).project
    drawn = Candidate("as drawn", drawn_p, run(drawn_p))
    unused, usd = unused_ports(drawn.result)
    if as_drawn or not drawn.result.ports.stranded:
        why = "kept as drawn" + ("" if as_drawn else
                                 f": it uses its switches' ports ({unused:,} unused)")
        return Best(profile, drawn, drawn, (drawn,), why)
    goal = target or Target.of(drawn.result)
    considered = [drawn]
    for kind, words, values in _layouts(drawn_p, catalog):
        try:
            p = generate(params_from_dict(kind, values), drawn_p.catalog(catalog), base=drawn_p)
        except DesignerError:
            continue
        considered.append(Candidate(words, p, run(p)))
    fits = [c for c in considered if goal.met_by(c.result)]
    if not fits:
        raise WorkloadError(f"profile {profile}: no layout meets {goal.text()}")
    chosen = min(fits, key=lambda c: (round(c.capex_usd, 2), c is not drawn))
    if chosen is drawn:
        why = (f"kept as drawn: it leaves {unused:,} switch ports (${usd:,.0f}) idle, but no "
               f"other layout meeting {goal.text()} costs less")
    else:
        saved = drawn.capex_usd - chosen.capex_usd
        why = (f"laid out as {chosen.layout}: as drawn it left {unused:,} switch ports "
               f"(${usd:,.0f}) idle; this layout meets {goal.text()} for ${saved:,.0f} less "
               f"({len(considered)} layouts solved)")
    return Best(profile, chosen, drawn, tuple(considered), why)
