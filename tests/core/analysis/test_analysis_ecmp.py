"""A ring under ECMP as NCCL's channels and queue pairs meet the hashed paths (Meta, SIGCOMM
2024: more queue pairs per connection spread a collective over more paths)."""

from __future__ import annotations

import functools

import pytest

from designer.core.analysis.ecmp import ring_under_ecmp
from designer.core.analysis.estimates import CollectiveRequest, estimate
from designer.core.analysis.workload import Workload, WorkloadError
from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from designer.core.paths import projects_dir
from designer.core.solver import solve
from designer.core.traffic.load import collective_slowdown


@functools.cache
def tor_fabric():
    """RoCE fat tree, two servers under each ToR (the Llama 3 cluster's 16 GPUs per ToR)."""
    return generate(params_from_dict("fat-tree", {"gpus": 4096, "gear": "roce-400",
                                                  "servers_per_leaf": 2}))


def test_one_flow_per_connection_is_the_balls_into_bins_result():
    """One channel and one queue pair: every connection is one hashed flow, and the ring
    waits for the most loaded link, as the per-flow load model (``designer load``) says."""
    p = tor_fabric()
    one = ring_under_ecmp(p, channels_per_nic=1, qps=1, trials=3)
    assert one.slowdown == pytest.approx(
        collective_slowdown(p, pattern="ring", routing="ecmp", trials=3), rel=1e-6)
    assert one.slowdown > 2


def test_channels_and_queue_pairs_spread_the_ring():
    p = tor_fabric()
    s = [ring_under_ecmp(p, channels_per_nic=2, qps=q, trials=3).slowdown for q in (1, 4, 16)]
    assert s[0] > s[1] > s[2] >= 1.0
    assert s[2] < 1.2  # 32 flows per NIC hashed over the ToR's uplinks: nearly the ideal


def test_rail_rings_stay_on_their_rails():
    p = load_project(projects_dir() / "dgx-superpod-4su-roce-400.fabric.json")
    assert ring_under_ecmp(p).slowdown == pytest.approx(1.0)


def test_the_factor_scales_only_the_network_terms():
    p = tor_fabric()
    r = solve(p)
    w = Workload(tp=8)
    slow = ring_under_ecmp(p, trials=1).slowdown
    base = estimate(p, r, w)
    hashed = estimate(p, r, w, network_slowdown=slow, routing="ecmp")
    tp0 = next(x for x in base.step.parts if x.kind == "tp")
    tp1 = next(x for x in hashed.step.parts if x.kind == "tp")
    assert tp1.time_s == pytest.approx(tp0.time_s)  # NVLink only
    assert hashed.step.step_s > base.step.step_s


def test_bad_counts_are_refused():
    with pytest.raises(WorkloadError, match="at least 1"):
        ring_under_ecmp(tor_fabric(), qps=0)


@functools.cache
def meta_pod(ratio: str):
    """A Llama 3 AI zone as Meta built it: 3,072 H100, 8 x 400G RoCE per server, two servers
    under each RTSW, a deep-buffer spine (Gangidi et al., SIGCOMM 2024, section 3)."""
    return generate(params_from_dict("fat-tree", {
        "gpus": 3072, "gear": "roce-400", "placement": "tor", "servers_per_leaf": 2,
        "tiers": 2, "spine_switch": "j3ai-chassis", "oversubscription": ratio}))


def test_doubled_tor_uplinks_halve_the_collisions_a_ring_meets():
    """Meta doubled the RTSW uplinks (1:2) against ECMP collisions before E-ECMP and measured
    its queue-pair scaling on that fabric: up to 40% on all-reduce (SIGCOMM 2024; Meta
    engineering blog 2024-08-05). Like for like, ours is 1 QP 2.33x, 16 QPs 1.00x (+133%) for
    the pod's whole ring: still above the published gain (reported as a miss), but the 1:2
    pod collides less than the 1:1 one and 16 queue pairs take it to the ideal."""
    one_one = ring_under_ecmp(meta_pod("1:1"), qps=1)
    one_two = ring_under_ecmp(meta_pod("1:2"), qps=1)
    sixteen = ring_under_ecmp(meta_pod("1:2"), qps=16)
    assert one_two.slowdown < one_one.slowdown
    assert sixteen.slowdown == pytest.approx(1.0, abs=0.01)
    assert one_two.servers == 384


def test_a_job_rings_only_its_own_servers():
    """A job's ring crosses only its own ToRs, so a small job meets fewer collisions: on the
    1:2 pod, 32 GPUs (two ToRs) slow less than all 3,072; one server needs no network."""
    p = meta_pod("1:2")
    small = ring_under_ecmp(p, qps=1, gpus=32)
    whole = ring_under_ecmp(p, qps=1)
    assert small.servers == 4 and small.flows == 4 * 8 * 2
    assert 1.0 < small.slowdown < whole.slowdown
    alone = ring_under_ecmp(p, qps=1, gpus=8)
    assert alone.slowdown == 1.0 and alone.flows == 0 and alone.servers == 1
    assert "a ring over 4 servers" in small.label()


def ring_all_reduce_us(project, gpus: int, qps: int, algorithm: str = "ring") -> float:
    f = ring_under_ecmp(project, qps=qps, gpus=gpus, tree=algorithm != "ring")
    w = Workload(gpus=gpus, tp=8, global_batch_tokens=16 * 2**20)
    e = estimate(project, solve(project), w, network_slowdown=f.slowdown, routing="ecmp",
                 tree_slowdown=f.tree_slowdown,
                 requests=(CollectiveRequest("all-reduce", 8 * 2**30, "all", algorithm),))
    return e.collectives[0].time_us


def test_all_reduce_gain_from_queue_pairs_like_for_like_with_meta():
    """Meta: E-ECMP with queue-pair scaling improved AllReduce by up to 40% over baseline ECMP
    (SIGCOMM 2024; engineering blog 2024-08-05), on RTSWs with doubled uplinks. The collective
    itself, not the network factor: an NVLink-bound ring hides part of the slowdown. An 8 GiB
    ring all-reduce on 32 GPUs of the 1:2 pod gains +44% from 1 to 16 queue pairs (published up
    to 40%); the whole 3,072-GPU ring gains more (+124%, NCCL choosing the protocol from its
    own model: LL128 for both), a miss the docs report."""
    p = meta_pod("1:2")
    small = ring_all_reduce_us(p, 32, 1) / ring_all_reduce_us(p, 32, 16) - 1
    whole = ring_all_reduce_us(p, 3072, 1) / ring_all_reduce_us(p, 3072, 16) - 1
    assert 0.30 < small < 0.60
    assert whole > small


def test_all_reduce_gain_with_nccls_own_choice():
    """An 8 GiB all-reduce over 16 H100 nodes run as NVLS-tree (NCCL's model puts it within
    a few per cent of the ring there), whose double binary tree puts four flows on a NIC at
    a quarter of the line each: 1 -> 16 queue pairs gains +50% on 128 GPUs of the 1:2 pod
    (the ring: +60%); published up to 40%."""
    p = meta_pod("1:2")
    gain = (ring_all_reduce_us(p, 128, 1, "nvls-tree")
            / ring_all_reduce_us(p, 128, 16, "nvls-tree") - 1)
    ring_gain = ring_all_reduce_us(p, 128, 1) / ring_all_reduce_us(p, 128, 16) - 1
    assert 0.3 < gain < ring_gain
