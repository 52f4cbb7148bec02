"""``designer compare A B ...``: designs side by side, with deltas, break-even and xlsx."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.commands._common import (
    GPU_HOUR,
    GPU_HOUR_HELP,
    RUN_DAYS,
    RUN_DAYS_HELP,
    YEARS,
    YEARS_HELP,
    add_command,
    catalog_from,
    print_json,
)
from designer.core.analysis import (
    FIGURES,
    MAX_DESIGNS,
    MODE_ALIASES,
    MODES,
    TEXT_ROWS,
    Comparison,
    WorkloadError,
    build_all,
    compare,
    figure_text,
    load_workload,
    price_sources_json,
    price_sources_text,
    settings_of,
    with_economics,
)
from designer.core.fileformat import load_project
from designer.core.solver import solve


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run, file=False,
        help="compare 2 to 6 designs (files, or one design under other profiles)",
        description="Solve and estimate each design with one workload and one set of money "
        "assumptions (the first design's unless given) and print them side by side with "
        "deltas against the first and the break-even between the cheapest and each dearer one.")
    p.add_argument("files", nargs="+", help="project files (*.fabric.json)")
    p.add_argument("--profiles", metavar="LIST",
                   help="the first file under these gear profiles (ib-ndr,ib-xdr,roce-400,"
                   "roce-800), each laid out as it would be bought: when the swap leaves "
                   "switch ports idle, the layout is planned again for the same GPUs and "
                   "the same bisection and oversubscription, and the cheapest is taken")
    p.add_argument("--transports", metavar="LIST",
                   help="the first file under these transports, gear unchanged (roce,"
                   "spectrum-x,uec,mrc on Ethernet; infiniband on InfiniBand): what the "
                   "transport alone changes")
    p.add_argument("--as-drawn", action="store_true",
                   help="with --profiles: keep the first file's layout under every profile")
    p.add_argument("--oversubscriptions", metavar="LIST",
                   help="the first file (a generated fat tree) under these ratios (1:1,3:1)")
    p.add_argument("--servers", metavar="LIST",
                   help="with --profiles: every profile built on these servers instead of the "
                   "design's own (named in the column head); alone: the first file (a "
                   "generated rail or fat tree) rebuilt on these servers with the same GPU "
                   "count, beside it (dgx-b200,gb200-nvl72: 8-GPU servers against NVL72 "
                   "racks). By default every column keeps the design's servers and GPUs")
    p.add_argument("--routing", choices=(*MODES, *MODE_ALIASES), default="transport",
                   type=lambda m: MODE_ALIASES.get(m, m),
                   help="how each column's traffic meets the network: transport (default: "
                   "each technology under its own transport's routing, RoCE hashed by ECMP, "
                   "Spectrum-X adaptive at its published effective bandwidth, Ultra Ethernet "
                   "and MRC sprayed, InfiniBand adaptive), or one routing for every column: "
                   "ideal, ecmp (ECMP hashing) or spray (packet spraying, the fluid split; "
                   "'adaptive', its former name here, means spray)")
    fit = p.add_mutually_exclusive_group()
    fit.add_argument("--fit", dest="fit", action="store_true", default=True,
                     help="fit a workload written for another size to each design (data "
                     "parallelism scaled, the rest kept; default on, said in the output)")
    fit.add_argument("--no-fit", dest="fit", action="store_false",
                     help="run the workload as written (a column it does not fit says why)")
    p.add_argument("--workload", metavar="PRESET|FILE")
    p.add_argument("--gpu-hour-usd", type=GPU_HOUR, metavar="X", help=GPU_HOUR_HELP)
    p.add_argument("--run-days", type=RUN_DAYS, metavar="D", help=RUN_DAYS_HELP)
    p.add_argument("--years", type=YEARS, metavar="Y", help=YEARS_HELP)
    p.add_argument("-o", "--output", type=Path, metavar="OUT.xlsx|OUT.html",
                   help="also write the comparison: .xlsx (one column per design) or .html "
                   "(a report page)")


def run(args: argparse.Namespace) -> int:
    if args.output and args.output.suffix.lower() not in (".xlsx", ".html"):
        raise WorkloadError(f"-o: compare writes .xlsx or .html files (got '{args.output.name}')")
    base = catalog_from(args)
    projects = [load_project(f, base) for f in args.files]
    first = projects[0]
    items: list[tuple] = [(Path(f).name.removesuffix(".fabric.json"), p) for f, p in
                          zip(args.files, projects, strict=True)]
    listed = _list(args.profiles), _list(args.transports), _list(args.oversubscriptions)
    servers = _list(args.servers)
    if args.as_drawn and not args.profiles:
        raise WorkloadError("--as-drawn: only with --profiles")
    if not 2 <= len(items) + len(servers) <= MAX_DESIGNS and not any(listed):
        raise WorkloadError(f"designs: compare takes 2 to {MAX_DESIGNS} files, got {len(items)}")
    notes: list[str] = []
    if any(listed):
        variants, notes = build_all(first, base, profiles=listed[0], transports=listed[1],
                                    ratios=listed[2], servers=servers,
                                    as_drawn=args.as_drawn)
        solved = [v.item() for v in variants]
    else:
        solved = [(label, p, solve(p, catalog=p.catalog(base))) for label, p in items]
        if servers:
            variants, notes = build_all(first, base, servers=servers,
                                        room=MAX_DESIGNS - len(solved))
            solved += [v.item() for v in variants]
    s = settings_of(first)
    workload = load_workload(args.workload) if args.workload else s.workload
    econ = with_economics(s.economics, gpu_hour_usd=args.gpu_hour_usd, run_days=args.run_days,
                          years=args.years)
    cmp = compare(solved, workload, econ, base, routing=args.routing, fit=args.fit,
                  notes=notes)
    if args.output:
        suffix = args.output.suffix.lower()
        if suffix == ".html":
            from designer.core.writers import write_compare_html

            write_compare_html(cmp, args.output, base)
        else:
            from designer.core.writers import write_compare_xlsx

            write_compare_xlsx(cmp, args.output)
    if args.json:
        print_json(cmp.to_json() | {"price_sources": price_sources_json(cmp, base)})
    else:
        print(format_comparison(cmp))
        print(price_sources_text(cmp, base))
    return 0


def _list(text: str | None) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


SPACED_UNITS = ("Tb/s", "Gb/s", "us", "s", "kW")  # written after the number; $ and % are in it


def _cell(value: float | None, unit: str) -> str:
    text = figure_text(value, unit, "n/a")
    return f"{text} {unit}" if value is not None and unit in SPACED_UNITS else text


def format_comparison(c: Comparison) -> str:
    """The table with every label and figure whole: columns as wide as what they hold."""
    rows = [(label, [d.text(key) or "n/a" for d in c.designs]) for key, label in TEXT_ROWS
            if key != "routing"]
    rows += [(label, [_cell(d.figures.get(key), unit) for d in c.designs])
             for key, label, unit, _ in FIGURES]
    keys = list(dict.fromkeys(k for d in c.designs for k in d.busbw))
    rows += [(f"busbw {k}", [_cell(d.busbw.get(k), "") + (" GB/s" if k in d.busbw else "")
                             for d in c.designs]) for k in keys]
    label_w = max(len(r[0]) for r in rows) + 2
    widths = [max(len(d.label), *(len(r[1][i]) for r in rows)) + 2
              for i, d in enumerate(c.designs)]
    out = ["".ljust(label_w) + "".join(d.label.rjust(w) for d, w in zip(c.designs, widths,
                                                                     strict=True))]
    for label, cells in rows:
        out.append(label.ljust(label_w) + "".join(x.rjust(w) for x, w in zip(cells, widths,
                                                                           strict=True)))
    for d in c.designs:
        if d.routing is not None:
            out.append(f"{d.label}: routing {d.routing.name} ({d.routing.source})")
    for d in c.designs:
        if d.layout:
            out.append(f"{d.label}: {d.layout}")
    for d in c.designs:
        if d.error:
            out.append(f"{d.label}: no figures: {d.error}")
    out += list(c.notes)
    for be in c.break_even:
        out.append(be["text"])
    if c.recommendation:
        r = c.recommendation
        head = f"{r.winner} ({r.choice})" if r.winner else r.choice
        out.append(f"Recommendation: {head}" + (f" ({r.note})" if r.note else ""))
        out.append(f"  {r.break_even}")
        out += [f"  assumes {a}" for a in r.assumptions]
        out += [f"  if {x['text']}" if "text" in x else f"  if {x['case']}: {x['error']}"
                for x in r.sensitivity]
    if c.premium:
        out.append(c.premium.text())
    return "\n".join(out)
