"""``designer catalog``: list the gear and the gear profiles."""

from __future__ import annotations

import argparse

from designer.cli.commands._common import add_command, catalog_from, print_json
from designer.core.catalog import TECH_LABELS, MediumSpec, NicSpec, ServerSpec, SwitchSpec

KIND_ORDER = ("switch", "nic", "server", "transceiver", "cable", "fiber")
KIND_TITLES = {
    "switch": "Switches",
    "nic": "NICs",
    "server": "GPU servers and appliances",
    "transceiver": "Transceivers",
    "cable": "Cables",
    "fiber": "Fibres",
}


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub,
        name,
        run,
        file=False,
        help="list gear and gear profiles",
        description="List the gear catalog (prices are estimates) and the profiles.",
    )
    p.add_argument("--kind", choices=KIND_ORDER, help="only this kind of gear")


def _ports(item) -> str:
    if isinstance(item, SwitchSpec | NicSpec):
        modes = " or ".join(m.label for m in item.modes)
        techs = "/".join(TECH_LABELS[t] for t in item.techs)
        return f"{modes} ({techs})"
    if isinstance(item, ServerSpec):
        cages = f" in {item.cages} cages" if item.cages else ""
        return f"{item.gpus} GPUs, {item.nics} x {item.nic}{cages}"
    if isinstance(item, MediumSpec):
        twin = f", {item.links_per_item} links each" if item.links_per_item > 1 else ""
        return f"{item.medium_class.upper()} {item.link_speed_gbps}G, {item.reach_m:g} m{twin}"
    return ""


def _price_mark(item) -> str:
    f = item.figure_for("price_usd")
    if f is None or f.assumption:
        return "[assumed]"
    return f"[{f.date}]" if f.date else "[sourced]"


def run(args: argparse.Namespace) -> int:
    cat = catalog_from(args)
    items = [i for i in cat if args.kind is None or i.kind == args.kind]
    if args.json:
        print_json(
            {
                "items": [i.model_dump(mode="json") for i in items],
                "profiles": [p.model_dump(mode="json") for p in cat.profiles.values()],
            }
        )
        return 0
    for kind in KIND_ORDER:
        group = [i for i in items if i.kind == kind]
        if not group:
            continue
        print(f"{KIND_TITLES[kind]}")
        for i in sorted(group, key=lambda x: x.id):
            print(
                f"  {i.id:<22} {i.name[:58]:<58} {_ports(i)[:52]:<52} "
                f"${i.price_usd:>11,.0f} {i.power_w:>7,.0f} W  {_price_mark(i)}"
            )
        print()
    if args.kind is None:
        print("Gear profiles (--gear)")
        for p in cat.profiles.values():
            print(f"  {p.id:<10} {p.name:<38} {p.description}")
        print()
        print("Prices are estimates (no public list prices exist): [date] of a sourced price, "
              "[assumed] where none was found (--json has each figure's source and reasoning); "
              "import a quote with 'designer prices import' or override prices per project.")
    return 0
