"""``designer solve FILE``: analyse a design and print a report (or ``--json``)."""

from __future__ import annotations

import argparse

from pydantic import ValidationError

from designer.cli.commands._common import add_command, load, print_json
from designer.cli.commands.prices import add_price_book_option, apply_price_books
from designer.core.model import AnalysisSettings
from designer.core.problems import Severity
from designer.core.solver import Result, ratio_text, solve
from designer.core.sources import assumption_lines


def _setting(name: str):
    """An argparse type that checks a value against the limits AnalysisSettings sets for
    ``name`` (one place for them)."""

    def parse(text: str):
        try:
            value: int | float = int(text) if text.isascii() and text.isdigit() else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        try:
            return getattr(AnalysisSettings.model_validate({name: value}), name)
        except ValidationError as exc:
            msg = exc.errors()[0]["msg"]
            raise argparse.ArgumentTypeError(f"'{text}': {msg[:1].lower()}{msg[1:]}") from None

    return parse


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub,
        name,
        run,
        help="analyse a design: bisection, oversubscription, hops, latency, BOM, power",
        description="Solve a project file: bisection bandwidth on the actual graph, "
        "oversubscription per tier, hops and latency over all GPU pairs in different "
        "scale-up domains (servers or NVL72 racks), bill of materials, power and problems. "
        "Exit 0 on success, 1 with --strict when the design has errors, 2 when the file "
        "cannot be read.",
    )
    p.add_argument("--message-bytes", type=_setting("message_bytes"), metavar="N",
                   help="message size for the latency figures (default: the project's, "
                   "4 KiB unless set)")
    p.add_argument("--propagation-ns-per-m", type=_setting("propagation_ns_per_m"), metavar="NS",
                   help="signal propagation in cables (default: the project's, 5 ns/m)")
    p.add_argument("--strict", action="store_true", help="exit 1 when the design has errors")
    add_price_book_option(p)


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    if args.price_book:
        project, cat = apply_price_books(project, args)
    changes = {}
    if args.message_bytes is not None:
        changes["message_bytes"] = args.message_bytes
    if args.propagation_ns_per_m is not None:
        changes["propagation_ns_per_m"] = args.propagation_ns_per_m
    if changes:
        settings = AnalysisSettings.model_validate(project.analysis.model_dump() | changes)
        project = project.model_copy(update={"analysis": settings})
    result = solve(project, catalog=cat)
    # the other networks apart: the back-end's solve never reads them, and a design without
    # them does not import their code (start-up)
    nets: dict = {}
    if project.networks:
        from designer.core.networks import networks_json, networks_report, solve_networks

        nets = solve_networks(project, cat)
    if args.json:
        data = result.to_json()
        if nets:
            data["networks"] = networks_json(result, nets)
        print_json(data)
    else:
        print(format_report(result) + ("\n" + "\n".join(networks_report(nets))
                                       if nets else ""))
    if args.strict and any(p.severity == Severity.ERROR for p in result.problems):
        return 1
    return 0


def _join(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {k}" for k, n in counts.items()) or "none"


def format_report(r: Result) -> str:
    out: list[str] = [r.name, ""]
    per_server = f" ({r.gpus // r.servers} per server)" if r.servers and r.gpus % r.servers == 0 \
        else ""
    where = f"{r.servers:,} servers{per_server}"
    if r.domains.rack_scale:
        where = f"{r.domains.count:,} racks ({r.servers:,} trays)"
    out += [
        "Size",
        f"  GPUs           {r.gpus:,} in {where}"
        + (f", {r.unconnected_gpus:,} not connected" if r.unconnected_gpus else ""),
        f"  switches       {r.switches.total:,}: {_join(r.switches.by_tier)}"
        f"  [{_join(r.switches.by_model)}]",
        f"  links          {r.links.total:,}: {_join(r.links.by_layer)}",
        f"  cables         {r.cables.total:,} physical: {_join(r.cables.by_layer)}"
        + ("  (a twin or splitter copper cable carries two links)"
           if r.cables.total != r.links.total else ""),
    ]
    if r.ports.total:
        out.append(f"  switch ports   {r.ports.used:,} of {r.ports.total:,} used "
                   f"({r.ports.utilisation:.0%})")
        for g in r.ports.groups:
            flag = (f"  {g.unused:,} unused, ${g.unused_usd:,.0f} of switch price"
                    if g in r.ports.stranded else "")
            out.append(f"    {g.model} {g.tier:<8} {g.used:,} of {g.total:,} "
                       f"({g.utilisation:.0%}) on {g.switches:,} switches{flag}")
    if r.appliances:
        out.append(f"  appliances     {r.appliances:,}")
    d = r.domains
    if d.count:
        kind = "racks" if d.rack_scale else "servers"
        fab = f" {d.fabric}" if d.fabric else ""
        bw = f", {d.gbytes_s:,.0f} GB/s per GPU each way" if d.gbytes_s else ""
        trays = f"; {d.switch_trays:,} x {d.switch_tray}" if d.switch_trays else ""
        short = f"; {d.incomplete:,} incomplete" if d.incomplete else ""
        out.append(f"  scale-up       {d.count:,} x {d.gpus}-GPU{fab} domains ({kind}{bw})"
                   f"{trays}{short}")
    b = r.bisection
    out += [
        "",
        "Bisection bandwidth",
        f"  {b.tbps:,.1f} Tb/s = {b.per_gpu_gbps:,.1f} Gb/s per GPU, "
        f"{b.fraction_of_full:.1%} of full bisection ({b.full_gbps / 1000:,.1f} Tb/s = "
        f"N/2 x {b.per_gpu_rate_gbps:,.0f} Gb/s)",
        f"  {'exact' if b.exact else 'upper bound'}: best cut '{b.method}'; "
        + (f"proof: {b.certificate}" if b.exact else
           f"proven at least {b.lower_gbps / 1000:,.1f} Tb/s"),
    ]
    rf = r.rail_forwarding
    if rf is not None:
        over = (f"; a uniform all-to-all takes {rf.a2a_overhead:.1%} longer for the NVLink hop"
                if rf.a2a_overhead else "")
        out += [
            f"  rail-only: {rf.rails} rails joined only by the scale-up domains; with "
            f"forwarding over them {rf.bisection_gbps / 1000:,.1f} Tb/s, "
            f"{rf.fraction_of_full:.1%} of full ({rf.method}){over}",
        ]
    o = r.oversubscription
    out += ["", "Oversubscription (down:up)"]
    for name, t in o.by_tier.items():
        flag = "  blocking" if t.blocking else ""
        out.append(f"  {name:<14} worst {ratio_text(t.worst)}, typical {ratio_text(t.typical)}"
                   f" over {t.switches:,} switches{flag}")
    out.append(f"  end to end     {ratio_text(o.worst)}")
    if o.global_cut is not None:
        out.append(f"  dragonfly      {ratio_text(o.global_cut)} global: endpoint capacity of half "
                   "the GPUs against the global links a balanced cut crosses")
    h, lat = r.hops, r.latency
    out += ["", "Hops and latency (GPU pairs in different scale-up domains)"]
    if h.pairs:
        hist = "   ".join(f"{k}: {v:,}" for k, v in sorted(h.histogram.items()))
        out += [
            f"  switches       min {h.min}, mean {h.mean:.3f}, p50 {h.p50:g}, p99 {h.p99:g}, "
            f"max {h.max} over {h.pairs:,} pairs",
            f"  histogram      {hist}",
            f"  latency        min {lat.min_us:.3f}, mean {lat.mean_us:.3f}, p50 {lat.p50_us:.3f}"
            f", p99 {lat.p99_us:.3f}, max {lat.max_us:.3f} us "
            f"({lat.assumptions.get('message_bytes', 0):,}-byte message)",
        ]
        if lat.assumptions.get("tail"):
            out.append(f"  note           {lat.assumptions['tail']}")
        out.append("  these are idle, static latencies (no queueing or congestion)")
        for line in assumption_lines(lat.assumptions.get("figures") or []):
            out.append(f"  assumed        {line}")
        if h.unreachable_pairs:
            out.append(f"  unreachable    {h.unreachable_pairs:,} pairs")
    else:
        out.append("  no GPU pairs in different scale-up domains are connected")
    bom = r.bom
    out += ["", "Bill of materials (prices: the catalog's sourced estimates unless a price book "
                "or the project sets them)",
            f"  {'category':<12}{'qty':>9}  {'unit USD':>11}  {'total USD':>15}  item"]
    for x in bom.lines:
        src = {"book": f"  [{x.price_source}]", "project": "  [set in this project]",
               "assumption": "  [assumed]"}.get(x.price_kind, "")
        out.append(f"  {x.category:<12}{x.qty:>9,}  {x.unit_usd:>11,.0f}  {x.total_usd:>15,.0f}"
                   f"  {x.catalog_id}{src}")
    out.append(f"  {'total':<12}{'':>9}  {'':>11}  {bom.total_usd:>15,.0f}  "
               f"(${bom.per_gpu_usd:,.0f} per GPU)")
    for x in bom.compute_lines:
        what = "scale-up switch trays" if x.category == "scale-up" else "servers"
        out.append(f"  not counted: {x.qty:,} x {x.catalog_id} {what} "
                   f"(${x.total_usd:,.0f}, {x.power_w / 1000:,.1f} kW, compute)")
    parts = ", ".join(f"{k} {v / 1000:,.1f} kW" for k, v in r.power_by_category.items() if v)
    out += ["", "Power and space",
            f"  {r.power_w / 1000:,.1f} kW network gear ({parts or 'none'}); "
            f"{r.rack_units:,.0f} RU of switches and appliances"]
    out += ["", "Problems"]
    if not r.problems:
        out.append("  none")
    for p in r.problems:
        devs = ", ".join(p.devices[:6]) + (" ..." if len(p.devices) > 6 else "")
        out.append(f"  {p.severity.value:<7} {p.message}" + (f"  [{devs}]" if devs else ""))
    return "\n".join(out)
