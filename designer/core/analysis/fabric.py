"""What the estimates need to know about one solved design, read from its Result.

Nothing is recompiled: the per-GPU rail capacity, path latency and hops, oversubscription per
tier and bisection come from the solver's ``Result``; the size of the subtree under each tier
(an SU under the leaves, a pod under the spines, a dragonfly group under the routers) comes from
the group labels the generators put on servers, counted once with numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from designer.core.analysis.gpus import GpuSpec, custom_gpu, find_gpu, gpu_spec
from designer.core.analysis.workload import Workload
from designer.core.catalog import Catalog, ServerSpec
from designer.core.errors import DesignerError
from designer.core.model import Project, Role
from designer.core.solver import Result
from designer.core.solver.forwarding import a2a_overhead
from designer.core.transport.choice import transport_of

# Switches that reduce in the network (IB SHARP v3 on Quantum-2, Quantum-X800).
SHARP_SWITCHES = frozenset({"qm9700", "qm9790", "q3400"})
# The tier whose subtree a group label names: leaves join an SU, spines a pod, routers a group.
TIER_GROUP = {"leaf": ("su",), "spine": ("pod",), "router": ("group",)}
# Protocol efficiency of a NIC's wire rate (CX-7 NDR 400G moves 46-49 GB/s of 50 under NCCL).
NIC_EFFICIENCY = 0.96


@dataclass(frozen=True)
class Level:
    """A subtree of ``gpus`` GPUs whose uplinks are oversubscribed ``ratio``:1."""

    tier: str
    gpus: int
    ratio: float


@dataclass(frozen=True)
class FabricView:
    gpus: int
    gpus_per_server: int
    domain: int  # GPUs per NVLink domain
    gpu: GpuSpec
    nvlink_gbytes_s: float  # effective, per GPU per direction
    peak_tflops: float
    nic_gbytes_s: float  # effective, all of one GPU's rails
    tech: str  # ib-ndr, ib-xdr, eth
    sharp: bool  # every switch can reduce in the network (IB SHARP)
    latency_p50_us: float
    latency_p99_us: float
    hops_p50: float
    levels: tuple[Level, ...]
    bisection_fraction: float
    collnet: bool = False  # IB SHARP in use: capable switches and NCCL_COLLNET_ENABLE=1
    channels_per_nic: int = 2  # NCCL ring channels per NIC
    qps_per_connection: int = 1  # NCCL_IB_QPS_PER_CONNECTION
    transport: str = "roce"  # core/transport id
    hashed: bool = False  # the transport hashes each queue pair onto one path (ECMP)
    # rail-only designs: the extra share of a cross-domain all-to-all's time that forwarding
    # over the scale-up domain adds, (R-1)/R x NIC rate / NVLink rate (solver.forwarding)
    rail_forward: float = 0.0

    @property
    def is_ib(self) -> bool:
        return self.tech.startswith("ib")

    def ideal(self) -> FabricView:
        """The same NICs and NVLink on a non-blocking fabric with no latency."""
        return replace(self, latency_p50_us=0.0, latency_p99_us=0.0, hops_p50=0.0,
                       levels=tuple(Level(lv.tier, lv.gpus, 1.0) for lv in self.levels),
                       bisection_fraction=1.0, rail_forward=0.0)


def _server_spec(project: Project, result: Result, cat: Catalog) -> ServerSpec | None:
    lines = sorted(result.bom.compute_lines, key=lambda x: -x.qty)
    for line in lines:
        try:
            spec = cat.get(line.catalog_id)
        except DesignerError:  # gear the catalog lacks: the defaults stand
            continue
        if isinstance(spec, ServerSpec) and spec.gpus:
            return spec
    return None


# the labels of the last few fabrics read: reading them walks every server in Python (12 ms at
# 65,536 GPUs) and one fabric is estimated again on every workload edit and for every column of
# a comparison. Fabrics are frozen, so the object itself is the key (held, so its id stays its).
_GROUPS_KEEP = 8
_groups_seen: list[tuple[object, int, dict[str, int]]] = []


def _group_sizes(project: Project, per_server: int) -> dict[str, int]:
    """GPUs under one value of each group label (the median over values)."""
    fabric = project.fabric
    for f, n, sizes in _groups_seen:
        if f is fabric and n == per_server:
            return dict(sizes)
    roles = fabric.roles
    idx = np.flatnonzero(roles == Role.GPU_SERVER.value)
    devices = fabric.devices
    out: dict[str, int] = {}
    for key in ("su", "pod", "group"):
        vals = np.fromiter((devices[i].groups.get(key, 0) for i in idx.tolist()), np.int64,
                           count=idx.size)
        vals = vals[vals > 0]
        if vals.size:
            out[key] = int(np.median(np.unique(vals, return_counts=True)[1])) * per_server
    _groups_seen.insert(0, (fabric, per_server, dict(out)))
    del _groups_seen[_GROUPS_KEEP:]
    return out


def design_domain(result: Result) -> tuple[int, float]:
    """(GPUs of the design's usual scale-up domain, its GB/s per GPU each way) from the solve;
    (0, 0.0) when the design has no GPU server the catalog knows."""
    d = result.domains
    return (d.gpus, d.gbytes_s) if d.count else (0, 0.0)


def _gpu(spec: ServerSpec | None, workload: Workload) -> GpuSpec:
    """The servers' GPU; an unknown one only with the workload's own peak and NVLink figures."""
    model = spec.gpu_model if spec else ""
    field = f"server '{spec.id}' gpu_model" if spec else "the design's GPU servers (gpu_model)"
    if find_gpu(model) is None and workload.peak_tflops and workload.nvlink_gbytes_s:
        return custom_gpu(model, workload.peak_tflops, workload.nvlink_gbytes_s)
    return gpu_spec(model, field)


def fabric_view(project: Project, result: Result, workload: Workload,
                catalog: Catalog) -> FabricView:
    spec = _server_spec(project, result, catalog)
    per_server = spec.gpus if spec else (result.gpus // result.servers if result.servers else 8)
    gpu = _gpu(spec, workload)
    domain, domain_bw = design_domain(result)
    # the design's scale-up domain (its racks or servers) decides; the workload's own field
    # and the product's shipped domain stand only for a design whose gear says nothing
    domain = domain or workload.nvlink_domain or gpu.domain(per_server)
    # the scale-up bandwidth a ring moves: nominal one way x the generation's ring efficiency
    nvl = (workload.nvlink_gbytes_s or domain_bw or gpu.scaleup_gbytes_s) * gpu.ring_efficiency
    try:
        tech = catalog.profile(project.profile).tech
    except DesignerError:  # a profile the catalog lacks: no in-network reduction assumed
        tech = "eth"
    transport = transport_of(project, catalog)
    models = set(result.switches.by_model)
    sharp = tech.startswith("ib") and bool(models) and models <= SHARP_SWITCHES
    sizes = _group_sizes(project, per_server)
    levels: list[Level] = []
    for tier, ov in result.oversubscription.by_tier.items():
        n_sw = result.switches.by_tier.get(tier, 0)
        size = next((sizes[k] for k in TIER_GROUP.get(tier, ()) if k in sizes), 0)
        if not size:  # no label: the GPUs one switch of this tier serves
            size = max(per_server, result.gpus // max(n_sw, 1))
        if levels and size <= levels[-1].gpus:
            size = min(result.gpus, levels[-1].gpus * 2)
        levels.append(Level(tier, min(size, result.gpus), max(ov.typical, 1.0)))
    lat = result.latency
    rf = result.rail_forwarding
    return FabricView(
        gpus=result.gpus,
        gpus_per_server=per_server,
        domain=domain,
        gpu=gpu,
        nvlink_gbytes_s=nvl,
        peak_tflops=workload.peak_tflops or gpu.peak_tflops(workload.precision),
        nic_gbytes_s=result.bisection.per_gpu_rate_gbps / 8 * NIC_EFFICIENCY,
        tech=tech,
        sharp=sharp,
        latency_p50_us=lat.p50_us or 0.0,
        latency_p99_us=lat.p99_us or 0.0,
        hops_p50=float(result.hops.p50 or 0.0),
        levels=tuple(levels),
        bisection_fraction=min(1.0, (rf.fraction_of_full if rf is not None else
                                     result.bisection.fraction_of_full) or 1.0),
        rail_forward=(a2a_overhead(rf.rails, rf.nic_gbps, nvl / gpu.ring_efficiency)
                      if rf is not None else 0.0),
        collnet=sharp and workload.ib_sharp,
        channels_per_nic=workload.channels_per_nic,
        qps_per_connection=workload.qps_per_connection,
        transport=transport.id,
        hashed=transport.hashed,
    )
