"""Fitting a workload to a design it does not fit (issue 27: a preset larger than the design
emptied the Estimate panel; issue 29: the default workload refused designs from 65,536 GPUs)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.core.analysis.fit import fit_workload, fittable
from designer.core.analysis.workload import PRESETS, Workload, WorkloadError


def test_a_llama3_preset_on_1024_gpus_keeping_the_global_batch():
    # Llama 3 405B on 8,192 GPUs: TP8 PP16 DP64, 16M tokens (arXiv 2407.21783 Table 4)
    f = fit_workload(PRESETS["llama3-405b-8k"], 1024, 8, keep="batch")
    w = f.workload
    assert (w.gpus, w.tp, w.pp, w.dp, w.global_batch_tokens) == (1024, 8, 16, 8, 16 * 2**20)
    assert any("8,192 -> 1,024" in c for c in f.changes)
    assert any("64 -> 8" in c for c in f.changes)


def test_keeping_the_per_gpu_batch_scales_the_global_batch():
    f = fit_workload(PRESETS["llama3-405b-8k"], 1024, 8, keep="per-gpu")
    # 16M tokens over 64 ranks = 32 sequences of 8,192 per rank; 8 ranks now
    assert f.workload.global_batch_tokens == 8 * 32 * 8192
    assert any("the same tokens per data-parallel rank" in c for c in f.changes)


def test_the_default_workload_scales_to_65536_gpus():
    f = fit_workload(Workload(), 65536, 8, keep="per-gpu")
    assert f.workload.global_batch_tokens == 8192 * 4096  # one sequence per rank, the least
    assert f.changed and Workload().global_batch_tokens == 16 * 2**20


def test_a_workload_that_fits_is_left_as_it_is():
    w = Workload()
    assert fit_workload(w, 1024, 8).workload is w and not fit_workload(w, 1024, 8).changed


def test_tensor_parallelism_is_kept_inside_the_scale_up_domain():
    f = fit_workload(Workload(tp=8), 64, 4, keep="batch")
    assert f.workload.tp == 4 and "tensor parallelism 8 -> 4" in f.changes[0]


def test_only_refusals_a_fit_can_mend_offer_it():
    assert fittable(WorkloadError("workload.gpus: 8,192 GPUs, but the design has 1,024"))
    assert not fittable(WorkloadError("workload.pp: 200 stages for 126 layers"))
    assert not fittable(ValueError("workload.gpus: x"))


@given(gpus=st.integers(1, 200_000), domain=st.sampled_from([1, 2, 4, 8, 72]),
       preset=st.sampled_from(sorted(PRESETS)), keep=st.sampled_from(["batch", "per-gpu"]))
def test_a_fitted_workload_always_runs(gpus, domain, preset, keep):
    """Whatever the size, the fitted workload's layout divides the job and has at least one
    sequence per data-parallel rank (what step.parallelism checks)."""
    w = PRESETS[preset]
    try:
        f = fit_workload(w, gpus, domain, keep=keep)
    except WorkloadError:
        assert gpus < (w.tp or min(domain, 8))  # not even one tensor-parallel group fits
        return
    x = f.workload
    tp = x.tp or min(domain, 8)
    job = x.gpus or gpus
    inner = tp * x.pp * x.cp
    assert job <= gpus and job % inner == 0 and domain % tp == 0
    dp = x.dp or job // inner
    assert x.global_batch_tokens >= dp * x.sequence
    assert (dp * x.cp) % x.ep == 0


@pytest.mark.parametrize("name", ["dgx-superpod-4su-ib-ndr.fabric.json"])
def test_estimate_fits_with_the_option_and_says_so(name, capsys):
    from designer.cli.main import main
    from designer.core.paths import projects_dir

    f = str(projects_dir() / name)
    assert main(["estimate", f, "--workload", "llama3-405b-8k"]) == 2
    assert "--fit batch or --fit per-gpu" in capsys.readouterr().err
    assert main(["estimate", f, "--workload", "llama3-405b-8k", "--fit", "batch",
                 "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["workload"]["gpus"] == 1024
    assert any("8,192 -> 1,024" in c for c in j["workload_fitted"])
