"""Two to six designs side by side: the figures an architect compares, deltas against the first,
and the break-even between the cheapest and each dearer one.

Each design is a (label, project, result) triple already solved (``variants`` builds the
columns of one design under other profiles, transports, ratios or servers); its estimate uses one
common workload and economics, each technology under its own transport's routing unless one
routing is asked of all (``routing``), and a workload written for another size is fitted. The
verdict ranks by the cost of a step of work (network and servers, so columns on different GPUs
compare), states what each side assumes and whether it flips under other routing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from designer.core.analysis.best import Best, Target, best_design, unused_ports
from designer.core.analysis.estimates import Estimate
from designer.core.analysis.fit import fittable
from designer.core.analysis.prices import Premium, cost_per_endpoint, endpoints, premium
from designer.core.analysis.recommend import Recommendation, Side, recommend_pair
from designer.core.analysis.routing import MODES as ROUTING_MODES
from designer.core.analysis.routing import Routing, estimate_under, production_qps
from designer.core.analysis.tco import HOURS_PER_YEAR, break_even_gain
from designer.core.analysis.variants import (  # noqa: F401 (names callers import from here)
    MAX_COLUMNS,
    PROFILE_LABELS,
    SIZE_FIELDS,
    design_server,
    oversubscription_variant,
    server_name,
    server_variant,
)
from designer.core.analysis.workload import Economics, Workload, WorkloadError
from designer.core.catalog import Catalog, builtin_catalog
from designer.core.convert import convert_profile
from designer.core.errors import DesignerError
from designer.core.model import Project
from designer.core.solver import Result

MAX_DESIGNS = MAX_COLUMNS
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
    ("network_slowdown", "Network terms against the ideal (x)", "", "low"),
    ("step_s", "Step time", "s", "low"),
    ("comm_fraction", "Communication share", "%", "low"),
    ("mfu", "MFU", "%", "high"),
    ("ep_exposed_s", "EP all-to-all exposed a step", "s", "low"),
    ("capex_usd", "Capex (network)", "$", "low"),
    ("usd_per_gpu", "Network cost per GPU", "$", "low"),
    ("usd_per_gpu_fabric", "Network cost per GPU, no NIC side", "$", "low"),
    ("usd_per_gpu_all", "Network + servers per GPU", "$", "low"),
    ("power_kw", "Network power", "kW", "low"),
    ("tco_usd", "TCO (network)", "$", "low"),
    ("usd_per_step", "Cost per step (network + servers)", "$", "low"),
    ("usd_per_mtok", "Cost per million tokens", "$", "low"),
    ("usd_per_useful_gpu_hour", "Cost per useful GPU-hour (same GPU only)", "$", "low"),
)
# rows of words, not numbers: (key, label)
TEXT_ROWS: tuple[tuple[str, str], ...] = (("servers", "Servers / GPU"), ("routing", "Routing"))


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
    servers: str = ""  # "NVIDIA DGX H100 / H100"
    routing: Routing | None = None
    transport: str = ""

    @property
    def fitted(self) -> tuple[str, ...]:
        return self.estimate.fitted if self.estimate is not None else ()

    def text(self, key: str) -> str:
        if key == "servers":
            return self.servers
        if key == "routing":
            return self.routing.short if self.routing is not None else ""
        return ""

    def to_json(self) -> dict:
        return {"label": self.label, "name": self.name, "profile": self.profile,
                "layout": self.layout, "servers": self.servers, "transport": self.transport,
                "routing": self.routing.to_json() if self.routing else None,
                "workload_fitted": list(self.fitted),
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
    routing: str = "transport"  # what was asked: each transport's own, or one for all
    notes: tuple[str, ...] = ()  # what the reader must know to read the table (left out...)

    def to_json(self) -> dict:
        return {"routing": self.routing, "designs": [d.to_json() for d in self.designs],
                "premium": self.premium.to_json() if self.premium else None,
                "deltas": [{k: (round(v, 6) if isinstance(v, float) else v)
                            for k, v in d.items()} for d in self.deltas],
                "break_even": list(self.break_even),
                "recommendation": self.recommendation.to_json() if self.recommendation else None,
                "notes": list(self.notes)}


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


def _servers_text(project: Project, catalog: Catalog, est: Estimate | None) -> str:
    srv = design_server(project, catalog)
    name = server_name(catalog, srv) if srv else "no servers"
    return f"{name} / {est.view.gpu.name}" if est is not None else name


def _no_design(label: str, reason: str) -> DesignColumn:
    keys = [k for k, *_ in FIGURES]
    return DesignColumn(label, "", "", dict.fromkeys(keys), {}, None, reason or
                        "no design could be built for this column")


def column(label: str, project: Project | None, result: Result | None, workload: Workload,
           economics: Economics, catalog: Catalog | None = None,
           layout: str = "", *, routing: str = "transport", fit: bool = True) -> DesignColumn:
    """One design's figures under ``routing`` (each transport's own by default); a workload
    that does not fit the design is fitted (data parallelism scaled, the rest kept) unless
    ``fit`` is off. ``project`` None: a column that could not be built, ``layout`` says why."""
    if project is None or result is None:
        return _no_design(label, layout)
    cat = project.catalog(catalog or builtin_catalog())
    optics = sum(x.qty for x in result.bom.lines if x.category == "transceiver")
    cables = _count(getattr(result, "cables", None), "total", "cables")
    unused, unused_usd = unused_ports(result)
    per_ep, per_ep_fabric = cost_per_endpoint(result, cat)
    gpus = max(1, result.gpus)
    eps = endpoints(result)
    servers_usd = sum(x.total_usd for x in result.bom.compute_lines)
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
        # per GPU, not per NIC port: a two-plane design has two ports a GPU
        "usd_per_gpu": per_ep * eps / gpus, "usd_per_gpu_fabric": per_ep_fabric * eps / gpus,
        "usd_per_gpu_all": (result.bom.total_usd + servers_usd) / gpus,
    }
    est: Estimate | None = None
    rt: Routing | None = None
    error = ""
    busbw: dict[str, float] = {}
    try:
        try:
            est, rt = estimate_under(project, result, workload, economics, routing, catalog)
        except WorkloadError as exc:
            if not (fit and fittable(exc)):
                raise
            est, rt = estimate_under(project, result, workload, economics, routing, catalog,
                                     fit="per-gpu")
    except DesignerError as exc:
        error = str(exc) + ("" if fit or not fittable(exc) else
                            " (--fit, or Compare's fitting, fits the workload to the design)")
    if est is not None:
        t = est.tco
        hours = t.years * HOURS_PER_YEAR * est.economics.availability
        # what an hour of the cluster costs: the network's TCO and the servers' price (once)
        whole = t.total_usd + (0.0 if est.economics.include_servers else servers_usd)
        per_step = whole / hours * est.step.step_s / 3600 if hours > 0 else None
        tokens = est.step.tokens_per_step
        figs |= {"step_s": est.step.step_s, "comm_fraction": est.step.comm_fraction,
                 "mfu": est.step.mfu, "tco_usd": t.total_usd,
                 "network_slowdown": est.network_slowdown,
                 "usd_per_useful_gpu_hour": t.usd_per_useful_gpu_hour,
                 "usd_per_step": per_step,
                 "usd_per_mtok": per_step / tokens * 1e6 if per_step and tokens else None,
                 "ep_exposed_s": next((x.exposed_s for x in est.step.parts if x.kind == "ep"),
                                      None)}
        busbw = {f"{r.group} {r.op}": r.busbw_gbytes_s for r in est.collectives}
    else:
        figs |= dict.fromkeys(("step_s", "comm_fraction", "mfu", "tco_usd", "ep_exposed_s",
                               "network_slowdown", "usd_per_useful_gpu_hour", "usd_per_step",
                               "usd_per_mtok"))
    t_name = est.transport.name if est is not None and est.transport is not None else ""
    return DesignColumn(label, project.name, project.profile, figs, busbw, est, error, layout,
                        project, result, _servers_text(project, cat, est), rt, t_name)


def compare(items: list[tuple], workload: Workload, economics: Economics,
            catalog: Catalog | None = None, *, routing: str = "transport", fit: bool = True,
            notes: tuple[str, ...] | list[str] = (), sensitivity: bool = True) -> Comparison:
    """``items``: (label, project, result) or (label, project, result, layout note); a column
    that could not be built is (label, None, None, why). ``routing``: each transport's own
    (``transport``) or one for every column (``ideal``, ``ecmp``, ``adaptive``)."""
    if not 1 <= len(items) <= MAX_DESIGNS:
        raise WorkloadError(f"designs: compare takes 1 to {MAX_DESIGNS} designs, "
                            f"got {len(items)}")
    if routing not in ROUTING_MODES:
        raise WorkloadError(f"--routing: unknown '{routing}' (known: "
                            f"{', '.join(ROUTING_MODES)})")
    cols = [column(it[0], it[1], it[2], workload, economics, catalog,
                   it[3] if len(it) > 3 else "", routing=routing, fit=fit) for it in items]
    out_notes = list(notes)
    gpu_of = {c.label: c.estimate.view.gpu.name for c in cols if c.estimate is not None}
    if len(set(gpu_of.values())) > 1:
        # a GPU-hour of one GPU buys other work than one of another: per step, per token
        first = next(iter(gpu_of.values()))
        cols = [c if gpu_of.get(c.label, first) == first else
                replace(c, figures=c.figures | {"usd_per_useful_gpu_hour": None})
                for c in cols]
        out_notes.append(f"cost per useful GPU-hour only beside columns on the same GPU "
                         f"({first}); cost per step and per million tokens compare across "
                         "GPUs")
    for c in cols:
        if c.fitted:
            out_notes.append(f"{c.label}: workload fitted to the design: "
                             + "; ".join(c.fitted))
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
        cheap = min(ok, key=lambda c: (c.estimate.tco.total_usd, c.label))  # type: ignore
        for c in sorted(ok, key=lambda c: c.label):
            if c is cheap:
                continue
            e, e0 = c.estimate, cheap.estimate
            assert e is not None and e0 is not None
            delta = e.tco.total_usd - e0.tco.total_usd
            need = break_even_gain(delta, e.view.gpus, economics.years, economics.gpu_hour_usd)
            gain = e.tco.efficiency - e0.tco.efficiency
            be.append({"dearer": c.label, "cheaper": cheap.label, "delta_tco_usd": round(delta, 2),
                       "break_even_gain": round(need, 6), "efficiency_gain": round(gain, 6),
                       "pays": gain > need,
                       "text": break_even_text(c.label, cheap.label, delta, need, gain)})
        rec, pair = _verdict(ok, economics)
        if pair is not None:
            i_col, e_col = pair
            assert i_col.result is not None and e_col.result is not None
            assert i_col.project is not None
            prem = premium(i_col.result, e_col.result,
                           i_col.project.catalog(catalog or builtin_catalog()))
            rec = replace(rec, assumptions=_assumptions(i_col, e_col, routing),
                          sensitivity=_sensitivity(ok, i_col, e_col, rec, economics,
                                                   catalog) if sensitivity else ())
    return Comparison(tuple(cols), deltas, tuple(be), rec, prem, routing, tuple(out_notes))


def break_even_text(dearer: str, cheaper: str, delta: float, need: float, gain: float) -> str:
    """One break-even in words: never a negative gain or threshold."""
    if abs(gain) < 5e-4:
        eff = "gains no efficiency"
    else:
        eff = f"gains {gain:.1%} efficiency" if gain > 0 else f"loses {-gain:.1%} efficiency"
    pays = "pays" if gain > need else "does not pay"
    if delta < 0.5:
        return f"{dearer} costs the same as {cheaper} and {eff}: {pays}"
    return (f"{dearer} costs ${delta:,.0f} more than {cheaper}; it pays above a {need:.1%} "
            f"efficiency gain and {eff}: {pays}")


def _work_usd(c: DesignColumn) -> float:
    """What the verdict ranks by: the cost of a step of work, network and servers (fair
    across GPUs); the cost per useful GPU-hour when the step has no price."""
    v = c.figures.get("usd_per_step")
    if v is not None:
        return v
    assert c.estimate is not None
    return c.estimate.tco.usd_per_useful_gpu_hour


def _side(c: DesignColumn, est: Estimate | None = None, work: float | None = None) -> Side:
    x = est or c.estimate
    assert x is not None
    return Side(c.label, x.tco.total_usd, x.tco.efficiency, x.tco.usd_per_useful_gpu_hour,
                _work_usd(c) if work is None else work, x.step.step_s)


def _verdict(ok: list[DesignColumn], economics: Economics
             ) -> tuple[Recommendation, tuple[DesignColumn, DesignColumn] | None]:
    """The same verdict whichever design is first: each technology is represented by its
    design with the lowest cost per step of work (then by label), the rules see the larger
    communication share of the two, and a tie goes to the lower cost of work."""
    def key(c: DesignColumn) -> tuple[float, str]:
        return _work_usd(c), c.label

    ib = [c for c in ok if c.estimate is not None and c.estimate.view.is_ib]
    eth = [c for c in ok if c.estimate is not None and not c.estimate.view.is_ib]
    if not (ib and eth):
        best = min(ok, key=key).estimate
        assert best is not None
        return best.recommendation, None
    i, e = min(ib, key=key), min(eth, key=key)
    ei, ee = i.estimate, e.estimate
    assert ei is not None and ee is not None
    return recommend_pair(max(ei.view.gpus, ee.view.gpus),
                          max(ei.step.comm_fraction, ee.step.comm_fraction), economics,
                          _side(i), _side(e)), (i, e)


def _assumptions(i: DesignColumn, e: DesignColumn, routing: str) -> tuple[str, ...]:
    out = []
    for c in (i, e):
        rt = c.routing
        how = "its transport's own routing" if routing == "transport" else \
            f"--routing {routing} for every column"
        out.append(f"{c.label}: {c.transport or 'transport unknown'}; "
                   f"{rt.name if rt else 'routing unknown'} ({how}; source: "
                   f"{rt.source if rt else '-'}); on {c.servers}")
    return tuple(out)


def _sensitivity(ok: list[DesignColumn], i: DesignColumn, e: DesignColumn,
                 rec: Recommendation, economics: Economics, catalog: Catalog | None
                 ) -> tuple[dict, ...]:
    """Whether the verdict flips when the routing it rests on changes, and by how much: each
    hashed Ethernet column with adaptive routing or spraying and with one queue pair per
    connection; each InfiniBand column on static routes; a sprayed or adaptive Ethernet side
    hashed by ECMP. The whole verdict is taken again with the one column changed."""
    cases: list[tuple[str, DesignColumn, str, int | None]] = []
    for c in sorted(ok, key=lambda c: c.label):
        rt, est = c.routing, c.estimate
        if rt is None or est is None:
            continue
        if est.view.is_ib:
            if rt.mode != "static":
                cases.append((f"{c.label} on static routes from the subnet manager", c,
                               "static", None))
        elif rt.mode == "ecmp":
            cases.append((f"{c.label} with adaptive routing or packet spraying (fluid split)",
                          c, "adaptive", None))
            if (rt.qps or 1) > 1:
                cases.append((f"{c.label} with one queue pair per connection (NCCL's "
                              "default)", c, "ecmp", 1))
        elif c is e:
            cases.append((f"{c.label} hashed by ECMP with "
                          f"{production_qps(est.workload)} queue pairs", c, "ecmp", None))
    out = []
    for text, col, mode, qps in cases:
        assert col.project is not None and col.result is not None and col.estimate is not None
        base = col.estimate
        try:
            est, rt = estimate_under(col.project, col.result, base.workload, economics, mode,
                                     catalog, qps=qps)
        except DesignerError as exc:
            out.append({"case": text, "column": col.label, "error": str(exc)})
            continue
        scale = est.step.step_s / base.step.step_s if base.step.step_s > 0 else 1.0
        work = col.figures.get("usd_per_step")
        changed = replace(col, estimate=est, routing=rt, figures=col.figures | {
            "step_s": est.step.step_s, "usd_per_step": work * scale if work else work})
        cols = [changed if c is col else c for c in ok]
        r2, pair = _verdict(cols, economics)
        margin = 0.0
        if pair is not None:
            w_i, w_e = _work_usd(pair[0]), _work_usd(pair[1])
            margin = w_i / w_e - 1 if w_e else 0.0
        winner = r2.winner or r2.choice
        out.append({"case": text, "column": col.label, "routing": rt.name,
                    "step_s": round(est.step.step_s, 6),
                    "step_change": round(scale - 1, 6),
                    "choice": r2.choice, "winner": winner,
                    "flips": winner != (rec.winner or rec.choice),
                    "infiniband_cost_of_work_vs_ethernet": round(margin, 6),
                    "text": _case_text(text, est.step.step_s, base.step.step_s, winner,
                                       rec.winner or rec.choice, margin)})
    return tuple(out)


def _case_text(case: str, step: float, before: float, winner: str, was: str,
               margin: float) -> str:
    if margin:
        how = (f"InfiniBand's best then costs {abs(margin):.1%} "
               f"{'more' if margin > 0 else 'less'} per step than Ethernet's best")
    else:
        how = "both cost the same per step"
    flip = f"the verdict flips to {winner}" if winner != was else f"the verdict stays {was}"
    return f"{case}: step {before:.3f} -> {step:.3f} s; {how}; {flip}"


# the columns are built in ``variants`` (one place for the window, the command line and
# sweeps); these names stay for the callers that import them from here
def profile_variant(project: Project, profile: str, catalog: Catalog) -> Project:
    """The design under another gear profile as drawn (regenerated when its shape must
    change)."""
    if profile == project.profile:
        return project
    return convert_profile(project, profile, catalog).project


def profile_best(project: Project, profile: str, catalog: Catalog, target: Target | None = None,
                 as_drawn: bool = False, solver=None) -> Best:
    """The design under ``profile`` as it would be bought (see ``best``), or as drawn."""
    return best_design(project, profile, catalog, target=target, as_drawn=as_drawn,
                       solver=solver)
