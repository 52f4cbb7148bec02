"""GPU figures by generation: datasheets and NCCL's tuning tables, and unknown GPUs refused."""

from __future__ import annotations

import pytest

from designer.core.analysis.estimates import estimate
from designer.core.analysis.gpus import GPUS, UnknownGpu, find_gpu, gpu_spec
from designer.core.analysis.workload import Workload
from designer.core.catalog import ServerSpec, builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve


def test_lookup_prefers_the_longest_name():
    assert find_gpu("NVIDIA GB200 NVL72").name == "GB200"
    assert find_gpu("B200 SXM").name == "B200"
    assert find_gpu("AMD Instinct MI355X").name == "MI355X"
    assert find_gpu("H100 SXM").name == "H100 SXM"


def test_amd_figures():
    """AMD Instinct datasheets: MI300X/MI325X 1,307.4 TFLOPS BF16 and 2,614.9 FP8 dense, 7 peer
    Infinity Fabric links of 128 GB/s bidirectional; MI355X 2.5 PFLOPS BF16, 5.0 FP8, links of
    153.6 GB/s. A mesh, no switch: no in-switch reduction (no NVLS)."""
    for key in ("MI300X", "MI325X", "MI355X"):
        g = GPUS[key]
        assert not g.in_switch_reduction and not g.switched and g.vendor == "AMD"
        assert g.fp8_tflops == pytest.approx(2 * g.bf16_tflops, rel=1e-3)
    assert GPUS["MI300X"].scaleup_gbytes_s == pytest.approx(7 * 128 / 2)
    assert GPUS["MI355X"].scaleup_gbytes_s == pytest.approx(7 * 153.6 / 2)
    # RCCL counts 48 GB/s per direction per MI300 link of 64 (ROCm/rccl issue 1210)
    assert GPUS["MI300X"].ring_efficiency == pytest.approx(0.75)


def test_blackwell_is_not_hopper():
    """NCCL tuning.cc nvlsEfficiency: Hopper 0.85, Blackwell 0.74; 4 x GB200 ring all-reduce
    680 GB/s busbw of 900 (Azure ND GB200 v6 results) against Hopper's 360-370 of 450."""
    assert GPUS["H100"].nvls_efficiency == 0.85
    assert GPUS["B200"].nvls_efficiency == 0.74
    assert GPUS["B300"].ring_efficiency * 900 == pytest.approx(680)
    assert GPUS["GB200"].scaleup_domain == 72 and GPUS["GB200"].domain(4) == 72
    assert GPUS["H100"].domain(8) == 8
    assert GPUS["H100"].peak_tflops("fp8") == 1979 and GPUS["H100"].peak_tflops("bf16") == 989
    assert GPUS["A100"].peak_tflops("fp8") == 312  # no FP8 tensor cores: BF16 peak


def test_unknown_gpu_is_refused_naming_the_field():
    with pytest.raises(UnknownGpu, match=r"server 'x' gpu_model: 'Gaudi 3'.*known: A100, H100"):
        gpu_spec("Gaudi 3", "server 'x' gpu_model")


def test_estimate_refuses_an_unknown_gpu_and_accepts_own_figures():
    base = builtin_catalog()
    p = generate(params_from_dict("rail", {"sus": 1, "server": "gpu-server-8"}), base)
    r = solve(p)
    with pytest.raises(UnknownGpu, match=r"gpu_model: '8 x accelerator' is not a GPU"):
        estimate(p, r)
    e = estimate(p, r, Workload(tp=8, peak_tflops=1000, nvlink_gbytes_s=400))
    assert e.view.peak_tflops == 1000 and not e.view.gpu.in_switch_reduction
    assert isinstance(base.get("dgx-h100"), ServerSpec)


def test_a_user_catalog_mi355x_is_estimated_as_one():
    """The issue's case: an AMD MI355X server in a user catalog was estimated as an H100 with
    NVLink SHARP. Now it takes MI355X figures: no NVLS, xGMI mesh, its own peaks."""
    base = builtin_catalog()
    box = base.server("dgx-h100").model_copy(update={
        "id": "mi355x-8", "name": "8 x MI355X OAM", "gpu_model": "AMD Instinct MI355X"})
    cat = base.with_items([box])
    p = generate(params_from_dict("rail", {"sus": 1, "server": "mi355x-8"}), cat)
    e = estimate(p, solve(p, catalog=cat), Workload(tp=8), catalog=cat)
    assert e.view.gpu.name == "MI355X" and e.view.peak_tflops == pytest.approx(2516.6)
    tp = next(r for r in e.collectives if r.group == "tp")
    assert tp.algorithm != "nvls"
