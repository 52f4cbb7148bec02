"""``designer floor FILE``: the floor plan: racks, fill, power, cable lengths per layer.

``--place`` makes the default plan (or places devices added since) and writes the project
(``-o OUT``, else the file itself, keeping a backup).
"""

from __future__ import annotations

import argparse
import sys

from designer.cli.commands._common import add_command, load, print_json
from designer.core.fileformat import save_project
from designer.core.physical import Geometry, floor_summary, with_floor


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
    p.add_argument("--row-kw", type=positive_kw, metavar="KW",
                   help="with --place: every row's power budget in kW (the DGX SuperPOD GB200 "
                   "gives a scalable unit's row 1,200 kW)")


def positive_kw(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of kW") from None
    if not 0 < value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"'{text}': a row budget is more than 0 and at most "
                                         "1,000,000 kW")
    return value


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    if args.row_kw is not None and not args.place:
        print("designer floor: --row-kw goes with --place", file=sys.stderr)
        return 2
    if args.place:
        geometry = None
        if args.row_kw is not None:
            phys = project.physical
            old = phys.floor.geometry if phys is not None and phys.floor is not None else None
            geometry = (old or Geometry()).model_copy(update={"row_kw": args.row_kw})
        project = with_floor(project, cat, replace=args.replace, geometry=geometry)
        if geometry is not None and project.physical and project.physical.floor:
            floor = project.physical.floor.model_copy(update={"geometry": geometry})
            project = project.evolve(
                physical=project.physical.model_copy(update={"floor": floor}))
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
    for r in s.rows:
        budget = f" of {r.budget:,.0f} kW budget" if r.budget is not None else ""
        cool = (f", {r.liquid_kw:,.0f} kW liquid-cooled, {r.cdus} CDU(s) of {r.cdus_needed} "
                "needed" if r.liquid_kw or r.cdus else "")
        print(f"  row {r.name}: {r.kw:,.1f} kW{budget}{cool}")
    for layer, lengths in s.lengths_by_layer.items():
        dist = ", ".join(f"{n:,} x {m} m" for m, n in lengths.items())
        media = ", ".join(f"{k} {v:,}" for k, v in s.media_by_layer.get(layer, {}).items())
        print(f"  {layer}: {dist}  [{media}]")
    for p in s.problems:
        print(f"  {p.severity.value:<7} {p.message}")
    return 0
