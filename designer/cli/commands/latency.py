"""``designer latency set|import|list|clear``: latencies measured on the real hardware.

A measurement replaces the catalog's figure for one technology: per-end NIC latency and
per-switch latency given directly, or derived from a one-way end-to-end figure as perftest
(``ib_send_lat``, ``ib_write_lat``) reports it, with the switches and cable it crossed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import ValidationError

from designer.cli.commands._common import (
    add_catalog_option,
    catalog_from,
    count_arg,
    number_arg,
    print_sources,
)
from designer.core.errors import DesignerError
from designer.core.fileformat import load_project, save_project
from designer.core.sources import (
    LatencyMeasurement,
    nic_per_end_ns,
    read_perftest,
    with_latency,
    without_latency,
)

TECHS = ("ib-ndr", "ib-xdr", "eth")


def _switch_ns(text: str) -> tuple[str, float]:
    model, sep, ns = text.partition("=")
    try:
        if not sep:
            raise ValueError
        return model.strip(), float(ns)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': expected MODEL=NS, e.g. sn5600=550") \
            from None


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="project file (*.fabric.json)")
    p.add_argument("--tech", required=True, choices=TECHS, help="the technology measured")
    p.add_argument("--switches", type=count_arg(0, 16), default=0, metavar="K",
                   help="switches the measured path crossed (0: NICs back to back)")
    p.add_argument("--switch-model", metavar="ID",
                   help="the switch the path crossed (default: the gear profile's)")
    p.add_argument("--cable-m", type=number_arg(0.0, 100_000.0), default=0.0, metavar="M",
                   help="total cable length of the measured path")
    p.add_argument("--speed-gbps", type=count_arg(1, 3200), metavar="G",
                   help="link speed of the measurement")
    p.add_argument("--switch-ns", type=_switch_ns, action="append", default=[],
                   metavar="MODEL=NS", help="a measured per-hop switch latency (repeatable)")
    p.add_argument("--tool", default="", help="what measured it, e.g. 'ib_send_lat 24.07'")
    p.add_argument("--date", default="", help="when, YYYY-MM-DD")
    p.add_argument("--note", default="", help="a note kept with the measurement")
    p.add_argument("-o", "--output", help="write the project here (default: in place)")
    add_catalog_option(p)


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(name, help="measured latencies that override the catalog's",
                       description="Latencies measured on real hardware (perftest "
                       "ib_send_lat / ib_write_lat, or per component) replace the catalog's "
                       "figures for one technology in this project.")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True,
                            parser_class=type(p))
    st = acts.add_parser("set", help="set a measurement by hand")
    _common(st)
    st.add_argument("--nic-ns", type=number_arg(0.0, 1e7), metavar="NS", help="per-end NIC latency")
    st.add_argument("--end-to-end-us", type=number_arg(0.0, 1e4, low_open=True), metavar="US",
                    help="one-way end-to-end latency (perftest's t_typical)")
    st.add_argument("--message-bytes", type=count_arg(1, 2**30), default=2, metavar="B",
                    help="message size of the end-to-end figure (perftest default 2)")
    st.set_defaults(run=run_set)
    imp = acts.add_parser("import", help="read a perftest latency run's output")
    _common(imp)
    imp.add_argument("output_file", type=Path, metavar="OUTPUT",
                     help="the saved output of ib_send_lat / ib_write_lat / ib_read_lat")
    imp.add_argument("--size", type=count_arg(1, 2**30), metavar="B",
                     help="the message size to take when the run swept several")
    imp.set_defaults(run=run_import)
    ls = acts.add_parser("list", help="list the project's measurements")
    ls.add_argument("file", help="project file (*.fabric.json)")
    ls.add_argument("--json", action="store_true", help="print JSON")
    add_catalog_option(ls)
    ls.set_defaults(run=run_list)
    cl = acts.add_parser("clear", help="drop the measurement of one technology")
    cl.add_argument("file", help="project file (*.fabric.json)")
    cl.add_argument("--tech", required=True, choices=TECHS)
    cl.add_argument("-o", "--output", help="write the project here (default: in place)")
    add_catalog_option(cl)
    cl.set_defaults(run=run_clear)


def _measurement(args: argparse.Namespace, **values) -> LatencyMeasurement:
    data = {"tech": args.tech, "switches": args.switches, "switch_model": args.switch_model,
            "cable_m": args.cable_m, "speed_gbps": args.speed_gbps,
            "switch_ns": dict(args.switch_ns), "tool": args.tool, "date": args.date,
            "note": args.note, **values}
    try:
        return LatencyMeasurement.model_validate({k: v for k, v in data.items()
                                                  if v is not None})
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(x) for x in first["loc"]) or "measurement"
        raise DesignerError(f"latency {loc}: {first['msg']}") from None


def _save(args: argparse.Namespace, m: LatencyMeasurement) -> int:
    base = catalog_from(args)
    project = load_project(args.file, base)
    project = with_latency(project, m, base)
    save_project(project, args.output or args.file)
    per_end = nic_per_end_ns(project.catalog(base), m, project.profile,
                             project.analysis.propagation_ns_per_m)
    what = [f"NIC {per_end:,.0f} ns per end"] if per_end is not None else []
    what += [f"{k} {v:,.0f} ns per hop" for k, v in m.switch_ns.items()]
    print(f"{m.tech}: {', '.join(what)} (measured) saved in {args.output or args.file}")
    return 0


def run_set(args: argparse.Namespace) -> int:
    return _save(args, _measurement(args, nic_ns=args.nic_ns, end_to_end_us=args.end_to_end_us,
                                    message_bytes=args.message_bytes))


def run_import(args: argparse.Namespace) -> int:
    row = read_perftest(args.output_file, args.size)
    tool = args.tool or row.tool or "perftest"
    return _save(args, _measurement(args, end_to_end_us=row.typical_us,
                                    message_bytes=row.message_bytes, tool=tool))


def run_list(args: argparse.Namespace) -> int:
    project = load_project(args.file, catalog_from(args))
    return print_sources(args, project.sources.latency,
                         "no measurements: latencies are the catalog's figures", _describe)


def _describe(m) -> str:
    parts = []
    if m.nic_ns is not None:
        parts.append(f"NIC {m.nic_ns:,.0f} ns per end")
    if m.end_to_end_us is not None:
        parts.append(f"{m.end_to_end_us:g} us one way across {m.switches} switch(es), "
                     f"{m.message_bytes:,} B")
    parts += [f"{k} {v:,.0f} ns" for k, v in m.switch_ns.items()]
    return (f"{m.tech}: {'; '.join(parts)}" + (f" [{m.tool}]" if m.tool else "")
            + (f" {m.date}" if m.date else ""))


def run_clear(args: argparse.Namespace) -> int:
    project = load_project(args.file, catalog_from(args))
    save_project(without_latency(project, args.tech), args.output or args.file)
    print(f"cleared the {args.tech} measurement")
    return 0
