"""``designer import ibnetdiscover OUTPUT -o PROJECT``: a project from a discovered fabric."""

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
from designer.core.infiniband import project_from_ib, read_netfile


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = sub.add_parser(
        name,
        help="build a project from another tool's output (an as-built fabric)",
        description="Build a project from what another tool found on a real fabric.",
    )
    formats = p.add_subparsers(dest="format", metavar="FORMAT", required=True, parser_class=type(p))
    f = formats.add_parser(
        "ibnetdiscover",
        help="the output of ibnetdiscover (or an ibsim topology file)",
        description="Read the topology that ibnetdiscover prints and build a project: node "
        "descriptions become device names ('<host> mlx5_<k>' is NIC port k+1 of server "
        "<host>), roles are guessed from the wiring (switches with GPU servers are leaves, "
        "then spines, then cores; dragonfly routers when every switch has servers), models "
        "from the device id or port count. Compare it with the plan using 'designer diff'.",
    )
    f.add_argument("output_file", metavar="OUTPUT", help="ibnetdiscover output (text)")
    f.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="PROJECT",
        help="project file to write (*.fabric.json)",
    )
    f.add_argument(
        "--gear", metavar="PROFILE", help="gear profile (default: from the link rates, else ib-ndr)"
    )
    f.add_argument("--name", type=project_name,
                   help="project name (default: 'As-built <file name>')")
    f.add_argument("--force", action="store_true", help="overwrite an existing project file")
    add_catalog_option(f)
    f.set_defaults(run=run)
    from designer.cli import import_infragraph, import_lldp

    import_lldp.add_format(formats)
    import_infragraph.add_format(formats)


def run(args: argparse.Namespace) -> int:
    out = Path(args.output)
    if kept_existing(out, args.force, "import"):
        return 2
    src = Path(args.output_file)
    ib = read_netfile(src)
    cat = catalog_from(args)
    name = args.name or f"As-built {src.name}"
    project = project_from_ib(ib, cat, name=name, gear=args.gear, source=src.name)
    save_project(project, out, keep_backup=False)
    roles = Counter(d.role.value for d in project.fabric.devices)
    models = Counter(d.model for d in project.fabric.devices)
    print(
        f"read {src}: {ib.n_nodes:,} nodes, {ib.n_cables:,} cables; wrote {out}: "
        + ", ".join(f"{n:,} {r}" for r, n in roles.items())
    )
    print("models: " + ", ".join(f"{m} x {n:,}" for m, n in models.most_common()))
    return 0
