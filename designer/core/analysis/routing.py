"""How each technology's traffic meets the network in a comparison: its transport's own routing
by default, or one routing for every column.

* RoCEv2 (hashed): ECMP with NCCL's ring channels and the queue pairs production RoCE runs,
  each hashed onto one path (``ecmp.ring_under_ecmp``). NCCL opens one queue pair per
  connection unless told otherwise; Meta's RoCE clusters open 16 and hash on them (enhanced
  ECMP), so a workload that leaves NCCL's default gets 16, said in the routing's name.
* Spectrum-X: adaptive routing at NVIDIA's published effective bandwidth, not the fluid
  optimum: the network terms run at 1 / 0.95 of the ideal.
* Ultra Ethernet and MRC: packet spraying over every path, the fluid split.
* InfiniBand: the subnet manager's routing with adaptive routing on (every InfiniBand switch
  in the catalog has it and NVIDIA's DGX SuperPOD reference architectures run it): the fluid
  split. Static routing is a sensitivity case (``static``), run through the load model.

``estimate_under`` is the one call the command line, the window and sweeps make: the estimate
of a design under a routing, the tree's own factor added when NCCL's choice runs a tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from designer.core.analysis.ecmp import ring_under_ecmp, runs_a_tree, tree_under_ecmp
from designer.core.analysis.estimates import Estimate, estimate
from designer.core.analysis.fit import Keep
from designer.core.analysis.workload import Economics, Workload, WorkloadError
from designer.core.catalog import Catalog, builtin_catalog
from designer.core.model import Project
from designer.core.solver import Result
from designer.core.transport.choice import transport_of

Mode = Literal["transport", "ideal", "ecmp", "adaptive", "spray", "static"]
MODES = ("transport", "ideal", "ecmp", "spray")  # what --routing and the panel offer
# 'adaptive' for every column was packet spraying's fluid split under another name: still
# accepted, as spray (a transport's own adaptive routing, Spectrum-X's or InfiniBand's, keeps
# its name)
MODE_ALIASES = {"adaptive": "spray"}
# RoCE's production queue pairs: "our collective library creates 16 network flows between
# two GPUs, instead of just 1" and the switches hash on them (enhanced ECMP)
PRODUCTION_QPS = 16
S_QPS = ("Llama 3, arXiv 2407.21783, 3.3.1: 16 network flows (queue pairs) between two GPUs, "
         "enhanced ECMP hashing on the RoCE header")
# NVIDIA: Spectrum-X kept 95% data throughput on xAI's Colossus where standard Ethernet
# delivers about 60% (that 60% is NVIDIA's, on a fabric it does not describe; the tool
# computes RoCE's own ECMP figure on the design instead of quoting it)
SPECTRUM_X_EFFECTIVE = 0.95
S_SPX_95 = ("NVIDIA press release 'NVIDIA Ethernet Networking Accelerates World's Largest AI "
            "Supercomputer, Built by xAI' (Oct 2024): 95% data throughput with Spectrum-X "
            "congestion control and adaptive routing")
S_IB_AR = ("NVIDIA DGX SuperPOD reference architectures: Quantum InfiniBand fabrics run "
           "adaptive routing set by the subnet manager (UFM)")
S_SPRAY = ("Ultra Ethernet Specification 1.0 / OCP MRC 1.0: packet spraying over every "
           "equal-cost path")
S_STATIC = "OpenSM routing_engine ftree/minhop: static destination-based routes"
S_IDEAL = "the fluid optimum (a non-blocking fabric every flow shares evenly)"


@dataclass(frozen=True)
class Routing:
    """One column's routing: what the estimates scale the network terms by, and why."""

    mode: str  # ecmp, adaptive, spray, static, ideal
    name: str
    source: str
    network_slowdown: float = 1.0
    tree_slowdown: float | None = None
    qps: int | None = None  # queue pairs per connection when hashed

    @property
    def short(self) -> str:
        """A table cell's worth: the routing and its factor on the network terms."""
        head = {"ecmp": f"ECMP, {self.qps or 1} QP" + ("s" if (self.qps or 1) > 1 else ""),
                "static": "static routes", "spray": "spraying",
                "adaptive": "adaptive", "ideal": "ideal"}.get(self.mode, self.mode)
        return f"{head}, {self.network_slowdown:.2f}x"

    def to_json(self) -> dict:
        return {"mode": self.mode, "name": self.name, "short": self.short,
                "source": self.source,
                "network_slowdown": round(self.network_slowdown, 6),
                "tree_slowdown": None if self.tree_slowdown is None
                else round(self.tree_slowdown, 6), "qps_per_connection": self.qps}


# hashed factors by (fabric, channels, queue pairs, job GPUs, trials, tree): a comparison
# estimates a column again for its sensitivity cases and the window again on every workload
# edit, over the same fabric; the fabric is held so its id cannot be reused while cached
_ECMP_CACHE: dict[tuple, tuple[object, object]] = {}
_ECMP_CACHE_SIZE = 32


def _ring(project: Project, channels: int, qps: int, trials: int, gpus: int | None,
          catalog: Catalog, tree: bool):
    key = (id(project.fabric), channels, qps, trials, gpus, tree, id(catalog))
    hit = _ECMP_CACHE.get(key)
    if hit is not None and hit[0] is project.fabric:
        return hit[1]
    r = ring_under_ecmp(project, channels_per_nic=channels, qps=qps, trials=trials, gpus=gpus,
                        catalog=catalog, tree=tree)
    if len(_ECMP_CACHE) >= _ECMP_CACHE_SIZE:
        _ECMP_CACHE.pop(next(iter(_ECMP_CACHE)))
    _ECMP_CACHE[key] = (project.fabric, r)
    return r


def _tree(project: Project, channels: int, qps: int, trials: int, gpus: int | None,
          catalog: Catalog) -> float:
    key = ("tree", id(project.fabric), channels, qps, trials, gpus, id(catalog))
    hit = _ECMP_CACHE.get(key)
    if hit is not None and hit[0] is project.fabric:
        return hit[1]  # type: ignore[return-value]
    t = tree_under_ecmp(project, channels_per_nic=channels, qps=qps, trials=trials,
                        gpus=gpus, catalog=catalog)
    if len(_ECMP_CACHE) >= _ECMP_CACHE_SIZE:
        _ECMP_CACHE.pop(next(iter(_ECMP_CACHE)))
    _ECMP_CACHE[key] = (project.fabric, t)
    return t


def own_mode(project: Project, catalog: Catalog | None = None) -> str:
    """The routing a design's transport runs: ecmp, adaptive (Spectrum-X, InfiniBand) or
    spray (Ultra Ethernet, MRC)."""
    t = transport_of(project, catalog)
    if t.hashed:
        return "ecmp"
    if t.id in ("uec", "mrc"):
        return "spray"
    return "adaptive"


def production_qps(workload: Workload) -> int:
    """The queue pairs a hashed RoCE column runs: the workload's, or production's 16 when it
    leaves NCCL's default of one."""
    return workload.qps_per_connection if workload.qps_per_connection > 1 else PRODUCTION_QPS


def resolve(mode: str, project: Project, catalog: Catalog | None = None) -> str:
    mode = MODE_ALIASES.get(mode, mode)
    if mode not in ("transport", "ideal", "ecmp", "spray", "static"):
        raise WorkloadError(f"--routing: unknown '{mode}' (known: {', '.join(MODES)})")
    return own_mode(project, catalog) if mode == "transport" else mode


def routing_for(project: Project, result: Result, workload: Workload, mode: str = "transport",
                catalog: Catalog | None = None, *, qps: int | None = None,
                tree: bool = False, trials: int = 3) -> Routing:
    """The routing ``mode`` (``transport``: the design's transport's own) on ``project``."""
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    kind = resolve(mode, project, cat)
    t = transport_of(project, cat)
    if kind == "ecmp":
        q = qps if qps is not None else production_qps(workload)
        r = _ring(project, workload.channels_per_nic, q, trials, workload.gpus or None, cat,
                  tree)
        src = S_QPS if q == PRODUCTION_QPS and qps is None else \
            "NCCL_IB_QPS_PER_CONNECTION as set"
        return Routing("ecmp", r.label(), src, r.slowdown, r.tree_slowdown, q)
    if kind == "static":
        from designer.core.traffic.load import collective_slowdown

        s = collective_slowdown(project, result, pattern="ring", routing="static",
                                catalog=cat)
        return Routing("static", f"static routes (subnet manager): ring traffic {s:.3f}x the "
                       "ideal", S_STATIC, s)
    if kind == "adaptive" and t.id == "spectrum-x" and mode == "transport":
        return Routing("adaptive", f"Spectrum-X adaptive routing at its published "
                       f"{SPECTRUM_X_EFFECTIVE:.0%} effective bandwidth", S_SPX_95,
                       1 / SPECTRUM_X_EFFECTIVE)
    if kind == "adaptive" and t.family == "ib" and mode == "transport":
        return Routing("adaptive", "subnet manager with adaptive routing (fluid split)",
                       S_IB_AR)
    if kind == "spray":
        return Routing("spray", f"{t.short}: packet spraying (fluid split)", S_SPRAY)
    if kind == "adaptive":  # a transport's own adaptive routing, without a published figure
        return Routing("adaptive", "adaptive routing (fluid optimum)", S_IDEAL)
    return Routing("ideal", "ideal (fluid optimum)", S_IDEAL)


def estimate_under(project: Project, result: Result, workload: Workload,
                   economics: Economics, mode: str = "transport",
                   catalog: Catalog | None = None, *, fit: Keep | None = None,
                   qps: int | None = None, trials: int = 3) -> tuple[Estimate, Routing]:
    """The estimate of ``project`` under routing ``mode``. NCCL picks its algorithms without
    knowing the collisions: the first estimate tells whether a tree runs, and under ECMP the
    tree's own hashed factor is then computed and applied."""
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    kind = resolve(mode, project, cat)
    w = workload
    if kind == "ecmp":
        q = qps if qps is not None else production_qps(workload)
        if q != w.qps_per_connection:
            # the expert all-to-all's hashing sees the same queue pairs as the ring
            w = w.model_copy(update={"qps_per_connection": q})
    r = routing_for(project, result, w, mode, cat, qps=qps, trials=trials)
    hashed = kind == "ecmp"
    est = estimate(project, result, w, economics, catalog=cat,
                   network_slowdown=r.network_slowdown, routing=r.name, fit=fit,
                   a2a_hashed=hashed)
    if kind == "ecmp":
        used = [p.algorithm for p in est.step.parts] + [x.algorithm for x in est.collectives]
        if runs_a_tree(used):
            ew = est.workload
            tree = _tree(project, ew.channels_per_nic, ew.qps_per_connection, trials,
                         ew.gpus or None, cat)
            r = Routing(r.mode, f"{r.name}, tree and NVLS-tree {tree:.3f}x", r.source,
                        r.network_slowdown, tree, r.qps)
            est = estimate(project, result, w, economics, catalog=cat,
                           network_slowdown=r.network_slowdown, routing=r.name, fit=fit,
                           tree_slowdown=tree, a2a_hashed=hashed)
    return est, r
