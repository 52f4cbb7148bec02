"""Designs and result files the acceptance tests share."""

from __future__ import annotations

import numpy as np

from designer.core.catalog import ServerSpec
from designer.core.links import LinkTable
from designer.core.model import Device, Fabric, Overrides, Project
from tests import _paths

DATA = _paths.DATA / "acceptance"
PROJECTS = _paths.PROJECTS


def two_node_roce(catalog) -> Project:
    """The cluster of nccl-tests issue 232: two nodes of one H100 and four 400G RoCE NICs,
    on one leaf."""
    prof = catalog.profile("roce-400")
    srv = ServerSpec(id="h100-1g-4nic", name="1 x H100 with 4 x 400G", gpus=1,
                     gpu_model="H100 SXM", nic=prof.nic, nics=4, power_w=2000.0,
                     price_usd=40000.0)
    devs = (Device(id="node1", name="node1", model=srv.id, role="gpu-server"),
            Device(id="node2", name="node2", model=srv.id, role="gpu-server", x=60.0),
            Device(id="leaf1", name="leaf1", model=prof.switch, role="leaf", x=30.0,
                   y=-260.0, port_speed_gbps=prof.switch_speed_gbps))
    links = LinkTable(a=[0, 1], a_port=[1, 1], b=[2, 2], b_port=[1, 5], count=[4, 4],
                      speed_gbps=400)
    return Project(name="2 x H100, 4 x 400G RoCE", profile="roce-400",
                   fabric=Fabric(devices=devs, links=links), overrides=Overrides(gear=(srv,)))


def nccl_text(rows, *, hosts=("node1", "node2"), gpus=1, op="all_reduce_perf",
              prefix="") -> str:
    """nccl-tests 2.13+ output (Rank lines, header, rows) for (bytes, time_us, busbw) rows."""
    lines = [f"# nThread 1 nGpus 1 minBytes {int(rows[0][0])} maxBytes {int(rows[-1][0])} "
             "step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
             "#", "# Using devices"]
    rank = 0
    for h in hosts:
        for g in range(gpus):
            lines.append(f"#  Rank {rank:2d} Group  0 Pid {1000 + rank:6d} on {h:>10} device "
                         f"{g:2d} [0x{g:02x}] NVIDIA H100 80GB HBM3")
            rank += 1
    redop, root = ("sum", "-1") if op in ("all_reduce_perf",) else ("none", "-1")
    lines += ["#", "#       size         count      type   redop    root     time   algbw   "
              "busbw #wrong     time   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)   "
              "         (us)  (GB/s)  (GB/s)"]
    n = rank
    for size, t, bus in rows:
        count = int(size) // 4 if op == "all_reduce_perf" else int(size) // (4 * n)
        alg = size / t / 1e3
        lines.append(f"{int(size):12d}  {count:12d}     float    {redop:>4}    {root:>4}  "
                     f"{t:8.2f}  {alg:6.2f}  {bus:6.2f}      0  {t:8.2f}  {alg:6.2f}  "
                     f"{bus:6.2f}      0")
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 1.0", "#"]
    return "\n".join(prefix + x for x in lines) + "\n"


def scaled(plan_rows, factor: float) -> list[tuple[float, float, float]]:
    """Rows at ``factor`` times a plan's predicted busbw (time scaled to match)."""
    return [(float(r.bytes), r.time_us / factor, r.busbw * factor) for r in plan_rows]


def sizes(lo: int, hi: int) -> np.ndarray:
    return 2.0 ** np.arange(lo, hi + 1)
