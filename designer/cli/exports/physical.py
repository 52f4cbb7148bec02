"""``designer export netbox FILE -o DIR`` and ``designer export install-plan FILE -o OUT``:
the physical layer's exports (NetBox bulk-import CSVs; the installable cabling plan)."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.exports.registry import Exporter, register_exporter
from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.writers import export_install_plan, export_netbox


def _netbox(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    return export_netbox(project, catalog, out, site=args.site)


def _netbox_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--site", metavar="NAME", help="NetBox site name (default: the project's)")


def _install(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    return export_install_plan(project, catalog, out)


register_exporter("netbox", Exporter(
    "NetBox bulk-import CSVs into folder OUT (sites, manufacturers, device roles, device "
    "types, racks, devices with rack and U, interfaces, cables; import in that order)",
    "/", _netbox, _netbox_options))
register_exporter("install-plan", Exporter(
    "installable cabling plan, rack by rack with A/Z rack, U, device, port and length: "
    "printable .xlsx (landscape, one section per rack, a Labels sheet) or .csv; needs a "
    "floor plan ('designer floor FILE --place')",
    ".xlsx", _install))
