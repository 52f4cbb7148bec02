"""The design report's cluster page: a synthetic mix of a few hundred jobs replayed on the
design under topology-aware packing and under first fit (which placement the design needs),
with goodput and money lost per month; and the failure model on this design: mean time to
interruption by job size, blast radius and spares to stock."""

from __future__ import annotations

from designer.core.analysis.estimates import settings_of
from designer.core.cluster.project_run import cluster_project
from designer.core.cluster.reliability import (
    FailureSettings,
    blast_radius,
    mtti_by_size,
    parts,
    spares,
)
from designer.core.cluster.settings import ClusterSettings
from designer.core.cluster.synthetic import synthetic
from designer.core.cluster.topology import topology
from designer.core.solver.compile import compile_project
from designer.core.writers.facts import Fact, FactSection

REPORT_JOBS = 300  # enough to fill the design and turn the mix over; few enough to be quick
REPLAY_MAX_GPUS = 8192  # above this the report keeps to the failure model (seconds, not minutes)


def _replay(project, catalog, result, n: int, jobs: int, seed: int) -> FactSection:
    tr = synthetic(n, None, jobs=jobs, seed=seed)  # arrivals over the days 80% load asks
    days = max((tr.window_h or 0.0) / 24.0, 0.25)
    runs = {p: cluster_project(project, tr, ClusterSettings(policy=p, days=days, seed=seed),
                               catalog=catalog, result=result)
            for p in ("pack", "first-fit")}
    rows = []
    for p, r in runs.items():
        usd, pm = r.usd_per_gpu_hour, r.per_month
        rows.append(Fact(p, r.goodput, "pct",
                         f"network ${r.gpu_hours_lost_network * usd * pm:,.0f}/month, "
                         f"failures ${r.gpu_hours_lost_failures * usd * pm:,.0f}/month",
                         ", ".join(f"{k} ${v * usd * pm:,.0f}" for k, v in r.by_tier.items())
                         or "no tier held a job back", key=f"cluster_goodput_{p}"))
    pack, ff = runs["pack"], runs["first-fit"]
    gap = (ff.gpu_hours_lost_network - pack.gpu_hours_lost_network) * pack.usd_per_gpu_hour \
        * pack.per_month
    need = ("topology-aware placement pays: first fit loses "
            f"${gap:,.0f}/month more to the network" if gap > 0 else
            "the fabric serves this mix alike under either policy")
    return FactSection(f"Cluster over {days:.1f} days ({tr.n:,} synthetic jobs, goodput by "
                       "placement policy)", (*rows, Fact("Placement", need, key="cluster_need")))


def cluster_sections(project, catalog, result, jobs: int = REPORT_JOBS,
                     seed: int = 0) -> list[FactSection]:
    c = compile_project(project, catalog)
    if c.n_gpus <= REPLAY_MAX_GPUS:
        sec = [_replay(project, catalog, result, c.n_gpus, jobs, seed)]
    else:
        sec = [FactSection("Cluster over time", (Fact(
            "Replay", f"not run in the report above {REPLAY_MAX_GPUS:,} GPUs: "
            "designer cluster FILE synthetic replays a month", key="cluster_need"),))]
    topo = topology(c, settings_of(project).workload.nvlink_domain)
    fs = FailureSettings()
    pt = parts(c, topo)
    sec.append(FactSection("Mean time to interruption by job size", tuple(
        Fact(f"{s:,} GPUs", h, "dec", "hours to interruption", key=f"mtti_{s}")
        for s, h in mtti_by_size(c, topo, fs))))
    sec.append(FactSection("Blast radius of each failure on this design", tuple(
        Fact(b.component, b.gpus_down, "dec", "GPUs out per failure", b.jobs)
        for b in blast_radius(c, topo, pt))))
    sec.append(FactSection("Spares to stock (99% over the lead time)", tuple(
        Fact(s.component, s.stock, "int", f"of {s.count:,}",
             f"{s.per_month:.2f} failures/month") for s in spares(pt, fs))))
    return sec
