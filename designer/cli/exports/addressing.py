"""``designer export addressing FILE -o plan.csv|plan.yaml``: the IP and BGP plan of an
Ethernet design (the one ``export configs`` writes), or the node-description plan of an
InfiniBand one, and the plan of each other network the design has (front-end, storage,
out-of-band). ``--loopbacks``, ``--p2p``, ``--hosts``, ``--asn-base`` and the networks'
``--frontend-range``, ``--storage-range``, ``--oob-range`` change the ranges and save them in
the project, so the configs written afterwards use the same plan."""

from __future__ import annotations

import argparse
from pathlib import Path

from pydantic import ValidationError

from designer.cli.exports.registry import Exporter, register_exporter
from designer.core.address_ranges import DEFAULT_RANGES, NETWORK_RANGE_FIELDS, AddressRanges
from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.ethernet import write_addressing
from designer.core.fileformat import save_project
from designer.core.model import Project
from designer.core.writers import ExportError

SUFFIXES = (".csv", ".yaml", ".yml")
OPTIONS = {"loopbacks": "loopbacks", "p2p": "p2p", "hosts": "hosts", "asn_base": "asn_base",
           "frontend_range": "frontend", "storage_range": "storage", "oob_range": "oob"}


class RangeError(DesignerError):
    """Address ranges that cannot be used; the message names the range."""


def with_ranges(project: Project, args: argparse.Namespace) -> tuple[Project, bool]:
    given = {f: getattr(args, k) for k, f in OPTIONS.items() if getattr(args, k, None)
             is not None}
    if not given:
        return project, False
    base = (project.addressing or DEFAULT_RANGES).model_dump()
    try:
        rng = AddressRanges.model_validate(base | given)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        raise RangeError(f"{where}: {msg}" if where else msg) from None
    return project.evolve(addressing=rng), True


def write(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    if out.suffix.lower() not in SUFFIXES:
        raise ExportError(f"addressing exports write .csv or .yaml files; name the output "
                          f"with one of those (got '{out.name}')")
    project, changed = with_ranges(project, args)
    kind, summary = write_addressing(project, catalog, out)
    if changed:  # only once the plan fits the new ranges
        save_project(project, args.file)
    saved = f"; ranges saved in {args.file} (export configs uses them)" if changed else ""
    nets = summary.get("networks") or {}
    others = "".join(f"; {k}: {s['addresses']:,} addresses of {s['switches']:,} switches, "
                     f"{s['asns']:,} ASNs" for k, s in nets.items())
    if kind == "infiniband":
        where = " (in the .yaml)" if nets and out.suffix.lower() == ".csv" else ""
        return (f"wrote {out}: InfiniBand node descriptions of {summary['devices']:,} "
                f"devices{where}, {summary['hca_ports']:,} HCA ports{others}{saved}")
    return (f"wrote {out}: {summary['addresses']:,} addresses of {summary['switches']:,} "
            f"switches, {summary['asns']:,} ASNs{others}{saved}")


def options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--loopbacks", metavar="CIDR", help="range of the switches' /32 loopbacks "
                   f"(default {DEFAULT_RANGES.loopbacks}; saved in the project)")
    p.add_argument("--p2p", metavar="CIDR", help="range of the switch-to-switch /31s "
                   f"(default {DEFAULT_RANGES.p2p}; saved in the project)")
    p.add_argument("--hosts", metavar="CIDR", help="range of the leaves' host blocks "
                   f"(default {DEFAULT_RANGES.hosts}; saved in the project)")
    for field, label in NETWORK_RANGE_FIELDS.items():
        p.add_argument(f"--{field}-range", metavar="CIDR", help=f"range of the {label} "
                       "network (a quarter loopbacks, a quarter /31s, half host blocks; "
                       f"default {getattr(DEFAULT_RANGES, field)}; saved in the project)")
    p.add_argument("--asn-base", type=int, metavar="ASN", help="first private 4-byte ASN "
                   f"(default {DEFAULT_RANGES.asn_base:,}; saved in the project)")


register_exporter("addressing", Exporter(
    "IP and BGP plan of an Ethernet design (loopbacks, /31s, ASNs per RFC 7938, host "
    "addresses), or InfiniBand node descriptions: .csv or .yaml", ".csv", write, options))
