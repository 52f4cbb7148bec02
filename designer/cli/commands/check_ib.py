"""``designer check-ib FILE``: bring the design up under OpenSM (over ibsim) and compare."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.commands._common import add_command, load, print_json, stderr_progress
from designer.core.ibcheck import ENGINES, check_ib


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub,
        name,
        run,
        help="check an InfiniBand design on the real subnet manager (OpenSM over ibsim)",
        description="Export the design to a temporary folder, load it in ibsim, run OpenSM "
        "once with the routing engine that suits it (ftree for fat-trees and rail designs, "
        "dfsssp for dragonflies, minhop for one switch tier), read the fabric back with "
        "ibnetdiscover and the forwarding tables with dump_fts, and report: subnet up or "
        "OpenSM's own words why not, the discovered topology against the design, routed hop "
        "counts against shortest paths, and route balance per up-link. Each plane is its own "
        "subnet. Needs the Debian packages opensm, ibsim-utils and infiniband-diags. Exit 0 "
        "when everything checks out (warnings allowed), 1 when it found problems, 2 on bad "
        "input or missing tools.",
    )
    p.add_argument(
        "--engine",
        choices=ENGINES,
        help="OpenSM routing engine (default: chosen from the design's shape)",
    )
    p.add_argument(
        "--keep",
        metavar="DIR",
        type=Path,
        help="copy the working files (topology, OpenSM log, dumps) to DIR",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    progress = stderr_progress(args.quiet)

    report = check_ib(project, cat, progress=progress, engine=args.engine, keep_folder=args.keep)
    if args.json:
        print_json({"file": args.file, **report.to_json()})
    else:
        print("\n".join(report.lines()))
    return 0 if report.ok else 1
