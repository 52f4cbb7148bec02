"""Failures on multi-plane designs are measured against the intact design (docs/traffic.md).

NVIDIA DGX SuperPOD B300 (Spectrum-X) RA, 'Network Fabrics': each GPU has 2 x 400GbE on two
planes; "a single switch failure ... will not lead to a catastrophic job abortion. Instead,
the application can continue to operate on 1/2 of the original bandwidth". A leaf of one plane
serves one rail of an SU, so its GPUs keep the other plane's port: half their bandwidth, and a
collective whose completion is its slowest connection takes twice as long. It read 1.000 and
$0 a day when each design's slowdown was taken against its own NIC-bound ideal (the failed
design's ideal is halved with its ports).
"""

from __future__ import annotations

import pytest

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from designer.core.traffic.failures import failed_project, n_minus_1, resolve, what_if
from designer.core.traffic.load import run_load

CAT = builtin_catalog()


def _compiled(**values):
    p = generate(params_from_dict("rail", values), CAT)
    return compile_project(p, p.catalog(CAT))


@pytest.fixture(scope="module")
def two_planes():
    return _compiled(gear="spectrum-x-800", servers=16)  # 128 GPUs, one partial SU


def test_two_plane_leaf_failure_halves_its_rail_and_costs_money(two_planes):
    c = two_planes
    (row,) = n_minus_1(c, "leaf", routing="adaptive", usd_per_gpu_hour=2.0)
    w = row.result
    assert w.stranded_gpus == 0  # every GPU keeps its port on the other plane
    assert w.load is not None and w.load.throughput["min"] == pytest.approx(0.5)
    assert w.slowdown == pytest.approx(2.0)
    # a job twice as slow does half its work on every GPU (the upper bound docs/traffic.md
    # states): 128 GPUs x 0.5 x 24 h x $2
    assert w.money_per_day_usd == pytest.approx(128 * 0.5 * 24 * 2.0)


def test_the_failed_design_alone_looks_ideal_the_mechanism(two_planes):
    """The failed design against its own ideal reads 1.0: why the intact one is the base."""
    c = two_planes
    _, lost = resolve(c, ["leaf:1"], 0)
    after = compile_project(failed_project(c, lost), c.catalog)
    own = run_load(after, "permutation", "adaptive")
    assert own.slowdown == pytest.approx(1.0)
    intact = run_load(c, "permutation", "adaptive")
    assert own.completion / intact.completion == pytest.approx(2.0)


def test_single_plane_leaf_failure_strands_and_the_rest_run_at_full_rate():
    c = _compiled(gear="ib-ndr", sus=1)  # DGX SuperPOD: a rail leaf serves NIC i of 32 DGX
    w = what_if(c, ["leaf:1"], routing="adaptive", usd_per_gpu_hour=2.0)
    assert w.stranded_gpus == 32
    assert w.slowdown == pytest.approx(1.0)
    assert w.money_per_day_usd == pytest.approx(32 * 24 * 2.0)


def test_single_plane_spine_failure_slows_against_the_intact_design():
    c = _compiled(gear="ib-ndr", sus=2)  # 16 leaves, 8 spines (DGX SuperPOD B200 RA, 2 SU)
    w = what_if(c, ["spine:1"], routing="adaptive", pattern="bisection",
                usd_per_gpu_hour=2.0)
    # 7 of 8 spines: a full cross-SU exchange runs at 7/8 of its rate
    assert w.bisection_retained == pytest.approx(7 / 8)
    assert w.slowdown == pytest.approx(8 / 7, rel=1e-6)
    assert w.money_per_day_usd == pytest.approx((1 - 7 / 8) * 512 * 24 * 2.0)
