"""``designer validate FILE``: check a project file and list the design's problems."""

from __future__ import annotations

import argparse

from designer.cli.commands._common import add_command, load, print_json
from designer.core.problems import Severity, find_problems


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub,
        name,
        run,
        help="check a project file and list its problems",
        description="Load a project, check it against the catalog and list "
        "wiring problems. Exit 0 when it loads (problems are listed), 1 with "
        "--strict when it has errors, 2 when it cannot be loaded.",
    )
    p.add_argument("--strict", action="store_true", help="exit 1 when the design has errors")


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    problems = find_problems(project.fabric, cat)
    f = project.fabric
    if args.json:
        print_json(
            {
                "file": args.file,
                "name": project.name,
                "devices": len(f.devices),
                "links": f.links.n_cables,
                "problems": [p.to_json() for p in problems],
            }
        )
    else:
        print(
            f"{args.file}: '{project.name}', {len(f.devices):,} devices, "
            f"{f.links.n_cables:,} links: loads and checks out against the catalog"
        )
        if not problems:
            print("no problems found")
        for p in problems:
            devs = ", ".join(p.devices[:6]) + (" ..." if len(p.devices) > 6 else "")
            print(f"  {p.severity.value:<7} {p.message}" + (f"  [{devs}]" if devs else ""))
    if args.strict and any(p.severity == Severity.ERROR for p in problems):
        return 1
    return 0
