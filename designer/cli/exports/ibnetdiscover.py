"""``designer export ibnetdiscover FILE -o NET``: the design as an InfiniBand topology file."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.exports.registry import Exporter, register_exporter
from designer.core.catalog import Catalog
from designer.core.infiniband import ib_fabric_of, write_netfile
from designer.core.model import Project
from designer.core.writers import write_bytes


def write(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    pib = ib_fabric_of(project, catalog)
    ib = pib.fabric
    write_bytes(out, write_netfile(ib, title=project.name).encode())
    switches = int(ib.is_switch.sum())
    return (
        f"wrote {out}: {switches:,} switches, {ib.n_nodes - switches:,} HCAs, "
        f"{ib.n_cables:,} cables, nodes named by device {pib.named_by} "
        "(ibnetdiscover format; 'ibsim -s FILE' loads it)"
    )


register_exporter(
    "ibnetdiscover",
    Exporter(
        help="InfiniBand topology as ibnetdiscover prints it (ibsim loads it; "
        "compare with the built fabric using 'designer diff')",
        suffix=".topo",
        write=write,
    ),
)
