"""The cluster's other networks: generated counts against the stated formulas, the saved form
(old files unchanged, hostile values refused), and the per-network figures."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.errors import GeneratorError, ProjectFileError
from designer.core.fileformat import dumps_project, load_project, loads_project
from designer.core.generators import generate, params_from_dict
from designer.core.networks import parse_network_names
from designer.core.networks.generate import REFERENCE_READ_GBYTES_S_PER_GPU, with_networks
from designer.core.networks.leafspine import Built, leaf_spine, split_ports
from designer.core.networks.solve import solve_networks
from designer.core.paths import projects_dir

ALL = ("frontend", "storage", "oob")


@pytest.fixture(scope="module")
def rail4():
    """4 SUs of 32 DGX H100 (1,024 GPUs) with every network."""
    return with_networks(generate(params_from_dict("rail", {"sus": 4})), ALL)


def _ports_each_once(built_or_links) -> int:
    ends = list(zip(built_or_links.a, built_or_links.a_port, strict=True)) + \
        list(zip(built_or_links.b, built_or_links.b_port, strict=True))
    assert len(set(ends)) == len(ends), "a port used twice"
    return len(ends)


# --- the leaf/spine rule -------------------------------------------------------------------

def test_split_ports_follows_the_formula():
    # 128 x 400G ports, servers at 400G, non-blocking: half down, half up
    assert split_ports(128, 1.0) == (64, 64)
    # servers at 200G on 400G ports (r = 1/2) at 2:1 in line rate: d = floor(128 / 1.25)
    assert split_ports(128, 2.0, 0.5) == (102, 26)
    assert abs(102 * 200 / (26 * 400) - 1.96) < 0.01
    with pytest.raises(GeneratorError, match=r"oversubscription 0\.5"):
        split_ports(64, 0.5)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 3000), p=st.integers(1, 4), radix=st.sampled_from([32, 48, 64, 128]),
       over=st.sampled_from([1.0, 1.5, 2.0, 3.0]), rate=st.sampled_from([100, 200, 400]))
def test_leaf_spine_uses_each_port_once_and_matches_the_counts(n, p, radix, over, rate):
    out = Built()
    eps = [f"s{i}" for i in range(n)]
    try:
        leaves, spines = leaf_spine(out, "x", eps, p, [rate] * n, "sw", radix, 400, over,
                                    "c", "o", "test")
    except GeneratorError as exc:
        # refused only when the leaves outnumber a spine's ports (a third tier needed)
        down, _ = split_ports(radix, over, rate / 400)
        assert math.ceil(n / down) * p > radix
        assert "exceed what" in str(exc) and "two tiers" in str(exc)
        return
    down, up = split_ports(radix, over, rate / 400)
    assert leaves == math.ceil(n / down) * p
    used = _ports_each_once(out)
    assert used == 2 * len(out.a)  # one cable per link: cables = used ports / 2
    # every switch port within the radix; every leaf reaches every spine
    by_switch = Counter()
    for dev, port in zip(out.a + out.b, out.a_port + out.b_port, strict=True):
        if not dev.startswith("s"):
            assert port < radix
            by_switch[dev] += 1
    assert all(v <= radix for v in by_switch.values())
    links = n * p + (leaves * up if leaves > 1 else 0)
    assert len(out.a) == links
    if leaves > 1:
        assert spines >= min(2, up)
        reach = {(a, b) for a, b in zip(out.a, out.b, strict=True) if "spine" in b}
        assert len(reach) == leaves * spines


# --- generated networks --------------------------------------------------------------------

def test_rail_4su_counts_against_the_formulas(rail4):
    nets = rail4.networks
    fe = nets["frontend"]
    # 128 DGX x 2 front-end ports of 200G (HGX Enterprise RA: two ports on two switches) on
    # 128-port SN5600 leaves at 2:1: d = 102, u = 26, ceil(128 / 102) = 2 leaf pairs
    assert Counter(d.tier for d in fe.devices) == {"leaf": 4, "spine": 2}
    assert len(fe.links) == 128 * 2 + 4 * 26
    st_ = nets["storage"]
    # 1,024 GPUs x 1 GB/s over 40 GB/s nodes = 25.6 -> 26 nodes
    assert sum(d.tier == "storage-node" for d in st_.devices) == 26
    assert st_.params["storage_nodes"] is None  # asked: automatic
    assert st_.params["resolved"]["storage_nodes"] == 26
    # 154 endpoints x 2 ports non-blocking on 64 down: 3 pairs; 6 x ceil(64 / S) <= 128: S = 4
    assert Counter(d.tier for d in st_.devices if d.tier != "storage-node") == \
        {"leaf": 6, "spine": 4}
    oob = nets["oob"]
    # 128 servers at 4 a rack: 32 racks, one SN2201 each; the management ports of every other
    # switch and node fill more, 48 at a time
    backend_other = sum(1 for d in rail4.fabric.devices if d.role.value != "gpu-server")
    managed = backend_other + len(fe.devices) + len(st_.devices)
    access = sum(d.tier == "access" for d in oob.devices)
    assert access == 32 + math.ceil(managed / 48)
    for net in nets.values():
        _ports_each_once(net.links)


@pytest.mark.parametrize("kind, values", [("rail", {"sus": 1}), ("rail", {"sus": 2}),
                                          ("fat-tree", {"gpus": 512}),
                                          ("fat-tree", {"gpus": 256, "gear": "roce-400"})])
def test_every_network_of_other_designs_uses_each_port_once(kind, values):
    p = with_networks(generate(params_from_dict(kind, values)), ALL)
    res = solve_networks(p)
    for name, net in p.networks.items():
        assert res[name].cables == _ports_each_once(net.links) // 2
        assert res[name].switches == sum(d.tier != "storage-node" for d in net.devices)


def test_network_names_parse_and_unknown_ones_are_refused():
    assert parse_network_names("backend") == ()
    assert parse_network_names("oob, backend,frontend") == ("frontend", "oob")
    with pytest.raises(GeneratorError, match=r"unknown network 'mgmt' \(known: backend, "
                                             r"frontend, storage, oob\)"):
        parse_network_names("backend,mgmt")


def test_parameters_are_checked():
    p = generate(params_from_dict("rail", {"sus": 1}))
    with pytest.raises(GeneratorError, match="unknown parameter 'speed'"):
        with_networks(p, ("frontend",), params={"frontend": {"speed": 1}})
    with pytest.raises(GeneratorError, match=r"storage\.storage_nodes: a whole number"):
        with_networks(p, ("storage",), params={"storage": {"storage_nodes": -3}})
    with pytest.raises(GeneratorError, match=r"oob\.racks_per_switch"):
        with_networks(p, ("oob",), params={"oob": {"racks_per_switch": 3}})
    pair = with_networks(p, ("oob",), params={"oob": {"racks_per_switch": 2}})
    # 32 DGX: 8 racks, 4 pairs; one SN2201 a pair
    assert sum(d.id.startswith("oob-") and d.tier == "access" and d.group < 4
               for d in pair.networks["oob"].devices) == 4


# --- figures -------------------------------------------------------------------------------

def test_solve_networks_figures(rail4):
    res = solve_networks(rail4)
    assert list(res) == list(ALL)
    fe = res["frontend"]
    assert fe.switches == 6 and fe.cables == fe.links == 360
    assert fe.optics == 2 * 360  # one module at each end of every optical link
    assert fe.oversubscription == pytest.approx(102 * 200 / (26 * 400))
    assert fe.gbps_per_gpu == pytest.approx(2 * 200 / 8)
    assert fe.cost_usd == pytest.approx(sum(x.total_usd for x in fe.lines))
    assert fe.cost_usd == pytest.approx(6 * 58800 + 720 * 900 + 360 * 80)
    s = res["storage"].storage
    assert s["nodes"] == 26 and s["read_gbytes_s_per_gpu"] == pytest.approx(26 * 40 / 1024)
    # the reference: over 40 GB/s a DGX H100 node (DGX SuperPOD H100 RA), 5 GB/s a GPU
    assert s["reference_read_gbytes_s_per_gpu"] == REFERENCE_READ_GBYTES_S_PER_GPU == 5.0
    assert s["fabric_gbytes_s_per_gpu"] == pytest.approx(2 * 200 / 8 / 8)
    oob = res["oob"]
    assert oob.switches_by_model["sn2201"] == oob.switches_by_tier["access"]
    assert oob.power_w > 0 and oob.gbps_per_gpu == 0


def test_a_project_without_networks_solves_to_nothing():
    assert solve_networks(generate(params_from_dict("rail", {"sus": 1}))) == {}


# --- the saved form ------------------------------------------------------------------------

def test_round_trip_keeps_every_network(rail4, tmp_path):
    data = dumps_project(rail4)
    back = loads_project(data)
    assert back.networks == rail4.networks
    assert dumps_project(back) == data


@pytest.mark.parametrize("name", ["dgx-superpod-4su-roce-400", "k-ary-fat-tree-k8"])
def test_old_files_load_and_save_byte_for_byte(name):
    f = projects_dir() / f"{name}.fabric.json"
    p = load_project(f)
    assert p.networks is None
    assert b'"networks"' not in f.read_bytes()
    assert dumps_project(p) == f.read_bytes()


def _raw(project) -> dict:
    return json.loads(dumps_project(project))


@pytest.mark.parametrize("change, message", [
    (lambda n: n["frontend"]["links"]["b"].__setitem__(0, "nope"), "a link ends at 'nope'"),
    (lambda n: n["frontend"]["links"]["a_port"].__setitem__(1, n["frontend"]["links"]["a_port"][0])
     if n["frontend"]["links"]["a"][1] == n["frontend"]["links"]["a"][0] else None,
     "used by two links"),
    (lambda n: n["frontend"]["links"]["gbps"].pop(), "has 1"),
    (lambda n: n.__setitem__("mgmt", n.pop("oob")), "networks.mgmt"),
    (lambda n: n["oob"]["devices"].append(n["storage"]["devices"][0]), "used twice"),
    (lambda n: n["frontend"]["links"]["gbps"].__setitem__(0, 10**9), "gbps"),
])
def test_hostile_networks_are_refused_with_a_clear_error(rail4, change, message):
    small = with_networks(generate(params_from_dict("rail", {"sus": 1})), ALL)
    raw = _raw(small)
    change(raw["networks"])
    with pytest.raises(ProjectFileError, match=message) as info:
        loads_project(json.dumps(raw).encode())
    assert len(str(info.value).strip().splitlines()) == 1


def test_the_network_gear_file_has_sources_for_every_figure():
    gear = json.loads((Path(projects_dir()).parent / "resources" / "catalog" / "networks" /
                       "network-gear.json").read_text())
    for item in gear["items"]:
        covered = {c for f in item["figures"] for c in f["covers"]}
        assert "price_usd" in covered, item["id"]
        if item.get("part_number"):
            assert "part_number" in covered, item["id"]


def test_deleting_a_server_drops_its_network_links_and_the_file_still_loads(rail4):
    gone = "su1-node01"
    before = {k: len(n.links) for k, n in rail4.networks.items()}
    edited = rail4.with_fabric(rail4.fabric.remove_devices({gone}))
    for k, n in edited.networks.items():
        assert gone not in n.links.a and gone not in n.links.b
        assert len(n.links) < before[k]
    back = loads_project(dumps_project(edited))
    assert back.networks == edited.networks


@settings(max_examples=12, deadline=None)
@given(servers=st.integers(1, 300), racks_per=st.sampled_from([1, 2]),
       per_gpu=st.sampled_from([0.25, 1.0, 5.0]))
def test_generated_networks_use_each_port_once_at_any_size(servers, racks_per, per_gpu):
    p = generate(params_from_dict("rail", {"servers": servers}))
    p = with_networks(p, ALL, params={"oob": {"racks_per_switch": racks_per},
                                      "storage": {"read_gbytes_s_per_gpu": per_gpu}})
    res = solve_networks(p)
    gpus = 8 * servers
    for name, net in p.networks.items():
        assert res[name].cables == _ports_each_once(net.links) // 2
    # every server reaches every network: 2 front-end, 2 storage, 1 management port
    ends = {k: Counter(n.links.a) for k, n in p.networks.items()}
    server_ids = [d.id for d in p.fabric.devices if d.role.value == "gpu-server"]
    assert all(ends["frontend"][s] == 2 and ends["storage"][s] == 2 and ends["oob"][s] == 1
               for s in server_ids)
    nodes = sum(d.tier == "storage-node" for d in p.networks["storage"].devices)
    assert nodes == max(1, math.ceil(gpus * per_gpu / 40))
    assert res["storage"].storage["read_gbytes_s_per_gpu"] >= per_gpu - 1e-9
    # one SN2201 per rack group at least, four 8-GPU servers a rack
    groups = math.ceil(servers / (4 * racks_per))
    assert res["oob"].switches_by_tier["access"] >= groups


def test_generating_again_over_a_design_builds_its_networks_again(rail4):
    # a design generated again (the window's Replace, a gear switch) keeps its networks,
    # built for the new servers by what they were asked with
    bigger = generate(params_from_dict("rail", {"sus": 2}), base=rail4)
    assert set(bigger.networks) == set(ALL)
    servers = {d.id for d in bigger.fabric.devices if d.role.value == "gpu-server"}
    fe = bigger.networks["frontend"]
    assert {a for a in fe.links.a if not a.startswith("fe-")} == servers
    assert bigger.networks["storage"].params["resolved"]["storage_nodes"] == 13  # 512 / 40
    assert loads_project(dumps_project(bigger)).networks == bigger.networks


def test_a_gear_switch_regenerates_the_networks_for_the_new_servers():
    from designer.core.generators import regenerate

    p = with_networks(generate(params_from_dict("rail", {"sus": 1})), ALL,
                      params={"frontend": {"oversubscription": 3}})
    roce = regenerate(p, {"gear": "roce-400"})
    assert roce.profile == "roce-400" and set(roce.networks) == set(ALL)
    # what was asked is kept; the automatic values follow the design
    assert roce.networks["frontend"].params["oversubscription"] == 3
    servers = {d.id for d in roce.fabric.devices if d.role.value == "gpu-server"}
    assert servers <= set(roce.networks["oob"].links.a)
    assert loads_project(dumps_project(roce)).networks == roce.networks
