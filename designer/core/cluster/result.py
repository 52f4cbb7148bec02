"""What a cluster run gives: per job, over time, and the answers by tier, cause and tenant."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from designer.core.cluster.reliability import Blast, Spares


def _r(x: float, n: int = 6) -> float | None:
    return round(float(x), n) if np.isfinite(x) else None


@dataclass(frozen=True, eq=False)
class Timeline:
    t_h: np.ndarray
    busy_gpus: np.ndarray
    down_gpus: np.ndarray
    queued: np.ndarray
    running: np.ndarray
    slowed: np.ndarray  # running jobs the network slows
    fragmentation: np.ndarray  # idle GPUs in partly used servers / the design's GPUs
    failures: np.ndarray  # cumulative failures


@dataclass(frozen=True, eq=False)
class ClusterResult:
    design: str
    trace: str
    policy: str
    design_gpus: int
    horizon_h: float
    usd_per_gpu_hour: float
    job: tuple[str, ...]
    tenant: tuple[str, ...]
    gpus: np.ndarray
    arrival_h: np.ndarray
    start_h: np.ndarray  # first start (nan: never started)
    end_h: np.ndarray  # nan: not finished within the horizon
    slowdown: np.ndarray  # network: running time / work done
    interruptions: np.ndarray
    lost_network_gpu_h: np.ndarray
    lost_failures_gpu_h: np.ndarray
    held_gpu_h: np.ndarray
    spans: np.ndarray  # leaf groups each job spanned (its last placement)
    comm_share: np.ndarray  # exposed communication share of each job's step (ideal fabric)
    by_tier: dict[str, float]  # GPU-hours lost to the network, by the tier that held jobs
    by_cause: dict[str, dict[str, float]]  # component -> failures, interruptions, GPU-hours
    timeline: Timeline
    blast: tuple[Blast, ...] = ()
    mtti_h: tuple[tuple[int, float], ...] = ()
    spares: tuple[Spares, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    cache_hits: int = 0
    offered_gpu_h: float = 0.0  # the trace's work arriving within the horizon, on an ideal fabric

    @property
    def useful_gpu_h(self) -> float:
        return float(self.held_gpu_h.sum() - self.lost_network_gpu_h.sum()
                     - self.lost_failures_gpu_h.sum())

    @property
    def goodput(self) -> float:
        held = float(self.held_gpu_h.sum())
        return self.useful_gpu_h / held if held > 0 else 1.0

    @property
    def gpu_hours_lost_network(self) -> float:
        return float(self.lost_network_gpu_h.sum())

    @property
    def gpu_hours_lost_failures(self) -> float:
        return float(self.lost_failures_gpu_h.sum())

    @property
    def per_month(self) -> float:
        """Factor from the run's horizon to 30 days."""
        return 720.0 / self.horizon_h if self.horizon_h > 0 else 0.0

    @property
    def utilisation(self) -> float:
        cap = self.design_gpus * self.horizon_h
        return float(self.held_gpu_h.sum()) / cap if cap > 0 else 0.0

    @property
    def offered_load(self) -> float:
        """The work the trace brings within the horizon, over the design's GPU-hours: what a
        scheduler with no queueing, fragmentation or failures would keep busy."""
        cap = self.design_gpus * self.horizon_h
        return self.offered_gpu_h / cap if cap > 0 else 0.0

    @property
    def finished(self) -> int:
        return int(np.isfinite(self.end_h).sum())

    def wait_h(self) -> np.ndarray:
        return self.start_h - self.arrival_h

    def tenants(self) -> dict[str, dict[str, float]]:
        out: dict[str, dict[str, float]] = {}
        ten = np.array(self.tenant, dtype=object)
        for name in sorted(set(self.tenant)):
            m = ten == name
            w = self.wait_h()[m]
            out[name or "-"] = {
                "jobs": int(m.sum()),
                "gpu_hours": round(float(self.held_gpu_h[m].sum()), 3),
                "wait_h_mean": _r(np.nanmean(w)) if np.isfinite(w).any() else None,
                "slowdown_mean": _r(np.nanmean(self.slowdown[m]))
                if np.isfinite(self.slowdown[m]).any() else None,
                "interruptions": int(self.interruptions[m].sum()),
            }
        return out

    def to_json(self) -> dict:
        usd = self.usd_per_gpu_hour
        jobs = [{"job": j, "gpus": int(g), "start_h": _r(s, 4), "end_h": _r(e, 4),
                 "slowdown": _r(sd), "interruptions": int(k)}
                for j, g, s, e, sd, k in zip(self.job, self.gpus.tolist(), self.start_h.tolist(),
                                             self.end_h.tolist(), self.slowdown.tolist(),
                                             self.interruptions.tolist(), strict=True)]
        pm = self.per_month
        return {
            "policy": self.policy,
            "goodput": _r(self.goodput),
            "gpu_hours_lost_network": round(self.gpu_hours_lost_network, 3),
            "gpu_hours_lost_failures": round(self.gpu_hours_lost_failures, 3),
            "usd_lost_network": round(self.gpu_hours_lost_network * usd, 2),
            "usd_lost_failures": round(self.gpu_hours_lost_failures * usd, 2),
            "jobs": jobs,
            "design": self.design,
            "trace": self.trace,
            "horizon_h": round(self.horizon_h, 4),
            "utilisation": _r(self.utilisation),
            "offered_load": _r(self.offered_load),
            "per_month": {
                "usd_lost_network": round(self.gpu_hours_lost_network * usd * pm, 2),
                "usd_lost_failures": round(self.gpu_hours_lost_failures * usd * pm, 2),
                "network_by_tier_usd": {k: round(v * usd * pm, 2)
                                        for k, v in self.by_tier.items()},
                "failures_by_cause_usd": {k: round(float(v["gpu_hours"]) * usd * pm, 2)
                                          for k, v in self.by_cause.items()},
            },
            "by_cause": {k: {kk: round(float(vv), 3) for kk, vv in v.items()}
                         for k, v in self.by_cause.items()},
            "tenants": self.tenants(),
            "blast_radius": [{"component": b.component, "gpus_down": round(b.gpus_down, 3),
                              "interrupts": b.jobs} for b in self.blast],
            "mtti_h_by_size": [{"gpus": s, "mtti_h": _r(h, 3)} for s, h in self.mtti_h],
            "spares": [{"component": s.component, "count": s.count,
                        "failures_per_month": round(s.per_month, 3), "stock": s.stock}
                       for s in self.spares],
        }
