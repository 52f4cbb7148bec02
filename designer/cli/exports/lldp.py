"""``designer export lldp FILE -o DIR``: the design as its switches' LLDP tables would read."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.exports.registry import Exporter, register_exporter
from designer.core.catalog import Catalog
from designer.core.ethernet import build_underlay, write_lldp_view
from designer.core.model import Project


def write(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    build_underlay(project, catalog)  # refuses an InfiniBand design with its reason
    n = write_lldp_view(project, catalog, out)
    return (f"wrote {out}/: {n:,} files, one per switch, as 'lldpcli show neighbors -f json' "
            "prints them ('designer import lldp' reads them back)")


register_exporter(
    "lldp",
    Exporter(
        help="the LLDP neighbour table every switch of an Ethernet design would show "
        "(lldpcli JSON, one file per switch into a folder)",
        suffix="/",
        write=write,
    ),
)
