"""ASTRA-sim inputs: the network configuration of its analytical backends (YAML) and the
system configuration (JSON) for this design's tiers, and the workload's collectives.

A network is a list of dimensions, innermost first, each a ``Switch`` (or ``Ring``,
``FullyConnected``) of ``npus_count`` NPUs with a per-NPU ``bandwidth`` (ASTRA-sim's "GB/s",
which it converts as 2^30 bytes per second) and a
``latency`` (ns) (astra-sim ``examples/network/analytical``). This design's dimensions: the
NVLink domain (the GPUs of a server, NVLink's bandwidth per GPU and direction), then one per
switch tier: the GPUs under one leaf group (a scalable unit), the groups under a spine pod,
the pods under the cores. A tier's bandwidth is a GPU's NIC rate divided by the
oversubscription below it; its latency is the design's path latency for that many switch
hops. The system configuration names the collective algorithm per dimension for every
collective the workload runs. ASTRA-sim's workloads are Chakra execution traces: the export
writes one of a single all-reduce (``chakra.py``) that ``run.sh`` runs beside the tool's
estimate of it, and ``collectives.json`` lists the workload's collectives of a training step
(group and bytes) for traces of a whole step.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from designer.core.analysis.estimates import estimate
from designer.core.analysis.fabric import FabricView, fabric_view
from designer.core.analysis.workload import Workload, WorkloadError
from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.simulate.tiers import SimulatorInputError
from designer.core.solver import Result

# ASTRA-sim's validated 8 x H100 HGX network: 936.25 ns NVLink latency
# (astra-sim examples/network/analytical/HGX-H100-validated.yml)
NVLINK_NS = 936.25
# hierarchical implementations per dimension, ASTRA-sim's names
IMPLEMENTATION = {"all-reduce": "ring", "all-gather": "ring", "reduce-scatter": "ring",
                  "all-to-all": "direct"}
# (ASTRA-sim's example files also carry "boost-mode": 0, its default; the published schema
# its SDK carries has no such key, so it is left out)
SYSTEM_KEYS = {"scheduling-policy": "LIFO", "endpoint-delay": 10,
               "active-chunks-per-dimension": 1, "preferred-dataset-splits": 4,
               "collective-optimization": "localBWAware", "local-mem-bw": 1600}


# ASTRA-sim reads a bandwidth of "1 GB/s" as 2^30 bytes per second (astra-network-analytical
# common/NetworkFunction.cpp, bw_GBps_to_Bpns); the designer's GB/s are 10^9 bytes per second
ASTRA_GB = 2**30


def astra_gb(gbytes_s: float) -> float:
    """A designer bandwidth (10^9 B/s) in ASTRA-sim's unit (2^30 B/s)."""
    return round(gbytes_s * 1e9 / ASTRA_GB, 3)


def dimensions(view: FabricView, result: Result) -> list[dict]:
    """[{topology, npus, bandwidth, latency ns}] from the NVLink domain outwards; the
    bandwidth in ASTRA-sim's unit (``ASTRA_GB``)."""
    dims = []
    inner = max(1, view.domain)
    if inner > 1:
        dims.append({"topology": "Switch", "npus": inner,
                     "bandwidth": astra_gb(view.gpu.nvlink_gbytes_s), "latency": NVLINK_NS})
    nic = view.nic_gbytes_s
    by_hops = result.latency.by_hops_us
    ratio = 1.0
    hops = 1
    under = inner
    sizes = [lv.gpus for lv in view.levels] + [view.gpus]
    seen = set()
    for k, gpus in enumerate(sizes):
        if gpus in seen or gpus <= under:
            continue
        seen.add(gpus)
        if gpus % under:
            raise SimulatorInputError(
                f"{gpus:,} GPUs under a tier do not split into groups of {under:,}; ASTRA-sim's "
                "dimensions multiply (a partial scalable unit)")
        lat_us = by_hops.get(hops) or by_hops.get(max(by_hops), 0.0) if by_hops else 0.0
        dims.append({"topology": "Switch", "npus": gpus // under,
                     "bandwidth": astra_gb(nic / ratio), "latency": round(lat_us * 1000, 2)})
        if k < len(view.levels):
            ratio *= max(view.levels[k].ratio, 1.0)
        hops += 2
        under = gpus
    if under != view.gpus:
        raise SimulatorInputError("the tiers' GPU counts do not multiply to the design's")
    return dims


def network_yaml(dims: list[dict], title: str) -> str:
    def row(key: str, vals) -> str:
        return f"{key}: [ {', '.join(str(v) for v in vals)} ]"

    return "\n".join([
        f"# {title}",
        row("topology", [d["topology"] for d in dims]),
        row("npus_count", [d["npus"] for d in dims]),
        row("bandwidth", [float(d["bandwidth"]) for d in dims]) + "  # GiB/s (2^30 B/s)",
        row("latency", [float(d["latency"]) for d in dims]) + "  # ns",
    ]) + "\n"


def system_config(n_dims: int) -> dict:
    """ASTRA-sim's system keys with one implementation per dimension for each collective."""
    cfg = dict(SYSTEM_KEYS)
    for op in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
        cfg[f"{op}-implementation"] = [IMPLEMENTATION[op]] * n_dims
    return cfg


# ASTRA-sim's analytical backends: the congestion-aware one takes a single dimension only
# (astra-network-analytical congestion_aware/topology/Helper.cpp), so a design of several
# tiers runs on the congestion-unaware one, which pipelines the dimensions
PROGRAM_ONE_DIM = "AstraSim_Analytical_Congestion_Aware"
PROGRAM_MULTI_DIM = "AstraSim_Analytical_Congestion_Unaware"
# the collective the traces carry, and its default size
TRACE_OP = "all-reduce"
DEFAULT_TRACE_BYTES = 1 << 30
TRACE_FILE = "all_reduce.et"


@dataclass
class AstrasimExport:
    folder: Path
    files: list[Path]
    gpus: int
    dims: int
    trace_bytes: int
    program: str
    prediction: dict

    def summary(self) -> str:
        top = [f.name for f in self.files]
        tool = self.prediction.get("tool", [])
        said = "; ".join(f"{r['algorithm']} {r['time_us']:,.1f} us" for r in tool)
        return "\n".join([
            f"wrote {self.folder}: {', '.join(top)} (the last: the Chakra trace of one "
            f"{self.trace_bytes:,}-byte all-reduce, linked by run.sh for each of the "
            f"{self.gpus:,} GPUs)",
            f"the tool's estimate of that all-reduce: {said}" if said else
            "the tool has no estimate of that all-reduce",
            f"next: sh {self.folder}/run.sh ({self.program} on PATH or in $ASTRA_SIM_BIN; "
            f"{self.dims} dimension{'s' if self.dims > 1 else ''}), which writes "
            "astra-sim.out and prints the all-reduce's time beside the tool's"])


def run_script(program: str, trace_bytes: int, gpus: int, prediction_us: dict) -> str:
    """run.sh: ASTRA-sim on this folder's files, its output in astra-sim.out, the last NPU's
    finishing time printed (in µs) beside the tool's estimate."""
    tool = ", ".join(f"{k} {v:,.1f} us" for k, v in prediction_us.items()) or "none"
    return "\n".join([
        "#!/bin/sh",
        f"# ASTRA-sim on this design: one {trace_bytes:,}-byte all-reduce over all {gpus:,} "
        "GPUs",
        f"# ({TRACE_FILE}, linked per NPU), the network in network.yml, the collective "
        "algorithms in system.json.",
        f"# Program: $ASTRA_SIM_BIN/{program}, else found on PATH.",
        'cd "$(dirname "$0")" || exit 1',
        f"PROG={program}",
        'if [ -n "$ASTRA_SIM_BIN" ] && [ -x "$ASTRA_SIM_BIN/$PROG" ]; then '
        'BIN="$ASTRA_SIM_BIN/$PROG"',
        'elif command -v "$PROG" >/dev/null 2>&1; then BIN=$(command -v "$PROG")',
        'else echo "run.sh: $PROG not found: build the analytical backend of ASTRA-sim '
        '(build/astra_analytical/build.sh) and put build/astra_analytical/build/bin on PATH '
        'or set ASTRA_SIM_BIN" >&2; exit 127; fi',
        "# ASTRA-sim reads one trace per NPU: every one is this folder's " + TRACE_FILE,
        "mkdir -p workload || exit 1",
        f"i=0; while [ $i -lt {gpus} ]; do",
        f'    [ -e "workload/all_reduce.$i.et" ] || ln -s ../{TRACE_FILE} '
        '"workload/all_reduce.$i.et" || exit 1',
        "    i=$((i + 1))",
        "done",
        '"$BIN" --workload-configuration=workload/all_reduce '
        "--system-configuration=system.json --remote-memory-configuration=remote_memory.json "
        "--network-configuration=network.yml > astra-sim.out 2>&1",
        'rc=$?',
        'if [ "$rc" -ne 0 ]; then tail -5 astra-sim.out >&2; exit "$rc"; fi',
        "# every NPU logs 'sys[N] finished, T cycles' (1 cycle = 1 ns); the collective ends "
        "with the last",
        "awk '/finished, [0-9]+ cycles/ { for (i = 1; i < NF; i++) if ($i == \"finished,\") "
        "{ if ($(i + 1) + 0 > t) t = $(i + 1) + 0; n++; break } }",
        '     END { if (!n) { print "run.sh: no NPU finished (see astra-sim.out)" > '
        '"/dev/stderr"; exit 1 }',
        f'           printf "ASTRA-sim: all-reduce of {trace_bytes} bytes over %d NPUs: %.1f '
        f'us\\n", n, t / 1000; print "tool: {tool}" }}\' astra-sim.out',
    ]) + "\n"


def write_astrasim(project: Project, result: Result, catalog: Catalog, folder: str | Path,
                   workload: Workload | None = None,
                   trace_bytes: int = DEFAULT_TRACE_BYTES) -> AstrasimExport:
    """Every file ASTRA-sim needs to run one all-reduce of ``trace_bytes`` on this design:
    the network, system and memory configurations, the Chakra trace (one file, which
    ``run.sh`` links for every GPU), ``run.sh``, and the tool's estimate of the same
    all-reduce (``prediction.json``). Everything is checked before the first file is
    written."""
    from designer.core.analysis.estimates import CollectiveRequest, settings_of
    from designer.core.safe_io import ExportFolder, FileRefused
    from designer.core.simulate.chakra import collective_trace
    from designer.core.writers.output import ExportError

    if not 0 < trace_bytes < 2**63:
        raise SimulatorInputError("the all-reduce's size must be from one byte to 2^63 - 1 "
                                  "(Chakra's comm_size is a signed 64-bit integer)")
    w = workload or settings_of(project).workload
    view = fabric_view(project, result, w, catalog)
    dims = dimensions(view, result)
    try:
        est = estimate(project, result, w, catalog=catalog)
        colls = [{"op": r.op, "group": r.group, "gpus": r.gpus, "bytes": r.bytes,
                  "algorithm_nccl_would_pick": r.algorithm} for r in est.collectives]
        why = ""
    except WorkloadError as exc:  # the network files do not depend on the workload
        colls, why = [], str(exc)
    tool = []
    for algorithm in ("ring", "auto"):
        try:
            row = estimate(project, result, w, catalog=catalog, requests=(
                CollectiveRequest(TRACE_OP, trace_bytes, "all", algorithm),)).collectives[0]
        except WorkloadError:
            continue
        entry = {"asked": algorithm, "algorithm": row.algorithm, "time_us": round(
            row.time_us, 3), "busbw_gbytes_s": round(row.busbw_gbytes_s, 3)}
        if not any(t["algorithm"] == entry["algorithm"] for t in tool):
            tool.append(entry)
    gpus = int(np.prod([d["npus"] for d in dims])) if dims else view.gpus
    program = PROGRAM_ONE_DIM if len(dims) == 1 else PROGRAM_MULTI_DIM
    prediction = {"collective": TRACE_OP, "bytes": trace_bytes, "gpus": gpus,
                  "astra_sim_program": program, "tool": tool}
    try:
        d = ExportFolder(folder, "ASTRA-sim export")
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    files = {
        "network.yml": network_yaml(dims, f"{project.name}: {view.gpus:,} GPUs"),
        "system.json": json.dumps(system_config(len(dims)), indent=2) + "\n",
        "remote_memory.json": json.dumps({"memory-type": "NO_MEMORY_EXPANSION"}, indent=2)
        + "\n",
        "collectives.json": json.dumps({"workload": w.name, "step_collectives": colls,
                                        **({"not_estimated": why} if why else {})},
                                       indent=1) + "\n",
        "prediction.json": json.dumps(prediction, indent=1) + "\n",
    }
    name = f"all_reduce_{gpus}npus_{trace_bytes}B"
    out = []
    try:
        for fname, text in files.items():
            out.append(d.write(fname, text.encode()))
        out.append(d.write("run.sh", run_script(
            program, trace_bytes, gpus, {t["algorithm"]: t["time_us"] for t in tool}),
            executable=True))
        # one trace serves every NPU (a node id is local to its trace): run.sh links it as
        # ASTRA-sim's workload/all_reduce.RANK.et, so a 16,384-GPU export writes one file
        out.append(d.write(TRACE_FILE, collective_trace(TRACE_OP, trace_bytes, name)))
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    return AstrasimExport(Path(folder), out, gpus, len(dims), trace_bytes, program,
                          prediction)


def read_network_yaml(text: str) -> dict:
    """The four lists of an analytical network file, checked as ASTRA-sim checks them (equal
    lengths, known topologies, positive numbers)."""
    import yaml

    data = yaml.safe_load(text)
    keys = ("topology", "npus_count", "bandwidth", "latency")
    if not isinstance(data, dict) or any(k not in data for k in keys):
        raise ValueError(f"needs {', '.join(keys)}")
    n = len(data["topology"])
    if any(len(data[k]) != n for k in keys):
        raise ValueError("lists differ in length")
    if any(t not in ("Ring", "FullyConnected", "Switch") for t in data["topology"]):
        raise ValueError("unknown topology")
    if any(not (isinstance(v, int) and v >= 2) for v in data["npus_count"]):
        raise ValueError("npus_count must be whole numbers of 2 or more")
    if any(not float(v) > 0 for v in data["bandwidth"]) or any(float(v) < 0 for v in
                                                              data["latency"]):
        raise ValueError("bandwidth must be positive, latency not negative")
    return data


def sdk_problems(network_text: str, system: dict, python: str | None = None) -> list[str] | None:
    """The analytical network and system configuration checked against ASTRA-sim's
    published schema as its SDK carries it (``astrasim_schema.problems``).

    The SDK pins protobuf 5, so it often lives in an environment of its own: ``python`` (or,
    when not given and the SDK is not importable here, the ``ASTRA_SIM_PYTHON`` environment
    variable) names that environment's interpreter, which runs the check in a subprocess.
    None when neither this interpreter nor a named one has the SDK to ask."""
    from designer.core.simulate import astrasim_schema

    try:
        net = read_network_yaml(network_text)
    except ValueError as exc:
        return [f"network: {exc}"]
    dims = [{k: net[k][i] for k in ("topology", "npus_count", "bandwidth", "latency")}
            for i in range(len(net["topology"]))]
    if python is None:
        try:
            return astrasim_schema.problems(dims, system)
        except ImportError:
            python = os.environ.get("ASTRA_SIM_PYTHON") or None
            if python is None:
                return None
    return _problems_in(python, dims, system)


def _problems_in(python: str, dims: list[dict], system: dict) -> list[str]:
    """The schema check run by another interpreter (the script reads JSON on stdin)."""
    from designer.core.simulate import astrasim_schema

    request = json.dumps({"network": dims, "system": system})
    try:
        proc = subprocess.run([python, astrasim_schema.__file__], input=request,
                              capture_output=True, text=True, timeout=120, check=False)
    except OSError as exc:
        raise SimulatorInputError(f"cannot run {python} for the ASTRA-sim schema check: "
                                  f"{exc.strerror or exc}") from None
    except subprocess.TimeoutExpired:
        raise SimulatorInputError(f"{python} did not finish the ASTRA-sim schema check in "
                                  "120 s") from None
    try:
        answer = json.loads(proc.stdout)
    except ValueError:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise SimulatorInputError(f"{python} did not run the ASTRA-sim schema check: "
                                  f"{tail}") from None
    if "error" in answer:
        raise SimulatorInputError(answer["error"])
    return list(answer["problems"])
