"""``designer import infragraph FILE -o PROJECT``: a project from an InfraGraph file."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from designer.cli.commands._common import (
    add_catalog_option,
    catalog_from,
    kept_existing,
    project_name,
)
from designer.core.fileformat import save_project
from designer.core.infragraph import project_from_infragraph


def add_format(formats: argparse._SubParsersAction) -> None:
    f = formats.add_parser(
        "infragraph",
        help="an InfraGraph infrastructure (JSON or YAML)",
        description="Read an InfraGraph infrastructure (devices, instances, links, edges with "
        "slice notation) and build a project: devices with accelerators become GPU servers, "
        "devices of ports become switches (leaves, spines, cores by their wiring), other "
        "cabled devices appliances. Devices named like catalog gear keep it; others become "
        "generic gear of their size. Link speeds come from the links' bandwidth.",
    )
    f.add_argument("input", metavar="FILE", help="InfraGraph file (.json, .yaml)")
    f.add_argument("-o", "--output", required=True, metavar="PROJECT",
                   help="project file to write (*.fabric.json)")
    f.add_argument("--gear", metavar="PROFILE",
                   help="gear profile (default: the one the file notes, else from the link "
                   "speeds: ib-ndr, or ib-xdr at 800G)")
    f.add_argument("--name", type=project_name, help="project name")
    f.add_argument("--force", action="store_true", help="overwrite an existing project file")
    add_catalog_option(f)
    f.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if kept_existing(out, args.force, "import"):
        return 2
    cat = catalog_from(args)
    project = project_from_infragraph(args.input, cat, name=args.name or "", gear=args.gear)
    save_project(project, out, keep_backup=False)
    roles = Counter(d.role.value for d in project.fabric.devices)
    print(f"read {args.input}; wrote {out}: " + ", ".join(f"{n:,} {r}" for r, n in roles.items())
          + f"; {project.fabric.links.n_cables:,} cables; gear profile {project.profile}")
    return 0
