"""``designer floor FILE``: the floor plan: racks, fill, power, cable lengths per layer.

``--place`` makes the default plan (or places devices added since) and writes the project
(``-o OUT``, else the file itself, keeping a backup).
"""

from __future__ import annotations

import argparse

from designer.cli.commands._common import add_command, load, print_json
from designer.core.fileformat import save_project
from designer.core.physical.summary import floor_summary, with_floor


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run,
        help="floor plan: racks, fill and power, real cable lengths per layer",
        description="Show the project's floor plan (rows of racks, U and kW per rack, cable "
        "lengths and media per layer, rack problems). --place makes the default plan "
        "(one row per scalable unit, network racks per row, spines and cores in network "
        "rows) and saves it; cable lengths then follow from rack positions.",
    )
    p.add_argument("--place", action="store_true",
                   help="make the default plan (keeps an existing one; places new devices)")
    p.add_argument("--replace", action="store_true",
                   help="with --place: throw away the existing plan and place everything again")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="with --place: write the project here (default: FILE, with a backup)")


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    if args.place:
        project = with_floor(project, cat, replace=args.replace)
        save_project(project, args.output or args.file)
    s = floor_summary(project, cat)
    if args.json:
        print_json(s.to_json())
        return 0
    u = s.usage
    if args.place:
        print(f"wrote {args.output or args.file}")
    print(f"{len(s.floor.rows)} row(s), {len(u.names)} rack(s), "
          f"{len(s.floor.placement):,} devices placed, {int(u.used_u.sum()):,}U, "
          f"{float(u.used_kw.sum()):,.1f} kW "
          f"(fullest rack {float(u.used_kw.max(initial=0)):.1f} kW)")
    for layer, lengths in s.lengths_by_layer.items():
        dist = ", ".join(f"{n:,} x {m} m" for m, n in lengths.items())
        media = ", ".join(f"{k} {v:,}" for k, v in s.media_by_layer.get(layer, {}).items())
        print(f"  {layer}: {dist}  [{media}]")
    for p in s.problems:
        print(f"  {p.severity.value:<7} {p.message}")
    return 0
