"""``designer sweep SPEC``: build and solve many designs on Dask, report the Pareto front."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from designer.cli.commands._common import (
    add_command,
    catalog_from,
    count_arg,
    print_json,
)
from designer.core.sweep import (
    ENGINES,
    METRICS,
    SweepRun,
    SweepTable,
    expand,
    format_of,
    load_spec,
    run_sweep,
    summary_json,
    sweep_table,
    timing_lines,
    write_designs,
    write_table,
)


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run, file=False,
        help="explore a design space: many designs, a Pareto front, on local workers or Dask",
        description="Build and solve every design a sweep spec (YAML or JSON) describes, on "
        "local worker processes (forked warm from this one), a local Dask cluster (--engine "
        "dask) or an existing Dask cluster (--scheduler or DASK_SCHEDULER_ADDRESS), and report "
        "the Pareto front of the objectives and the best design per constraint. Exit 0 on "
        "success (failed points are recorded, not fatal), 2 when the spec cannot run.",
    )
    p.add_argument("spec", help="sweep spec (*.sweep.yaml or *.sweep.json)")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="an existing Dask scheduler, such as tcp://HOST:8786 "
                   "(default: $DASK_SCHEDULER_ADDRESS, else local workers)")
    p.add_argument("--workers", type=count_arg(0, 256), metavar="N",
                   help="local worker processes (default: the CPU count, at most 8; "
                   "0 runs in this process)")
    p.add_argument("--engine", choices=ENGINES, default="processes",
                   help="local workers: plain processes forked from this one, ready in "
                   "milliseconds (default), or a local Dask cluster (a few seconds to start on "
                   "two cores, shown in the report; its dashboard and tools)")
    p.add_argument("-o", "--output", metavar="FILE", type=Path,
                   help="write the table: .csv, .xlsx, .parquet (needs pyarrow) or .json")
    p.add_argument("--top", type=count_arg(0, 100_000), metavar="N", default=0,
                   help="write the N best designs as project files (with --designs-dir)")
    p.add_argument("--designs-dir", metavar="DIR", type=Path,
                   help="folder for the --top designs")


def run(args: argparse.Namespace) -> int:
    if args.top and not args.designs_dir:
        raise_usage("--top needs --designs-dir DIR")
    if args.top < 0:
        raise_usage("--top: give a positive number")
    if args.workers is not None and args.workers < 0:
        raise_usage("--workers: give 0 (this process) or more")
    if args.output is not None:
        format_of(args.output)  # a bad extension fails before the work, not after
    cat = catalog_from(args)
    spec = load_spec(args.spec)
    points = expand(spec, cat)  # every check before anything starts
    progress = None if args.json or not sys.stderr.isatty() else _progress
    result = run_sweep(spec, catalog=cat, workers=args.workers, scheduler=args.scheduler,
                       on_outcome=progress, points=points, engine=args.engine)
    if progress:
        sys.stderr.write("\n")
    table = sweep_table(result)
    summary = summary_json(result, table)
    if args.output is not None:
        write_table(table, args.output, summary)
    written = []
    if args.top:
        written = write_designs(result, table, args.top, args.designs_dir, cat)
    if args.json:
        summary["designs"] = [str(p) for p in written]
        print_json(summary)
    else:
        print(format_report(result, table))
        if args.output is not None:
            print(f"\nTable: {args.output}")
        for p in written:
            print(f"Design: {p}")
    return 130 if result.cancelled else 0  # Ctrl+C: what finished is written, as for a cancel


def raise_usage(message: str) -> None:
    from designer.core.sweep import SweepSpecError

    raise SweepSpecError(message)


def _progress(outcome, done: int, total: int) -> None:
    sys.stderr.write(f"\r  {done:,}/{total:,} points")
    sys.stderr.flush()


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:,.4g}" if abs(v) < 1000 else f"{v:,.0f}"
    return "" if v is None else str(v)


def format_report(result: SweepRun, table: SweepTable) -> str:
    n, ok = len(result.points), int(table.ok.sum())
    where = result.ran_on()
    out = [result.spec.name, "",
           f"  Points     {n:,} ({ok:,} solved, {n - ok:,} failed, "
           f"{int(table.feasible.sum()):,} meet the constraints)"
           + (" - cancelled" if result.cancelled else ""),
           f"  Time       {result.seconds:.2f} s on {where}", "", *timing_lines(result), ""]
    recs = table.records()
    cols = ["point", "kind", *table.params, *table.objectives]
    heads = [c if c not in METRICS else f"{c} ({METRICS[c].unit})" if METRICS[c].unit else c
             for c in cols]
    front = [recs[i] for i in range(n) if table.pareto[i]]
    out.append(f"Pareto front ({len(front)} points)")
    rows = [[_fmt(r[c]) for c in cols] for r in front[:40]]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(heads)]
    out.append("  " + "  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)))
    out += ["  " + "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    if len(front) > 40:
        out.append(f"  ... {len(front) - 40} more in the table (-o)")
    out += ["", f"Best by {table.objectives[0]}"]
    for key, idx in table.best.items():
        out.append(f"  {key:<24} " + ("no point meets it" if idx is None else
                                     f"point {idx}: {result.points[idx].label()}"))
    errors = [r for r in recs if r["error"]]
    if errors:
        out += ["", f"Failed points ({len(errors)})"]
        out += [f"  point {r['point']}: {r['error']}" for r in errors[:10]]
    return "\n".join(out)
