"""``designer export htsim|astrasim FILE -o DIR``: inputs for the packet-level simulator htsim
and the system simulator ASTRA-sim."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.commands._common import whole_number
from designer.cli.exports.registry import Exporter, register_exporter
from designer.core.analysis import load_workload, parse_bytes
from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.simulate import (
    DEFAULT_PATTERNS,
    PATTERNS,
    SimulatorInputError,
    write_astrasim,
    write_htsim,
)
from designer.core.solver import solve


def _patterns(text: str) -> tuple[str, ...]:
    pats = tuple(p.strip() for p in text.split(",") if p.strip())
    bad = [p for p in pats if p not in PATTERNS]
    if bad or not pats:
        raise argparse.ArgumentTypeError(f"patterns are {', '.join(PATTERNS)} (comma-separated)")
    return tuple(dict.fromkeys(pats))


def _htsim_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pattern", type=_patterns, default=DEFAULT_PATTERNS, metavar="P[,P]",
                   help="connection matrices to write: ring, alltoall, incast, permutation "
                   "(default: ring,incast,permutation; an all-to-all of every GPU takes htsim "
                   "hours past a few hundred GPUs)")
    p.add_argument("--bytes", default="1GiB", metavar="SIZE",
                   help="the collective's buffer per GPU (default 1GiB)")
    p.add_argument("--nodes", type=whole_number, default=None, metavar="N",
                   help="only the first N nodes in the matrices (an all-to-all of every GPU "
                   "of a large design is too many flows)")


def _htsim(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    nbytes = parse_bytes(args.bytes)
    return write_htsim(project, catalog, out, args.pattern, nbytes, args.nodes).summary()


def _astrasim_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workload", metavar="PRESET|FILE",
                   help="workload whose collectives are listed (default: the project's)")
    p.add_argument("--bytes", default="1GiB", metavar="SIZE",
                   help="size of the all-reduce the Chakra traces carry, run.sh runs and the "
                   "tool estimates beside it (default 1GiB)")


def _astrasim(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    result = solve(project, catalog=catalog)
    if result.gpus - result.unconnected_gpus <= 0:
        raise SimulatorInputError("the design has no connected GPUs")
    w = load_workload(args.workload) if args.workload else None
    return write_astrasim(project, result, catalog, out, w, parse_bytes(args.bytes)).summary()


register_exporter("htsim", Exporter(
    "htsim inputs: the fat-tree topology of the design's tiers (-topo), ring, all-to-all, "
    "incast and permutation connection matrices (-tm), run.sh (ECMP and spraying runs with "
    "every flag) and the tool's prediction for 'designer simulate check', into a folder",
    "/", _htsim, _htsim_options))
register_exporter("astrasim", Exporter(
    "ASTRA-sim inputs: network.yml (analytical backends), system.json, remote_memory.json, "
    "Chakra traces of one all-reduce, run.sh and the tool's estimate of it, and the "
    "workload's collectives, into a folder", "/", _astrasim, _astrasim_options))
