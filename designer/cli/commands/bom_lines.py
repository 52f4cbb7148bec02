"""``designer bom-lines FILE``: the optional sections of a complete bill of materials.

Shows which sections are on (subnet managers, management network, racks and cable management,
power: PDUs and cords, spares, support) and the spares policy; ``--on`` / ``--off`` switch
sections, ``--spares CLASS=RULE`` sets a class's rule (``optics=10%``, ``switches=1/32``), and
the project is written (``-o OUT``, else in place, keeping a backup). The window's floor panel
has the same switches. A new design starts with racks, power cords and spares on
(``designer.core.physical.sections``); ``generate --bom-off`` leaves them off from the start.
"""

from __future__ import annotations

import argparse

from designer.cli.commands._common import add_command, load, number_arg, print_json
from designer.core.fileformat import save_project
from designer.core.physical import (
    BASIS,
    CLASS_OF,
    SECTIONS,
    BomExtras,
    Physical,
    parse_assignment,
    parse_sections,
)


def section_list(text: str) -> list[str]:
    try:
        return parse_sections(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run,
        help="switch the BOM's optional sections and set the spares policy",
        description="The optional sections of a complete bill of materials, each in the "
        "totals when on: " + ", ".join(SECTIONS) + ". PDUs (with racks) follow each placed "
        "rack's power after 'designer floor --place'. Prices are estimates; spares follow a "
        "policy per class (optics, cables, nics, switches): a percentage or a count per N.",
    )
    p.add_argument("--on", type=section_list, action="append", default=[], metavar="LIST",
                   help="switch sections on (comma-separated)")
    p.add_argument("--off", type=section_list, action="append", default=[], metavar="LIST",
                   help="switch sections off (comma-separated)")
    p.add_argument("--spares", action="append", default=[], metavar="CLASS=RULE",
                   help="a class's spares rule: optics=10%%, cables=5%%, nics=2%%, "
                   "switches=1/32 (repeatable; a BOM category such as fibre also works)")
    p.add_argument("--pdu-kw", type=number_arg(0.1, 1000, "a PDU's continuous kW"),
                   metavar="KW", help="a PDU's continuous rating (default 17.7 kW: 3-phase "
                   "400 V 32 A at 80%%)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write the project here (default: FILE, with a backup)")


def run(args: argparse.Namespace) -> int:
    project, _cat = load(args, args.file)
    phys = project.physical or Physical()
    x = phys.extras
    update: dict = {}
    for names, on in ((args.off, False), (args.on, True)):
        for group in names:
            for n in group:
                update[SECTIONS[n]] = on
    rules = dict(x.spares_rules)
    for text in args.spares:
        rules.update(parse_assignment(text))
    if args.spares:
        # a file written before the policy kept percentages: the other categories keep theirs
        for cat, pct in x.spares_pct.items():
            if cat not in rules and pct and not x.spares_rules:
                rules[cat] = parse_assignment(f"{cat}={pct:g}%")[cat]
        update["spares_rules"] = rules
    if args.pdu_kw is not None:
        update["pdu_kw"] = args.pdu_kw
    changed = bool(update)
    if changed:
        x = BomExtras.model_validate(x.model_dump() | update)
        project = project.evolve(physical=phys.model_copy(update={"extras": x}))
        save_project(project, args.output or args.file)
    policy = {cat: (x.spare_rule(cat).label if x.spare_rule(cat) else "none")
              for cat in CLASS_OF}
    if args.json:
        print_json({"sections": {n: bool(getattr(x, f)) for n, f in SECTIONS.items()},
                    "spares": policy, "pdu_kw": x.pdu_kw,
                    "basis": BASIS})
        return 0
    if changed:
        print(f"wrote {args.output or args.file}")
    for n, f in SECTIONS.items():
        print(f"  {n:<17} {'on' if getattr(x, f) else 'off'}")
    print("spares policy (per BOM category):")
    for cat, label in policy.items():
        print(f"  {cat:<12} {label:<10} {CLASS_OF[cat]}: {BASIS[CLASS_OF[cat]]}")
    pdu = f"{x.pdu_kw:g} kW continuous" if x.pdu_kw else f"{x.pdus_per_rack} a rack (fixed)"
    print(f"PDUs: {pdu}, A+B feeds")
    return 0
