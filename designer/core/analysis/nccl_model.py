"""NCCL's own cost-model constants and the pieces of its data movement the estimates follow.

Figures from NVIDIA/nccl ``src/graph/tuning.cc`` (``ncclTunerConstantsDefaults``,
``ncclTopoTuneModel``, ``ncclTopoGetAlgoTime``), ``src/include/collectives.h`` (chunk and
slice steps), ``src/init.cc`` (buffer sizes; CollNet off unless ``NCCL_COLLNET_ENABLE=1``) and
``src/transport/net_ib/connect.cc`` (``NCCL_IB_QPS_PER_CONNECTION`` default 1). Latencies in
microseconds, bandwidths in GB/s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PROTOCOLS = ("LL", "LL128", "Simple")
# baseLatencies {LL, LL128, Simple}
BASE_US = {"tree": (6.8, 14.0, 8.4), "ring": (6.6, 14.0, 8.4), "collnet": (0.0, 0.0, 0.0),
           "nvls": (0.0, 0.0, 0.0), "nvls-tree": (0.0, 0.0, 0.0)}
# hwLatencies per step: NVLink and network, {LL, LL128, Simple}
NVL_US = {"tree": (0.6, 1.25, 4.0), "ring": (0.6, 1.9, 3.4), "collnet": (0.0, 0.0, 3.7),
          "nvls": (0.0, 0.0, 25.0), "nvls-tree": (0.0, 0.0, 25.0)}
NET_US = {"tree": (5.0, 8.5, 14.0), "ring": (2.7, 4.0, 14.0), "collnet": (0.0, 0.0, 31.0),
          "nvls": (0.0, 0.0, 18.0), "nvls-tree": (0.0, 0.0, 20.9)}
NET_OVERHEAD_US = 1.0  # getNetOverhead (Intel x86 host); x3 for Simple on inter-node rings
RING_PLATEAU = 1.4  # ring Simple all-reduce across nodes (compute capability 8.0 and later)
# Bus-bandwidth refinements: LL moves 8 bytes per 16, LL128 120 per 128 (taken 0.92), tree
# all-reduce 0.92 of the ring's, CollNet Direct on Hopper and later 0.85.
PROTO_BW = (0.5, 0.92, 1.0)
TREE_BW = 0.92
COLLNET_HOPPER = 0.85
# llMaxBws: single node by GPU generation, several nodes by host CPU (Intel taken); per
# 1 node / 2 nodes / more.
LL_MAX = {"ampere": (87.7, 22.5, 19.0), "hopper": (141.0, 45.0, 35.0),
          "blackwell": (282.0, 90.0, 70.0), "cpu": (39.0, 39.0, 20.4)}
RING_LL128_MAX_CH = {"ampere": 20.0, "hopper": 36.7, "blackwell": 40.0}
TREE_LL128_MAX_CH = {"ampere": (20.0, 20.0, 20.0), "hopper": (36.7, 36.7, 29.0),
                     "blackwell": (55.6, 31.67, 20.0)}
# Trees off the model at medium sizes: NCCL's correction per protocol, powers of two from
# 64 B (index log2(bytes / 64)), to 256 MiB.
TREE_CORRECTION = np.array([
    [1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
     1.0, 1.0, 1.0],
    [1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9,
     1.0, 1.0, 1.0],
    [.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9,
     .9, .9]])
# Simple protocol: 4 MiB buffer in NCCL_STEPS = 8 steps; a ring all-reduce chunk is 4 steps
# (2 MiB), a slice 2 steps (1 MiB). LL and LL128 flag every 8 or 128 bytes, so a receiver
# forwards as data arrives: their pipeline has no slice to wait for.
SIMPLE_CHUNK = 2 * 2**20
SIMPLE_SLICE = 2**20
LL_CHUNK = (32 * 2**10, 600 * 2**10)  # LL, LL128 data per channel-step
# NVLS (NVLink SHARP) as NCCL's tuning models it (src/graph/search.cc, tuning.cc): one
# channel per head GPU, at most NCCL_MAX_NVLS_ARITY (32, src/include/device.h); each channel
# moves a speed from the generation's table of intra-node speeds (search.cc
# sm90SpeedArrayIntra / sm100SpeedArrayIntra, GB/s), the highest one the GPU's NVLink carries
# for all channels plus its own head's second pass: speed x (channels + 1) <= the GPU's
# NVLink bandwidth as NCCL counts it (topo.h: 20.6 GB/s per NVLink 4 link of 25, 40.1 per
# NVLink 5 link of 50). All-reduce bus bandwidth is then channels x speed x nvlsEfficiency x
# (channels - 1)/channels x 2 (tuning.cc: "AllReduce pipelines two operations").
NVLS_MAX_ARITY = 32
NVLS_SPEEDS = {"hopper": (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0),
               "blackwell": (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0,
                             18.0)}
NVLINK_NCCL_SHARE = {"hopper": 20.6 / 25, "blackwell": 40.1 / 50}
# Defaults a workload can change
CHANNELS_PER_NIC = 2  # ring channels per NIC: one per NIC, doubled in ncclTopoPostset
QPS_PER_CONNECTION = 1  # NCCL_IB_QPS_PER_CONNECTION


@dataclass(frozen=True)
class Tuning:
    """One library's cost-model constants for a GPU generation: latencies (us) per algorithm
    and protocol {LL, LL128, Simple}, and bandwidth ratios per protocol (0: not used)."""

    library: str
    base: dict[str, tuple[float, float, float]]
    nvl: dict[str, tuple[float, float, float]]  # per step on the scale-up fabric
    net: dict[str, tuple[float, float, float]]  # per step across the network
    ring_ratio: tuple[float, float, float]
    tree_ratio: tuple[tuple[float, float, float], tuple[float, float, float]]  # 2 / >2 nodes
    ring_plateau: float  # NCCL's latency factor on multi-node ring Simple all-reduce


NCCL = Tuning("NCCL", BASE_US, NVL_US, NET_US, (1.0, 1.0, 1.0),
              ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0)), RING_PLATEAU)
# RCCL (ROCm/rccl src/graph/tuning.cc) for MI300-class GPUs: the 8-GPU xGMI mesh topologies
# of src/graph/rome_models.cc choose tuning model 5. Base latencies 12 / 12 / 17 us for ring
# and tree; per step on xGMI ring 0.8 / - / 2.1, tree 0.9 / - / 2.3; across the network ring
# 9.5 / - / 320, tree 10.5 / - / 25. Bandwidth ratios: LL128 off (0), ring LL 0.08 (before
# the 0.5 all LL pays), tree LL 0.06 and Simple 0.11 on 2 nodes, 0.59 on more. RCCL has no
# ring plateau factor (that branch is NVIDIA-only). Its per-size correction tables are
# selection heuristics fitted so the argmin picks the measured best, not times: left out.
RCCL_MI300 = Tuning(
    "RCCL",
    {"tree": (12.0, 12.0, 17.0), "ring": (12.0, 12.0, 17.0), **{
        k: BASE_US[k] for k in ("collnet", "nvls", "nvls-tree")}},
    {"tree": (0.9, 0.0, 2.3), "ring": (0.8, 0.0, 2.1), **{
        k: NVL_US[k] for k in ("collnet", "nvls", "nvls-tree")}},
    {"tree": (10.5, 0.0, 25.0), "ring": (9.5, 0.0, 320.0), **{
        k: NET_US[k] for k in ("collnet", "nvls", "nvls-tree")}},
    (0.08, 0.0, 1.0), ((0.06, 0.0, 0.11), (0.06, 0.0, 0.59)), 1.0)


def tuning(generation: str) -> Tuning:
    """The collective library's constants for a GPU generation: RCCL's on AMD (cdna)."""
    return RCCL_MI300 if generation == "cdna" else NCCL


def nvls_channels(gpus: int) -> int:
    return max(2, min(NVLS_MAX_ARITY, gpus))


def nvls_channel_speed(generation: str, nvlink_nominal: float, channels: int) -> float:
    """GB/s one NVLS channel moves (see NVLS_SPEEDS): the highest table speed whose load on
    one GPU's NVLink, channels + 1 passes, fits what NCCL counts that NVLink to carry."""
    speeds = NVLS_SPEEDS.get(generation, NVLS_SPEEDS["hopper"])
    carry = nvlink_nominal * NVLINK_NCCL_SHARE.get(generation, NVLINK_NCCL_SHARE["hopper"])
    return next((x for x in speeds if x * (channels + 1) <= carry), speeds[-1])


def node_index(nodes: int) -> int:
    """NCCL's table column: one node, two nodes, more."""
    return 0 if nodes <= 1 else 1 if nodes == 2 else 2


def tree_correction(sizes: np.ndarray, proto: int, limit: int = 23) -> np.ndarray:
    """The per-size factor on tree bandwidth (1 past the table)."""
    with np.errstate(divide="ignore"):
        idx = np.floor(np.log2(np.maximum(sizes, 1) / 64)).astype(np.int64)
    out = np.ones(sizes.shape)
    ok = (idx >= 0) & (idx < limit)
    out[ok] = TREE_CORRECTION[proto][idx[ok]]
    return out


def ring_pipeline(sizes: np.ndarray, ranks: int, steps: int, channels: int, bw_ch: float,
                  hop_us: float, proto: int) -> np.ndarray:
    """Seconds for a ring's ``steps`` steps over ``ranks``, its bytes split over ``channels``.

    The ring is a cycle of chunks: a rank forwards a slice as soon as it has arrived and
    reduced, and every rank works on its own chunk at once, so one step lasts the longer of a
    chunk's transfer on its channel and a hop's latency plus one slice (the latency around the
    cycle shared by the chunks in it). Small messages pay ``steps`` latencies (NCCL's model);
    large ones move at the channel's bandwidth with the latency hidden under the transfer.
    """
    chunk = SIMPLE_CHUNK if proto == 2 else LL_CHUNK[proto]
    per = sizes / (ranks * channels)  # bytes of one rank's segment on one channel
    loops = np.maximum(1.0, np.ceil(per / chunk))
    c = per / loops
    slice_ = c / 2 if proto == 2 else 0.0 * c
    period = np.maximum(c / bw_ch, hop_us * 1e-6 + slice_ / bw_ch)
    return loops * steps * period
