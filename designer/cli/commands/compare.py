"""``designer compare A B ...``: designs side by side, with deltas, break-even and xlsx."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.commands._common import (
    GPU_HOUR,
    RUN_DAYS,
    YEARS,
    add_command,
    catalog_from,
    print_json,
)
from designer.core.analysis.best import Target
from designer.core.analysis.compare import (
    FIGURES,
    MAX_DESIGNS,
    PROFILE_LABELS,
    Comparison,
    compare,
    figure_text,
    oversubscription_variant,
    profile_best,
    profile_rebuilt,
    server_variant,
)
from designer.core.analysis.estimate import settings_of
from designer.core.analysis.inputs import load_workload, with_economics
from designer.core.analysis.price_sources import price_sources_json, price_sources_text
from designer.core.analysis.workload import WorkloadError
from designer.core.errors import DesignerError
from designer.core.fileformat import load_project
from designer.core.solver import solve
from designer.core.transport.choice import with_transport
from designer.core.transport.profiles import get_transport


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
                   help="the first file (a generated rail or fat tree) rebuilt on these servers "
                   "with the same GPU count, beside it (dgx-b200,gb200-nvl72: 8-GPU servers "
                   "against NVL72 racks)")
    p.add_argument("--workload", metavar="PRESET|FILE")
    p.add_argument("--gpu-hour-usd", type=GPU_HOUR, metavar="X")
    p.add_argument("--run-days", type=RUN_DAYS, metavar="D")
    p.add_argument("--years", type=YEARS, metavar="Y")
    p.add_argument("-o", "--output", type=Path, metavar="OUT.xlsx|OUT.html",
                   help="also write the comparison: .xlsx (one column per design) or .html "
                   "(a report page)")


def run(args: argparse.Namespace) -> int:
    if args.output and args.output.suffix.lower() not in (".xlsx", ".html"):
        raise WorkloadError(f"-o: compare writes .xlsx or .html files (got '{args.output.name}')")
    base = catalog_from(args)
    projects = [load_project(f, base) for f in args.files]
    first = projects[0]
    items = [(Path(f).name.removesuffix(".fabric.json"), p) for f, p in
             zip(args.files, projects, strict=True)]
    solved: list[tuple] = []
    if args.profiles:
        target = Target.of(solve(first, catalog=first.catalog(base)))
        for x in [x.strip() for x in args.profiles.split(",") if x.strip()]:
            try:
                best = profile_best(first, x, base, target, as_drawn=args.as_drawn)
            except DesignerError as exc:
                # the drawn layout does not fit this gear: the same GPUs laid out its own way
                rebuilt = profile_rebuilt(first, x, base)
                solved.append((PROFILE_LABELS.get(x, x), rebuilt,
                               solve(rebuilt, catalog=rebuilt.catalog(base)),
                               f"laid out again for this gear ({exc})"))
                continue
            solved.append((PROFILE_LABELS.get(x, x), best.chosen.project, best.chosen.result,
                           best.reason))
    if args.transports:
        items = [(get_transport(x.strip(), "--transports").short,
                  with_transport(first, x.strip(), base))
                 for x in args.transports.split(",") if x.strip()]
    if args.oversubscriptions:
        items = [(f"{x.strip()} oversubscribed", oversubscription_variant(first, x.strip(), base))
                 for x in args.oversubscriptions.split(",") if x.strip()]
    if args.servers:
        items += [(f"on {x.strip()}", server_variant(first, x.strip(), base))
                  for x in args.servers.split(",") if x.strip()]
        items = items[:MAX_DESIGNS]
    if not 2 <= len(items) <= MAX_DESIGNS and not (args.profiles or args.oversubscriptions
                                                   or args.transports):
        raise WorkloadError(f"designs: compare takes 2 to {MAX_DESIGNS} files, got {len(items)}")
    if args.as_drawn and not args.profiles:
        raise WorkloadError("--as-drawn: only with --profiles")
    s = settings_of(first)
    workload = load_workload(args.workload) if args.workload else s.workload
    econ = with_economics(s.economics, gpu_hour_usd=args.gpu_hour_usd, run_days=args.run_days,
                          years=args.years)
    if not args.profiles or args.oversubscriptions or args.transports:
        solved = [(label, p, solve(p, catalog=p.catalog(base))) for label, p in items]
    cmp = compare(solved, workload, econ, base)
    if args.output:
        suffix = args.output.suffix.lower()
        if suffix == ".html":
            from designer.core.export.compare_html import write_compare_html

            write_compare_html(cmp, args.output, base)
        else:
            from designer.core.export.compare_xlsx import write_compare_xlsx

            write_compare_xlsx(cmp, args.output)
    if args.json:
        print_json(cmp.to_json() | {"price_sources": price_sources_json(cmp, base)})
    else:
        print(format_comparison(cmp))
        print(price_sources_text(cmp, base))
    return 0


SPACED_UNITS = ("Tb/s", "Gb/s", "us", "s", "kW")  # written after the number; $ and % are in it


def _cell(value: float | None, unit: str) -> str:
    text = figure_text(value, unit, "n/a")
    return f"{text} {unit}" if value is not None and unit in SPACED_UNITS else text


def format_comparison(c: Comparison) -> str:
    """The table with every label and figure whole: columns as wide as what they hold."""
    rows = [(label, [_cell(d.figures.get(key), unit) for d in c.designs])
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
        if d.layout:
            out.append(f"{d.label}: {d.layout}")
    for d in c.designs:
        if d.error:
            out.append(f"{d.label}: {d.error}")
    for be in c.break_even:
        out.append(f"{be['dearer']} costs ${be['delta_tco_usd']:,.0f} more than {be['cheaper']};"
                   f" it pays above a {be['break_even_gain']:.1%} efficiency gain and gains "
                   f"{be['efficiency_gain']:.1%}: {'pays' if be['pays'] else 'does not pay'}")
    if c.recommendation:
        out.append(f"Recommendation: {c.recommendation.choice}"
                   + (f" ({c.recommendation.note})" if c.recommendation.note else ""))
        out.append(f"  {c.recommendation.break_even}")
    if c.premium:
        out.append(c.premium.text())
    return "\n".join(out)
