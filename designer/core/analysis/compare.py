"""Two to six designs side by side: the figures an architect compares, deltas against the first,
and the break-even between the cheapest and each dearer one.

Each design is a (label, project, result) triple already solved; its estimate uses one common
workload and economics so the columns compare like with like. Variants of one design under other
gear profiles or oversubscriptions are built here (convert / regenerate), solved by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from designer.core.analysis.best import Best, Target, best_design, unused_ports
from designer.core.analysis.estimate import Estimate, estimate
from designer.core.analysis.prices import Premium, cost_per_endpoint, premium
from designer.core.analysis.recommend import Recommendation, Side, recommend_pair
from designer.core.analysis.tco import break_even_gain
from designer.core.analysis.workload import Economics, Workload, WorkloadError
from designer.core.catalog import Catalog, builtin_catalog
from designer.core.convert import convert_profile
from designer.core.errors import DesignerError
from designer.core.generators import regenerate
from designer.core.model import Project
from designer.core.ports import port_layout
from designer.core.solver import Result

MAX_DESIGNS = 6
# (key, label, unit, better): better is "low", "high" or "" (no judgement)
FIGURES: tuple[tuple[str, str, str, str], ...] = (
    ("gpus", "GPUs", "", ""),
    ("domain_gpus", "Scale-up domain (GPUs)", "", "high"),
    ("switches", "Switches", "", "low"),
    ("cables", "Cables", "", "low"),
    ("optics", "Optics (transceivers)", "", "low"),
    ("ports_unused", "Switch ports unused", "", "low"),
    ("ports_unused_usd", "Unused ports' price", "$", "low"),
    ("bisection_tbps", "Bisection", "Tb/s", "high"),
    ("per_gpu_gbps", "Bandwidth per GPU", "Gb/s", "high"),
    ("oversubscription", "Oversubscription, worst (n:1)", "", "low"),
    ("hops_p50", "Hops p50", "", "low"),
    ("hops_p99", "Hops p99", "", "low"),
    ("latency_p50_us", "Latency p50", "us", "low"),
    ("latency_p99_us", "Latency p99", "us", "low"),
    ("step_s", "Step time", "s", "low"),
    ("comm_fraction", "Communication share", "%", "low"),
    ("mfu", "MFU", "%", "high"),
    ("ep_exposed_s", "EP all-to-all exposed a step", "s", "low"),
    ("capex_usd", "Capex (network)", "$", "low"),
    ("usd_per_endpoint", "Cost per endpoint", "$", "low"),
    ("usd_per_endpoint_fabric", "Cost per endpoint, no NIC side", "$", "low"),
    ("power_kw", "Network power", "kW", "low"),
    ("tco_usd", "TCO", "$", "low"),
    ("usd_per_useful_gpu_hour", "Cost per useful GPU-hour", "$", "low"),
)


@dataclass(frozen=True)
class DesignColumn:
    label: str
    name: str
    profile: str
    figures: dict[str, float | None]
    busbw: dict[str, float]  # the workload's collectives: "dp all-reduce" -> GB/s
    estimate: Estimate | None
    error: str = ""
    layout: str = ""  # how the design was laid out for its profile, and why
    project: Project | None = field(default=None, repr=False, compare=False)
    result: Result | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        return {"label": self.label, "name": self.name, "profile": self.profile,
                "layout": self.layout,
                **{k: (round(v, 6) if isinstance(v, float) else v)
                   for k, v in self.figures.items()},
                "busbw_gbytes_s": {k: round(v, 3) for k, v in self.busbw.items()},
                "error": self.error}


@dataclass(frozen=True)
class Comparison:
    designs: tuple[DesignColumn, ...]
    deltas: tuple[dict, ...]  # per design after the first: key -> value minus the first's
    break_even: tuple[dict, ...]
    recommendation: Recommendation | None
    premium: Premium | None = None  # InfiniBand's capex over Ethernet's (the verdict's pair)

    def to_json(self) -> dict:
        return {"designs": [d.to_json() for d in self.designs],
                "premium": self.premium.to_json() if self.premium else None,
                "deltas": [{k: (round(v, 6) if isinstance(v, float) else v)
                            for k, v in d.items()} for d in self.deltas],
                "break_even": list(self.break_even),
                "recommendation": self.recommendation.to_json() if self.recommendation else None}


def figure_text(value: float | None, unit: str, missing: str = "–") -> str:
    """A compared figure as the table, the report page and the command line show it."""
    if value is None:
        return missing
    if unit == "%":
        return f"{value:.1%}"
    if unit == "$":
        return f"${value:,.2f}" if abs(value) < 100 else f"${value:,.0f}"
    return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def _count(obj: object, *names: str) -> float | None:
    """A total from a part of the Result other work may add (``cables``, ``ports``)."""
    if obj is None:
        return None
    if isinstance(obj, int | float):
        return float(obj)
    for n in names:
        v = obj.get(n) if isinstance(obj, dict) else getattr(obj, n, None)
        if isinstance(v, int | float):
            return float(v)
    return None


def column(label: str, project: Project, result: Result, workload: Workload,
           economics: Economics, catalog: Catalog | None = None,
           layout: str = "") -> DesignColumn:
    optics = sum(x.qty for x in result.bom.lines if x.category == "transceiver")
    cables = _count(getattr(result, "cables", None), "total", "cables")
    unused, unused_usd = unused_ports(result)
    per_ep, per_ep_fabric = cost_per_endpoint(result, project.catalog(catalog or
                                                                       builtin_catalog()))
    figs: dict[str, float | None] = {
        "gpus": result.gpus, "switches": result.switches.total,
        "domain_gpus": float(result.domains.gpus) if result.domains.count else None,
        "cables": cables if cables is not None else float(result.links.total),
        "optics": float(optics),
        "ports_unused": float(unused), "ports_unused_usd": unused_usd,
        # rail-only designs: the bisection once the scale-up domains forward between rails
        "bisection_tbps": (result.rail_forwarding.bisection_gbps / 1000
                           if result.rail_forwarding is not None else result.bisection.tbps),
        "per_gpu_gbps": result.bisection.per_gpu_rate_gbps,
        "oversubscription": result.oversubscription.worst,
        "hops_p50": result.hops.p50, "hops_p99": result.hops.p99,
        "latency_p50_us": result.latency.p50_us, "latency_p99_us": result.latency.p99_us,
        "capex_usd": result.bom.total_usd, "power_kw": result.power_w / 1000,
        "usd_per_endpoint": per_ep, "usd_per_endpoint_fabric": per_ep_fabric,
    }
    est: Estimate | None = None
    error = ""
    busbw: dict[str, float] = {}
    try:
        est = estimate(project, result, workload, economics, catalog=catalog)
    except DesignerError as exc:
        error = str(exc)
    if est is not None:
        figs |= {"step_s": est.step.step_s, "comm_fraction": est.step.comm_fraction,
                 "mfu": est.step.mfu, "tco_usd": est.tco.total_usd,
                 "usd_per_useful_gpu_hour": est.tco.usd_per_useful_gpu_hour,
                 "ep_exposed_s": next((x.exposed_s for x in est.step.parts if x.kind == "ep"),
                                      None)}
        busbw = {f"{r.group} {r.op}": r.busbw_gbytes_s for r in est.collectives}
    else:
        figs |= dict.fromkeys(("step_s", "comm_fraction", "mfu", "tco_usd", "ep_exposed_s",
                               "usd_per_useful_gpu_hour"))
    return DesignColumn(label, project.name, project.profile, figs, busbw, est, error, layout,
                        project, result)


def compare(items: list[tuple], workload: Workload, economics: Economics,
            catalog: Catalog | None = None) -> Comparison:
    """``items``: (label, project, result) or (label, project, result, layout note)."""
    if not 1 <= len(items) <= MAX_DESIGNS:
        raise WorkloadError(f"designs: compare takes 1 to {MAX_DESIGNS} designs, "
                            f"got {len(items)}")
    cols = tuple(column(it[0], it[1], it[2], workload, economics, catalog,
                        it[3] if len(it) > 3 else "") for it in items)
    base = cols[0].figures
    deltas = tuple(
        {"label": c.label} | {k: (v - base[k]) if v is not None and base.get(k) is not None
                               else None for k, v in c.figures.items()}
        for c in cols[1:])
    ok = [c for c in cols if c.estimate is not None]
    be: list[dict] = []
    rec = None
    prem: Premium | None = None
    if ok:
        cheap = min(ok, key=lambda c: c.estimate.tco.total_usd)  # type: ignore[union-attr]
        for c in ok:
            if c is cheap:
                continue
            e, e0 = c.estimate, cheap.estimate
            assert e is not None and e0 is not None
            delta = e.tco.total_usd - e0.tco.total_usd
            need = break_even_gain(delta, e.view.gpus, economics.years, economics.gpu_hour_usd)
            gain = e.tco.efficiency - e0.tco.efficiency
            be.append({"dearer": c.label, "cheaper": cheap.label, "delta_tco_usd": round(delta, 2),
                       "break_even_gain": round(need, 6), "efficiency_gain": round(gain, 6),
                       "pays": gain > need})
        rec, pair = _verdict(ok, economics)
        if pair is not None:
            i_col, e_col = pair
            assert i_col.result is not None and e_col.result is not None
            assert i_col.project is not None
            prem = premium(i_col.result, e_col.result,
                           i_col.project.catalog(catalog or builtin_catalog()))
    return Comparison(cols, deltas, tuple(be), rec, prem)


def _verdict(ok: list[DesignColumn], economics: Economics
             ) -> tuple[Recommendation, tuple[DesignColumn, DesignColumn] | None]:
    """The same verdict whichever design is first: each technology is represented by its
    design with the lowest cost per useful GPU-hour, the rules see the larger communication
    share of the two, and a tie goes to the lower cost per useful GPU-hour."""
    def per_hour(c: DesignColumn) -> float:
        assert c.estimate is not None
        return c.estimate.tco.usd_per_useful_gpu_hour

    ib = [c for c in ok if c.estimate is not None and c.estimate.view.is_ib]
    eth = [c for c in ok if c.estimate is not None and not c.estimate.view.is_ib]
    if not (ib and eth):
        best = min(ok, key=per_hour).estimate
        assert best is not None
        return best.recommendation, None
    i, e = min(ib, key=per_hour), min(eth, key=per_hour)
    ei, ee = i.estimate, e.estimate
    assert ei is not None and ee is not None

    def side(c: DesignColumn, x: Estimate) -> Side:
        return Side(c.label, x.tco.total_usd, x.tco.efficiency, x.tco.usd_per_useful_gpu_hour)

    return recommend_pair(max(ei.view.gpus, ee.view.gpus),
                          max(ei.step.comm_fraction, ee.step.comm_fraction), economics,
                          side(i, ei), side(e, ee)), (i, e)


PROFILE_LABELS = {"ib-ndr": "IB NDR", "ib-xdr": "IB XDR", "roce-400": "RoCE 400G",
                  "roce-800": "RoCE 800G", "spectrum-x-800": "Spectrum-X 800G",
                  "uec-800": "UEC 800G", "mv-roce-400": "Multi-vendor RoCE 400G"}


def profile_variant(project: Project, profile: str, catalog: Catalog) -> Project:
    """The design under another gear profile as drawn (regenerated when its shape must
    change)."""
    if profile == project.profile:
        return project
    return convert_profile(project, profile, catalog).project


SIZE_FIELDS = {  # what sizes a generated design besides its GPU count: dropped for a rebuild
    "rail": ("sus", "servers", "servers_per_su", "racks_per_su", "reserve_leaf_ports"),
    "fat-tree": ("servers_per_leaf", "pod_gpus", "k_ary"),
}


def server_variant(project: Project, server: str, catalog: Catalog) -> Project:
    """The generated design rebuilt on ``server`` with the same GPU count and gear profile: an
    NVL72 design against 8-GPU servers, or the other way round."""
    gen = project.generator
    if gen is None or gen.kind not in SIZE_FIELDS:
        raise WorkloadError("servers: only a generated rail or fat-tree design can be built "
                            "again on other servers")
    spec = catalog.server(server, "servers")
    total = _design_gpus(project, catalog)
    if not total:
        raise WorkloadError("servers: the design has no GPUs to rebuild on other servers")
    changes: dict = {k: None for k in SIZE_FIELDS[gen.kind]}
    if gen.kind == "rail":
        changes["reserve_leaf_ports"] = 0
    changes |= {"server": spec.id, "gpus": total, "nic": None, "nics": None,
                "gpus_per_server": None, "planes": None, "name": None}
    return regenerate(project, changes, catalog)


def profile_rebuilt(project: Project, profile: str, catalog: Catalog) -> Project:
    """The generated design built again for ``profile`` with its GPU count, oversubscription
    and placement but the gear's own sizes (pods, servers per leaf) and switches: for gear on
    which the drawn layout cannot be built (3,072-GPU pods need spines a 64-port InfiniBand
    switch does not have)."""
    gen = project.generator
    if gen is None or gen.kind not in SIZE_FIELDS:
        raise WorkloadError(f"profiles: the design cannot be laid out for '{profile}' and is "
                            "not a generated rail or fat tree to build again")
    changes: dict = {k: None for k in SIZE_FIELDS[gen.kind]}
    if gen.kind == "rail":
        changes["reserve_leaf_ports"] = 0
    changes |= {"gear": profile, "switch": None, "spine_switch": None, "radix": None,
                "gpus": _design_gpus(project, catalog), "server": None, "nic": None,
                "nics": None, "gpus_per_server": None, "planes": None}
    return regenerate(project, changes, catalog).evolve(transport=None)


def _design_gpus(project: Project, catalog: Catalog) -> int:
    total = 0
    seen: dict[str, int] = {}
    for d in project.fabric.devices:
        if d.role.value != "gpu-server":
            continue
        if d.model not in seen:
            try:
                seen[d.model] = port_layout(d, catalog).gpus
            except DesignerError:
                seen[d.model] = 0
        total += seen[d.model]
    return total


def profile_best(project: Project, profile: str, catalog: Catalog, target: Target | None = None,
                 as_drawn: bool = False, solver=None) -> Best:
    """The design under ``profile`` as it would be bought (see ``best``), or as drawn."""
    return best_design(project, profile, catalog, target=target, as_drawn=as_drawn,
                       solver=solver)


def oversubscription_variant(project: Project, ratio: str, catalog: Catalog) -> Project:
    """A generated fat tree again with another oversubscription (``2:1``, ``1:1,3:1``)."""
    if project.generator is None or project.generator.kind != "fat-tree":
        raise WorkloadError("oversubscriptions: only a generated fat tree can be built "
                            "again with another oversubscription")
    return regenerate(project, {"oversubscription": ratio}, catalog)
