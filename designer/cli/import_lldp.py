"""``designer import lldp FILE|FOLDER... -o PROJECT``: the as-built of an Ethernet fabric."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from designer.cli.commands._common import add_catalog_option, catalog_from, kept_existing
from designer.core.ethernet import project_from_lldp
from designer.core.fileformat import save_project


def add_format(formats: argparse._SubParsersAction) -> None:
    f = formats.add_parser(
        "lldp",
        help="LLDP neighbour tables of the switches (lldpcli -f json, SONiC show lldp table)",
        description="Read one LLDP neighbour table per switch ('lldpcli show neighbors -f "
        "json' or SONiC 'show lldp table'; the file name is the switch's name) or a folder of "
        "them, and build a project: switches are the files and the neighbours that announce "
        "router or bridge capability, every other neighbour is a server; ports come from the "
        "interface names (Ethernet<lane>, swp<N>, eth<N>, mlx5_<k>). Compare it with the "
        "plan using 'designer diff'.",
    )
    f.add_argument("inputs", nargs="+", metavar="FILE", help="LLDP files or folders")
    f.add_argument("-o", "--output", required=True, metavar="PROJECT",
                   help="project file to write (*.fabric.json)")
    f.add_argument("--gear", default="roce-400", metavar="PROFILE",
                   help="Ethernet gear profile: switch model and port split (default "
                   "%(default)s)")
    f.add_argument("--name", help="project name (default: 'As-built <folder>')")
    f.add_argument("--force", action="store_true", help="overwrite an existing project file")
    add_catalog_option(f)
    f.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if kept_existing(out, args.force, "import"):
        return 2
    cat = catalog_from(args)
    project = project_from_lldp([Path(p) for p in args.inputs], cat, gear=args.gear,
                                name=args.name)
    save_project(project, out, keep_backup=False)
    roles = Counter(d.role.value for d in project.fabric.devices)
    print(f"wrote {out}: " + ", ".join(f"{n:,} {r}" for r, n in roles.items())
          + f"; {project.fabric.links.n_cables:,} cables")
    return 0
