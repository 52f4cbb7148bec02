"""``designer estimate FILE``: collectives, step time, money, TCO and the recommendation."""

from __future__ import annotations

import argparse

from designer.cli.commands._common import (
    FLOWS_PER_PAIR,
    GPU_HOUR,
    GPU_HOUR_HELP,
    RUN_DAYS,
    RUN_DAYS_HELP,
    TRIALS,
    YEARS,
    YEARS_HELP,
    add_command,
    count_arg,
    finite_number,
    load,
    print_json,
)
from designer.core.analysis import (
    ALGORITHMS,
    CollectiveRequest,
    Estimate,
    WorkloadError,
    constant_notes,
    economics_notes,
    estimate,
    fittable,
    load_workload,
    parse_bytes,
    settings_of,
    with_economics,
)
from designer.core.solver import solve
from designer.core.traffic import canonical_routing
from designer.core.transport import tuning_name

GROUPS = ("all", "dp", "tp", "ep", "pp", "cp")
OPS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv")


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run,
        help="estimate collectives, step time, money lost, TCO and a recommendation",
        description="Estimate on the solved design: NCCL-like collective times (algbw, busbw "
        "as nccl-tests reports them), the training step of the workload (compute, bubble, "
        "exposed communication, MFU), what the fabric costs against an ideal one, TCO over "
        "years and the decision rules with their sources. Exit 2 on bad input.")
    p.add_argument("--workload", metavar="PRESET|FILE",
                   help="a preset (llama3-405b-8k, llama3-405b-16k, llama3-405b-131k, "
                   "dense-70b-dp, deepseek-v3-like) or a JSON file; default: the project's")
    p.add_argument("--fit", choices=("batch", "per-gpu"), default=None,
                   help="fit a workload written for another size to this design: keep the "
                   "global batch (data parallelism follows the GPUs) or the per-GPU batch "
                   "(the global batch follows); the output lists what changed")
    p.add_argument("--gpu-hour-usd", type=GPU_HOUR, metavar="X", help=GPU_HOUR_HELP)
    p.add_argument("--run-days", type=RUN_DAYS, metavar="D", help=RUN_DAYS_HELP)
    p.add_argument("--years", type=YEARS, metavar="Y", help=YEARS_HELP)
    p.add_argument("--collective", choices=OPS, help="estimate one collective instead of the "
                   "workload's")
    p.add_argument("--bytes", metavar="SIZE", help="message size for --collective (1GiB, 4096)")
    p.add_argument("--group", choices=GROUPS, default="all",
                   help="the communicator (all: every GPU of the job)")
    p.add_argument("--algorithm", choices=ALGORITHMS, default="auto")
    under = p.add_mutually_exclusive_group()
    under.add_argument("--network-slowdown", type=finite_number,
                       default=None, metavar="X",
                       help="scale the network terms by X (a routing model's efficiency you "
                       "measured; default 1: the ideal fabric)")
    under.add_argument("--under", choices=("spray", "ecmp", "static", "valiant", "adaptive"),
                       type=canonical_routing,
                       help="run the collectives' ring traffic through the flow model under "
                       "this routing and scale the network terms by it (spray: packet "
                       "spraying, the fluid split; 'adaptive', its former name, means "
                       "spray); under ecmp, NCCL's "
                       "channels and queue pairs are hashed and each channel's pipelined ring "
                       "moves at its most loaded link (max-min fair, channels as commodities)")
    p.add_argument("--flows-per-pair", "--qps", dest="flows_per_pair", type=FLOWS_PER_PAIR,
                   default=None, metavar="Q",
                   help="with --under ecmp: queue pairs per connection "
                   "(NCCL_IB_QPS_PER_CONNECTION; default the workload's, NCCL's 1)")
    p.add_argument("--channels-per-nic", type=count_arg(1, 64), default=None, metavar="C",
                   help="with --under ecmp: NCCL ring channels per NIC (default the "
                   "workload's, 2)")
    p.add_argument("--trials", type=TRIALS, default=3, metavar="T",
                   help="with --under ecmp: hash seeds to average over (default 3)")
    p.add_argument("--routing", default=None, metavar="LABEL",
                   help="label of the routing model --network-slowdown stands for")


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    s = settings_of(project)
    workload = load_workload(args.workload) if args.workload else s.workload
    econ = with_economics(s.economics, gpu_hour_usd=args.gpu_hour_usd, run_days=args.run_days,
                          years=args.years)
    requests = None
    if args.collective:
        if not args.bytes:
            raise WorkloadError("--bytes: --collective needs a message size (e.g. 1GiB)")
        requests = (CollectiveRequest(args.collective, parse_bytes(args.bytes), args.group,
                                      args.algorithm),)
    if args.flows_per_pair is not None or args.channels_per_nic is not None:
        from designer.core.analysis import Workload, validated

        workload = validated(Workload, workload.model_dump() | {
            k: v for k, v in (("qps_per_connection", args.flows_per_pair),
                              ("channels_per_nic", args.channels_per_nic)) if v is not None},
            "workload")
    result = solve(project, catalog=cat)
    slowdown, routing = _network(args, project, result, cat, workload)
    try:
        est = estimate(project, result, workload, econ, catalog=cat, requests=requests,
                       network_slowdown=slowdown, routing=routing, fit=args.fit)
        tree = _tree_factor(est, project, cat, args) if args.under == "ecmp" else None
        if tree is not None:
            est = estimate(project, result, workload, econ, catalog=cat, requests=requests,
                           network_slowdown=slowdown, fit=args.fit, tree_slowdown=tree,
                           routing=f"{routing}, tree and NVLS-tree {tree:.3f}x")
    except WorkloadError as exc:
        if args.fit is None and fittable(exc):
            raise WorkloadError(f"{exc} (--fit batch or --fit per-gpu fits the workload to "
                                "this design)") from None
        raise
    if args.json:
        print_json(est.to_json())
    else:
        print(format_estimate(est))
    return 0


def _tree_factor(est, project, catalog, args) -> float | None:
    """NCCL picks its algorithms without knowing the collisions, so the first estimate shows
    them; when one runs the double binary tree (tree, NVLS-tree) its flows are hashed too, and
    the tree's own factor is returned (None: no tree runs)."""
    from designer.core.analysis import runs_a_tree, tree_under_ecmp

    used = [p.algorithm for p in est.step.parts] + [r.algorithm for r in est.collectives]
    if not runs_a_tree(used):
        return None
    w = est.workload
    return tree_under_ecmp(project, channels_per_nic=w.channels_per_nic,
                           qps=w.qps_per_connection, trials=args.trials,
                           gpus=w.gpus or None, catalog=catalog)


def _network(args: argparse.Namespace, project, result, catalog, workload
             ) -> tuple[float, str]:
    """The network terms' factor and the label of the routing it stands for."""
    if args.under:
        if args.trials < 1:
            raise WorkloadError("--trials must be at least 1")
        if args.under == "ecmp":
            from designer.core.analysis import ring_under_ecmp

            r = ring_under_ecmp(project, channels_per_nic=workload.channels_per_nic,
                                qps=workload.qps_per_connection, trials=args.trials,
                                gpus=workload.gpus or None, catalog=catalog)
            return r.slowdown, r.label()
        from designer.core.traffic import collective_slowdown

        slowdown = collective_slowdown(project, result, pattern="ring", routing=args.under,
                                       trials=args.trials, catalog=catalog)
        return slowdown, f"{args.under}: ring traffic {slowdown:.3f}x the ideal"
    if args.network_slowdown is not None:
        if args.network_slowdown < 1:
            raise WorkloadError("network_slowdown (--network-slowdown): must be at least 1 (1 is "
                                "the ideal fabric)")
        return args.network_slowdown, args.routing or f"given slowdown {args.network_slowdown:g}"
    return 1.0, args.routing or "fluid optimum (packet spraying)"


def format_estimate(e: Estimate) -> str:
    s, w, t, i = e.step, e.workload, e.tco, e.loss
    par = s.parallel
    out = [f"Workload   {w.name}" + (f" ({w.source})" if w.source else ""),
           f"           {par.gpus:,} GPUs: TP{par.tp} PP{par.pp} DP{par.dp} CP{par.cp} EP{par.ep},"
           f" {s.tokens_per_step:,} tokens per step, {w.placement} placement",
           *[f"           fitted to this design: {c}" for c in e.fitted],
           f"Fabric     {e.view.tech}, {e.view.nic_gbytes_s:.0f} GB/s per GPU, NVLink domain "
           f"{e.view.domain}, GPU {e.view.gpu.name}, routing {e.routing}",
           *([f"Transport  {(e.transport_json() or {}).get('all_to_all', '')}"]
             if e.transport is not None else []),
           f"NCCL       {_sharp_text(e)}; {e.view.channels_per_nic} ring channel(s) per NIC, "
           f"{e.view.qps_per_connection} queue pair(s) per connection "
           f"(NCCL_IB_QPS_PER_CONNECTION)", "",
           "Collectives (busbw as nccl-tests; in-network reduction may exceed the wire rate)",
           f"  {'op':<15}{'group':<6}{'GPUs':>7}{'bytes':>16}{'algorithm':>10}{'time us':>12}"
           f"{'algbw GB/s':>12}{'busbw GB/s':>12}"]
    for r in e.collectives:
        out.append(f"  {r.op:<15}{r.group:<6}{r.gpus:>7,}{r.bytes:>16,}{r.algorithm:>10}"
                   f"{r.time_us:>12,.1f}{r.algbw_gbytes_s:>12.1f}{r.busbw_gbytes_s:>12.1f}")
    for r in e.collectives:  # what a row's model does not reproduce, beyond the busbw rule
        out += [f"  note ({r.group}): {n}" for n in r.note.split("; ")[1:]]
    out += ["", "Step",
            f"  compute {s.compute_s:.3f} s, bubble {s.bubble_s:.3f} s, exposed communication "
            f"{s.exposed_comm_s:.3f} s -> step {s.step_s:.3f} s",
            f"  communication is {s.comm_fraction:.0%} of the step; MFU {s.mfu:.1%}"
            + (f"; {w.train_tokens_b:,.0f}B tokens in {e.days_to_train:,.1f} days"
               if e.days_to_train else ""),
            f"  GEMMs at {s.gemm_efficiency:.1%} of the {w.precision.upper()} peak "
            f"({s.efficiency_source}); {s.gpu_hours_per_trillion_tokens:,.0f} GPU-hours per "
            f"trillion tokens"]
    out += [f"  note: {n}" for n in s.notes]
    for p in s.parts:
        out.append(f"  {p.kind:<3} {p.op:<14} {p.time_s:8.3f} s, {p.overlap:.0%} hidden "
                   f"({p.algorithm})")
    lost = (f"{i.gpu_hours_lost:,.0f} GPU-hours, ${i.usd_lost:,.0f}, {i.days_lost:.2f} days lost"
            if i.gpu_hours_lost >= 0.5 else "nothing lost to the fabric")
    out += ["", "Against an ideal fabric (non-blocking, no fabric latency, same NICs)",
            f"  ideal step {e.ideal.step_s:.3f} s, slowdown {e.slowdown:.4f}x; over "
            f"{e.economics.run_days:g} days at ${e.economics.gpu_hour_usd:g}/GPU-hour: {lost}",
            "",
            f"TCO over {t.years:g} years: ${t.total_usd:,.0f} (capex ${t.capex_usd:,.0f}, energy "
            f"${t.energy_usd_per_year:,.0f}/yr, support ${t.support_usd_per_year:,.0f}/yr, "
            f"{tuning_name(e.transport)} tuning ${t.tuning_usd:,.0f}"
            + (" as the transport's default" if e.tuning_from_transport else "") + ")",
            f"  ${t.usd_per_useful_gpu_hour:.3f} per useful GPU-hour", "",
            f"Recommendation: {e.recommendation.choice}"]
    for r in e.recommendation.rules:
        out.append(f"  [{'x' if r.fired else ' '}] {r.rule} ({r.figure}; {r.source})")
    out.append(f"  break-even: {e.recommendation.break_even}")
    if e.recommendation.note:
        out.append(f"  note: {e.recommendation.note}")
    out += ["", "Constants of the step model (source, assumption or set here)"]
    for n in constant_notes(e.workload):
        out.append(f"  {n.field:<22}{n.value!s:<12}{n.kind:<11}{n.note}")
    out += ["", "Money constants (source, assumption or set here)"]
    for n in economics_notes(e.economics, e.tuning_from_transport):
        out.append(f"  {n.field:<22}{n.value!s:<12}{n.kind:<11}{n.note}")
    return "\n".join(out)


def _sharp_text(e: Estimate) -> str:
    if e.view.collnet:
        return "IB SHARP on (NCCL_COLLNET_ENABLE=1)"
    if e.view.sharp:
        return "IB SHARP off (switches can; set workload ib_sharp for NCCL_COLLNET_ENABLE=1)"
    return "no IB SHARP on this gear"
