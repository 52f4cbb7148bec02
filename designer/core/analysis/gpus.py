"""Per-GPU figures the estimates need: dense BF16 peak and NVLink bandwidth per direction.

Looked up by the server's ``gpu_model``; a workload may override both. NVLink figures are the
datasheets' per-GPU totals halved (one direction), before protocol efficiency.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuSpec:
    name: str
    bf16_tflops: float  # dense, no sparsity
    nvlink_gbytes_s: float  # per GPU, one direction
    nvls: bool  # NVLink SHARP (in-switch reduction) inside the NVLink domain
    source: str


GPUS: dict[str, GpuSpec] = {
    "A100": GpuSpec("A100 SXM", 312.0, 300.0, False,
                    "NVIDIA A100 datasheet: 312 TFLOPS BF16 dense, NVLink 600 GB/s"),
    "H100": GpuSpec("H100 SXM", 989.0, 450.0, True,
                    "NVIDIA H100 datasheet: 1,979 TFLOPS BF16 with sparsity, NVLink 900 GB/s"),
    "H200": GpuSpec("H200 SXM", 989.0, 450.0, True,
                    "NVIDIA H200 datasheet: same compute and NVLink as H100"),
    "B200": GpuSpec("B200", 2250.0, 900.0, True,
                    "NVIDIA DGX B200 datasheet: 2.25 PFLOPS BF16 dense per GPU, NVLink 1.8 TB/s"),
    "B300": GpuSpec("B300", 2250.0, 900.0, True,
                    "NVIDIA Blackwell Ultra announcement: NVLink 1.8 TB/s; BF16 as B200 (M)"),
    "GB200": GpuSpec("GB200", 2500.0, 900.0, True,
                     "NVIDIA GB200 NVL72 datasheet: 2.5 PFLOPS BF16 dense per GPU"),
}
DEFAULT_GPU = GPUS["H100"]


def gpu_spec(gpu_model: str) -> GpuSpec:
    """The spec whose key appears in ``gpu_model`` (longest first), else H100-class figures."""
    text = gpu_model.upper()
    for key in sorted(GPUS, key=len, reverse=True):
        if key in text:
            return GPUS[key]
    return DEFAULT_GPU
