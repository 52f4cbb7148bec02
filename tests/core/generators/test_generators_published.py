"""Generators reproduce the published designs of DOMAIN.md section 5 exactly."""

from __future__ import annotations

import pytest

from designer.core.errors import GeneratorError
from designer.core.generators import generate, params_from_dict, plan
from tests.core.fabric_checks import assert_wiring_invariants, links_by_layer, switches_by_role


def build(kind, **values):
    return generate(params_from_dict(kind, values))


# NVIDIA DGX SuperPOD H100 / B200 reference architectures, compute fabric tables
# (QM9700, rail-optimized, full 32-node SUs, 8 GPUs per node).
@pytest.mark.parametrize(("sus", "leaf", "spine", "core", "cables"), [
    (2, 16, 8, 0, 512),
    (4, 32, 16, 0, 1024),
    (8, 64, 32, 0, 2048),
    (16, 128, 128, 64, 4096),
])
def test_dgx_superpod_tables(catalog, sus, leaf, spine, core, cables):
    p = build("rail", sus=sus)
    sw = switches_by_role(p)
    assert (sw.get("leaf"), sw.get("spine"), sw.get("core", 0)) == (leaf, spine, core)
    layers = links_by_layer(p)
    assert layers["endpoint-leaf"] == cables
    assert layers["leaf-spine"] == cables
    assert layers.get("spine-core", 0) == (cables if core else 0)
    assert sum(d.role.value == "gpu-server" for d in p.fabric.devices) * 8 == sus * 256
    assert_wiring_invariants(p, catalog)


def test_two_tier_limit_of_a_64_port_switch():
    # 2 x 32^2 = 2,048 GPUs: 8 SU stays at 2 tiers, 16 SU needs a core (DOMAIN.md section 5)
    assert "core" not in plan(params_from_dict("rail", {"sus": 8})).switches
    with pytest.raises(GeneratorError, match="at most 2,048 GPUs"):
        plan(params_from_dict("rail", {"sus": 16, "tiers": 2}))


# NVIDIA DGX SuperPOD H100 RA, Table 4: one node left out for the UFM (4 leaf ports).
@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "down", "up"), [
    (1, 31, 8, 4, 252, 256),
    (3, 95, 24, 16, 764, 768),
])
def test_dgx_h100_table_4_with_ufm(catalog, sus, nodes, leaf, spine, down, up):
    p = build("rail", sus=sus, reserve_leaf_ports=4)
    servers = [d for d in p.fabric.devices if d.role.value == "gpu-server"]
    assert len(servers) == nodes and len(servers) * 8 == nodes * 8
    sw = switches_by_role(p)
    assert (sw["leaf"], sw["spine"]) == (leaf, spine)
    layers = links_by_layer(p)
    assert layers["endpoint-leaf"] == down
    assert layers["leaf-spine"] == up
    assert_wiring_invariants(p, catalog)


def test_spine_count_divides_the_uplinks():
    # 24 leaves x 32 uplinks = 768 ports fit 12 spines, but 12 does not divide 32: 16.
    pl = plan(params_from_dict("rail", {"sus": 3}))
    assert pl.switches["spine"] == 16
    assert any("must divide" in d for d in pl.details)


# Al-Fares, Loukissas, Vahdat, SIGCOMM 2008: k^3/4 hosts, 5k^2/4 switches, (k/2)^2 core.
@pytest.mark.parametrize(("k", "hosts", "switches", "core"), [(4, 16, 20, 4), (8, 128, 80, 16)])
def test_k_ary_fat_tree(catalog, k, hosts, switches, core):
    p = build("fat-tree", k_ary=k)
    sw = switches_by_role(p)
    assert sum(sw.values()) == switches
    assert sw["core"] == core
    assert sw["leaf"] == sw["spine"] == k * k // 2
    layers = links_by_layer(p)
    assert layers == {"endpoint-leaf": hosts, "leaf-spine": hosts, "spine-core": hosts}
    assert_wiring_invariants(p, catalog)


# Kim, Dally, Scott, Abts, ISCA 2008: balanced dragonfly a = 4, p = h = 2.
@pytest.mark.parametrize("arrangement", ["absolute", "relative", "circulant"])
def test_balanced_dragonfly(catalog, arrangement):
    pl = plan(params_from_dict("dragonfly", {"a": 4, "p": 2, "h": 2, "arrangement": arrangement}))
    assert any("router radix 7" in d for d in pl.details)
    p = build("dragonfly", a=4, p=2, h=2, arrangement=arrangement)
    routers = [d for d in p.fabric.devices if d.role.value == "router"]
    assert len({d.groups["group"] for d in routers}) == 9
    assert len(routers) == 36
    layers = links_by_layer(p)
    assert layers == {"endpoint-router": 72, "local": 54, "global": 36}
    # one global link between every pair of groups
    pairs = set()
    f = p.fabric
    for a, b in zip(f.links.a.tolist(), f.links.b.tolist(), strict=True):
        ga, gb = f.devices[a].groups.get("group"), f.devices[b].groups.get("group")
        if f.devices[a].role.value == f.devices[b].role.value == "router" and ga != gb:
            pairs.add(frozenset((ga, gb)))
    assert len(pairs) == 36
    assert_wiring_invariants(p, catalog)


def test_meta_style_oversubscribed_aggregation():
    # Meta Llama 3 (24,576 GPUs): racks of 16 GPUs under one ToR, 3,072-GPU pods with full
    # bisection, 8 pods joined by an aggregation layer oversubscribed about 1:7.
    pl = plan(params_from_dict("fat-tree", {
        "gpus": 24576, "gear": "roce-400", "placement": "tor", "servers_per_leaf": 2,
        "oversubscription": "1:1,7:1", "pod_gpus": 3072, "spine_switch": "j3ai-chassis"}))
    assert pl.oversubscription["leaf"] == "1:1"
    assert pl.switches["leaf"] == 24576 // 16
    assert pl.oversubscription["spine"].startswith("6.98")  # 768 down, 110 up: 7:1 rounds up
    assert "8 pod(s)" in " ".join(pl.details)
