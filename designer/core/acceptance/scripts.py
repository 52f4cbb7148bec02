"""Writing an acceptance plan into a folder a team copies to the cluster's login node.

- ``hosts.txt``: the nodes, ``slots`` = GPUs per node (Open MPI's hostfile).
- ``run_nccl_tests.sh``: nccl-tests over every node and rail, then one run per rail; each
  run's output goes to ``results/`` under a name ``designer acceptance check`` recognises.
- ``run_perftest.sh``: ib_write_bw and ib_write_lat between leaf pairs over ssh.
- ``bands.csv``: every predicted figure and its band; ``plan.json``: the whole plan;
  ``PLAN.md``: the same for people.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from designer.core.acceptance.plan import AcceptancePlan
from designer.core.safe_io import ExportFolder, FileRefused
from designer.core.writers.csv_writer import write_csv
from designer.core.writers.output import ExportError

BANDS_HEADER = ("test", "rail", "ranks", "bytes", "predicted_time_us", "predicted_busbw_gbytes_s",
                "band_low", "band_high", "algorithm")


def _gb(x: float) -> str:
    return f"{x:,.2f}" if x < 100 else f"{x:,.1f}"


def _size(n: int) -> str:
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << k:
            return f"{n / (1 << k):g} {unit}"
    return f"{n} B"


def result_name(binary: str, rail: int | None) -> str:
    return f"{binary}.txt" if rail is None else f"{binary}_rail{rail}.txt"


def nccl_script(plan: AcceptancePlan) -> str:
    lines = ["#!/usr/bin/env bash",
             f"# nccl-tests for {plan.design}: run from the nccl-tests folder (built with MPI=1)",
             "# on a node that reaches every host in hosts.txt. Each run writes results/.",
             "set -euo pipefail", 'HERE="$(cd "$(dirname "$0")" && pwd)"',
             'mkdir -p "$HERE/results"', 'cp "$HERE/hosts.txt" hosts.txt', ""]
    for t in plan.collectives:
        out = result_name(t.binary, t.rail)
        lines.append(f"# {t.name}: {t.ranks:,} ranks on {t.nodes:,} nodes")
        lines.append(f'{t.command} 2>&1 | tee "$HERE/results/{out}"')
        lines.append("")
    return "\n".join(lines)


def perftest_script(plan: AcceptancePlan) -> str:
    lines = ["#!/usr/bin/env bash",
             f"# perftest between leaf pairs of {plan.design}; needs ssh to every node.",
             "set -uo pipefail", 'HERE="$(cd "$(dirname "$0")" && pwd)"',
             'mkdir -p "$HERE/results"', ""]
    for p in plan.pairs:
        out = f"{p.test}_{p.server}_{p.client}_rail{p.rail}.txt"
        lines.append(f"# {p.leaf_a} -> {p.leaf_b} ({p.hops} switch hops), predicted "
                     f"{p.predicted:.3g} {p.unit}")
        lines.append(f"ssh {shlex.quote(p.server)} {shlex.quote(p.server_command)} "
                     f"> /dev/null 2>&1 &")
        lines.append("sleep 2")
        lines.append(f"ssh {shlex.quote(p.client)} {shlex.quote(p.client_command)} "
                     f'> "$HERE/results/{out}" 2>&1')
        lines.append("wait")
    return "\n".join(lines) + "\n"


def plan_markdown(plan: AcceptancePlan) -> str:
    c = plan.cluster
    out = [f"# Acceptance plan: {plan.design}", "",
           f"{len(c.nodes):,} nodes x {c.gpus_per_node} GPUs, {c.rails} rails of "
           f"{c.port_gbps}G ({'InfiniBand' if plan.tech == 'ib' else 'RoCE'}), gear profile "
           f"{plan.profile}. In-network reduction assumed: SHARP "
           f"{'yes' if plan.view.collnet else 'no'}, NVLS {'yes' if plan.view.gpu.nvls else 'no'}.",
           "", "Run `run_nccl_tests.sh` and `run_perftest.sh`, then "
           "`designer acceptance check DESIGN results/*.txt`.", ""]
    for t in plan.collectives:
        if t.rail is not None and t.rail > 0:
            continue
        title = t.name if t.rail is None else f"{t.binary}, one rail (each rail alike)"
        out += [f"## {title}", "", f"`{t.command}`", "",
                "| size | predicted time (us) | busbw (GB/s) | band (GB/s) | algorithm |",
                "|---:|---:|---:|---|---|"]
        for r in t.rows:
            out.append(f"| {_size(r.bytes)} | {r.time_us:,.1f} | {_gb(r.busbw)} | "
                       f"{_gb(r.low)} - {_gb(r.high)} | {r.algorithm} |")
        out.append("")
    if plan.pairs:
        out += ["## perftest between leaf pairs", "",
                "| test | server | client | hops | predicted | band |",
                "|---|---|---|---:|---:|---|"]
        for p in plan.pairs[:64]:
            out.append(f"| {p.test} | {p.server} | {p.client} | {p.hops} | "
                       f"{p.predicted:.3g} {p.unit} | {p.low:.3g} - {p.high:.3g} |")
        if len(plan.pairs) > 64:
            out.append(f"\n({len(plan.pairs) - 64:,} more in plan.json and run_perftest.sh)")
        out.append("")
    out += ["## KPIs (draft-calabria-bmwg-ai-fabric-training-bench)", "",
            "| KPI | predicted | definition |", "|---|---:|---|"]
    for k in plan.kpis:
        out.append(f"| {k.name} | {k.value:,.3f} {k.unit} | {k.definition} |")
    out += ["", "## Notes", ""] + [f"- {n}" for n in plan.notes] + [""]
    return "\n".join(out)


def write_plan(plan: AcceptancePlan, folder: str | Path) -> list[Path]:
    """Write the plan's files into ``folder`` (made when missing); returns their paths."""
    try:
        d = ExportFolder(folder, "acceptance plan")
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    slots = plan.cluster.gpus_per_node
    files = {
        "hosts.txt": "".join(f"{n} slots={slots}\n" for n in plan.cluster.nodes),
        "run_nccl_tests.sh": nccl_script(plan),
        "run_perftest.sh": perftest_script(plan),
        "PLAN.md": plan_markdown(plan),
        "plan.json": json.dumps(plan.to_json(), indent=1) + "\n",
    }
    written = []
    for name, text in files.items():
        try:  # the scripts executable as far as the umask lets new files be
            written.append(d.write(name, text.encode(), executable=name.endswith(".sh")))
        except FileRefused as exc:
            raise ExportError(str(exc)) from None
    rows = [(t.binary, "" if t.rail is None else t.rail, t.ranks, r.bytes, round(r.time_us, 3),
             round(r.busbw, 4), round(r.low, 4), round(r.high, 4), r.algorithm)
            for t in plan.collectives for r in t.rows]
    try:
        written.append(d.target("bands.csv"))
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    write_csv(written[-1], BANDS_HEADER, rows)
    return written
