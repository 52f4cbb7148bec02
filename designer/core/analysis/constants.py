"""Where each free constant of the step model comes from: a source, or an assumption said so.

The step time rests on a few figures no design shows: the share of peak the compute reaches,
the pipeline schedule and its virtual stages, and how much of each kind of communication hides
behind compute. Each value a workload holds is traced: to the preset it came from (with that
preset's source), to the default (with the default's reason), or to the user who set it.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.analysis.workload import PRESETS, Economics, Workload

SOURCE, ASSUMED, USER = "source", "assumption", "set here"
FIELDS = ("compute_efficiency", "attention_efficiency", "compute_sm_share", "schedule",
          "interleave", "microbatches", "overlap_dp", "overlap_tp", "overlap_pp",
          "overlap_ep", "overlap_cp", "qps_per_connection")

DEFAULTS: dict[str, tuple[str, str]] = {
    "compute_efficiency": (ASSUMED, "0: by GPU generation, precision and per-GPU GEMM shape "
                           "(tensor parallel splits): BF16 GEMMs 0.55 of peak (assumed; Llama 3 "
                           "405B's three rows reproduce), FP8 GEMMs 0.43 of the FP8 peak on "
                           "Hopper and 0.39 on Blackwell (Megatron-Bridge performance summary, "
                           "Llama 3 8B FP8), routed experts 0.45 of the dense rate; attention "
                           "stays BF16"),
    "compute_sm_share": (SOURCE, "every SM computes; communication kernels that hold SMs "
                         "lower it"),
    "attention_efficiency": (ASSUMED, "0: attention runs at the compute efficiency, as the "
                             "GEMMs do"),
    "schedule": (SOURCE, "1F1B, bubble (p-1)/m (Narayanan et al., SC'21, arXiv 2104.04473)"),
    "interleave": (SOURCE, "one model chunk per GPU: no interleaving"),
    "microbatches": (ASSUMED, "one micro-batch per step unless the workload says"),
    "overlap_dp": (ASSUMED, "gradient all-reduce overlaps the backward pass bucket by bucket "
                   "(PyTorch DDP/FSDP); the last buckets stay exposed: 0.8 assumed"),
    "overlap_tp": (SOURCE, "Megatron-LM's tensor-parallel all-reduces sit on the critical path "
                   "(Shoeybi et al., arXiv 1909.08053): nothing hidden"),
    "overlap_pp": (ASSUMED, "stage-boundary sends overlap the next micro-batch: 0.5 assumed"),
    "overlap_ep": (ASSUMED, "expert all-to-all partly overlapped by shared experts: 0.3 "
                   "assumed"),
    "overlap_cp": (ASSUMED, "ring attention passes K/V blocks while computing (Liu et al., "
                   "arXiv 2310.01889); 0.5 assumed"),
    "qps_per_connection": (SOURCE, "NCCL's default NCCL_IB_QPS_PER_CONNECTION=1 (one flow per "
                           "connection for ECMP to hash)"),
}
LLAMA3_QPS = (SOURCE, "16 flows between two GPUs, balanced by E-ECMP (arXiv 2407.21783, "
              "3.3.1)")

LLAMA3_PP = (SOURCE, "one Transformer layer per model chunk: taking one layer from the first "
             "and the last stages leaves their end chunks with only the embedding and only the "
             "output and loss (arXiv 2407.21783, 3.3.2), so V = (126 + 2) / PP16 = 8; bubble "
             "(PP-1)/(V M), as the paper states it")
LLAMA3_ATTENTION = (SOURCE, "FlashAttention-2 on H100, forward and backward: up to 335 of 989 "
                    "TFLOPS (Dao, arXiv 2307.08691, 4.1), the kernel of the Llama 3 era")
LLAMA3_CP = (SOURCE, "all-gather based context parallelism: 'the all-gather communication "
             "latency is exposed in the critical path' (arXiv 2407.21783, 3.3.2)")
PRESET_NOTES: dict[str, dict[str, tuple[str, str]]] = {
    "llama3-405b-8k": {
        "schedule": (SOURCE, "interleaved 1F1B (arXiv 2407.21783, 3.3.2)"),
        "interleave": LLAMA3_PP,
        "microbatches": (SOURCE, "16M tokens / 8,192 per sequence / DP64 = 32 sequences per "
                         "replica, one per micro-batch (arXiv 2407.21783, Table 4)"),
        "qps_per_connection": LLAMA3_QPS,
        "attention_efficiency": LLAMA3_ATTENTION,
        "overlap_cp": LLAMA3_CP,
    },
    "llama3-405b-16k": {
        "schedule": (SOURCE, "interleaved 1F1B (arXiv 2407.21783, 3.3.2)"),
        "interleave": LLAMA3_PP,
        "microbatches": (SOURCE, "16M tokens / 8,192 / DP128 = 16 sequences per replica "
                         "(arXiv 2407.21783, Table 4)"),
        "qps_per_connection": LLAMA3_QPS,
        "attention_efficiency": LLAMA3_ATTENTION,
        "overlap_cp": LLAMA3_CP,
    },
    "llama3-405b-131k": {
        "schedule": (SOURCE, "interleaved 1F1B (arXiv 2407.21783, 3.3.2)"),
        "interleave": LLAMA3_PP,
        "microbatches": (SOURCE, "16M tokens / 131,072 / DP8 = 16 sequences per replica "
                         "(arXiv 2407.21783, Table 4)"),
        "qps_per_connection": LLAMA3_QPS,
        "attention_efficiency": LLAMA3_ATTENTION,
        "overlap_cp": LLAMA3_CP,
    },
    "deepseek-v3-like": {
        "schedule": (SOURCE, "DualPipe (DeepSeek-V3, arXiv 2412.19437, 3.2.1)"),
        "overlap_ep": (SOURCE, "DualPipe overlaps dispatch and combine with computation, "
                       "'near-zero' all-to-all overhead (arXiv 2412.19437, 3.2.1); 0.8 keeps a "
                       "margin"),
        "microbatches": (ASSUMED, "not published per replica: 30 assumed"),
        "compute_sm_share": (SOURCE, "20 of an H800's 132 SMs run communication, 112 compute "
                             "(arXiv 2412.19437, 3.2.2)"),
    },
}


@dataclass(frozen=True)
class ConstantNote:
    field: str
    value: object
    kind: str  # source, assumption, set here
    note: str

    def to_json(self) -> dict:
        return {"field": self.field, "value": self.value, "kind": self.kind, "note": self.note}


def preset_of(w: Workload) -> str | None:
    return next((k for k, p in PRESETS.items() if p.name == w.name), None)


def constant_notes(w: Workload) -> tuple[ConstantNote, ...]:
    key = preset_of(w)
    preset = PRESETS.get(key) if key else None
    default = Workload()
    out = []
    for f in FIELDS:
        value = getattr(w, f)
        if preset is not None and getattr(preset, f) == value:
            kind, note = PRESET_NOTES.get(key or "", {}).get(f) or DEFAULTS[f]
            if f not in PRESET_NOTES.get(key or "", {}) and getattr(default, f) != value:
                kind, note = SOURCE, preset.source or preset.name
        elif getattr(default, f) == value:
            kind, note = DEFAULTS[f]
        else:
            kind, note = USER, "set in this project"
        out.append(ConstantNote(f, value, kind, note))
    return tuple(out)


def note_for(w: Workload, field: str) -> ConstantNote | None:
    return next((n for n in constant_notes(w) if n.field == field), None)


# The money defaults (``Economics``): each decides a price the estimate prints, so each says
# where it comes from; only the GPU-hour rate has a published figure behind it.
ECONOMICS_DEFAULTS: dict[str, tuple[str, str]] = {
    "gpu_hour_usd": (SOURCE, "$2 a GPU-hour: the H800 rental price DeepSeek-V3 costs its "
                     "training at (arXiv 2412.19437, section 1)"),
    "run_days": (ASSUMED, "a run of 30 days (what the fabric's slowdown is charged over)"),
    "years": (ASSUMED, "3 years of service for the TCO"),
    "usd_per_kwh": (ASSUMED, "$0.10 a kWh"),
    "pue": (ASSUMED, "PUE 1.3"),
    "network_load": (ASSUMED, "the network draws 0.8 of its nameplate power on average"),
    "support_fraction": (ASSUMED, "support contracts at 15% of capex a year"),
    "availability": (ASSUMED, "95% of GPU-hours available for work"),
    "usd_per_ru_month": (ASSUMED, "0: rack space not charged unless set"),
    "tuning_weeks": (ASSUMED, "unset: the transport's own weeks (designer transport gives "
                     "each, with why, all assumed)"),
    "tuning_usd_per_week": (ASSUMED, "unset: $10,000 a week, a network engineer's fully "
                            "loaded week"),
}


def economics_notes(econ: Economics, tuning_from_transport: bool = False
                    ) -> tuple[ConstantNote, ...]:
    """Each money default with its source, or 'set here' where the project changed it.
    ``tuning_from_transport``: the tuning figures were filled in from the transport (the
    project set none), so they are the defaults' and say so."""
    default = Economics()
    out = []
    for f, (kind, note) in ECONOMICS_DEFAULTS.items():
        value = getattr(econ, f)
        tuned = tuning_from_transport and f in ("tuning_weeks", "tuning_usd_per_week")
        if value != getattr(default, f) and not tuned:
            kind, note = USER, "set in this project"
        out.append(ConstantNote(f, value, kind, note))
    return tuple(out)
