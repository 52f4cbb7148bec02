"""``designer catalog``: list the gear and the gear profiles."""

from __future__ import annotations

import argparse
import textwrap

from designer.cli.commands._common import add_command, catalog_from, print_json
from designer.core.catalog import (
    TECH_LABELS,
    CoolingSpec,
    LaserSpec,
    MediumSpec,
    NicSpec,
    ScaleUpSwitchSpec,
    ServerSpec,
    SwitchSpec,
)
from designer.core.transport import TRANSPORTS, profile_transport

KIND_ORDER = ("switch", "nic", "server", "scale-up-switch", "transceiver", "cable", "fiber",
              "laser", "cdu")
KIND_TITLES = {
    "switch": "Switches",
    "nic": "NICs",
    "server": "GPU servers, rack-scale systems (a tray each) and appliances",
    "scale-up-switch": "Scale-up switch trays (counted per rack-scale domain)",
    "transceiver": "Transceivers",
    "cable": "Cables",
    "fiber": "Fibres",
    "laser": "Laser modules of co-packaged-optics switches",
    "cdu": "Coolant distribution units",
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
    p.add_argument("--sources", action="store_true",
                   help="under each item, where its price comes from: source, date and "
                   "confidence")


def _ports(item) -> str:
    if isinstance(item, SwitchSpec | NicSpec):
        # modes of the same ports and speed that differ only in technology are one mode
        by_label: dict[str, list[str]] = {}
        for m in item.modes:
            techs = by_label.setdefault(m.label, [])
            techs.extend(t for t in m.techs if t not in techs)
        names = {label: " or ".join(TECH_LABELS[t] for t in techs)
                 for label, techs in by_label.items()}
        cpo = (f"; co-packaged optics, {item.laser_modules} x {item.laser_module}"
               if isinstance(item, SwitchSpec) and item.cpo else "")
        if len(set(names.values())) == 1:
            return f"{' or '.join(names)} ({next(iter(names.values()))}){cpo}"
        return " or ".join(f"{label} ({tech})" for label, tech in names.items()) + cpo
    if isinstance(item, ServerSpec):
        cages = f" in {item.cages} cages" if item.cages else ""
        su = item.scale_up
        rack = (f"; {su.servers} a {item.domain_gpus}-GPU {su.fabric} rack"
                if su is not None and su.servers > 1 else "")
        return f"{item.gpus} GPUs, {item.nics} x {item.nic}{cages}{rack}"
    if isinstance(item, ScaleUpSwitchSpec):
        return f"{item.fabric}, {item.chips} chips, {item.ports} ports"
    if isinstance(item, CoolingSpec):
        return f"{item.capacity_kw:,.0f} kW of heat"
    if isinstance(item, LaserSpec):
        return f"lights {item.ports_lit} ports, MTBF {item.mtbf_h:,.0f} h"
    if isinstance(item, MediumSpec):
        twin = f", {item.links_per_item} links each" if item.links_per_item > 1 else ""
        return f"{item.medium_class.upper()} {item.link_speed_gbps}G, {item.reach_m:g} m{twin}"
    return ""


NAME_W, PORTS_W = 44, 42  # columns wrapped at word boundaries, never cut


def _print_item(item, id_w: int, sources: bool = False) -> None:
    """One item: figures and vendor on its first line; a long name or port list wraps under
    itself; with ``sources``, the source of its price below."""
    name = textwrap.wrap(item.name, NAME_W) or [""]
    if item.part_number:  # the orderable part under the name (the BOM says "not known")
        name.append(f"part {item.part_number}"[:NAME_W])
    ports = textwrap.wrap(_ports(item), PORTS_W) or [""]
    for k in range(max(len(name), len(ports))):
        left = f"  {item.id if k == 0 else '':<{id_w}}  {_at(name, k):<{NAME_W}}  "
        if k == 0:
            print(f"{left}{_at(ports, k):<{PORTS_W}} ${item.price_usd:>11,.0f} "
                  f"{item.power_w:>7,.0f} W  {_price_mark(item):<11} {item.vendor}".rstrip())
        else:
            print(f"{left}{_at(ports, k)}".rstrip())
    if sources:
        f = item.figure_for("price_usd")
        text = ("price: no source given" if f is None else
                f"price: {f.source}" + "".join(f"; {x}" for x in (f.date, f.confidence) if x))
        for line in textwrap.wrap(text, 96):
            print(f"  {'':<{id_w}}    {line}")


def _at(lines: list[str], k: int) -> str:
    return lines[k] if k < len(lines) else ""


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
                "profiles": [p.model_dump(mode="json")
                             | {"transport": profile_transport(p.id, cat).id}
                             for p in cat.profiles.values()],
                "transports": [t.to_json() for t in TRANSPORTS.values()],
            }
        )
        return 0
    for kind in KIND_ORDER:
        group = [i for i in items if i.kind == kind]
        if not group:
            continue
        print(f"{KIND_TITLES[kind]}")
        id_w = max(len(i.id) for i in group)
        for i in sorted(group, key=lambda x: x.id):
            _print_item(i, id_w, args.sources)
        print()
    if args.kind is None:
        print("Gear profiles (--gear)")
        id_w = max((len(p.id) for p in cat.profiles.values()), default=0)
        name_w = max((len(p.name) for p in cat.profiles.values()), default=0)
        tr_w = max(len(t.id) for t in TRANSPORTS.values())
        for p in cat.profiles.values():
            tr = profile_transport(p.id, cat).id
            print(f"  {p.id:<{id_w}}  {p.name:<{name_w}}  transport {tr}")
            for line in textwrap.wrap(p.description, 96 - id_w):
                print(f"  {'':<{id_w}}  {line}")
        print()
        print("Transports (a design's transport; its gear profile's unless chosen)")
        for t in TRANSPORTS.values():
            lines = textwrap.wrap(t.summary, 100 - tr_w - 4) or [""]
            print(f"  {t.id:<{tr_w}}  {lines[0]}")
            for more in lines[1:]:
                print(f"  {'':<{tr_w}}  {more}")
        print()
        print(textwrap.fill(
            "Prices are estimates (no public list prices exist): [date] of a sourced price, "
            "[assumed] where none was found (--json has each figure's source and reasoning); "
            "import a quote with 'designer prices import' or override prices per project.", 100))
    return 0
