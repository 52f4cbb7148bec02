"""``designer whatif FILE``: fail switches, planes, bundles or cables on a copy; N-1 tables."""

from __future__ import annotations

import argparse

from designer.cli.commands._common import (
    GPU_HOUR,
    add_command,
    load,
    print_json,
)
from designer.cli.commands.load import add_traffic_options
from designer.core.solver import compile_project
from designer.core.traffic import DEFAULT_USD_PER_GPU_HOUR, WhatIf, n_minus_1, what_if
from designer.core.transport import transport_of


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run,
        help="failure what-if: bisection retained, oversubscription, stranded GPUs, slowdown",
        description="Fail elements on a copy of the design (nothing is saved) and report the "
        "bisection retained, oversubscription per tier after the failure, stranded GPUs, "
        "the slowdown of a traffic pattern under the routing in use, and its cost per day. "
        "--n-1 TIER fails each switch of a tier in turn, one per symmetry class.",
    )
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--fail", action="append", metavar="WHAT",
                   help="a device id, ROLE:N (the N-th, e.g. spine:3), rack:N (the N-th "
                   "scale-up domain whole: an NVL72 rack, or an 8-GPU server), plane:N, "
                   "bundle:A/B or cables:K (K random switch cables); repeat to fail several")
    g.add_argument("--n-1", dest="n1", metavar="TIER", help="N-1 table over a switch tier "
                   "(leaf, spine, core, router) or over the racks (rack: each scale-up domain)")
    p.add_argument("--pattern", default="permutation", help="pattern for the slowdown "
                   "(default permutation)")
    p.add_argument("--usd-per-gpu-hour", type=GPU_HOUR, default=DEFAULT_USD_PER_GPU_HOUR,
                   metavar="USD",
                   help=f"cost of a GPU hour (default {DEFAULT_USD_PER_GPU_HOUR:g}: the H800 "
                   "rental price DeepSeek-V3 costs its training at, arXiv 2412.19437)")
    add_traffic_options(p)


def _line(w: WhatIf) -> str:
    sd = w.slowdown
    ov = ", ".join(f"{k} x{v['factor']:.3f}" for k, v in w.oversubscription.items())
    return (f"bisection {w.bisection_retained:.1%}, stranded GPUs {w.stranded_gpus:,}, "
            f"oversubscription {ov or 'n/a'}, slowdown "
            + ("never completes" if sd is None or sd == float('inf') else f"{sd:.3f}")
            + f", ${w.money_per_day_usd:,.0f}/day")


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    c = compile_project(project, cat)
    # the routing asked for, else the design's transport's (as designer load)
    routing = args.routing or transport_of(project, cat).load_routing
    kw = dict(pattern=args.pattern, routing=routing, flows_per_pair=args.flows_per_pair,
              trials=args.trials, seed=args.seed, usd_per_gpu_hour=args.usd_per_gpu_hour)
    if args.n1:
        rows = n_minus_1(c, args.n1, **kw)
        if args.json:
            print_json({"tier": args.n1, "rows": [r.to_json() for r in rows]})
        else:
            print(f"{project.name}: N-1 over {args.n1} ({len(rows)} symmetry class(es))")
            for r in rows:
                print(f"  {r.example} (x{r.members}): {_line(r.result)}")
        return 0
    w = what_if(c, args.fail, **kw)
    if args.json:
        print_json(w.to_json())
    else:
        print(f"{project.name}: fail {', '.join(w.failed)} ({w.cables} cables)")
        print(f"  {_line(w)}")
    return 0
