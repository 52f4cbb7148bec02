"""The training job and the money assumptions a decision is made for, saved in the project.

``Workload`` says what runs (model, precision, batch, parallelism, the NVLink domain, compute
speed, overlap, placement); ``Economics`` says what GPU time, energy, support and tuning cost.
Both are frozen pydantic models; ``DecisionSettings`` holds the two and is the project's one
``decision`` field. Presets reproduce published runs and name their sources.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from designer.core import limits as L
from designer.core.errors import DesignerError


class WorkloadError(DesignerError):
    """A workload or an economics figure that cannot run on this design (names the field)."""


Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegative = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
MIN_EFFICIENCY = 0.01  # a share of a GPU's peak: below 1% no kernel runs
Placement = Literal["contiguous", "by-pod", "scattered"]
Schedule = Literal["1f1b", "interleaved", "zero-bubble", "dualpipe"]
PRECISION_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "fp32": 4}


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Workload(_Frozen):
    name: str = Field(default="Dense 70B, data parallel", min_length=1, max_length=200)
    source: str = Field(default="", max_length=500)
    # model
    params_b: Annotated[Positive, Field(le=L.PARAMS_B_MAX)] = 70.0  # billions of parameters
    # MoE: parameters active per token (0: all)
    active_params_b: Annotated[NonNegative, Field(le=L.PARAMS_B_MAX)] = 0.0
    layers: int = Field(default=80, ge=1, le=10_000)
    hidden: int = Field(default=8192, ge=1, le=1_000_000)
    experts: int = Field(default=0, ge=0, le=100_000)  # 0: dense
    top_k: int = Field(default=0, ge=0, le=1024)
    kv_fraction: Fraction = 0.125  # K and V width / hidden (grouped-query attention)
    precision: Literal["bf16", "fp16", "fp8", "fp32"] = "bf16"
    # data
    sequence: int = Field(default=4096, ge=1, le=16_777_216)
    global_batch_tokens: int = Field(default=16_777_216, ge=1, le=10**12)
    # parallelism (dp 0: whatever the job's GPUs leave)
    gpus: int = Field(default=0, ge=0, le=10_000_000)  # 0: every GPU of the design
    tp: int = Field(default=0, ge=0, le=4096)  # 0: the NVLink domain (at most 8)
    pp: int = Field(default=1, ge=1, le=4096)
    microbatches: int = Field(default=1, ge=1, le=100_000)
    interleave: int = Field(default=1, ge=1, le=64)
    dp: int = Field(default=0, ge=0, le=10_000_000)
    zero_stage: int = Field(default=1, ge=0, le=3)
    cp: int = Field(default=1, ge=1, le=4096)
    ep: int = Field(default=1, ge=1, le=100_000)
    # scale-up domain and compute
    nvlink_domain: int = Field(default=0, ge=0, le=4096)  # GPUs per NVLink domain (0: server)
    # per GPU per direction (0: the GPU's datasheet)
    nvlink_gbytes_s: Annotated[NonNegative, Field(le=L.NVLINK_GBYTES_S_MAX)] = 0.0
    # dense, per GPU (0: the GPU's datasheet)
    peak_tflops: Annotated[NonNegative, Field(le=L.PEAK_TFLOPS_MAX)] = 0.0
    # share of peak the parameter GEMMs reach (0: by GPU generation, precision and the
    # per-GPU GEMM shape, analysis/compute.py)
    compute_efficiency: Fraction = 0.0  # 0, or at least MIN_EFFICIENCY (checked below)
    # share of peak the attention kernels reach (0: the compute efficiency); attention is
    # its own kernel (FlashAttention), slower than the GEMMs on some GPUs
    attention_efficiency: Fraction = 0.0  # 0, or at least MIN_EFFICIENCY (checked below)
    # width of the attention products per token (heads x head size; 0: the hidden width);
    # DeepSeek-V3's MLA: 128 heads of 192 (query-key) and 128 (value), 20,480 on average
    attention_width: int = Field(default=0, ge=0, le=10_000_000)
    # share of the GPU's SMs computing while communication kernels hold the others
    # (DeepSeek-V3 dedicates 20 of an H800's 132 SMs to communication, arXiv 2412.19437, 3.2.2)
    compute_sm_share: Annotated[float, Field(gt=0, le=1)] = 1.0
    # how context parallelism cuts a sequence: balanced, 2 x cp chunks with rank i holding
    # chunks i and 2cp-1-i (Llama 3, Megatron-LM), or contiguous, cp pieces in order (the
    # last rank's causal attention is (2cp-1)/cp of the mean)
    cp_split: Literal["balanced", "contiguous"] = "balanced"
    # measured compute time per step (0: from the FLOPs)
    compute_s: Annotated[NonNegative, Field(le=L.COMPUTE_S_MAX)] = 0.0
    # overlap: share of each kind of communication hidden behind compute
    overlap_dp: Fraction = 0.8
    overlap_tp: Fraction = 0.0
    overlap_pp: Fraction = 0.5
    overlap_ep: Fraction = 0.3
    overlap_cp: Fraction = 0.5
    placement: Placement = "contiguous"
    # a run of this many billion tokens (0: not asked)
    train_tokens_b: Annotated[NonNegative, Field(le=L.TRAIN_TOKENS_B_MAX)] = 0.0
    # pipeline schedule: 1F1B, interleaved (``interleave`` virtual stages per GPU),
    # zero-bubble (ZB-H1) or DualPipe
    schedule: Schedule = "1f1b"
    # NCCL as it runs: IB SHARP only with NCCL_COLLNET_ENABLE=1 and the SHARP plugin (NCCL
    # init.cc keeps CollNet off otherwise); ring channels per NIC and queue pairs per
    # connection (NCCL_IB_QPS_PER_CONNECTION) set how many flows ECMP hashes
    ib_sharp: bool = False
    channels_per_nic: int = Field(default=2, ge=1, le=64)
    qps_per_connection: int = Field(default=1, ge=1, le=128)

    @model_validator(mode="before")
    @classmethod
    def _interleave_means_interleaved(cls, data: Any) -> Any:
        # files saved before the schedule field: an interleave above 1 meant interleaved
        # (only a whole number is read here; anything else is left to the field's own check)
        v = data.get("interleave", 1) if isinstance(data, dict) else 1
        if isinstance(data, dict) and "schedule" not in data and \
                type(v) is int and v > 1:
            return {**data, "schedule": "interleaved"}
        return data

    @model_validator(mode="after")
    def _efficiencies_are_shares(self) -> Workload:
        # a GPU at 1e-300 of its peak gives a step of infinite seconds and an MFU of NaN
        if 0 < self.compute_efficiency < MIN_EFFICIENCY:
            raise ValueError(f"compute_efficiency: 0 (by GPU generation, precision and GEMM "
                             f"shape) or from {MIN_EFFICIENCY} to 1")
        if 0 < self.attention_efficiency < MIN_EFFICIENCY:
            raise ValueError(f"attention_efficiency: 0 (the compute efficiency) or from "
                             f"{MIN_EFFICIENCY} to 1")
        return self

    @property
    def bytes_per_element(self) -> int:
        return PRECISION_BYTES[self.precision]

    @property
    def active_params(self) -> float:
        return (self.active_params_b or self.params_b) * 1e9

    @property
    def is_moe(self) -> bool:
        return self.experts > 1 and self.top_k > 0


class Economics(_Frozen):
    # Bounded by what the domain allows (core/limits.py): past these a figure is a typo, and
    # 1e308 would print inf and nan; a free GPU hour would make every break-even infinite.
    gpu_hour_usd: Annotated[float, Field(ge=L.GPU_HOUR_USD_MIN, le=L.GPU_HOUR_USD_MAX,
                                         allow_inf_nan=False)] = 2.0
    run_days: Annotated[NonNegative, Field(le=L.RUN_DAYS_MAX)] = 30.0
    years: Annotated[Positive, Field(le=L.YEARS_MAX)] = 3.0
    usd_per_kwh: Annotated[NonNegative, Field(le=L.USD_PER_KWH_MAX)] = 0.10
    pue: Annotated[float, Field(ge=1, le=5)] = 1.3
    network_load: Fraction = 0.8  # average share of nameplate power the network draws
    support_fraction: Annotated[float, Field(ge=0, le=2)] = 0.15  # of capex, per year
    usd_per_ru_month: Annotated[NonNegative, Field(le=L.USD_PER_RU_MONTH_MAX)] = 0.0
    include_servers: bool = False
    # tuning and validation of the transport (RoCE's is the articles' main risk); 0: the
    # transport's default
    tuning_weeks: Annotated[NonNegative, Field(le=L.TUNING_WEEKS_MAX)] = 0.0
    tuning_usd_per_week: Annotated[NonNegative, Field(le=L.TUNING_USD_PER_WEEK_MAX)] = 0.0
    availability: Annotated[float, Field(gt=0, le=1)] = 0.95
    # answers the decision rules need that no design shows
    team_tunes_roce: bool = False
    growth_expected: bool = False
    avoid_lock_in: bool = False


class DecisionSettings(_Frozen):
    workload: Workload = Field(default_factory=Workload)
    economics: Economics = Field(default_factory=Economics)


LLAMA3 = "Llama 3 405B, arXiv 2407.21783 Table 4"


def one_layer_chunks(layers: int, pp: int, emptied: int = 2) -> int:
    """Virtual stages per pipeline rank when every model chunk holds one Transformer layer.

    Llama 3 takes one layer each from the first and the last stages so that "the first model
    chunk on the first stage has only the embedding, and the last model chunk on the last stage
    has only output projection and loss" (arXiv 2407.21783, 3.3.2): removing one layer empties a
    chunk, so a chunk is one layer and the pipeline holds layers + 2 chunks, V of them per rank.
    """
    chunks = layers + emptied
    if chunks % pp:
        raise WorkloadError(f"workload.pp: {layers} layers + {emptied} do not split into {pp} "
                            "stages of one-layer chunks")
    return chunks // pp


LLAMA3_V = one_layer_chunks(126, 16)  # 8 virtual stages: (126 + 2) / 16
# Llama 3 405B: 128 attention heads, 8 key/value heads (arXiv 2407.21783, Table 3), so K and V
# are 1/16 of the hidden width each
LLAMA3_KV = 8 / 128
# FlashAttention-2 on H100, forward and backward: up to 335 TFLOPs/s of 989 (Dao, arXiv
# 2307.08691, 4.1); the attention kernel of the Llama 3 era (FlashAttention-3, written for
# Hopper, came out with the paper, arXiv 2407.08608)
FA2_H100 = round(335 / 989, 4)
LLAMA3_COMMON = {"params_b": 405, "layers": 126, "hidden": 16384, "kv_fraction": LLAMA3_KV,
                 "global_batch_tokens": 16 * 2**20, "tp": 8, "pp": 16,
                 "interleave": LLAMA3_V, "zero_stage": 1, "qps_per_connection": 16,
                 "attention_efficiency": FA2_H100,
                 # all-gather based CP: "the all-gather communication latency is exposed in
                 # the critical path" (arXiv 2407.21783, 3.3.2)
                 "overlap_cp": 0.0}
PRESETS: dict[str, Workload] = {
    "llama3-405b-8k": Workload(
        name="Llama 3 405B on 8,192 GPUs", source=LLAMA3 + " (430 TFLOPs/GPU, 43% MFU)",
        sequence=8192, gpus=8192, cp=1, dp=64, microbatches=32, **LLAMA3_COMMON),
    "llama3-405b-16k": Workload(
        name="Llama 3 405B on 16,384 GPUs",
        source=LLAMA3 + " (400 TFLOPs/GPU, 41% MFU; 15.6T tokens)",
        sequence=8192, gpus=16384, cp=1, dp=128, microbatches=16, train_tokens_b=15_600,
        **LLAMA3_COMMON),
    "llama3-405b-131k": Workload(
        name="Llama 3 405B, 131K context on 16,384 GPUs",
        source=LLAMA3 + " (380 TFLOPs/GPU, 38% MFU; CP16)",
        sequence=131_072, gpus=16384, cp=16, dp=8, microbatches=16, **LLAMA3_COMMON),
    "dense-70b-dp": Workload(
        name="Dense 70B, data parallel (FSDP)", source="Llama 2 70B shape, arXiv 2307.09288",
        params_b=70, layers=80, hidden=8192, sequence=4096, global_batch_tokens=4 * 2**20,
        gpus=1024, tp=8, pp=1, zero_stage=3),
    "deepseek-v3-like": Workload(
        name="DeepSeek-V3-like MoE", source="DeepSeek-V3, arXiv 2412.19437 (PP16, EP64, FP8)",
        params_b=671, active_params_b=37, layers=61, hidden=7168, experts=256, top_k=8,
        precision="fp8", sequence=4096, global_batch_tokens=15360 * 4096, gpus=2048, tp=1,
        pp=16, ep=64, microbatches=30, zero_stage=1, nvlink_domain=8, overlap_ep=0.8,
        schedule="dualpipe", attention_width=128 * (192 + 128) // 2,
        compute_sm_share=round(112 / 132, 4)),
}


def preset(name: str) -> Workload:
    try:
        return PRESETS[name]
    except KeyError:
        raise WorkloadError(f"--workload: unknown preset '{name}' (known: "
                            f"{', '.join(PRESETS)}, or a JSON file)") from None
