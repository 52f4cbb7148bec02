"""The key performance indicators of the IETF benchmarking drafts for AI training fabrics
(draft-calabria-bmwg-ai-fabric-training-bench, primary and secondary KPIs), predicted for this
design so a team can set what it measures beside them.

- JCT ratio: measured job completion time over the roofline JCT, ``iterations x (C + S x
  algo_factor / NIC line rate)`` for a compute phase C and an all-reduce of S bytes; here the
  predicted all-reduce time over the same roofline, and the workload's step time over the
  step on the same NICs and NVLink with a perfect network (the estimate's ideal).
- Bus bandwidth per accelerator, Gb/s, and its share of the NIC line rate.
- ECMP imbalance (MMR): flows on the most loaded of a leaf's parallel uplinks over the mean,
  for the flows a leaf's NICs start hashed onto its uplinks (Ethernet ECMP); InfiniBand's
  subnet manager spreads destinations over uplinks by rule, so 1.0 up to rounding.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from designer.core.acceptance.predict import predict_collective
from designer.core.analysis.estimates import estimate
from designer.core.analysis.fabric import FabricView
from designer.core.analysis.workload import Workload, WorkloadError
from designer.core.catalog import Catalog
from designer.core.model import Project, Role
from designer.core.solver import Result

if TYPE_CHECKING:
    from designer.core.acceptance.cluster import Cluster
    from designer.core.acceptance.collective_test import CollectiveTest

DRAFT = "draft-calabria-bmwg-ai-fabric-training-bench"
JCT_BYTES = 1 << 30  # the draft's S = 1 GB point
JCT_COMPUTE_MS = (10.0, 100.0)  # two of the draft's compute phases C
MMR_TRIALS = 4000
MMR_SEED = 20240805


@dataclass(frozen=True)
class Kpi:
    name: str
    value: float
    unit: str
    definition: str
    source: str = DRAFT

    def to_json(self) -> dict:
        return {"name": self.name, "value": round(self.value, 4), "unit": self.unit,
                "definition": self.definition, "source": self.source}


def expected_mmr(flows: int, links: int, trials: int = MMR_TRIALS,
                 seed: int = MMR_SEED) -> float:
    """E[max flows on a link] / mean for ``flows`` hashed uniformly onto ``links`` links
    (a fixed seed: the same design always gets the same figure)."""
    if links <= 1 or flows <= 0:
        return 1.0
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, links, size=(trials, flows))
    counts = np.zeros((trials, links), np.int64)
    np.add.at(counts, (np.repeat(np.arange(trials), flows), picks.ravel()), 1)
    return float(counts.max(axis=1).mean() / (flows / links))


def _leaf_links(project: Project) -> tuple[int, int]:
    """(typical downlinks to servers, typical uplinks to switches) of a leaf."""
    devs = project.fabric.devices
    role = np.array([d.role for d in devs], object)
    leaf = np.array([r in (Role.LEAF, Role.ROUTER) for r in role], bool)
    sw = np.array([r.is_switch for r in role], bool)
    links = project.fabric.links
    down = Counter()
    up = Counter()
    for a, b, c in zip(links.a.tolist(), links.b.tolist(), links.count.tolist(), strict=True):
        for x, y in ((a, b), (b, a)):
            if leaf[x]:
                if sw[y] and role[y] is not Role.LEAF:
                    up[x] += c
                elif not sw[y]:
                    down[x] += c
    d = Counter(down.values()).most_common(1)
    u = Counter(up.values()).most_common(1)
    return (d[0][0] if d else 0), (u[0][0] if u else 0)


def plan_kpis(project: Project, result: Result, catalog: Catalog, view: FabricView,
              workload: Workload, cluster: Cluster, allreduce: CollectiveTest) -> list[Kpi]:
    out: list[Kpi] = []
    ranks = allreduce.ranks
    line_gbytes = cluster.port_gbps * cluster.ports_per_gpu / 8  # per accelerator
    s = np.array([float(JCT_BYTES)])
    t, bus, _ = predict_collective(view, "all-reduce", s, ranks, 1)
    factor = 2 * (ranks - 1) / ranks if ranks > 1 else 1.0
    roof = JCT_BYTES * factor / (line_gbytes * 1e9)
    if ranks > 1 and roof > 0:
        out.append(Kpi("JCT ratio, all-reduce 1 GiB (C = 0)", float(t[0] / roof), "ratio",
                       f"predicted all-reduce time over S x 2(n-1)/n / NIC line rate "
                       f"({line_gbytes:g} GB/s per GPU)"))
        for c_ms in JCT_COMPUTE_MS:
            c = c_ms / 1e3
            out.append(Kpi(f"JCT ratio, all-reduce 1 GiB (C = {c_ms:g} ms)",
                           float((c + t[0]) / (c + roof)), "ratio",
                           "(C + predicted all-reduce) / (C + roofline all-reduce)"))
    try:
        est = estimate(project, result, workload, catalog=catalog)
        out.append(Kpi("JCT ratio, workload step", float(est.slowdown), "ratio",
                       f"step time of '{workload.name}' on this design over the same step "
                       "with a perfect network (same NICs and NVLink)"))
    except WorkloadError:
        pass
    out.append(Kpi("BusBW per accelerator, all-reduce 1 GiB", float(bus[0] * 8), "Gb/s",
                   "nccl-tests busbw (algbw x 2(n-1)/n) in Gb/s"))
    out.append(Kpi("BusBW share of NIC line rate", float(bus[0] / line_gbytes), "ratio",
                   "busbw over the GPU's NIC line rate (NVLS and SHARP may exceed 1)"))
    down, up = _leaf_links(project)
    if up:
        for q in (1, 4):
            mmr = expected_mmr(down * q, up) if cluster.tech == "eth" else \
                float(np.ceil(down * q / up) / (down * q / up)) if down else 1.0
            how = (f"{down * q} flows ({down} NICs x {q} QP) hashed onto {up} uplinks"
                   if cluster.tech == "eth" else
                   f"{down * q} flows on {up} uplinks spread by the subnet manager's routing")
            out.append(Kpi(f"ECMP imbalance (MMR), {q} QP per connection", mmr, "ratio", how))
    return out
