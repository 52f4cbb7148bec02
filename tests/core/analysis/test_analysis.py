"""Decision analysis against the public figures (docs: DECISION.md's sources, cited per test)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.analysis.collectives import (
    Communicator,
    bus_factor,
    collective_rows,
    collective_times,
)
from designer.core.analysis.estimates import CollectiveRequest, estimate
from designer.core.analysis.fabric import (
    NIC_EFFICIENCY,
    FabricView,
    Level,
    fabric_view,
)
from designer.core.analysis.gpus import GPUS
from designer.core.analysis.step import money_lost, parallelism
from designer.core.analysis.tco import break_even_gain
from designer.core.analysis.workload import PRESETS, Economics, Workload, WorkloadError
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.paths import projects_dir
from designer.core.solver import solve

GiB = 2**30


@functools.cache
def solved(name: str):
    p = load_project(projects_dir() / name)
    return p, solve(p)


def ndr_1024():
    return solved("dgx-superpod-4su-ib-ndr.fabric.json")


def view_of(name: str, workload: Workload | None = None) -> FabricView:
    p, r = solved(name)
    return fabric_view(p, r, workload or Workload(), p.catalog(builtin_catalog()))


def busbw(view, op, n, stride=1, nbytes=GiB, **kw) -> float:
    return collective_rows(view, op, [nbytes], Communicator("g", n, stride), **kw)[0].busbw_gbytes_s


# nccl-tests doc/PERFORMANCE.md: busbw = algbw x 2(n-1)/n (all-reduce), (n-1)/n (all-gather,
# reduce-scatter, all-to-all), 1 (send/recv)
@given(st.integers(2, 100_000))
def test_bus_factors_are_nccl_tests(n):
    assert bus_factor("all-reduce", n) == pytest.approx(2 * (n - 1) / n)
    for op in ("all-gather", "reduce-scatter", "all-to-all"):
        assert bus_factor(op, n) == pytest.approx((n - 1) / n)
    assert bus_factor("send-recv", n) == 1.0


def test_rows_apply_the_factor():
    v = view_of("dgx-superpod-4su-ib-ndr.fabric.json")
    for op in ("all-reduce", "all-gather", "all-to-all"):
        r = collective_rows(v, op, [GiB], Communicator("all", 1024))[0]
        assert r.busbw_gbytes_s == pytest.approx(r.algbw_gbytes_s * bus_factor(op, 1024), rel=1e-9)
        assert r.algbw_gbytes_s == pytest.approx(GiB / (r.time_us * 1e-6) / 1e9, rel=1e-9)


def test_single_node_h100_figures():
    """nccl-tests issues 212, 326 and nccl 1455: 8 x H100 in one node, >= 1 GiB: all-reduce with
    NVLS busbw ~480 GB/s, algbw ~275; ring all-gather / reduce-scatter ~360-370 GB/s."""
    v = view_of("dgx-superpod-4su-ib-ndr.fabric.json")
    r = collective_rows(v, "all-reduce", [4 * GiB], Communicator("tp", 8))[0]
    assert r.algorithm == "nvls"
    assert r.busbw_gbytes_s == pytest.approx(480, rel=0.06)
    assert r.algbw_gbytes_s == pytest.approx(275, rel=0.06)
    for op in ("all-gather", "reduce-scatter"):
        assert 340 <= busbw(v, op, 8, nbytes=4 * GiB) <= 375
    ring = collective_rows(v, "all-reduce", [4 * GiB], Communicator("tp", 8), algorithm="ring")
    assert 340 <= ring[0].busbw_gbytes_s <= 375


def test_per_nic_figures_ndr():
    """nccl-tests issues 290, 267: ConnectX-7 NDR 400G moves 46-49 GB/s per NIC under NCCL, and
    all-to-all gets one NIC's rate per GPU (~48 GB/s) on a full-bisection fabric."""
    v = view_of("dgx-superpod-4su-ib-ndr.fabric.json")
    assert 46 <= busbw(v, "send-recv", 2, stride=8, nbytes=4 * GiB) <= 49
    assert 46 <= busbw(v, "all-to-all", 1024, nbytes=4 * GiB) <= 49.5


def a100_view(nodes: int, collnet: bool = False) -> FabricView:
    """DGX A100 with 8 x HDR 200G, non-blocking (the clusters of nccl issues 812, 320)."""
    return FabricView(collnet=collnet, gpus=8 * nodes, gpus_per_server=8, domain=8,
                      gpu=GPUS["A100"],
                      nvlink_gbytes_s=300 * GPUS["A100"].ring_efficiency, peak_tflops=312,
                      nic_gbytes_s=200 / 8 * NIC_EFFICIENCY, tech="ib-hdr", sharp=True,
                      latency_p50_us=1.5, latency_p99_us=1.6, hops_p50=3,
                      levels=(Level("leaf", 8 * nodes, 1.0),), bisection_fraction=1.0)


def test_dgx_a100_multinode_all_reduce():
    """nccl issues 812, 320: DGX A100, 8 x HDR, multi-node all-reduce 192 GB/s busbw (ring);
    about 220 with IB SHARP (NCCL_COLLNET_ENABLE=1). CollNet Direct's NVLink movement modelled
    as NCCL's tuning.cc does (2 S over NVLink): 238, within 10%."""
    v = a100_view(4)
    assert busbw(v, "all-reduce", 32, nbytes=8 * GiB, algorithm="ring") == \
        pytest.approx(192, rel=0.03)
    with pytest.raises(WorkloadError, match="'sharp' does not run"):  # off unless enabled
        busbw(v, "all-reduce", 32, nbytes=8 * GiB, algorithm="sharp")
    on = a100_view(4, collnet=True)
    assert busbw(on, "all-reduce", 32, nbytes=8 * GiB, algorithm="sharp") == \
        pytest.approx(220, rel=0.10)
    assert busbw(on, "all-reduce", 32, nbytes=8 * GiB) > 192  # auto picks in-network reduction


def test_nccl_like_choice_small_and_large():
    """NCCL picks tree for small messages at scale (log-depth latency) and NVLS-tree for large
    ones on NVLS-capable GPUs; IB SHARP only when the workload turns it on (CollNet is off
    unless NCCL_COLLNET_ENABLE=1, NCCL init.cc)."""
    v = view_of("dgx-superpod-64su-ib-ndr.fabric.json")
    assert v.sharp and not v.collnet
    t, algo, proto = collective_times(v, "all-reduce", np.array([4096.0, 4.0 * GiB]),
                                      Communicator("all", 16384))
    assert algo[0] == "tree" and algo[1] == "nvls-tree"
    on = view_of("dgx-superpod-64su-ib-ndr.fabric.json", Workload(ib_sharp=True))
    _, algo_on, _ = collective_times(on, "all-reduce", np.array([4.0 * GiB]),
                                     Communicator("all", 16384))
    assert algo_on[0] == "sharp"
    assert t[0] < 200e-6  # log-depth latency, not 2(n-1) ring steps
    _, _, proto = collective_times(v, "all-reduce", np.array([4096.0, 4.0 * GiB]),
                                   Communicator("tp", 8), algorithm="ring")
    assert proto[0] == "LL" and proto[1] == "Simple"
    # Ethernet has no IB SHARP
    e = view_of("roce-fat-tree-24k-oversubscribed.fabric.json")
    assert not e.sharp
    _, algo, _ = collective_times(e, "all-reduce", np.array([4.0 * GiB]), Communicator("a", 4096))
    assert algo[0] != "sharp"
    with pytest.raises(WorkloadError, match="algorithm"):
        collective_times(e, "all-reduce", np.array([1.0]), Communicator("a", 64), algorithm="sharp")


def test_oversubscription_hits_all_to_all_not_aligned_rings():
    """DECISION.md 2: all-to-all across an r:1 subtree is bounded by B/(r f); a topology-aware
    ring crosses a boundary once per channel and hardly feels it; scattered placement does."""
    v = view_of("roce-fat-tree-24k-oversubscribed.fabric.json")
    spine = next(lv for lv in v.levels if lv.tier == "spine")
    assert spine.ratio == pytest.approx(6.98, rel=0.01) and spine.gpus == 3072
    n = v.gpus
    f = (n - spine.gpus) / (n - 1)
    assert busbw(v, "all-to-all", n, nbytes=16 * GiB) == pytest.approx(
        v.nic_gbytes_s / (spine.ratio * f) * (n - 1) / n, rel=0.05)
    dp = Communicator("dp", n // 8, 8)
    aligned = collective_times(v, "all-reduce", np.array([4.0 * GiB]), dp, algorithm="ring")[0]
    scattered = collective_times(v, "all-reduce", np.array([4.0 * GiB]), dp, algorithm="ring",
                                 placement="scattered")[0]
    assert scattered[0] > 3 * aligned[0]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv"]),
       st.integers(10, 34), st.sampled_from([1, 8, 64]), st.floats(1.0, 4.0))
def test_time_grows_with_size_and_slowdown(op, log2, stride, slow):
    v = view_of("dgx-superpod-4su-roce-400.fabric.json")
    n = 2 if op == "send-recv" else 1024 // stride
    comm = Communicator("g", n, stride)
    s = np.array([2.0**log2, 2.0 ** (log2 + 1)])
    t = collective_times(v, op, s, comm)[0]
    assert t[1] >= t[0] > 0
    t_slow = collective_times(v, op, s, comm, network_slowdown=slow)[0]
    assert np.all(t_slow >= t - 1e-15)
    ideal = collective_times(v.ideal(), op, s, comm)[0]
    assert np.all(ideal <= t + 1e-15)


def test_seed_money_example():
    """Seed article (GPU Cluster Networking: InfiniBand vs. RoCE): 1,024 GPUs, 30 days, $3 per
    GPU-hour, 5% loss -> 36,864 GPU-hours, $110,592, 1.5 days."""
    loss = money_lost(1024, 30, 3.0, 0.05)
    assert loss.gpu_hours_lost == pytest.approx(36_864)
    assert loss.usd_lost == pytest.approx(110_592)
    assert loss.days_lost == pytest.approx(1.5)


def test_break_even_example():
    """DECISION.md 6: 1,024 GPUs x 3 years x $2/GPU-hour = $53.8M; a $3M premium needs 5.6%."""
    assert break_even_gain(3e6, 1024, 3, 2.0) == pytest.approx(0.0557, abs=5e-4)


def test_llama3_presets_tokens_and_layout():
    """Llama 3 405B (arXiv 2407.21783, Table 4): 16M tokens per step; 8,192 GPUs = TP8 CP1 PP16
    DP64, 16,384 = TP8 PP16 DP128; MFU 43% / 41% (ours is a model: within 10 points)."""
    p, r = solved("dgx-superpod-64su-ib-ndr.fabric.json")
    for key, dp, mfu in (("llama3-405b-8k", 64, 0.43), ("llama3-405b-16k", 128, 0.41)):
        e = estimate(p, r, PRESETS[key])
        assert e.step.tokens_per_step == 16 * 2**20
        par = e.step.parallel
        assert (par.tp, par.pp, par.dp, par.cp) == (8, 16, dp, 1)
        assert abs(e.step.mfu - mfu) < 0.10
        assert e.step.step_s == pytest.approx(e.step.compute_s + e.step.bubble_s
                                              + e.step.exposed_comm_s)


def test_bad_workloads_name_the_field():
    p, r = ndr_1024()
    with pytest.raises(WorkloadError, match=r"workload\.tp: 16 is larger than the NVLink"):
        estimate(p, r, Workload(tp=16))
    with pytest.raises(WorkloadError, match=r"workload\.gpus"):
        estimate(p, r, Workload(tp=8, pp=3))
    with pytest.raises(WorkloadError, match=r"workload\.dp"):
        estimate(p, r, Workload(tp=8, dp=7))
    with pytest.raises(WorkloadError, match=r"workload\.gpus: 4,096"):
        estimate(p, r, Workload(gpus=4096))
    with pytest.raises(WorkloadError, match="network_slowdown"):
        estimate(p, r, network_slowdown=0.5)


def test_routing_input_scales_network_terms():
    p, r = ndr_1024()
    w = PRESETS["dense-70b-dp"]
    base = estimate(p, r, w)
    slow = estimate(p, r, w, network_slowdown=2.0, routing="ecmp")
    dp0 = next(x for x in base.step.parts if x.kind == "dp")
    dp1 = next(x for x in slow.step.parts if x.kind == "dp")
    assert dp1.time_s > 1.5 * dp0.time_s
    assert slow.to_json()["fabric"]["routing"] == "ecmp"
    assert slow.step.step_s > base.step.step_s


def test_estimate_is_immutable_and_roce_costs_more_than_ib_at_ideal():
    p, r = solved("roce-fat-tree-24k-oversubscribed.fabric.json")
    e = estimate(p, r, PRESETS["deepseek-v3-like"],
                 requests=(CollectiveRequest("all-to-all", GiB, "ep"),))
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.routing = "x"  # type: ignore[misc]
    assert e.slowdown >= 1.0
    assert e.collectives[0].group == "ep" and e.collectives[0].gpus == 64


def test_tco_formulas():
    """DECISION.md 6: energy = kW x 8,760 x load x PUE x $/kWh; support = s x capex per year."""
    p, r = ndr_1024()
    econ = Economics(usd_per_kwh=0.1, pue=1.5, network_load=1.0, support_fraction=0.1, years=2,
                     tuning_weeks=4, tuning_usd_per_week=10_000, usd_per_ru_month=10)
    t = estimate(p, r, economics=econ).tco
    assert t.energy_usd_per_year == pytest.approx(r.power_w / 1000 * 8760 * 1.5 * 0.1)
    assert t.support_usd_per_year == pytest.approx(0.1 * r.bom.total_usd)
    assert t.tuning_usd == 40_000
    assert t.total_usd == pytest.approx(r.bom.total_usd + 2 * (
        t.energy_usd_per_year + t.support_usd_per_year + r.rack_units * 120) + 40_000)


def test_parallelism_dp_derived():
    p, r = ndr_1024()
    v = estimate(p, r).view
    par = parallelism(Workload(tp=4, pp=2, cp=2), v)
    assert par.dp == 1024 // 16
