"""Achieved compute by GPU generation, precision and GEMM shape, against published runs.

Sources: DeepSeek-V3 (arXiv 2412.19437): 180K H800 GPU-hours per trillion tokens on 2,048
GPUs; NVIDIA's Megatron-Bridge performance summary (NeMo 25.09 / 25.11 / 26.02 containers,
docs/performance-summary*.md of NVIDIA-NeMo/Megatron-Bridge): tokens per second per GPU of
Llama 3 and DeepSeek-V3 in FP8 on DGX-H100, DGX-B200 and GB200 NVL72.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.analysis.compute import (
    GEMM_EFFICIENCY,
    MOE_EXPERT_FACTOR,
    compute_rates,
    gemm_shape_factor,
)
from designer.core.analysis.estimates import estimate
from designer.core.analysis.gpus import GPUS
from designer.core.analysis.workload import PRESETS, Workload
from designer.core.fileformat import load_project
from designer.core.paths import projects_dir
from designer.core.solver import solve


@functools.cache
def solved(name: str):
    p = load_project(projects_dir() / name)
    return p, solve(p)


def tokens_per_gpu_s(project: str, w: Workload) -> float:
    p, r = solved(project)
    s = estimate(p, r, w).step
    return s.tokens_per_step / (s.step_s * s.parallel.gpus)


H100 = "dgx-superpod-4su-ib-ndr.fabric.json"
B300 = "b300-superpod-4su-ib-xdr.fabric.json"  # B300 computes as a B200 (same dense peaks)
GB200 = "gb200-nvl72-superpod-4su-ib-ndr.fabric.json"
L8 = {"params_b": 8.03, "layers": 32, "hidden": 4096, "kv_fraction": 8 / 32}
L70 = {"params_b": 70.6, "layers": 80, "hidden": 8192, "kv_fraction": 8 / 64}
L405 = {"params_b": 405, "layers": 126, "hidden": 16384, "kv_fraction": 8 / 128}
DSV3 = {"params_b": 671, "active_params_b": 37, "layers": 61, "hidden": 7168, "experts": 256,
        "top_k": 8, "attention_width": 20480}
ILV = {"schedule": "interleaved"}

# (case, project, model, layout, published tokens/s per GPU). Llama 3 8B on H100 and B200 set
# the FP8 GEMM shares (compute.py); the others check them. The spread across NeMo releases
# of one row is 3-8% (405B on H100: 737, 763, 784 TFLOPs); the table holds one share per
# generation, so 15% is the tolerance.
NEMO_FP8 = [
    ("H100 Llama 3 70B TP4 PP8", H100, L70,
     dict(gpus=64, tp=4, pp=8, interleave=5, sequence=8192, global_batch_tokens=128 * 8192,
          microbatches=64, **ILV), 1602),
    ("H100 Llama 3.1 405B TP8 PP8 CP2", H100, L405,
     dict(gpus=1024, tp=8, pp=8, cp=2, interleave=8, sequence=8192,
          global_batch_tokens=512 * 8192, microbatches=64, **ILV), 292),
    ("B200 Llama 3.1 405B TP4 PP8 CP2", B300, L405,
     dict(gpus=128, tp=4, pp=8, cp=2, interleave=8, sequence=8192,
          global_batch_tokens=64 * 8192, microbatches=32, **ILV), 661),
    ("GB200 Llama 3.1 405B TP4 PP16", GB200, L405,
     dict(gpus=256, tp=4, pp=16, interleave=4, sequence=8192,
          global_batch_tokens=1536 * 8192, microbatches=384, **ILV), 813),
    ("GB200 Llama 3 70B FSDP", GB200, L70,
     dict(gpus=64, tp=1, pp=1, sequence=8192, global_batch_tokens=256 * 8192, microbatches=2,
          zero_stage=3), 4312),
    ("GB200 Llama 3 8B", GB200, L8,
     dict(gpus=8, tp=1, pp=1, sequence=8192, global_batch_tokens=128 * 8192, microbatches=8),
     31508),
    ("H100 DeepSeek-V3 TP2 PP8 EP64", H100, DSV3,
     dict(gpus=1024, tp=2, pp=8, ep=64, interleave=4, sequence=4096,
          global_batch_tokens=8192 * 4096, microbatches=128, **ILV), 1297),
    ("GB200 DeepSeek-V3 PP8 EP32", GB200, DSV3,
     dict(gpus=256, tp=1, pp=8, ep=32, interleave=4, sequence=4096,
          global_batch_tokens=4096 * 4096, microbatches=128, **ILV), 4018),
]


@pytest.mark.parametrize("case,project,model,layout,published", NEMO_FP8,
                         ids=[c[0] for c in NEMO_FP8])
def test_published_fp8_runs_within_fifteen_percent(case, project, model, layout, published):
    w = Workload(name=case, precision="fp8", **model, **layout)
    assert tokens_per_gpu_s(project, w) == pytest.approx(published, rel=0.15)


def test_deepseek_v3_gpu_hours_per_trillion_tokens():
    """arXiv 2412.19437, 1: 180K H800 GPU-hours per trillion tokens (2,048 GPUs, 3.7 days).
    Before the GEMMs ran at their FP8 share (0.55 of the FP8 peak, attention too), the step
    gave about 79K: 2.3x too fast. Now about 210K: the FP8 and expert shares come from
    NVIDIA's runs (its DeepSeek-V3 on H100 reproduces within 3%), and DeepSeek's own kernels
    ran 19% faster per GPU than NVIDIA's (1,543 against 1,297 tokens/s), which the step's own
    note says. Tolerance 20%: that gap, and the micro-batch count DualPipe's bubble needs is
    not published (30 assumed)."""
    p, r = solved("dgx-superpod-64su-ib-ndr.fabric.json")
    s = estimate(p, r, PRESETS["deepseek-v3-like"]).step
    assert s.gpu_hours_per_trillion_tokens == pytest.approx(180_000, rel=0.20)
    assert s.gpu_hours_per_trillion_tokens > 180_000
    assert any("DeepSeek's own kernels" in n for n in s.notes)


def test_fp8_speeds_up_the_gemms_only():
    """FP8 runs the GEMMs on the FP8 tensor cores at their own (lower) share; attention stays
    BF16: the same step is faster in FP8, but well under the 2x of the peaks."""
    kw = dict(hidden=16384, params_per_layer=405e9 / 126, kv_fraction=1 / 16, tp=8,
              tokens=8192.0)
    for gpu in (GPUS["H100"], GPUS["B200"]):
        bf16 = compute_rates(gpu, "bf16", **kw)
        fp8 = compute_rates(gpu, "fp8", **kw)
        assert fp8.attention == bf16.attention
        assert 1.3 < fp8.gemm / bf16.gemm < 1.7
        assert fp8.gemm_efficiency < bf16.gemm_efficiency
        assert fp8.expert == pytest.approx(fp8.gemm * MOE_EXPERT_FACTOR)
    # no FP8 tensor cores: BF16 rates
    a100 = GPUS["A100"]
    assert compute_rates(a100, "fp8", **kw).gemm == compute_rates(a100, "bf16", **kw).gemm


def test_tensor_parallel_splits_lower_the_gemm_share():
    """Smaller per-GPU GEMMs fill fewer waves of SMs and sit nearer the memory roofline."""
    gpu = GPUS["H100"]
    effs = [compute_rates(gpu, "bf16", hidden=4096, params_per_layer=8e9 / 32,
                          kv_fraction=0.25, tp=t, tokens=4096.0).gemm_efficiency
            for t in (1, 2, 4, 8)]
    assert effs == sorted(effs, reverse=True) and effs[-1] < effs[0]
    assert effs[0] <= GEMM_EFFICIENCY[("hopper", "bf16")]
    peak = 989e12 * 0.55
    assert gemm_shape_factor(gpu, 8192, 16384, 16384, peak, 2) == pytest.approx(1.0, abs=0.05)
    assert gemm_shape_factor(gpu, 16, 8192, 8192, peak, 2) < 0.1  # memory-bound


def test_a_workload_efficiency_overrides_the_table():
    w = Workload(compute_efficiency=0.3)
    r = compute_rates(GPUS["H100"], "bf16", hidden=w.hidden, params_per_layer=1e9,
                      kv_fraction=0.125, tp=8, tokens=4096.0, efficiency=0.3)
    assert r.gemm == pytest.approx(989e12 * 0.3) and r.shape_factor == 1.0
    assert r.expert == r.gemm  # the whole step at the workload's figure, as files saved with it
    assert "workload" in r.source


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(GPUS)), st.integers(1, 2**17), st.integers(1, 2**16),
       st.integers(1, 2**16), st.sampled_from([1, 2]))
def test_a_gemm_keeps_at_most_a_large_ones_share(key, m, k, n, nbytes):
    """Wave quantization and the roofline only take away: 0 < factor <= 1 for any shape."""
    gpu = GPUS[key]
    f = gemm_shape_factor(gpu, m, k, n, gpu.bf16_tflops * 1e12 * 0.55, nbytes)
    assert 0 < f <= 1


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["H100", "B200", "MI300X", "A100"]), st.sampled_from(["bf16", "fp8"]),
       st.sampled_from([1, 2, 4, 8]), st.integers(256, 65536))
def test_the_share_never_exceeds_the_table(key, precision, tp, tokens):
    gpu = GPUS[key]
    r = compute_rates(gpu, precision, hidden=8192, params_per_layer=70e9 / 80,
                      kv_fraction=0.125, tp=tp, tokens=float(tokens))
    base = GEMM_EFFICIENCY[(gpu.generation, "fp8" if precision == "fp8" and gpu.fp8_tflops
                            else "bf16")]
    assert 0 < r.gemm_efficiency <= base and r.expert < r.gemm


def test_deepseek_v3_on_dgx_b200_is_a_stated_miss():
    """NVIDIA Megatron-Bridge performance summary, NeMo 25.11, DGX-B200: DeepSeek-V3 FP8-MX on
    256 GPUs, TP1 PP16 VP1 EP8, GBS 2,048 x 4,096, MBS 1: 2,139 tokens/s per GPU (2,265 in
    25.09). The model gives about 1.5x that. No layout or fabric mechanism gives the gap (EP8
    stays in one node's NVLink; the PP16 bubble of 15/128 is in the step): the B200 recipe
    runs without the CUDA graphs, fused grouped expert GEMMs and overlapped all-to-all of the
    GB200 recipe (scripts/performance, deepseek_workload_base_configs.py), whose row the same
    model reproduces (NEMO_FP8 above), and on the same B200 hardware and layout NVIDIA's
    Qwen3-30B-A3B row halved between two releases (416 -> 214 TFLOPs/GPU). So the estimate is
    the tuned recipe's rate, and the estimates table and the step's own note say so."""
    from designer.core.published import CASES, evaluate

    (case,) = [c for c in CASES if c.key == "deepseek-v3-b200"]
    (row,) = evaluate((case,))
    assert not row.passed and case.miss and "CUDA graphs" in case.miss
    assert 1.3 < row.value / 2139 < 1.7  # the gap the note states, not silently moved
    w = Workload(name="b200", precision="fp8", **DSV3, gpus=256, tp=1, pp=16, ep=8,
                 sequence=4096, global_batch_tokens=2048 * 4096, microbatches=128)
    p, r = solved(B300)
    notes = estimate(p, r, w).step.notes
    assert any("DGX B200 DeepSeek-V3 row" in n and "2,139" in n for n in notes)
