"""ASTRA-sim inputs: the network configuration of its analytical backends (YAML) and the
system configuration (JSON) for this design's tiers, and the workload's collectives.

A network is a list of dimensions, innermost first, each a ``Switch`` (or ``Ring``,
``FullyConnected``) of ``npus_count`` NPUs with a per-NPU ``bandwidth`` (GB/s) and a
``latency`` (ns) (astra-sim ``examples/network/analytical``). This design's dimensions: the
NVLink domain (the GPUs of a server, NVLink's bandwidth per GPU and direction), then one per
switch tier: the GPUs under one leaf group (a scalable unit), the groups under a spine pod,
the pods under the cores. A tier's bandwidth is a GPU's NIC rate divided by the
oversubscription below it; its latency is the design's path latency for that many switch
hops. The system configuration names the collective algorithm per dimension for every
collective the workload runs; ASTRA-sim's workloads come as Chakra execution traces, which
``collectives.json`` lists so they can be generated (one entry per collective of a training
step, with its group and bytes).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

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


def dimensions(view: FabricView, result: Result) -> list[dict]:
    """[{topology, npus, bandwidth GB/s, latency ns}] from the NVLink domain outwards."""
    dims = []
    inner = max(1, view.domain)
    if inner > 1:
        dims.append({"topology": "Switch", "npus": inner,
                     "bandwidth": round(view.gpu.nvlink_gbytes_s, 3), "latency": NVLINK_NS})
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
                     "bandwidth": round(nic / ratio, 3), "latency": round(lat_us * 1000, 2)})
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
        row("bandwidth", [float(d["bandwidth"]) for d in dims]) + "  # GB/s",
        row("latency", [float(d["latency"]) for d in dims]) + "  # ns",
    ]) + "\n"


def system_config(n_dims: int) -> dict:
    """ASTRA-sim's system keys with one implementation per dimension for each collective."""
    cfg = dict(SYSTEM_KEYS)
    for op in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
        cfg[f"{op}-implementation"] = [IMPLEMENTATION[op]] * n_dims
    return cfg


def write_astrasim(project: Project, result: Result, catalog: Catalog, folder: str | Path,
                   workload: Workload | None = None) -> list[Path]:
    from designer.core.analysis.estimates import settings_of
    from designer.core.safe_io import ExportFolder, FileRefused
    from designer.core.writers.output import ExportError

    try:
        d = ExportFolder(folder, "ASTRA-sim export")
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
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
    files = {
        "network.yml": network_yaml(dims, f"{project.name}: {view.gpus:,} GPUs"),
        "system.json": json.dumps(system_config(len(dims)), indent=2) + "\n",
        "remote_memory.json": json.dumps({"memory-type": "NO_MEMORY_EXPANSION"}, indent=2)
        + "\n",
        "collectives.json": json.dumps({"workload": w.name, "step_collectives": colls,
                                        **({"not_estimated": why} if why else {})},
                                       indent=1) + "\n",
    }
    out = []
    for name, text in files.items():
        try:
            out.append(d.write(name, text.encode()))
        except FileRefused as exc:
            raise ExportError(str(exc)) from None
    return out


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
    try:
        answer = json.loads(proc.stdout)
    except ValueError:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise SimulatorInputError(f"{python} did not run the ASTRA-sim schema check: "
                                  f"{tail}") from None
    if "error" in answer:
        raise SimulatorInputError(answer["error"])
    return list(answer["problems"])
