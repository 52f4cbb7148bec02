"""``designer acceptance FILE -o DIR`` and ``designer acceptance check FILE RESULTS...``."""

from __future__ import annotations

import argparse
import sys

from designer.cli.commands._common import add_command, load, print_json
from designer.core.acceptance import (
    CheckResult,
    check_for,
    plan_for,
    write_check_csv,
    write_check_report,
    write_plan,
)
from designer.core.analysis import load_workload
from designer.core.solver import solve
from designer.core.writers import ExportError


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run,
        help="acceptance tests for the built cluster with predicted bands; 'check' reads "
        "the results",
        description="Two forms. 'designer acceptance FILE -o DIR' writes the tests to run on "
        "the built cluster (nccl-tests all_reduce_perf, all_gather_perf, alltoall_perf over "
        "every node and rail, one all_reduce_perf per rail, perftest ib_write_bw and "
        "ib_write_lat between leaf pairs) with the busbw and latency band this design "
        "predicts per message size, and the KPIs of the IETF AI-fabric benchmarking draft. "
        "'designer acceptance check FILE RESULTS...' reads nccl-tests and perftest output "
        "(several files and runs), sets each figure beside its band and names likely "
        "causes for a miss. Exit 0 when every run lands in its band, 1 on a miss, 2 on bad "
        "input.", file=False)
    p.add_argument("file", metavar="FILE", help="project file, or the word 'check'")
    p.add_argument("results", nargs="*", metavar="RESULTS",
                   help="with 'check': the project file, then result files")
    p.add_argument("-o", "--output", metavar="DIR", help="folder to write the plan into")
    p.add_argument("--as-built", metavar="FILE",
                   help="with 'check': ibnetdiscover output, LLDP tables or an as-built "
                   "project, for miswired, missing and slow links")
    p.add_argument("--report", metavar="OUT.html",
                   help="with 'check': also write the design report with the results")
    p.add_argument("--csv", metavar="OUT.csv",
                   help="with 'check': also write every measured figure beside its band")
    p.add_argument("--workload", metavar="PRESET|FILE",
                   help="workload for the step KPI (default: the project's)")


def run(args: argparse.Namespace) -> int:
    workload = load_workload(args.workload) if args.workload else None
    if args.file == "check":
        if len(args.results) < 2:
            print("designer acceptance check: give the project file and at least one "
                  "results file", file=sys.stderr)
            return 2
        project, cat = load(args, args.results[0])
        result = solve(project, catalog=cat)
        res = check_for(project, cat, args.results[1:], as_built=args.as_built,
                        workload=workload, result=result)
        if args.csv:
            write_check_csv(res, args.csv)
        if args.report:
            message = write_check_report(project, cat, result, res, args.report)
            if not args.json:
                print(message)
        if args.json:
            print_json(res.to_json())
        else:
            print(check_text(res))
        return 0 if res.passed else 1
    if args.results:
        print("designer acceptance: unexpected arguments; to check results use "
              "'designer acceptance check FILE RESULTS...'", file=sys.stderr)
        return 2
    project, cat = load(args, args.file)
    plan = plan_for(project, cat, workload=workload)
    if args.json:
        print_json(plan.to_json())
        if not args.output:
            return 0
    if not args.output:
        raise ExportError("give -o DIR, the folder to write the plan into (or --json)")
    files = write_plan(plan, args.output)
    if not args.json:
        c = plan.cluster
        print(f"wrote {args.output}: {len(files)} files; {len(plan.collectives)} nccl-tests "
              f"runs over {len(c.nodes):,} nodes x {c.gpus_per_node} GPUs and {c.rails} "
              f"rails, {len(plan.pairs):,} perftest runs, {len(plan.kpis)} KPIs (see PLAN.md)")
    return 0


def check_text(res: CheckResult) -> str:
    lines = [f"{res.plan.design}: "
             + ("every run in its band" if res.passed else "a run misses its band")]
    for r in res.runs:
        judged = [m for m in r.rows if m.judged]
        worst = min(judged, key=lambda m: m.measured / m.predicted if m.predicted else 1,
                    default=None)
        detail = ""
        if worst is not None:
            detail = (f"; at {worst.bytes:,} B measured {worst.measured:.4g} {r.unit}, band "
                      f"{worst.low:.4g}-{worst.high:.4g} (predicted {worst.predicted:.4g})")
        lines.append(f"  {r.verdict.upper():7} {r.source}: {r.test}, {r.ranks:,} ranks"
                     f"{detail}")
        lines += [f"          {n}" for n in r.notes]
    if res.causes:
        lines.append("likely causes:")
        for c in res.causes:
            lines.append(f"  - {c.title}: {c.evidence}")
    for w in res.warnings:
        lines.append(f"warning: {w}")
    return "\n".join(lines)
