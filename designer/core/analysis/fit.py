"""Fit a workload to a design it does not fit: a preset written for 8,192 GPUs opened on a
1,024-GPU design, or a batch too small for a larger design's data parallelism.

Two ways, as a user would choose them:

- ``keep="batch"``: the global batch stays; data parallelism shrinks or grows to the GPUs
  there are (and the batch is raised only when it is fewer than one sequence per rank);
- ``keep="per-gpu"``: the tokens each data-parallel rank trains on stay; the global batch
  follows the new data parallelism (how the default workload scales with the design).

Tensor, pipeline and context parallelism are kept when they fit and reduced (to a divisor
of the scale-up domain, or by halving the pipeline) only when they do not. The result says
every change in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from designer.core.analysis.workload import Workload, WorkloadError

Keep = Literal["batch", "per-gpu"]
# the fields a fit changes: a workload refused on one of these can be fitted
FITTABLE = ("workload.gpus", "workload.global_batch_tokens", "workload.tp", "workload.dp",
            "workload.ep")


def fittable(exc: Exception) -> bool:
    """Whether ``exc`` refuses a workload for something ``fit_workload`` changes."""
    return isinstance(exc, WorkloadError) and str(exc).startswith(FITTABLE)


@dataclass(frozen=True)
class Fitted:
    workload: Workload
    changes: tuple[str, ...]  # one sentence per changed field

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def _largest_divisor_at_most(n: int, limit: int) -> int:
    return max(d for d in range(1, max(1, min(n, limit)) + 1) if n % d == 0)


def fit_workload(w: Workload, gpus: int, domain: int, keep: Keep = "batch") -> Fitted:
    """``w`` made to run on a design of ``gpus`` GPUs in scale-up domains of ``domain``."""
    if gpus < 1:
        raise WorkloadError("design: it has no GPUs to fit a workload to")
    changes: list[str] = []
    upd: dict = {}
    tp = w.tp or min(domain, 8)
    if tp > domain or domain % tp:
        new = _largest_divisor_at_most(domain, tp)
        changes.append(f"tensor parallelism {tp} -> {new} (inside the {domain}-GPU "
                       "scale-up domain)")
        tp = new
        upd["tp"] = new
    pp, cp = w.pp, w.cp
    while tp * pp * cp > gpus and pp > 1:
        pp = max(1, pp // 2)
    if pp != w.pp:
        changes.append(f"pipeline stages {w.pp} -> {pp} (tp x pp x cp must fit {gpus:,} GPUs)")
        upd["pp"] = pp
    if tp * pp * cp > gpus:
        new_cp = _largest_divisor_at_most(cp, max(1, gpus // (tp * pp)))
        changes.append(f"context parallelism {cp} -> {new_cp}")
        cp = new_cp
        upd["cp"] = cp
    inner = tp * pp * cp
    old_job = w.gpus or gpus
    old_dp = w.dp or max(1, old_job // ((w.tp or min(domain, 8)) * w.pp * w.cp))
    job = min(old_job, gpus) // inner * inner
    if job < 1:
        raise WorkloadError(f"design: {gpus:,} GPUs cannot hold tp x pp x cp = {inner:,}")
    dp = job // inner
    if job != old_job or w.gpus > gpus:
        changes.append(f"GPUs in the job {old_job:,} -> {job:,} (the design has {gpus:,})")
    if w.gpus:
        upd["gpus"] = job
    if w.dp and w.dp != dp:
        upd["dp"] = dp
    if dp != old_dp:
        changes.append(f"data parallelism {old_dp:,} -> {dp:,}")
    ep = w.ep
    if (dp * cp) % ep or (w.is_moe and w.experts % ep):
        ep = max(d for d in range(1, min(ep, dp * cp) + 1)
                 if (dp * cp) % d == 0 and (not w.is_moe or w.experts % d == 0))
        changes.append(f"expert parallelism {w.ep} -> {ep}")
        upd["ep"] = ep
    batch, why = w.global_batch_tokens, ""
    if keep == "per-gpu" and dp != old_dp:
        # whole sequences per rank, as many as each rank had
        seqs = max(1, round(w.global_batch_tokens / old_dp / w.sequence))
        batch, why = seqs * w.sequence * dp, "the same tokens per data-parallel rank"
    if batch < dp * w.sequence:
        batch, why = dp * w.sequence, "one sequence per data-parallel rank, the least there is"
    if batch != w.global_batch_tokens:
        changes.append(f"global batch {w.global_batch_tokens:,} -> {batch:,} tokens ({why})")
        upd["global_batch_tokens"] = batch
    seqs_per_rank = batch // (dp * w.sequence)
    if w.microbatches > max(1, seqs_per_rank):
        upd["microbatches"] = max(1, seqs_per_rank)
        changes.append(f"micro-batches {w.microbatches} -> {upd['microbatches']} (sequences "
                       "per data-parallel rank)")
    if not upd:
        return Fitted(w, ())
    fitted = w.model_copy(update=upd)
    return Fitted(Workload.model_validate(fitted.model_dump()), tuple(changes))
