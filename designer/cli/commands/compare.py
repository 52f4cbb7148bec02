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
from designer.core.analysis.compare import (
    FIGURES,
    MAX_DESIGNS,
    PROFILE_LABELS,
    Comparison,
    compare,
    figure_text,
    oversubscription_variant,
    profile_variant,
)
from designer.core.analysis.estimate import settings_of
from designer.core.analysis.inputs import load_workload, with_economics
from designer.core.analysis.workload import WorkloadError
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
                   "roce-800)")
    p.add_argument("--oversubscriptions", metavar="LIST",
                   help="the first file (a generated fat tree) under these ratios (1:1,3:1)")
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
    if args.profiles:
        items = [(PROFILE_LABELS.get(x.strip(), x.strip()), profile_variant(first, x.strip(), base))
                 for x in args.profiles.split(",") if x.strip()] or items
    if args.oversubscriptions:
        items = [(f"{x.strip()} oversubscribed", oversubscription_variant(first, x.strip(), base))
                 for x in args.oversubscriptions.split(",") if x.strip()]
    if not 2 <= len(items) <= MAX_DESIGNS and not (args.profiles or args.oversubscriptions):
        raise WorkloadError(f"designs: compare takes 2 to {MAX_DESIGNS} files, got {len(items)}")
    s = settings_of(first)
    workload = load_workload(args.workload) if args.workload else s.workload
    econ = with_economics(s.economics, gpu_hour_usd=args.gpu_hour_usd, run_days=args.run_days,
                          years=args.years)
    solved = [(label, p, solve(p, catalog=p.catalog(base))) for label, p in items]
    cmp = compare(solved, workload, econ, base)
    if args.output:
        suffix = args.output.suffix.lower()
        if suffix == ".html":
            from designer.core.export.compare_html import write_compare_html

            write_compare_html(cmp, args.output)
        else:
            from designer.core.export.compare_xlsx import write_compare_xlsx

            write_compare_xlsx(cmp, args.output)
    if args.json:
        print_json(cmp.to_json())
    else:
        print(format_comparison(cmp))
    return 0


def format_comparison(c: Comparison) -> str:
    w = 16
    out = ["".ljust(30) + "".join(d.label[:w - 1].rjust(w) for d in c.designs)]
    for key, label, unit, _ in FIGURES:
        out.append(label[:29].ljust(30) + "".join(
            figure_text(d.figures.get(key), unit, "n/a").rjust(w) for d in c.designs))
    keys = list(dict.fromkeys(k for d in c.designs for k in d.busbw))
    for k in keys:
        out.append(f"busbw {k} GB/s"[:29].ljust(30) + "".join(
            figure_text(d.busbw.get(k), "", "n/a").rjust(w) for d in c.designs))
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
    return "\n".join(out)
