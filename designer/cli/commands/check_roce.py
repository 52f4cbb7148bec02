"""``designer check-roce FILE``: bring the routed fabric up on FRR in network namespaces."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from designer.cli.commands._common import (
    add_command,
    count_arg,
    load,
    number_arg,
    print_json,
    stderr_progress,
)
from designer.core.ethernet import HOSTS_PER_LEAF, MAX_SESSIONS, MAX_SWITCHES, check_roce


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub,
        name,
        run,
        help="check a RoCE design's routed underlay on FRR in network namespaces",
        description="Bring the design's switches up as Linux network namespaces running FRR "
        "with the configs 'designer export configs' writes (eBGP, /31 per cable), one veth "
        "pair per cable and a few host namespaces per leaf; wait for BGP to converge; read "
        "every leaf's route to every other leaf (vtysh JSON) and compare its ECMP width with "
        "the design's equal-cost paths and traceroute's switch count with the shortest path; "
        "then fail a spine and measure again. Designs larger than --max-switches or "
        "--max-sessions are checked on a slice (the report says which). Everything made is "
        "removed at the end, also on errors and Ctrl+C. Needs root and the Debian packages "
        "frr, iproute2 and traceroute. "
        "Exit 0 when everything matches, 1 on differences, 2 on bad input or missing tools.",
    )
    p.add_argument("--max-switches", type=count_arg(2, 4096), default=MAX_SWITCHES, metavar="N",
                   help="largest lab to build; larger designs are sliced (default %(default)s)")
    p.add_argument("--max-sessions", type=count_arg(1, 100_000), default=MAX_SESSIONS, metavar="N",
                   help="most BGP sessions to bring up; wider bundles between two switches "
                   "are narrowed to fit (default %(default)s)")
    p.add_argument("--hosts-per-leaf", type=count_arg(0, 64), default=HOSTS_PER_LEAF, metavar="N",
                   help="host namespaces per leaf (default %(default)s)")
    p.add_argument("--no-failure", action="store_true", help="do not fail a spine")
    p.add_argument("--timeout", type=number_arg(0.0, 86_400.0, "seconds", low_open=True),
                   default=60.0, metavar="S",
                   help="seconds to wait for convergence, each phase (default %(default)s)")
    p.add_argument("--keep", metavar="DIR", type=Path,
                   help="copy the configs, daemon logs and traceroutes to DIR")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    progress = stderr_progress(args.quiet)

    def terminated(_sig, _frame):  # a kill ends like Ctrl+C: the lab is removed on the way out
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, terminated)
    try:
        report = check_roce(project, cat, progress=progress,
                            max_switches=max(2, args.max_switches),
                            max_sessions=max(1, args.max_sessions),
                            hosts_per_leaf=max(1, args.hosts_per_leaf),
                            fail_spine=not args.no_failure, timeout_s=args.timeout,
                            keep_logs=args.keep)
    finally:
        signal.signal(signal.SIGTERM, old)
    if args.json:
        print_json({"file": args.file, **report.to_json()})
    else:
        print("\n".join(report.lines()))
    return 0 if report.ok else 1
