"""NCCL's tree under ECMP, and what a channel finishing early does (Meta, SIGCOMM 2024: E-ECMP
with queue-pair scaling; NCCL src/graph/trees.cc and connect.cc for the trees' flows)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.core.analysis.collectives import Communicator, collective_times
from designer.core.analysis.ecmp import channel_flows, dtree_parents, ring_under_ecmp
from designer.core.analysis.fabric import fabric_view
from designer.core.analysis.workload import Workload
from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.solver.compile import compile_project
from designer.core.traffic.maxmin import max_min_fair
from designer.core.traffic.network import build_network
from designer.core.traffic.patterns import ring
from designer.core.traffic.routing import hash_salt, route_hashed


@functools.cache
def meta_pod():
    """3,072 H100, two servers per 8 x 400G RoCE ToR, RTSW uplinks doubled (1:2), deep-buffer
    spine (Gangidi et al., SIGCOMM 2024, section 3)."""
    return generate(params_from_dict("fat-tree", {
        "gpus": 3072, "gear": "roce-400", "placement": "tor", "servers_per_leaf": 2,
        "tiers": 2, "spine_switch": "j3ai-chassis", "oversubscription": "1:2"}))


def test_double_binary_tree_is_nccls():
    """The trees drawn in NCCL's src/graph/trees.cc: 12 ranks mirrored (second root 11, 3 under
    it, 7 and 1 under 3), 13 ranks shifted by one (second root 1, 9 under it, 5 and 0 under
    9)."""
    first, second = dtree_parents(12)
    assert first.tolist() == [-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 8, 10]
    assert second.tolist() == [1, 3, 1, 11, 5, 7, 5, 3, 9, 7, 9, -1]
    _, shifted = dtree_parents(13)
    assert shifted[1] == -1 and shifted[9] == 1 and shifted[5] == shifted[0] == 9


@given(st.integers(1, 600))
def test_each_tree_is_a_binary_tree_over_all_ranks(n):
    for parent in dtree_parents(n):
        assert (parent < 0).sum() == 1
        assert np.bincount(parent[parent >= 0], minlength=n).max(initial=0) <= 2
        depth = 0  # following parents from every rank reaches the root
        at = np.arange(n)
        while (at >= 0).any() and depth <= n:
            at = np.where(at >= 0, parent[np.maximum(at, 0)], -1)
            depth += 1
        assert depth <= int(np.log2(n)) + 2


def test_a_tree_node_has_four_flows_at_a_quarter_of_the_line():
    """Two channels per NIC on the two trees: an inner node of one tree sends to its parent and
    two children, and to its parent in the other, so NIC-bound each flow gets a quarter."""
    p = meta_pod()
    c = compile_project(p, p.catalog(builtin_catalog()))
    src, dst, _, n_ch, servers = channel_flows(c, ring(c), 128, 2, "tree")
    assert servers == 16 and n_ch == 16
    assert np.bincount(src).max() == 4 and np.bincount(dst).max() == 4
    # every edge of each tree both ways, per GPU position
    assert src.size == 2 * 2 * 15 * 8


def makespan_over_time(net, src, dst, chan, n_ch, demand, seed=0):
    """Every channel moves one byte; a channel that finishes frees its links and the rest are
    filled again (max-min fair at each completion). Returns (makespan, slowest initial)."""
    key = np.random.default_rng(seed).integers(0, np.iinfo(np.int64).max,
                                               size=src.size).astype(np.uint64)
    routed = route_hashed(net, src, dst, key, hash_salt(net, seed, False))
    com = chan[routed.flow]
    left = np.ones(n_ch)
    now, first = 0.0, None
    while (left > 1e-12).any():
        live = left[com] > 1e-12
        fair = max_min_fair(com[live], routed.link[live], routed.frac[live], demand,
                            net.link_cap, None, None)
        rate = fair.t * demand
        if first is None:
            first = 1.0 / rate.min()
        active = left > 1e-12
        dt = float((left[active] / rate[active]).min())
        left = np.where(active, np.maximum(left - rate * dt, 0.0), 0.0)
        left[active & (left < 1e-9 * rate * dt)] = 0.0
        now += dt
    return now, first


def test_a_channel_finishing_early_does_not_shorten_the_collective():
    """The slowest channel's bottleneck link is full of channels all at the slowest rate, so
    they end together: the time over a water-filling in time equals the slowest channel's
    bytes over its initial rate (the rule ``ring_under_ecmp`` uses)."""
    p = meta_pod()
    c = compile_project(p, p.catalog(builtin_catalog()))
    net = build_network(c)
    for kind in ("ring", "tree"):
        src, dst, chan, n_ch, _ = channel_flows(c, ring(c), 256, 2, kind)
        per_nic = max(np.bincount(src).max(), np.bincount(dst).max())
        demand = np.full(n_ch, float(net.line_rate[src].min()) / per_nic)
        for seed in range(2):
            total, first = makespan_over_time(net, src, dst, chan, n_ch, demand, seed)
            assert total == pytest.approx(first, rel=1e-6)


def test_tree_flows_collide_less_than_the_ring():
    """Four flows per NIC at a quarter of the line meet less hashing collision than two at a
    half: on 32 GPUs of the 1:2 pod the tree's factor is below the ring's, and 16 queue pairs
    bring both to the ideal."""
    p = meta_pod()
    one = ring_under_ecmp(p, qps=1, gpus=32, tree=True)
    assert one.tree_slowdown is not None and one.tree_slowdown < one.slowdown
    sixteen = ring_under_ecmp(p, qps=16, gpus=32, tree=True)
    assert sixteen.tree_slowdown == pytest.approx(1.0, abs=0.01)
    assert "tree and NVLS-tree" in one.label()
    assert ring_under_ecmp(p, qps=1, gpus=32).tree_slowdown is None


def test_nccl_chooses_without_knowing_the_collisions():
    """NCCL's tuning picks from its own model of the fabric (src/graph/tuning.cc): an 8 GiB
    all-reduce over 2 H100 nodes runs NVLS-tree (NCCL's two-node cap 8 x 57.7 GB/s, above the
    ring's 8 NICs) whatever the hashing does, and then takes the tree's factor, not the
    ring's."""
    p = meta_pod()
    v = fabric_view(p, solve(p), Workload(tp=8, gpus=128), builtin_catalog())
    S, comm = np.array([8 * 2**30.0]), Communicator("all", 16, 1)
    t0, a0, _ = collective_times(v, "all-reduce", S, comm, job_gpus=128)
    t1, a1, _ = collective_times(v, "all-reduce", S, comm, job_gpus=128, network_slowdown=5.0,
                                 tree_slowdown=3.0)
    t2, a2, _ = collective_times(v, "all-reduce", S, comm, job_gpus=128, network_slowdown=1.0,
                                 tree_slowdown=3.0)
    assert a0[0] == a1[0] == a2[0] == "nvls-tree"
    assert t1[0] == pytest.approx(t2[0]) and t1[0] > t0[0]


def test_the_command_line_hashes_the_tree_when_nccl_runs_one(tmp_path, capsys):
    """`designer estimate --under ecmp`: the 8 GiB all-reduce of a 128-GPU job on the 1:2 pod
    run as NVLS-tree (within a few per cent of the ring past two nodes, NCCL's caps), so its
    flows are hashed too and the label, the report's routing and the JSON say the tree's
    factor; a forced ring leaves it out."""
    import json

    from designer.cli.main import main
    from designer.core.fileformat import save_project

    pod, job = tmp_path / "pod.fabric.json", tmp_path / "job.json"
    save_project(meta_pod(), pod)
    job.write_text(json.dumps({"gpus": 128, "tp": 8, "global_batch_tokens": 16 * 2**20}))
    args = ["estimate", str(pod), "--under", "ecmp", "--qps", "1", "--workload", str(job),
            "--collective", "all-reduce", "--bytes", "8GiB", "--algorithm", "nvls-tree",
            "--json"]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["collectives"][0]["algorithm"] == "nvls-tree"
    tree = d["fabric"]["tree_slowdown"]
    assert tree is not None and 1.0 < tree < d["fabric"]["network_slowdown"]
    assert "tree and NVLS-tree" in d["fabric"]["routing"]
    assert main([*args[:-3], "--algorithm", "ring", "--json"]) == 0
    ring = json.loads(capsys.readouterr().out)
    # the step's own all-reduces run ring (DP) and NVLS inside the node (TP): no tree
    assert ring["collectives"][0]["algorithm"] == "ring"
    assert ring["fabric"]["tree_slowdown"] == ring["fabric"]["network_slowdown"]
    assert "tree and NVLS-tree" not in ring["fabric"]["routing"]
