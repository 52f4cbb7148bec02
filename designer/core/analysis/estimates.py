"""``estimate(project, result)``: the decision figures of one solved design, immutable.

A pure function of the project, its solver Result and the assumptions (the project's own unless
given), so the window, ``designer estimate``, ``designer compare`` and sweeps all call it.
``network_slowdown`` scales the network terms for a routing model (1.0: the fluid optimum that
adaptive routing approaches); ``routing`` is the label reported with it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from designer.core.analysis.collectives import (
    CollectiveRow,
    Communicator,
    a2a_spread,
    collective_rows,
    collective_times,
    size_sweep,
)
from designer.core.analysis.constants import constant_notes, economics_notes
from designer.core.analysis.fabric import FabricView, fabric_view
from designer.core.analysis.fit import Keep, fit_workload
from designer.core.analysis.recommend import Recommendation, recommend
from designer.core.analysis.step import (
    Loss,
    StepEstimate,
    money_lost,
    step_estimate,
    time_to_train_days,
)
from designer.core.analysis.tco import Tco, tco
from designer.core.analysis.workload import DecisionSettings, Economics, Workload, WorkloadError
from designer.core.catalog import Catalog, builtin_catalog
from designer.core.limits import NETWORK_SLOWDOWN_MAX
from designer.core.model import Project
from designer.core.solver import Result
from designer.core.transport.choice import transport_of
from designer.core.transport.profiles import Transport
from designer.core.transport.tuning import tuning_label

DEFAULT_WORKLOAD = Workload()
# a network engineer's fully loaded week (assumption: about $500k a year for two engineers)
TUNING_USD_PER_WEEK = 10_000.0


@dataclass(frozen=True)
class CollectiveRequest:
    op: str
    bytes: int
    group: str = "all"  # all, dp, tp, ep, pp, cp
    algorithm: str = "auto"


@dataclass(frozen=True)
class Estimate:
    workload: Workload
    economics: Economics
    view: FabricView
    collectives: tuple[CollectiveRow, ...]
    step: StepEstimate
    ideal: StepEstimate
    loss: Loss
    tco: Tco
    recommendation: Recommendation
    routing: str
    network_slowdown: float
    fitted: tuple[str, ...] = ()  # how the default workload was scaled to this design
    transport: Transport | None = None
    tuning_from_transport: bool = False  # TCO's tuning effort is the transport's default
    tree_slowdown: float | None = None  # the tree's and NVLS-tree's factor (None: as ring)

    @property
    def slowdown(self) -> float:
        return self.step.step_s / self.ideal.step_s if self.ideal.step_s > 0 else 1.0

    @property
    def days_to_train(self) -> float | None:
        """Days to train ``workload.train_tokens_b`` billion tokens at this step time."""
        t = self.workload.train_tokens_b
        return round(time_to_train_days(self.step, t * 1e9), 4) if t else None

    def to_json(self) -> dict:
        v = self.view
        return {
            "workload": self.workload.model_dump(mode="json"),
            "economics": self.economics.model_dump(mode="json"),
            "fabric": {"gpus": v.gpus, "nvlink_domain": v.domain, "gpu": v.gpu.name,
                       "nic_gbytes_s": round(v.nic_gbytes_s, 3),
                       "nvlink_gbytes_s": round(v.nvlink_gbytes_s, 3), "tech": v.tech,
                       "sharp": v.sharp, "ib_sharp_in_use": v.collnet,
                       "nccl": {"channels_per_nic": v.channels_per_nic,
                                "qps_per_connection": v.qps_per_connection,
                                "collnet_enable": int(v.collnet)},
                       "latency_p50_us": round(v.latency_p50_us, 4),
                       "levels": [{"tier": lv.tier, "gpus": lv.gpus, "ratio": round(lv.ratio, 4)}
                                  for lv in v.levels],
                       "routing": self.routing, "network_slowdown": self.network_slowdown,
                       # the factor on the tree and NVLS-tree (the same unless hashed apart)
                       "tree_slowdown": self.network_slowdown if self.tree_slowdown is None
                       else self.tree_slowdown},
            "collectives": [r.to_json() for r in self.collectives],
            "step": self.step.to_json() | {"time_to_train_days": self.days_to_train},
            "ideal": {"step_s": round(self.ideal.step_s, 6), "slowdown": round(self.slowdown, 6),
                      "loss_fraction": round(self.loss.loss_fraction, 6),
                      "gpu_hours_lost": round(self.loss.gpu_hours_lost, 3),
                      "usd_lost": round(self.loss.usd_lost, 2),
                      "days_lost": round(self.loss.days_lost, 4)},
            "tco": self.tco.to_json(),
            "recommendation": self.recommendation.to_json(),
            "constants": [n.to_json() for n in constant_notes(self.workload)],
            "economics_constants": [n.to_json() for n in economics_notes(
                self.economics, self.tuning_from_transport)],
            "workload_fitted": list(self.fitted),
            "transport": self.transport_json(),
        }

    def transport_json(self) -> dict | None:
        t = self.transport
        if t is None:
            return None
        ep = next((p for p in self.step.parts if p.kind == "ep"), None)
        spread = 1.0
        if ep is not None:
            spread = a2a_spread(self.view, self.step.parallel.groups()["ep"])
        return {"id": t.id, "name": t.name, "hashed": t.hashed,
                "all_to_all": transport_a2a_text(t, spread),
                "all_to_all_spread": round(spread, 6),
                "tuning_weeks": self.economics.tuning_weeks,
                "tuning_label": tuning_label(t),
                "tuning_from_transport": self.tuning_from_transport,
                "tuning_why": t.tuning_why}


def transport_a2a_text(t: Transport, spread: float) -> str:
    if t.hashed:
        return (f"{t.short}: each queue pair hashed onto one path; the expert all-to-all runs "
                f"at its busiest uplink, {spread:.3f}x the fluid split (balls into bins)")
    how = "destination routes" if t.family == "ib" else "packet spraying"
    return f"{t.short}: {how}; all-to-all at the fluid split"


def with_transport_tuning(econ: Economics, t: Transport) -> tuple[Economics, bool]:
    """The economics with the transport's tuning effort when the project sets none (no weeks
    and no weekly cost): TCO then shows what bringing this transport up costs."""
    if econ.tuning_weeks or econ.tuning_usd_per_week:
        return econ, False
    return econ.model_copy(update={"tuning_weeks": t.tuning_weeks,
                                   "tuning_usd_per_week": TUNING_USD_PER_WEEK}), True


def settings_of(project: Project) -> DecisionSettings:
    return getattr(project, "decision", None) or DecisionSettings()


def estimate(project: Project, result: Result, workload: Workload | None = None,
             economics: Economics | None = None, *, catalog: Catalog | None = None,
             requests: tuple[CollectiveRequest, ...] | None = None,
             network_slowdown: float = 1.0, routing: str = "fluid optimum (packet spraying)",
             fit: Keep | None = None, tree_slowdown: float | None = None,
             a2a_hashed: bool | None = None) -> Estimate:
    """Every decision figure of ``project`` as solved in ``result``; raises WorkloadError with
    the field's name when the workload cannot run on it. ``fit`` fits the workload to the
    design first (keeping the global batch or the per-GPU batch); the default workload is
    always fitted, keeping the per-GPU batch. ``a2a_hashed``: whether the all-to-all's queue
    pairs are hashed onto one path each (default: as the design's transport does), for a
    routing asked of every design alike."""
    for name, f in (("network_slowdown", network_slowdown), ("tree_slowdown", tree_slowdown)):
        if f is not None and not 1.0 <= f <= NETWORK_SLOWDOWN_MAX:  # also refuses NaN
            raise WorkloadError(f"{name}: must be 1 to {NETWORK_SLOWDOWN_MAX:g}, got {f:g}")
    if result.gpus - result.unconnected_gpus <= 0:
        raise WorkloadError("design: it has no connected GPUs to estimate for")
    s = settings_of(project)
    w = workload or s.workload
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    transport = transport_of(project, cat)
    econ, tuned = with_transport_tuning(economics or s.economics, transport)
    view = fabric_view(project, result, w, cat)
    if a2a_hashed is not None and a2a_hashed != view.hashed:
        view = replace(view, hashed=a2a_hashed)
    fitted: tuple[str, ...] = ()
    if fit is None and w == DEFAULT_WORKLOAD:
        # the default workload scales with the design: the same tokens per data-parallel rank
        # (at least one sequence each), so any design the tool accepts has an estimate
        fit = "per-gpu"
    if fit is not None:
        done = fit_workload(w, view.gpus, view.domain, keep=fit)
        w, fitted = done.workload, done.changes
    if w.nvlink_domain != view.domain:
        # the scale-up domain comes from the design: TP, EP and CP are placed inside it
        w = w.model_copy(update={"nvlink_domain": view.domain})
    step = step_estimate(w, view, network_slowdown=network_slowdown,
                         tree_slowdown=tree_slowdown)
    ideal = step_estimate(w, view.ideal())
    loss_frac = max(0.0, 1 - ideal.step_s / step.step_s)
    loss = money_lost(step.parallel.gpus, econ.run_days, econ.gpu_hour_usd, loss_frac)
    cost = tco(result, econ, 1 - step.comm_fraction)
    years_loss = money_lost(result.gpus, econ.years * 365, econ.gpu_hour_usd, loss_frac)
    rec = recommend(result.gpus, step.comm_fraction, econ, loss_frac, years_loss.usd_lost)
    groups = step.parallel.groups()
    kw = {"job_gpus": step.parallel.gpus, "placement": w.placement,
          "network_slowdown": network_slowdown, "tree_slowdown": tree_slowdown}
    rows: list[CollectiveRow] = []
    if requests is None:
        for part in step.parts:
            rows += collective_rows(view, part.op, [part.bytes], groups[part.kind], **kw)
    else:
        for req in requests:
            if req.group not in groups:
                raise WorkloadError(f"--group: unknown '{req.group}' (known: "
                                    f"{', '.join(groups)})")
            rows += collective_rows(view, req.op, [req.bytes], groups[req.group],
                                    algorithm=req.algorithm, **kw)
    return Estimate(w, econ, view, tuple(rows), step, ideal, loss, cost, rec, routing,
                    network_slowdown, fitted, transport, tuned, tree_slowdown)


def busbw_curve(est: Estimate, op: str, group: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sizes, busbw (GB/s) and algorithm of ``op`` over ``group`` from 1 KiB to 16 GiB."""
    from designer.core.analysis.collectives import bus_factor

    comm: Communicator = est.step.parallel.groups()[group]
    sizes = size_sweep()
    t, algo, _ = collective_times(est.view, op, sizes, comm, job_gpus=est.step.parallel.gpus,
                                  placement=est.workload.placement,
                                  network_slowdown=est.network_slowdown,
                                  tree_slowdown=est.tree_slowdown)
    with np.errstate(divide="ignore", invalid="ignore"):
        bus = np.where(t > 0, sizes / t / 1e9 * bus_factor(op, comm.n), 0.0)
    return sizes, bus, algo
