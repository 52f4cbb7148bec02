"""``designer diff PLAN AS_BUILT``: cables missing, extra and miswired, port by port."""

from __future__ import annotations

import argparse

from designer.cli.commands._common import add_command, catalog_from, print_json, whole_number
from designer.core.as_built import load_as_built
from designer.core.infiniband import diff_projects


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub,
        name,
        run,
        file=False,
        help="compare a plan with the as-built fabric, cable by cable",
        description="Compare the cables of two designs, matching devices by name (node "
        "description) and ports by number. Either file may be a project, ibnetdiscover "
        "output, or LLDP tables (a folder with one file per switch, see 'designer import "
        "lldp'). Lists cables missing, extra and miswired (right devices, wrong ports; or a "
        "port on the wrong device). Exit 0 when equal, 1 when they differ, 2 on bad input.",
    )
    p.add_argument("plan", help="the plan (project file or ibnetdiscover output)")
    p.add_argument(
        "as_built", metavar="AS_BUILT", help="the as-built (project file or ibnetdiscover output)"
    )
    p.add_argument(
        "--limit",
        type=whole_number,
        default=200,
        metavar="N",
        help="list at most N differences of each kind (0: all; default %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    cat = catalog_from(args)
    plan = load_as_built(args.plan, cat)
    built = load_as_built(args.as_built, cat)
    diff = diff_projects(plan, built, cat)
    if args.json:
        print_json({"plan": args.plan, "as_built": args.as_built, **diff.to_json()})
    else:
        print(f"plan {args.plan}, as built {args.as_built}")
        print(diff.summary())
        for line in diff.lines(limit=None if args.limit == 0 else args.limit):
            print(line)
        print("equal" if diff.equal else "DIFFERENT")
    return 0 if diff.equal else 1
