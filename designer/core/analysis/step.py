"""One training step on this fabric: compute, pipeline bubble, each parallelism's communication,
what overlap hides, and the money an imperfect fabric costs over a run.

Volumes per GPU and per step (Megatron-LM / ZeRO conventions): TP 4 all-reduces of the
micro-batch's activations per layer; PP one send and one receive of the activations per
micro-batch and boundary (scatter-gather: 1/TP of them); DP one gradient all-reduce of the
GPU's parameter shard (ZeRO-3: 1.5x); CP an all-gather and a reduce-scatter of K and V per
layer; EP dispatch and combine, forward and backward (4 all-to-alls of top-k x tokens x hidden).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.analysis.collectives import Communicator, collective_times
from designer.core.analysis.compute import ComputeRates, compute_rates, routed_active_params
from designer.core.analysis.fabric import FabricView
from designer.core.analysis.workload import Workload, WorkloadError


@dataclass(frozen=True)
class Parallelism:
    gpus: int
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int

    def groups(self) -> dict[str, Communicator]:
        t, c, d, p = self.tp, self.cp, self.dp, self.pp
        return {"tp": Communicator("tp", t, 1), "cp": Communicator("cp", c, t),
                "dp": Communicator("dp", d * c, t), "ep": Communicator("ep", self.ep, t * c),
                "pp": Communicator("pp", 2 if p > 1 else 1, t * c * d),
                "all": Communicator("all", self.gpus, 1)}


def parallelism(w: Workload, view: FabricView) -> Parallelism:
    """The job's layout; a clear message naming the field when it cannot run here."""
    job = w.gpus or view.gpus
    if job > view.gpus:
        raise WorkloadError(f"workload.gpus: {job:,} GPUs, but the design has {view.gpus:,}")
    tp = w.tp or min(view.domain, 8)  # 0: the NVLink domain, as Megatron users pick it
    if tp > view.domain:
        raise WorkloadError(f"workload.tp: {tp} is larger than the NVLink domain "
                            f"({view.domain} GPUs); keep tensor parallelism inside it")
    if view.domain % tp:
        raise WorkloadError(f"workload.tp: {tp} does not divide the NVLink domain "
                            f"({view.domain} GPUs)")
    inner = tp * w.pp * w.cp
    if job % inner:
        raise WorkloadError(f"workload.gpus: {job:,} GPUs are not a multiple of "
                            f"tp x pp x cp = {inner:,}")
    dp = w.dp or job // inner
    if w.dp and inner * w.dp != job:
        raise WorkloadError(f"workload.dp: tp x pp x cp x dp = {inner * w.dp:,}, but the job "
                            f"has {job:,} GPUs")
    if (dp * w.cp) % w.ep:
        raise WorkloadError(f"workload.ep: {w.ep} does not divide dp x cp = {dp * w.cp:,}")
    if w.is_moe and w.experts % w.ep:
        raise WorkloadError(f"workload.ep: {w.ep} does not divide the {w.experts} experts")
    if w.pp > w.layers:
        raise WorkloadError(f"workload.pp: {w.pp} stages for {w.layers} layers")
    if w.global_batch_tokens < dp * w.sequence:
        raise WorkloadError(f"workload.global_batch_tokens: {w.global_batch_tokens:,} tokens are "
                            f"fewer than one sequence per data-parallel rank ({dp:,} x "
                            f"{w.sequence:,}); raise it, or set workload.gpus to a smaller job")
    return Parallelism(job, tp, w.pp, dp, w.cp, w.ep)


@dataclass(frozen=True)
class CommPart:
    kind: str  # tp, pp, dp, cp, ep
    op: str
    calls: float  # per step
    bytes: float  # per call
    time_s: float  # all calls
    overlap: float
    algorithm: str

    @property
    def exposed_s(self) -> float:
        return self.time_s * (1 - self.overlap)

    def to_json(self) -> dict:
        return {"kind": self.kind, "op": self.op, "calls": round(self.calls, 3),
                "bytes": int(self.bytes), "time_s": round(self.time_s, 6),
                "overlap": self.overlap, "exposed_s": round(self.exposed_s, 6),
                "algorithm": self.algorithm}


@dataclass(frozen=True)
class StepEstimate:
    compute_s: float
    bubble_s: float
    parts: tuple[CommPart, ...]
    exposed_comm_s: float
    step_s: float
    comm_fraction: float
    mfu: float
    tokens_per_step: int
    parallel: Parallelism
    gemm_efficiency: float = 0.0  # share of the GEMM precision's peak, shape included
    efficiency_source: str = ""
    notes: tuple[str, ...] = ()  # what the model leaves out for this workload, said plainly

    @property
    def gpu_hours_per_trillion_tokens(self) -> float:
        """GPU-hours to train 10^12 tokens at this step (DeepSeek-V3 reports 180K on H800)."""
        return 1e12 / self.tokens_per_step * self.step_s * self.parallel.gpus / 3600

    @property
    def comm_s(self) -> float:
        return sum(p.time_s for p in self.parts)

    def to_json(self) -> dict:
        p = self.parallel
        return {"compute_s": round(self.compute_s, 6), "bubble_s": round(self.bubble_s, 6),
                "comm_s": round(self.comm_s, 6),
                "exposed_comm_s": round(self.exposed_comm_s, 6),
                "comm_fraction": round(self.comm_fraction, 6), "step_s": round(self.step_s, 6),
                "mfu": round(self.mfu, 6), "tokens_per_step": self.tokens_per_step,
                "gemm_efficiency": round(self.gemm_efficiency, 4),
                "efficiency_source": self.efficiency_source,
                "gpu_hours_per_trillion_tokens": round(self.gpu_hours_per_trillion_tokens, 1),
                "notes": list(self.notes),
                "parallelism": {"gpus": p.gpus, "tp": p.tp, "pp": p.pp, "dp": p.dp,
                                "cp": p.cp, "ep": p.ep},
                "communication": [x.to_json() for x in self.parts]}


def step_estimate(w: Workload, view: FabricView, *, network_slowdown: float = 1.0,
                  tree_slowdown: float | None = None) -> StepEstimate:
    par = parallelism(w, view)
    beta = w.bytes_per_element
    tokens = w.global_batch_tokens
    flops = model_flops(w) * tokens
    peak = view.peak_tflops * 1e12
    m = w.microbatches
    mb_tokens = tokens / (par.dp * m)  # tokens of one micro-batch of one replica
    rates = rates_for(w, view, par.tp, mb_tokens / par.cp)
    compute = w.compute_s or compute_seconds(w, tokens, par.gpus, rates)
    bubble = compute * bubble_fraction(w.schedule, par.pp, m, w.interleave,
                                       *stage_work(w, rates))
    layers = w.layers / par.pp
    groups = par.groups()
    kw = {"job_gpus": par.gpus, "placement": w.placement, "network_slowdown": network_slowdown,
          "tree_slowdown": tree_slowdown}
    plan: list[tuple[str, str, float, float, float]] = []  # kind, op, calls, bytes, overlap
    if par.tp > 1:
        act = mb_tokens / par.cp * w.hidden * beta
        plan.append(("tp", "all-reduce", 4 * layers * m, act, w.overlap_tp))
    if par.pp > 1:
        act = mb_tokens / par.cp * w.hidden * beta / par.tp
        chunks = w.interleave if w.schedule == "interleaved" else 1
        plan.append(("pp", "send-recv", 2 * m * chunks, act, w.overlap_pp))
    if par.dp * par.cp > 1:
        shard = w.active_params + (w.params_b * 1e9 - w.active_params) / par.ep
        grads = shard / (par.tp * par.pp) * 2  # gradients reduced in BF16
        plan.append(("dp", "all-reduce", 1.5 if w.zero_stage >= 3 else 1.0, grads, w.overlap_dp))
    if par.cp > 1:
        kv = 2 * mb_tokens * w.hidden * w.kv_fraction * beta / par.tp
        plan.append(("cp", "all-gather", 2 * layers * m, kv, w.overlap_cp))
    if w.is_moe and par.ep > 1:
        per_gpu = mb_tokens / par.cp / par.tp * w.top_k * w.hidden * beta
        plan.append(("ep", "all-to-all", 4 * layers * m, per_gpu, w.overlap_ep))
    parts = []
    for kind, op, calls, nbytes, overlap in plan:
        t, algo, _ = collective_times(view, op, np.array([nbytes]), groups[kind], **kw)
        parts.append(CommPart(kind, op, calls, nbytes, float(t[0]) * calls, overlap,
                              str(algo[0])))
    exposed = sum(p.exposed_s for p in parts)
    step = compute + bubble + exposed
    mfu = flops / (step * par.gpus * peak)  # against the peak of the compute precision
    return StepEstimate(compute, bubble, tuple(parts), exposed, step, exposed / step, mfu,
                        tokens, par, rates.gemm_efficiency, rates.source,
                        step_notes(w, rates, par))


def step_notes(w: Workload, rates: ComputeRates, par: Parallelism) -> tuple[str, ...]:
    """What the step rests on that published runs reach at different rates, said plainly."""
    notes = []
    if w.compute_s:
        return ()
    share = attention_flops(w) / model_flops(w)
    if share > 0.3:
        notes.append(
            f"attention is {share:.0%} of the FLOPs: the step rests on the attention kernel's "
            f"share of the BF16 peak ({rates.attention / (rates.attention_peak or 1):.2f}); "
            "published kernels differ (FlashAttention-2 0.34 of an H100, FlashAttention-3 "
            "0.5-0.75 forward), so long-context rows can miss by a few points (Llama 3 405B at "
            "131K: 38% published)")
    if w.is_moe and not w.compute_efficiency:
        notes.append(
            "routed experts at 0.45 of the dense GEMM rate, from NVIDIA's DeepSeek-V3 run on "
            "H100 (1,297 tokens/s per GPU); DeepSeek's own kernels ran about 19% faster (1,543 "
            "on H800, 180K GPU-hours per trillion tokens); the rate is a tuned recipe's (CUDA "
            "graphs, fused grouped expert GEMMs, overlapped all-to-all, as NVIDIA's GB200 "
            "runs): NVIDIA's DGX B200 DeepSeek-V3 row, run without them, is 1.5x slower than "
            "this model gives it (2,139 tokens/s per GPU)")
    if par.cp > 1 and w.cp_split == "contiguous":
        notes.append(f"context parallel ranks cut in order: the last does "
                     f"{cp_imbalance(par.cp, w.cp_split):.2f}x the mean causal attention")
    return tuple(notes)


def model_flops(w: Workload) -> float:
    """Training FLOPs per token: 6 per active parameter (forward and backward) plus causal
    attention, 6 x layers x hidden x sequence (the 12 L h s of PaLM's MFU count, arXiv
    2204.02311 appendix B, halved by the causal mask)."""
    return 6.0 * w.active_params + attention_flops(w)


def attention_flops(w: Workload) -> float:
    """The causal attention part of ``model_flops`` per token (score and value products),
    over the attention's own width where it differs from the hidden one (MLA)."""
    return 6.0 * w.layers * (w.attention_width or w.hidden) * w.sequence


def rates_for(w: Workload, view: FabricView, tp: int, mb_tokens: float) -> ComputeRates:
    """One GPU's achieved rates for this workload (``compute.compute_rates``)."""
    dense = w.active_params - routed_active_params(w.params_b * 1e9, w.active_params,
                                                   w.experts, w.top_k)
    return compute_rates(view.gpu, w.precision, hidden=w.hidden,
                         params_per_layer=dense / max(w.layers, 1), kv_fraction=w.kv_fraction,
                         tp=tp, tokens=mb_tokens, peak_tflops=w.peak_tflops,
                         efficiency=w.compute_efficiency,
                         attention_efficiency=w.attention_efficiency)


def compute_seconds(w: Workload, tokens: float, gpus: int, rates: ComputeRates) -> float:
    """Compute time of a step on ``gpus`` GPUs: the dense parameter GEMMs, the routed experts'
    and the attention products each at their own achieved rate (``compute.py``: FP8 runs
    GEMMs on the FP8 tensor cores and attention in BF16, FlashAttention reaching a different
    share of peak than a GEMM), on the share of SMs communication leaves."""
    attn = attention_flops(w) * tokens
    routed = 6.0 * routed_active_params(w.params_b * 1e9, w.active_params, w.experts,
                                        w.top_k) * tokens
    dense = model_flops(w) * tokens - attn - routed
    imbalance = cp_imbalance(w.cp, w.cp_split)  # every layer waits for the slowest CP rank
    t = dense / rates.gemm + routed / rates.expert + attn / rates.attention * imbalance
    return t / (gpus * w.compute_sm_share)


# Pipeline bubble over compute, per schedule, with p stages and m micro-batches. A
# micro-batch's stage work splits into forward F, backward for inputs B and backward for
# weights W. For a GEMM the three cost the same (Y = XW, dX = dY W^T, dW = X^T dY); attention
# has no weights, its backward (twice its forward's FLOPs) all in B: so F, B and W come from
# the step's own GEMM and attention times (``stage_work``), equal only without attention.
# 1F1B: (p-1)(F+B+W) over m(F+B+W) (Narayanan et al., SC'21, arXiv 2104.04473); interleaved
# over v virtual stages: divided by v (same paper); zero-bubble ZB-H1: (p-1)(F+B-W), the
# weight gradients filling the bubble (Qi et al., arXiv 2401.10241); DualPipe: DeepSeek-V3
# Table 2 writes (p/2-1)(F&B + B' - 3W) with B' the whole backward (B + W; its 1F1B row is
# (p-1)(F+B')) and F&B a forward and a backward chunk overlapped, F + B' in compute: so
# (p/2-1)(F + 2B - W) (arXiv 2412.19437, 3.2.1).
SCHEDULE_SOURCES = {
    "1f1b": "1F1B: (p-1)/m (Narayanan et al., SC'21, arXiv 2104.04473)",
    "interleaved": "interleaved: (p-1)/(v m) (Narayanan et al., SC'21)",
    "zero-bubble": "ZB-H1: (p-1)(F+B-W) over m(F+B+W) (Qi et al., arXiv 2401.10241)",
    "dualpipe": "DualPipe: (p/2-1)(F&B+B-3W) (DeepSeek-V3, arXiv 2412.19437, Table 2), F, B "
                "and W from the step's GEMM and attention times",
}


def bubble_fraction(schedule: str, p: int, m: int, v: int = 1, f: float = 1.0,
                    b: float = 1.0, w: float = 1.0) -> float:
    """Idle pipeline time as a share of the compute time (see above); ``f``, ``b``, ``w``
    are a micro-batch's forward, input-backward and weight-backward times (any unit)."""
    if p <= 1:
        return 0.0
    per_mb = f + b + w
    if schedule == "interleaved":
        idle = (p - 1) * per_mb / max(v, 1)
    elif schedule == "zero-bubble":
        idle = (p - 1) * (f + b - w)
    elif schedule == "dualpipe":
        idle = max(p / 2 - 1, 0) * (f + 2 * b - w)
    else:
        idle = (p - 1) * per_mb
    return max(idle, 0.0) / (m * per_mb)


def stage_work(w: Workload, rates: ComputeRates) -> tuple[float, float, float]:
    """(F, B, W) of one token's work, seconds per GPU-FLOP rate: the GEMMs a third each,
    attention a third forward and two thirds input-backward."""
    routed = 6.0 * routed_active_params(w.params_b * 1e9, w.active_params, w.experts, w.top_k)
    dense = model_flops(w) - attention_flops(w) - routed
    g = (dense / rates.gemm + routed / rates.expert) / 3
    a = attention_flops(w) / rates.attention / 3
    return g + a, g + 2 * a, g


def cp_imbalance(cp: int, split: str) -> float:
    """Slowest context-parallel rank's causal attention over the mean. Cut into cp pieces in
    order, rank j attends over (j + 1/2) pieces: (2cp - 1)/cp. Cut into 2cp chunks with rank
    i holding chunks i and 2cp-1-i (Llama 3, arXiv 2407.21783, 3.3.2; Megatron-LM's context
    parallelism), each rank's work is (i + 1/2) + (2cp - 1 - i + 1/2) = 2cp chunks: even."""
    if cp <= 1 or split == "balanced":
        return 1.0
    return (2 * cp - 1) / cp


@dataclass(frozen=True)
class Loss:
    """What a slower step costs over a run: 1 - ideal/actual of the GPU time is wasted."""

    loss_fraction: float
    gpu_hours_lost: float
    usd_lost: float
    days_lost: float


def money_lost(gpus: int, run_days: float, gpu_hour_usd: float, loss_fraction: float) -> Loss:
    hours = gpus * run_days * 24 * loss_fraction
    return Loss(loss_fraction, hours, hours * gpu_hour_usd, run_days * loss_fraction)


def time_to_train_days(step: StepEstimate, tokens: float) -> float:
    return tokens / step.tokens_per_step * step.step_s / 86400
