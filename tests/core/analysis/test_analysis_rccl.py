"""AMD collectives with RCCL's own cost model (ROCm/rccl src/graph/tuning.cc, tuning model 5 of
the MI300 8-GPU xGMI mesh in src/graph/rome_models.cc), not NCCL's Hopper constants."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from designer.core.analysis import nccl_model as nm
from designer.core.analysis.collectives import Communicator, collective_rows, collective_times
from designer.core.analysis.fabric import fabric_view
from designer.core.analysis.gpus import GPUS
from designer.core.analysis.workload import Workload
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.paths import projects_dir
from designer.core.solver import solve

GiB = 2**30


@functools.cache
def mi300x():
    """The bundled AMD cluster (8-GPU xGMI servers, one 400G NIC per GPU) as MI300X."""
    p = load_project(projects_dir() / "amd-mi355x-1024-roce-400.fabric.json")
    v = fabric_view(p, solve(p), Workload(), p.catalog(builtin_catalog()))
    g = GPUS["MI300X"]
    return dataclasses.replace(v, gpu=g, nvlink_gbytes_s=g.scaleup_gbytes_s * g.ring_efficiency)


def test_the_library_follows_the_vendor():
    assert nm.tuning("cdna").library == "RCCL" and nm.tuning("hopper").library == "NCCL"
    assert nm.tuning("blackwell") is nm.NCCL


def test_one_node_large_messages_at_the_links_usable_rate():
    """AMD ROCm blog 'Understanding RCCL Bandwidth and xGMI Performance on MI300X' (2025): 48
    GB/s usable of each 64 GB/s xGMI link; an 8-GPU ring uses all 7 peers' links: 336 GB/s
    busbw at large sizes. Tolerance 3%."""
    r = collective_rows(mi300x(), "all-reduce", [8 * GiB], Communicator("tp", 8))[0]
    assert r.algorithm == "ring" and r.busbw_gbytes_s == pytest.approx(7 * 48, rel=0.03)


def test_one_node_small_messages_pay_rccls_latencies():
    """RCCL tuning model 5: ring LL base 12 us and 0.8 us per xGMI step (14 steps on 8 GPUs),
    LL128 off; NCCL's Hopper constants (6.6 + 0.6 per step) made a 1 KiB all-reduce 15 us."""
    t, algo, proto = collective_times(mi300x(), "all-reduce", np.array([1024.0, 2.0**20]),
                                      Communicator("tp", 8))
    assert algo[0] == "ring" and t[0] * 1e6 == pytest.approx(12 + 14 * 0.8, rel=0.02)
    assert proto[0] == "LL" and "LL128" not in set(proto)
    # 1 MiB: Simple's 17 us base and 2.1 us steps, well under the large-message rate
    r = collective_rows(mi300x(), "all-reduce", [2**20], Communicator("tp", 8))[0]
    assert r.time_us >= 17 + 14 * 2.1 and r.busbw_gbytes_s < 0.2 * 336


def test_two_nodes_are_nic_bound_not_capped_at_one_nodes_xgmi():
    """Across nodes each ring channel makes 7 xGMI hops and one NIC hop per node, so the xGMI
    links carry 7/8 of a GPU's ring bytes: 8 x 400G NICs (8 x 48 GB/s) bound the ring, not
    the one-node xGMI ring's 336 (the earlier cap)."""
    r = collective_rows(mi300x(), "all-reduce", [8 * GiB], Communicator("all", 16),
                        algorithm="ring")[0]
    assert 336 * 1.05 < r.busbw_gbytes_s <= 8 * 48
