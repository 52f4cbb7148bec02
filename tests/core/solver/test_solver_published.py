"""The solver on every published design of DOMAIN.md section 5: bisection, oversubscription
and the hop maximum (2L-1 switches for L tiers; at most 4 routers on minimal dragonfly routes).
"""

from __future__ import annotations

import pytest

from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve

NDR = 400.0  # Gb/s per link and per GPU with the ib-ndr profile


def solved(kind: str, **values):
    return solve(generate(params_from_dict(kind, values)))


# NVIDIA DGX SuperPOD H100 / B200 reference architectures, compute fabric tables (QM9700,
# rail-optimized, 32-node SUs, 8 GPUs per node): non-blocking, so bisection = N/2 x 400G.
@pytest.mark.parametrize(("sus", "leaf", "spine", "core", "cables", "tiers"), [
    (2, 16, 8, 0, 512, 2),
    (4, 32, 16, 0, 1024, 2),
    (8, 64, 32, 0, 2048, 2),
    (16, 128, 128, 64, 4096, 3),
])
def test_dgx_superpod(sus, leaf, spine, core, cables, tiers):
    r = solved("rail", sus=sus)
    n = sus * 256
    assert r.gpus == n and r.servers == sus * 32
    assert r.switches.by_tier == {k: v for k, v in
                                  {"leaf": leaf, "spine": spine, "core": core}.items() if v}
    assert r.links.by_layer["endpoint-leaf"] == cables
    assert r.links.by_layer["leaf-spine"] == cables
    assert r.links.by_layer.get("spine-core", 0) == (cables if core else 0)
    assert r.bisection.gbps == n // 2 * NDR
    assert r.bisection.exact and r.bisection.fraction_of_full == 1.0
    assert r.bisection.per_gpu_gbps == NDR
    assert r.oversubscription.worst == 1.0
    assert not r.oversubscription.blocking_tiers
    assert r.hops.max == 2 * tiers - 1
    assert r.hops.min == 1  # GPUs of one rail in different servers share a leaf


# DGX H100 SuperPOD RA, Table 4: one node slot left for the UFM, which takes 4 leaf ports.
@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "edge", "up"), [
    (1, 31, 8, 4, 252, 256),
    (3, 95, 24, 16, 764, 768),
])
def test_dgx_h100_ra_with_ufm(sus, nodes, leaf, spine, edge, up):
    r = solved("rail", sus=sus, reserve_leaf_ports=4)
    assert r.servers == nodes and r.gpus == nodes * 8
    assert r.switches.by_tier == {"leaf": leaf, "spine": spine}
    assert r.links.by_layer == {"endpoint-leaf": edge, "leaf-spine": up}
    assert r.appliances >= 1
    # the UFM is not a GPU: bisection stays N/2 x 400G over the GPUs
    assert r.bisection.gbps == nodes * 4 * NDR and r.bisection.exact
    assert r.hops.max == 3


# Al-Fares et al., SIGCOMM 2008: k-ary fat-tree, k^3/4 hosts, 5k^2/4 switches, full bisection.
@pytest.mark.parametrize(("k", "hosts", "switches", "cores"), [(4, 16, 20, 4), (8, 128, 80, 16)])
def test_k_ary_fat_tree(k, hosts, switches, cores):
    r = solved("fat-tree", k_ary=k)
    assert r.gpus == hosts and r.switches.total == switches
    assert r.switches.by_tier["core"] == cores
    assert r.bisection.gbps == hosts // 2 * NDR and r.bisection.exact
    assert r.oversubscription.worst == 1.0
    assert r.hops.max == 5  # three tiers


# Kim, Dally, Scott, Abts, ISCA 2008: balanced dragonfly a = 2p = 2h; a=4, p=h=2 gives g = 9,
# N = 72, 36 global and 54 local links; a balanced cut crosses floor(g/2) x ceil(g/2) = 20
# global links; minimal routes cross at most 3 router-to-router links (4 routers).
def test_balanced_dragonfly_a4():
    r = solved("dragonfly", a=4, p=2, h=2)
    assert r.gpus == 72 and r.switches.by_tier == {"router": 36}
    assert r.links.by_layer == {"endpoint-router": 72, "global": 36, "local": 54}
    assert r.bisection.gbps == 4 * 5 * NDR
    assert r.bisection.exact
    assert r.hops.max == 4
    # p = h: each router's endpoint capacity equals its global capacity (1:1), but a balanced
    # cut of 9 groups crosses 4 x 5 of the 36 global links: 36 GPUs' half-capacity (18 x
    # 400G... of both halves, N/2 = 36 / 2 x 2 directions) against 20 links = 1.8:1
    assert r.oversubscription.by_tier["router"].worst == 1.0
    assert r.oversubscription.global_cut == pytest.approx(36 / 20)
    assert r.oversubscription.worst == pytest.approx(36 / 20)


@pytest.mark.parametrize("arrangement", ["absolute", "relative", "circulant"])
def test_dragonfly_arrangements_reach_the_same_bisection(arrangement):
    r = solved("dragonfly", a=4, p=2, h=2, arrangement=arrangement)
    assert r.bisection.gbps == 20 * NDR and r.bisection.exact


@pytest.mark.parametrize(("a", "g"), [(8, 33), (16, 129)])
def test_larger_balanced_dragonflies(a, g):
    # floor(g/2) x ceil(g/2) global links; proven when the counting bound closes the gap
    r = solved("dragonfly", a=a, p=a // 2, h=a // 2)
    assert r.switches.by_tier == {"router": a * g}
    assert r.bisection.gbps == (g // 2) * (g - g // 2) * NDR
    assert r.bisection.lower_gbps <= r.bisection.gbps
    assert r.hops.max == 4


def test_dragonfly_with_an_even_number_of_groups_is_proven():
    # 8 groups, one link per pair: a cut of 4 groups against 4 crosses 16 global links
    r = solved("dragonfly", a=4, p=2, h=2, groups=8)
    assert r.bisection.gbps == 16 * NDR and r.bisection.exact


# Any non-blocking fabric: bisection = N/2 x per-GPU rate (DOMAIN.md section 5, last row).
@pytest.mark.parametrize(("kind", "values", "rate"), [
    ("fat-tree", {"gpus": 2048}, 400),
    ("fat-tree", {"gpus": 4096, "tiers": 3}, 400),
    ("fat-tree", {"gpus": 1024, "placement": "rail"}, 400),
    ("rail", {"sus": 4, "gear": "roce-400"}, 400),
    ("rail", {"sus": 4, "gear": "roce-800"}, 800),  # two 400G planes per GPU
    ("rail", {"sus": 4, "gear": "ib-xdr"}, 800),
    ("rail", {"sus": 2, "planes": 2, "server": "gpu-server-8"}, 800),
])
def test_non_blocking_fabrics_have_full_bisection(kind, values, rate):
    r = solved(kind, **values)
    assert r.bisection.per_gpu_rate_gbps == rate
    assert r.bisection.gbps == r.gpus // 2 * rate
    assert r.bisection.exact and r.bisection.fraction_of_full == 1.0


# Oversubscribed trees: a 2:1 leaf tier halves the bisection (40 GPUs and 20 uplinks a leaf).
def test_two_to_one_leaves_halve_the_bisection():
    r = solved("fat-tree", gpus=1280, oversubscription="2:1")
    assert r.oversubscription.by_tier["leaf"].worst == 2.0
    assert r.oversubscription.blocking_tiers == ("leaf",)
    assert r.oversubscription.worst == 2.0
    assert r.bisection.gbps == 1280 // 4 * NDR
    assert r.bisection.fraction_of_full == 0.5 and r.bisection.exact
    assert r.hops.max == 3


def test_oversubscription_multiplies_along_the_tiers():
    r = solved("fat-tree", gpus=32768, oversubscription="2:1,3:1")
    assert r.oversubscription.by_tier["leaf"].worst == 2.0
    assert r.oversubscription.by_tier["spine"].worst == 3.0
    assert r.oversubscription.worst == 6.0
    assert r.hops.max == 5


# Meta, SIGCOMM 2024 and the Llama 3 paper 3.3.1: 3,072-GPU pods with full bisection joined by
# an aggregation layer oversubscribed 1:7. With 48 down ports a spine gets ceil(48/7) = 7
# uplinks, so the built ratio is 48:7; the cut between the two pods crosses those uplinks.
def test_meta_style_pods_with_a_seven_to_one_spine():
    r = solved("fat-tree", gpus=6144, gear="roce-400", oversubscription="1:1,7:1",
               pod_gpus=3072)
    assert r.oversubscription.by_tier["leaf"].worst == 1.0
    assert r.oversubscription.by_tier["spine"].worst == pytest.approx(48 / 7)
    assert r.oversubscription.worst == pytest.approx(48 / 7)
    assert r.bisection.gbps == pytest.approx(3072 * 400 * 7 / 48)
    assert r.bisection.exact
    assert r.hops.max == 5
