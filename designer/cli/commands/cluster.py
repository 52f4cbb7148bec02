"""``designer cluster FILE TRACE``: a trace of jobs replayed on the design: placement,
interference, failures, goodput and the money lost to the network and to failures."""

from __future__ import annotations

import argparse

from designer.cli.commands._common import (
    SEED,
    add_command,
    count_arg,
    finite_number,
    load,
    print_json,
    stderr_progress,
)
from designer.core.cluster import (
    FORMATS,
    POLICIES,
    ClusterResult,
    ClusterSettings,
    FailureSettings,
    TraceError,
    cluster_project,
    read_trace,
    synthetic,
)
from designer.core.errors import DesignerError


def _llama3_ett() -> float:
    """Effective training time (%) the default checkpoint and restart give at Llama 3's rate of
    interruptions: said in the help beside the published figure."""
    from designer.core.cluster import (
        LLAMA3_DAYS,
        LLAMA3_INTERRUPTIONS,
        FailureSettings,
        effective_training,
    )

    return round(100 * effective_training(FailureSettings(),
                                          24 * LLAMA3_DAYS / LLAMA3_INTERRUPTIONS), 1)


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run,
        help="replay a trace of jobs on the design: placement, interference, failures, goodput",
        description="Replay a trace of jobs on the design: each job placed by the policy, its "
        "traffic sharing the links with the other running jobs (the flow model, by GPU "
        "class), failures interrupting the jobs in their blast radius, checkpoints and "
        "restarts. TRACE is a CSV with the header job,arrival_h,gpus,duration_h "
        "(optional workload, tenant, tokens), a public trace (Philly, PAI, Acme, Lingjun), "
        "or synthetic[:JOBS] for a mix that offers 80%% of the design's GPU-hours over the "
        "replay (the utilisation Meta reports for its research clusters, HPCA 2025): JOBS "
        "alone spreads the arrivals over the days that load asks for, JOBS with --days sizes "
        "the run times, --days alone (default 30) the count. The summary gives the offered "
        "load beside the utilisation reached (queueing and fragmentation keep it lower).",
    )
    p.add_argument("trace", help="trace file, or synthetic[:JOBS]")
    p.add_argument("--policy", default="pack", choices=POLICIES,
                   help="placement policy (default pack: topology-aware)")
    p.add_argument("--days", type=finite_number, default=None, help="replay the first D days only")
    p.add_argument("--format", choices=FORMATS, help="trace format (default: recognised)")
    p.add_argument("--topology", metavar="TOPO.csv", help="Lingjun topo.csv for the trace's "
                   "own placement")
    p.add_argument("--no-failures", action="store_true", help="leave failures out")
    p.add_argument("--checkpoint-h", type=finite_number, default=None, metavar="H",
                   help="checkpoint interval, hours (default: each job's Young/Daly optimum "
                   "sqrt(2 x C x MTTI), C = 3.24 s, Llama 3's 405B training state, 6.48 TB, "
                   "at its storage's sustained 2 TB/s, arXiv 2407.21783 section 3.3.1; at "
                   f"Llama 3's interruption rate it gives {_llama3_ett()}%% effective "
                   "training time where the paper reports over 90%%, see docs/estimates.md)")
    p.add_argument("--restart-h", type=finite_number, default=None, metavar="H",
                   help="restart time after an interruption, hours (default 0.25: an "
                   "assumption, no paper gives a usual restart's time; Llama 3's over 90%% "
                   "needs under 0.23; FlashRecovery, built for fast recovery, restarts 4,800 "
                   "devices in 0.04, arXiv 2509.03047)")
    p.add_argument("--comm-share", type=finite_number, default=None, metavar="F",
                   help="exposed communication share of every job's step (default: the "
                   "workload estimate on this design)")
    p.add_argument("--seed", type=SEED, default=0, help="seed for failures and placement")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--vs", action="append", metavar="FILE2", default=[],
                   help="the same trace on another design, side by side (repeat for more)")
    p.add_argument("--grid", metavar="P1,P2,...",
                   help="sweep these policies x the designs (FILE and --vs) x the traces "
                   "(TRACE and --also-trace) on local worker processes")
    p.add_argument("--also-trace", action="append", metavar="TRACE2", default=[],
                   help="another trace file for --grid")
    p.add_argument("--workers", type=count_arg(0, 256), default=None,
                   help="worker processes for --grid (0: in this process)")
    p.add_argument("--engine", choices=("processes", "dask"), default="processes",
                   help="--grid's local workers: processes forked from this one (default) or "
                   "a local Dask cluster")


_OPTION = {"checkpoint_h": "--checkpoint-h", "restart_h": "--restart-h", "days": "--days",
           "comm_share": "--comm-share", "seed": "--seed", "policy": "--policy"}


def settings_from(args: argparse.Namespace) -> ClusterSettings:
    """The replay settings of the options; a value out of range is a usage error naming the
    option and its range (pydantic's message), never an internal error."""
    from pydantic import ValidationError

    try:
        return _settings(args)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        field = next((str(x) for x in reversed(err["loc"]) if str(x) in _OPTION), "")
        option = _OPTION.get(field, ".".join(str(x) for x in err["loc"]))
        raise DesignerError(f"{option}: {err['msg'].removeprefix('Value error, ')}") from None


def _settings(args: argparse.Namespace) -> ClusterSettings:
    fs = FailureSettings(enabled=not args.no_failures)
    upd = {}
    if args.checkpoint_h is not None:
        upd["checkpoint_h"] = args.checkpoint_h
    if args.restart_h is not None:
        upd["restart_h"] = args.restart_h
    if upd:
        fs = FailureSettings.model_validate(fs.model_dump() | upd)
    return ClusterSettings.model_validate({
        "policy": args.policy, "days": args.days, "failures": fs.model_dump(),
        "comm_share": args.comm_share, "seed": args.seed})


def trace_from(args: argparse.Namespace, design_gpus: int):
    spec = args.trace
    if spec == "synthetic" or spec.startswith("synthetic:"):
        n = spec.partition(":")[2]
        if n and not n.isdigit():
            raise TraceError(f"TRACE: '{spec}': synthetic:JOBS takes a whole number")
        if n and int(n) < 1:
            raise TraceError(f"TRACE: '{spec}': synthetic:JOBS takes one job or more")
        days = args.days if args.days is not None or n else 30.0
        return synthetic(design_gpus, days, jobs=int(n) if n else None, seed=args.seed)
    return read_trace(spec, args.format, args.topology)


def summary(r: ClusterResult) -> list[str]:
    usd = r.usd_per_gpu_hour
    pm = r.per_month
    lines = [
        f"{r.design}: {r.trace}, policy {r.policy}, {r.horizon_h / 24:.1f} days",
        f"  jobs {len(r.job):,} ({r.finished:,} finished), offered load {r.offered_load:.1%}, "
        f"utilisation {r.utilisation:.1%}, goodput {r.goodput:.2%}",
        f"  lost to the network: {r.gpu_hours_lost_network:,.0f} GPU-h "
        f"(${r.gpu_hours_lost_network * usd:,.0f}; ${r.gpu_hours_lost_network * usd * pm:,.0f}"
        "/month)",
        f"  lost to failures: {r.gpu_hours_lost_failures:,.0f} GPU-h "
        f"(${r.gpu_hours_lost_failures * usd:,.0f}; "
        f"${r.gpu_hours_lost_failures * usd * pm:,.0f}/month)",
    ]
    if r.by_tier:
        lines.append("  network by tier: " + ", ".join(
            f"{k} {v:,.0f} GPU-h" for k, v in sorted(r.by_tier.items(), key=lambda x: -x[1])))
    if r.by_cause:
        lines.append("  failures by cause: " + ", ".join(
            f"{k} {int(v['failures'])} ({int(v['interruptions'])} jobs hit, "
            f"{v['gpu_hours']:,.0f} GPU-h)" for k, v in r.by_cause.items()))
    if r.mtti_h:
        lines.append("  mean time to interruption: " + ", ".join(
            f"{s:,} GPUs {h:,.1f} h" for s, h in r.mtti_h))
    return lines


def _stages(quiet: bool):
    """Progress on stderr, one line per stage."""
    inner = stderr_progress(quiet)
    last = [""]

    def progress(fraction: float, stage: str) -> None:
        if stage != last[0]:
            last[0] = stage
            inner(fraction, stage)

    return progress


def _grid(args: argparse.Namespace, settings: ClusterSettings) -> int:
    from designer.core.cluster import POLICIES, cluster_sweep
    from designer.core.sweep import default_workers

    pols = [x.strip() for x in args.grid.split(",") if x.strip()]
    bad = [x for x in pols if x not in POLICIES]
    if bad:
        raise TraceError(f"--grid: unknown policy '{bad[0]}' (choose {', '.join(POLICIES)})")
    base = settings.model_dump(mode="json")
    cells = cluster_sweep([args.file, *args.vs], [args.trace, *args.also_trace], pols, base,
                          workers=default_workers() if args.workers is None else args.workers,
                          engine=args.engine)
    if args.json:
        print_json([{"design": c.design, "trace": c.trace, "policy": c.policy,
                     "figures": c.figures, "error": c.error} for c in cells])
        return 0
    for c in cells:
        if c.error:
            print(f"{c.design} | {c.trace} | {c.policy}: {c.error}")
        else:
            f = c.figures
            print(f"{c.design} | {c.trace} | {c.policy}: goodput {f['goodput']:.4f}, "
                  f"network ${f['usd_lost_network']:,.0f}, failures ${f['usd_lost_failures']:,.0f}")
    return 0


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    if args.grid:
        return _grid(args, settings)
    project, cat = load(args, args.file)
    settings = settings_from(args)
    from designer.core.solver import compile_project

    n = compile_project(project, cat).n_gpus
    trace = trace_from(args, n)
    if settings.days is None and trace.window_h:
        # a synthetic mix is replayed over its window: the load it offers is over that time
        settings = settings.model_copy(update={"days": trace.window_h / 24.0})
    r = cluster_project(project, trace, settings, catalog=cat,
                        progress=_stages(args.quiet or args.json))
    others = []
    for f in args.vs:
        p2, cat2 = load(args, f)
        others.append(cluster_project(p2, trace, settings, catalog=cat2,
                                      progress=_stages(args.quiet or args.json)))
    if args.json:
        print_json(r.to_json() if not others else
                   {"designs": [x.to_json() for x in (r, *others)]})
    else:
        for x in (r, *others):
            print("\n".join(summary(x)))
    return 0
