"""``designer export configs FILE -o DIR``: switch configs, NIC summaries, containerlab."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.exports.registry import Exporter, register_exporter
from designer.core.catalog import Catalog
from designer.core.ethernet import write_configs
from designer.core.model import Project


def write(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    n = write_configs(project, catalog, out)
    renamed = (f"; {n['renamed']:,} device name(s) are not hostnames and were mapped to "
               "safe ones (listed in plan.json)") if n["renamed"] else ""
    nets = (f"; other networks: {n['network_switches']:,} switches "
            f"(networks/<network>/<hostname>/), {n['network_sessions']:,} eBGP sessions, "
            "addressed as 'export addressing' plans them") if "network_switches" in n else ""
    if not n["switches"] and nets:  # an InfiniBand back-end: the Ethernet networks alone
        return (f"wrote {out}/: the back-end is InfiniBand (no switch configs; see "
                f"'designer check-ib'){nets}")
    return (
        f"wrote {out}/: {n['switches']:,} switches (switches/<hostname>/frr.conf and "
        f"config_db.json), {n['servers']:,} server NIC summaries (servers/), "
        f"{n['sessions']:,} eBGP sessions, topology.clab.yml, plan.json, tuning.txt{renamed}"
        f"{nets}"
    )


register_exporter(
    "configs",
    Exporter(
        help="RoCE switch configs into a folder: FRR (eBGP underlay, RFC 7938) and SONiC "
        "config_db.json (ports, BGP, lossless QoS) per switch, NIC settings per server, a "
        "containerlab topology; the front-end, storage and out-of-band networks' switches "
        "too, from the addressing plan",
        suffix="/",
        write=write,
    ),
)
