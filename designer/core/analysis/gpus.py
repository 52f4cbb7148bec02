"""Per-GPU figures the estimates need: dense BF16 and FP8 peaks and scale-up bandwidth per
direction.

Looked up by the server's ``gpu_model``; a workload may override them. Scale-up figures are the
datasheets' per-GPU totals halved (one direction), before protocol efficiency; a server whose
catalog entry names its scale-up domain (``ServerSpec.scale_up``) takes the domain's figure
instead. Dense peaks are half the datasheets' "with sparsity" figures where only those are
published.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuSpec:
    name: str
    bf16_tflops: float  # dense, no sparsity
    nvlink_gbytes_s: float  # per GPU, one direction (NVLink, xGMI or UALink)
    nvls: bool  # NVLink SHARP (in-switch reduction) inside the NVLink domain
    source: str
    fp8_tflops: float = 0.0  # dense, no sparsity (0: no FP8)


GPUS: dict[str, GpuSpec] = {
    "A100": GpuSpec("A100 SXM", 312.0, 300.0, False,
                    "NVIDIA A100 datasheet: 312 TFLOPS BF16 dense, NVLink 600 GB/s"),
    "H100": GpuSpec("H100 SXM", 989.0, 450.0, True,
                    "NVIDIA H100 datasheet: 1,979 TFLOPS BF16 and 3,958 FP8 with sparsity, "
                    "NVLink 900 GB/s", 1979.0),
    "H200": GpuSpec("H200 SXM", 989.0, 450.0, True,
                    "NVIDIA H200 datasheet: same compute and NVLink as H100", 1979.0),
    "B200": GpuSpec("B200", 2250.0, 900.0, True,
                    "NVIDIA DGX B200 datasheet: 2.25 PFLOPS BF16 dense per GPU (72 PFLOPS FP8 "
                    "training per 8 GPUs, with sparsity), NVLink 1.8 TB/s", 4500.0),
    "B300": GpuSpec("B300", 2250.0, 900.0, True,
                    "NVIDIA Blackwell Ultra announcement: NVLink 1.8 TB/s; BF16 and FP8 as "
                    "B200 (M)", 4500.0),
    "GB200": GpuSpec("GB200", 2500.0, 900.0, True,
                     "NVIDIA GB200 NVL72 datasheet: 360 PFLOPS BF16 and 720 FP8 per 72 GPUs "
                     "with sparsity (2.5 and 5 PFLOPS dense per GPU), NVLink 1.8 TB/s", 5000.0),
    "GB300": GpuSpec("GB300", 2500.0, 900.0, True,
                     "NVIDIA GB300 NVL72 datasheet: 360 PFLOPS BF16 and 720 FP8/FP6 per 72 GPUs "
                     "with sparsity, as the GB200; NVLink 1.8 TB/s", 5000.0),
    "RUBIN": GpuSpec("Rubin", 8750.0, 1800.0, True,
                     "NVIDIA Vera Rubin NVL72 (CES 2026): 35 PFLOPS NVFP4 training per GPU, "
                     "NVLink 6 3.6 TB/s (M); FP8 and BF16 assumed 1/2 and 1/4 of FP4 as on "
                     "Blackwell (no figure published)", 17500.0),
    "MI300X": GpuSpec("MI300X", 1307.4, 448.0, False,
                      "AMD Instinct MI300X data sheet: 1,307.4 TFLOPS BF16 and 2,614.9 FP8 "
                      "dense, 7 Infinity Fabric links of 128 GB/s (896 GB/s)", 2614.9),
    "MI325X": GpuSpec("MI325X", 1307.4, 448.0, False,
                      "AMD Instinct MI325X data sheet: the MI300X's compute and Infinity Fabric",
                      2614.9),
    "MI355X": GpuSpec("MI355X", 2500.0, 537.6, False,
                      "AMD Instinct MI355X launch (The Register, 2025-06-12): 2.5 PFLOPS BF16 "
                      "and 5 PFLOPS FP8 dense, 7 Infinity Fabric links of 153.6 GB/s (M)", 5000.0),
    "MI455X": GpuSpec("MI455X", 10000.0, 1800.0, False,
                      "AMD MI450 series preview: 40 PFLOPS FP4 and 20 FP8 per GPU, UALink 3.6 "
                      "TB/s (M); BF16 assumed half of FP8 (no figure published)", 20000.0),
}
DEFAULT_GPU = GPUS["H100"]


def gpu_spec(gpu_model: str) -> GpuSpec:
    """The spec whose key appears in ``gpu_model`` (longest first), else H100-class figures."""
    text = gpu_model.upper()
    for key in sorted(GPUS, key=len, reverse=True):
        if key in text:
            return GPUS[key]
    return DEFAULT_GPU
