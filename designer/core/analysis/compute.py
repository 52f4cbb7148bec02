"""What share of its peak a GPU's training compute reaches: by generation, precision and shape.

A step's FLOPs split into three kinds of work that run at different rates:

- the parameter GEMMs (every linear layer, forward and backward), in the workload's precision:
  with FP8 training these run on the FP8 tensor cores (DeepSeek-V3, arXiv 2412.19437, 3.3:
  "most core computation kernels, i.e. GEMM operations, are implemented in FP8"), at the share
  of the FP8 peak published FP8 runs reach, which is lower than BF16's share of the BF16 peak
  (scaling, casts and the BF16 kernels around each GEMM do not get faster);
- the attention score and value products, in BF16 whatever the GEMM precision (the same
  paper keeps "attention operators" in their original precision), at the attention kernel's
  share of the BF16 peak;
- in a mixture of experts, the routed experts' GEMMs, which reach a lower share again (grouped
  GEMMs, token permutation and the router between them).

The share a large GEMM reaches is a table per generation and precision, each entry from a
published run (or said to be assumed); the per-GPU GEMM shape, which tensor parallelism
splits, scales it by wave quantization and the memory roofline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from designer.core.analysis.gpus import GpuSpec

# Share of the precision's dense peak that a training step's parameter GEMMs reach at large
# per-GPU shapes, with the kernels around them (norms, activations, casts, optimizer) that a
# model-FLOPs count leaves out. Key (generation, "bf16" or "fp8").
#
# BF16: 0.55, assumed for every generation (the constant the estimates had): with it the three
# Llama 3 405B rows of arXiv 2407.21783 Table 4 (H100, BF16) come out within 3 points. No
# published Blackwell or AMD BF16 dense run with a model-FLOPs figure was found: the Hopper
# share stands in and is said to be assumed.
# FP8, Hopper: 0.43, from NVIDIA's Megatron-Bridge performance summary (NeMo 25.11, DGX-H100):
# Llama 3 8B, FP8 current scaling, 8 GPUs, FSDP, no model parallelism (compute-bound): 14,451
# tokens/s per GPU, i.e. 69.2 us per token = 48.2 GFLOP of GEMMs / (1,979 TFLOPS x e) + 6.4
# GFLOP of attention at the BF16 share (11.8 us) -> e = 0.42-0.43. Checked on the same page's
# 70B and 405B rows and on DeepSeek-V3's published GPU-hours.
# FP8, Blackwell: 0.39, the same row on DGX-B200 (30,624 tokens/s per GPU, 32.7 us per token:
# 48.2 / (4,500 x e) + 5.2 us) -> 0.39; checked on the B200 405B and GB200 rows.
# AMD (CDNA): no published large-run figure found; Hopper's shares are assumed.
GEMM_EFFICIENCY: dict[tuple[str, str], float] = {
    ("ampere", "bf16"): 0.55, ("hopper", "bf16"): 0.55, ("blackwell", "bf16"): 0.55,
    ("cdna", "bf16"): 0.55,
    ("hopper", "fp8"): 0.43, ("blackwell", "fp8"): 0.39, ("cdna", "fp8"): 0.43,
}
BF16_SOURCE = "0.55 assumed (Llama 3 405B, arXiv 2407.21783 Table 4, reproduces within 3 points)"
GEMM_SOURCES: dict[tuple[str, str], str] = {
    ("hopper", "fp8"): "0.43 of the FP8 peak: Megatron-Bridge performance summary, NeMo "
                       "25.11, Llama 3 8B FP8 on 8 x H100 (744 TFLOPs/GPU)",
    ("blackwell", "fp8"): "0.39 of the FP8 peak: Megatron-Bridge performance summary, NeMo "
                          "25.11, Llama 3 8B FP8 on 8 x B200 (1,576 TFLOPs/GPU)",
    ("cdna", "fp8"): "0.43 of the FP8 peak, Hopper's (no published AMD run found: assumed)",
}
# Routed-expert GEMMs over dense ones: NVIDIA's DeepSeek-V3 on 1,024 H100 (FP8, EP64, tokens
# balanced) reaches 338 model TFLOPs/GPU against 737-763 for dense Llama 3.1 405B on the same
# GPUs and precision (Megatron-Bridge summary, NeMo 25.09 and 25.11): with 55% of DeepSeek-V3's
# active parameters in routed experts and the rest at the dense rate, the experts run at about
# 0.45 of it (grouped GEMMs of a few thousand tokens each, permutation, the router).
MOE_EXPERT_FACTOR = 0.45
# cuBLAS/CUTLASS output tile of a large training GEMM: 128 x 256 (NVIDIA Deep Learning
# Performance Guide, "Matrix Multiplication Background": tile and wave quantization)
TILE_M, TILE_N = 128, 256


@dataclass(frozen=True)
class ComputeRates:
    """Achieved FLOP/s of one GPU on each kind of work, and where the shares came from."""

    gemm: float  # parameter GEMMs (dense), in the workload's precision
    expert: float  # routed-expert GEMMs
    attention: float  # attention products, BF16
    gemm_efficiency: float  # share of the GEMM precision's peak, shape included
    shape_factor: float
    source: str
    attention_peak: float = 0.0  # the BF16 peak attention runs against, FLOP/s


def gemm_precision(precision: str, gpu: GpuSpec) -> str:
    return "fp8" if precision == "fp8" and gpu.fp8_tflops > 0 else "bf16"


def base_efficiency(gpu: GpuSpec, precision: str) -> tuple[float, str]:
    prec = gemm_precision(precision, gpu)
    key = (gpu.generation or "hopper", prec)
    eff = GEMM_EFFICIENCY.get(key, GEMM_EFFICIENCY[("hopper", prec)])
    return eff, GEMM_SOURCES.get(key, BF16_SOURCE)


def gemm_shape_factor(gpu: GpuSpec, m: float, k: float, n: float, peak_flops: float,
                      bytes_per_element: int) -> float:
    """One GEMM (m x k by k x n) on one GPU: the share of a large GEMM's rate it keeps.

    Wave quantization: the output tiles run in waves over the SMs, the last wave partly idle;
    the memory roofline: below the ridge point (peak over HBM bandwidth) the GEMM waits on
    memory (Williams et al., CACM 2009). Without the GPU's SM count and HBM figures, 1."""
    if gpu.sms <= 0 or gpu.hbm_tbytes_s <= 0 or min(m, k, n) <= 0:
        return 1.0
    tiles = math.ceil(m / TILE_M) * math.ceil(n / TILE_N)
    waves = math.ceil(tiles / gpu.sms)
    wave = tiles / (waves * gpu.sms)
    intensity = 2 * m * k * n / (bytes_per_element * (m * k + k * n + m * n))
    ridge = peak_flops / (gpu.hbm_tbytes_s * 1e12)
    return wave * min(1.0, intensity / ridge)


def layer_gemms(hidden: int, ffn: float, kv_fraction: float, tp: int, tokens: float
                ) -> list[tuple[float, float, float]]:
    """(m, k, n) of one GPU's share of a Transformer layer's four GEMMs under tensor
    parallelism t (Megatron-LM: QKV and up-projection split by columns, output and
    down-projection by rows, arXiv 1909.08053)."""
    h = float(hidden)
    return [(tokens, h, h * (1 + 2 * kv_fraction) / tp), (tokens, h / tp, h),
            (tokens, h, ffn / tp), (tokens, ffn / tp, h)]


def ffn_width(params_per_layer: float, hidden: int, kv_fraction: float) -> float:
    """The MLP's width from the parameters per layer: attention holds h^2 (2 + 2 kv), a gated
    MLP 3 h f (Llama's SwiGLU): 53,700 for Llama 3 405B, whose published width is 53,248."""
    h = float(hidden)
    return max(h, (params_per_layer - h * h * (2 + 2 * kv_fraction)) / (3 * h))


def compute_rates(gpu: GpuSpec, precision: str, *, hidden: int,
                  params_per_layer: float, kv_fraction: float, tp: int, tokens: float,
                  peak_tflops: float = 0.0, efficiency: float = 0.0,
                  attention_efficiency: float = 0.0) -> ComputeRates:
    """Achieved rates of one GPU. ``peak_tflops`` (a workload's own peak) replaces the
    datasheet's for every kind of work; ``efficiency`` (a workload's own) replaces the table
    and the shape (and runs the experts at it too); ``tokens`` is one micro-batch's tokens on
    one GPU (the GEMMs' m)."""
    prec = gemm_precision(precision, gpu)
    peak = (peak_tflops or (gpu.fp8_tflops if prec == "fp8" else gpu.bf16_tflops)) * 1e12
    bf16_peak = (peak_tflops or gpu.bf16_tflops) * 1e12
    if efficiency:
        eff, shape, source = efficiency, 1.0, "the workload's compute efficiency"
    else:
        base, source = base_efficiency(gpu, precision)
        ffn = ffn_width(params_per_layer, hidden, kv_fraction)
        gemms = layer_gemms(hidden, ffn, kv_fraction, tp, tokens)
        flops = [m * k * n for m, k, n in gemms]
        nbytes = 1 if prec == "fp8" else 2
        slow = sum(f / gemm_shape_factor(gpu, m, k, n, peak * base, nbytes)
                   for f, (m, k, n) in zip(flops, gemms, strict=True))
        shape = sum(flops) / slow if slow > 0 else 1.0
        eff = base * shape
    bf16_eff = efficiency or GEMM_EFFICIENCY.get((gpu.generation or "hopper", "bf16"), 0.55)
    att = (attention_efficiency or bf16_eff) * bf16_peak
    # a workload's own efficiency is the whole step's, as before this model: experts too
    expert = peak * eff * (1.0 if efficiency else MOE_EXPERT_FACTOR)
    return ComputeRates(peak * eff, expert, att, eff, shape, source, bf16_peak)


def routed_active_params(params: float, active: float, experts: int, top_k: int) -> float:
    """Routed-expert parameters a token uses: the inactive parameters are (E - k)/E of the
    routed experts, so the active routed ones are (P - A) k / (E - k) (DeepSeek-V3: 20.4B of
    its 37B)."""
    if experts <= top_k or top_k <= 0 or params <= active:
        return 0.0
    return (params - active) * top_k / (experts - top_k)
