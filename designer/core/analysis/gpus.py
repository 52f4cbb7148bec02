"""Per-GPU figures the estimates need, by product and generation.

Looked up by the server's ``gpu_model`` (the catalog field); a workload may override the peak
and the scale-up bandwidth. A model the table does not know is refused with a message naming
the field and the known models: estimating an unknown accelerator as some other GPU would be a
silent wrong answer.

Shape: compute (dense BF16 and FP8 peaks, no sparsity), the scale-up fabric (NVLink, AMD
Infinity Fabric/xGMI) as a per-GPU one-direction bandwidth, how many GPUs one scale-up domain
joins as the product ships (8 on an HGX/DGX or MI300 board, 72 in an NVL72 rack), whether
that fabric is switched and reduces in the switch (NVLink SHARP, "NVLS"), and the efficiency
factors NCCL's tuning model uses for the generation (``src/graph/tuning.cc``).
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.analysis.workload import WorkloadError

# NCCL src/graph/tuning.cc, ``nvlsEfficiency`` per compute-capability index.
NVLS_EFFICIENCY = {"hopper": 0.85, "blackwell": 0.74}
# NCCL tuning.cc ``perChMaxNVLSTreeBws`` (GB/s per channel, 2 nodes / more than 2 nodes) and
# ``perChMaxTreeBws`` (1 node / 2 nodes / more).
NVLS_TREE_MAX_CH = {"hopper": (57.7, 45.5), "blackwell": (96.0, 80.0)}
TREE_MAX_CH = {"ampere": (24.0, 23.6, 17.8), "hopper": (38.7, 41.4, 36.0),
               "blackwell": (70.0, 42.8, 24.0), "cdna": (38.7, 41.4, 36.0)}


@dataclass(frozen=True)
class GpuSpec:
    name: str
    vendor: str
    generation: str  # NCCL's tuning index: ampere, hopper, blackwell; cdna for AMD (RCCL)
    bf16_tflops: float  # dense, no sparsity
    fp8_tflops: float  # dense, no sparsity (0: no FP8 tensor cores)
    scaleup_gbytes_s: float  # per GPU, one direction, nominal (NVLink, xGMI)
    scaleup: str  # what the scale-up fabric is
    scaleup_domain: int  # GPUs one scale-up domain joins as shipped (8 board, 72 NVL72 rack)
    switched: bool  # a switch joins the domain (NVSwitch); False: a point-to-point mesh
    in_switch_reduction: bool  # NVLink SHARP (NVLS): the switch reduces
    ring_efficiency: float  # measured ring busbw over the nominal one-direction bandwidth
    source: str
    # what decides a GEMM's achieved share of peak by shape (compute.py): streaming
    # multiprocessors (AMD compute units) and HBM bandwidth (0: unknown). SMs from NVIDIA's
    # architecture papers (A100 108, H100/H200 SXM 132, B200 148, Blackwell Ultra 160), CUs from
    # AMD's CDNA 3 / CDNA 4 white papers (MI300X/MI325X 304, MI355X 256); TB/s from datasheets
    sms: int = 0
    hbm_tbytes_s: float = 0.0

    # names the estimates used before the scale-up fields were generalised
    @property
    def nvlink_gbytes_s(self) -> float:
        return self.scaleup_gbytes_s

    @property
    def nvls(self) -> bool:
        return self.in_switch_reduction

    @property
    def nvls_efficiency(self) -> float:
        return NVLS_EFFICIENCY.get(self.generation, 0.0) if self.in_switch_reduction else 0.0

    def peak_tflops(self, precision: str) -> float:
        """Dense peak for a workload's compute precision (FP8 where the GPU has it)."""
        if precision == "fp8" and self.fp8_tflops > 0:
            return self.fp8_tflops
        return self.bf16_tflops

    def domain(self, gpus_per_server: int) -> int:
        """GPUs per scale-up domain for servers of ``gpus_per_server``: a rack-scale domain
        (larger than a board) spans servers, a board's domain is the server."""
        return self.scaleup_domain if self.scaleup_domain > 8 else gpus_per_server


# Hopper: 8 x H100 ring busbw 360-370 GB/s of 450 GB/s one way (nccl-tests issues 212, 326).
HOPPER_RING = 0.82
# Blackwell: 4 x GB200 ring all-reduce busbw 680 GB/s at 8 GB of 900 GB/s one way (Azure
# AI-benchmarking-guide, ND_GB200_v6_results.md).
BLACKWELL_RING = 680 / 900
# AMD MI300 (gfx94x): RCCL counts 48 GB/s per direction per xGMI link of 64 nominal after
# protocol and error-correction overheads (ROCm/rccl issue 1210, maintainer).
CDNA_RING = 48 / 64

GPUS: dict[str, GpuSpec] = {
    "A100": GpuSpec("A100 SXM", "NVIDIA", "ampere", 312.0, 0.0, 300.0, "NVLink 3", 8, True,
                    False, HOPPER_RING,
                    "NVIDIA A100 datasheet: 312 TFLOPS BF16 dense, NVLink 600 GB/s",
                    sms=108, hbm_tbytes_s=2.039),
    "H100": GpuSpec("H100 SXM", "NVIDIA", "hopper", 989.0, 1979.0, 450.0, "NVLink 4", 8, True,
                    True, HOPPER_RING,
                    "NVIDIA H100 datasheet: 1,979 TFLOPS BF16 and 3,958 FP8 with sparsity "
                    "(half dense), NVLink 900 GB/s",
                    sms=132, hbm_tbytes_s=3.35),
    "H200": GpuSpec("H200 SXM", "NVIDIA", "hopper", 989.0, 1979.0, 450.0, "NVLink 4", 8, True,
                    True, HOPPER_RING,
                    "NVIDIA H200 datasheet: same compute and NVLink as H100",
                    sms=132, hbm_tbytes_s=4.8),
    "B200": GpuSpec("B200", "NVIDIA", "blackwell", 2250.0, 4500.0, 900.0, "NVLink 5", 8, True,
                    True, BLACKWELL_RING,
                    "NVIDIA DGX B200 datasheet: 72 PFLOPS FP8 training per 8 GPUs with "
                    "sparsity (4.5 dense per GPU), 2.25 PFLOPS BF16 dense, NVLink 1.8 TB/s",
                    sms=148, hbm_tbytes_s=8.0),
    "B300": GpuSpec("B300", "NVIDIA", "blackwell", 2250.0, 4500.0, 900.0, "NVLink 5", 8, True,
                    True, BLACKWELL_RING,
                    "NVIDIA HGX B300: 72 PFLOPS FP8 per 8 GPUs with sparsity, BF16 as B200; "
                    "NVLink 1.8 TB/s",
                    sms=160, hbm_tbytes_s=8.0),
    "GB200": GpuSpec("GB200", "NVIDIA", "blackwell", 2500.0, 5000.0, 900.0, "NVLink 5", 72,
                     True, True, BLACKWELL_RING,
                     "NVIDIA GB200 NVL72 datasheet: 360 PFLOPS BF16 and 720 FP8 per 72 GPUs "
                     "with sparsity (2.5 and 5 dense per GPU), NVLink 1.8 TB/s, 72-GPU domain",
                     sms=148, hbm_tbytes_s=8.0),
    "GB300": GpuSpec("GB300", "NVIDIA", "blackwell", 2500.0, 5000.0, 900.0, "NVLink 5", 72,
                     True, True, BLACKWELL_RING,
                     "NVIDIA GB300 NVL72 datasheet: 360 PFLOPS BF16 and 720 FP8/FP6 per 72 GPUs "
                     "with sparsity, as the GB200; NVLink 1.8 TB/s, 72-GPU domain",
                     sms=160, hbm_tbytes_s=8.0),
    # Rubin: NCCL's tuning tables have no Rubin index yet; Blackwell's stand in (assumption)
    "RUBIN": GpuSpec("Rubin", "NVIDIA", "blackwell", 8750.0, 17500.0, 1800.0, "NVLink 6", 72,
                     True, True, BLACKWELL_RING,
                     "NVIDIA Vera Rubin NVL72 (CES 2026, as SemiAnalysis summarised it): 35 "
                     "PFLOPS NVFP4 training per GPU, NVLink 6 3.6 TB/s (M); FP8 and BF16 "
                     "assumed 1/2 and 1/4 of FP4 as on Blackwell (no figure published)"),
    # AMD: 8 OAM GPUs in a full mesh of 7 Infinity Fabric links each; no in-switch reduction
    "MI300X": GpuSpec("MI300X", "AMD", "cdna", 1307.4, 2614.9, 448.0,
                      "Infinity Fabric (xGMI) mesh", 8, False, False, CDNA_RING,
                      "AMD Instinct MI300X datasheet: 1,307.4 TFLOPS BF16 and 2,614.9 FP8 "
                      "dense; 7 peer links of 128 GB/s bidirectional (64 one way) = 448",
                      sms=304, hbm_tbytes_s=5.3),
    "MI325X": GpuSpec("MI325X", "AMD", "cdna", 1307.4, 2614.9, 448.0,
                      "Infinity Fabric (xGMI) mesh", 8, False, False, CDNA_RING,
                      "AMD Instinct MI325X datasheet: compute and Infinity Fabric as MI300X "
                      "(1,307.4 TFLOPS BF16, 2,614.9 FP8 dense; 128 GB/s per link)",
                      sms=304, hbm_tbytes_s=6.0),
    "MI355X": GpuSpec("MI355X", "AMD", "cdna", 2516.6, 5033.2, 537.6,
                      "Infinity Fabric (xGMI) mesh", 8, False, False, CDNA_RING,
                      "AMD Instinct MI355X datasheet: 2.5 PFLOPS BF16 and 5.0 FP8 dense; 7 "
                      "peer links of 153.6 GB/s bidirectional (76.8 one way) = 537.6",
                      sms=256, hbm_tbytes_s=8.0),
    # Helios: 72 MI455X joined by UALink over Ethernet switches (no in-switch reduction known)
    "MI455X": GpuSpec("MI455X", "AMD", "cdna", 10000.0, 20000.0, 1800.0,
                      "UALink over Ethernet", 72, True, False, CDNA_RING,
                      "AMD MI450 series preview (2025): 40 PFLOPS FP4 and 20 FP8 per GPU, 3.6 "
                      "TB/s of UALink per GPU (M); BF16 assumed half of FP8 (no figure "
                      "published)"),
}


class UnknownGpu(WorkloadError):
    """A server whose GPU the estimates have no figures for (names the field)."""


def known_models() -> str:
    return ", ".join(GPUS)


def find_gpu(gpu_model: str) -> GpuSpec | None:
    """The spec whose key appears in ``gpu_model`` (longest key first: GB200 before B200)."""
    text = gpu_model.upper().replace(" ", "")
    for key in sorted(GPUS, key=len, reverse=True):
        if key in text:
            return GPUS[key]
    return None


def gpu_spec(gpu_model: str, field: str = "server.gpu_model") -> GpuSpec:
    """The known GPU in ``gpu_model``; an ``UnknownGpu`` naming ``field`` otherwise."""
    spec = find_gpu(gpu_model)
    if spec is None:
        raise UnknownGpu(
            f"{field}: '{gpu_model}' is not a GPU the estimates know (known: {known_models()});"
            " pick a server with one of them, or set workload.peak_tflops and "
            "workload.nvlink_gbytes_s to estimate this one with your own figures")
    return spec


def custom_gpu(name: str, peak_tflops: float, scaleup_gbytes_s: float) -> GpuSpec:
    """An accelerator described only by the workload's own figures: no in-switch reduction."""
    return GpuSpec(name or "accelerator", "", "", peak_tflops, 0.0, scaleup_gbytes_s,
                   "scale-up fabric", 8, True, False, HOPPER_RING,
                   "the workload's peak_tflops and nvlink_gbytes_s (no published figures used)")
