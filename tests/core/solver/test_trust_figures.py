"""Figures a procurement decision rests on: node-side optics per cage, physical cables
against logical links, switch port utilisation, dragonfly oversubscription, decimal
oversubscription and gear that fits. Each rule cites its source."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.catalog import builtin_catalog
from designer.core.errors import GeneratorError
from designer.core.generators import generate, params_from_dict, plan
from designer.core.generators.clos import split_ports
from designer.core.generators.params import Ratio
from designer.core.links import MEDIA
from designer.core.solver import solve


def bom_qty(r) -> dict[str, int]:
    return {x.catalog_id: x.qty for x in r.bom.lines}


def with_lengths(project, metres: float):
    links = project.fabric.links
    links = links.replace(np.arange(len(links)), length_m=metres, medium=MEDIA.index("auto"))
    return project.with_fabric(project.fabric.with_links(links))


# 1. node-side optics per cage ---------------------------------------------------------------

def test_dgx_h100_node_takes_twin_port_modules():
    """128 DGX H100 reach their 1,024 ConnectX-7 ports through 4 twin-port OSFP cages each,
    "a two-port transceiver to access all eight GPUs" (DGX SuperPOD H100 RA, network fabrics
    page): 512 node modules, not 1,024 single-port ones."""
    r = solve(generate(params_from_dict("rail", {"sus": 4})))
    q = bom_qty(r)
    assert q["osfp-2x400g-sr8-flt"] == 512
    assert "osfp-400g-sr4" not in q
    # power counts what is installed: 512 x 15 W at the nodes
    line = next(x for x in r.bom.lines if x.catalog_id == "osfp-2x400g-sr8-flt")
    assert line.power_w == pytest.approx(512 * 15)


def test_b300_twin_plane_one_800g_cage_per_gpu():
    """NVIDIA B300 Spectrum-X RA: one 800G cage per GPU carries its two 400G planes; so one
    twin-port module per GPU (1,024) for the 2,048 node links of 128 nodes."""
    r = solve(generate(params_from_dict("rail", {"gpus": 1024, "gear": "roce-800"})))
    q = bom_qty(r)
    assert r.links.by_layer["endpoint-leaf"] == 2048
    assert q["osfp-2x400g-sr8-flt"] == 1024
    assert "osfp-400g-sr4" not in q


def test_generic_server_keeps_single_port_nics():
    """A generic server has one cage per NIC port (PCIe cards): one module per port."""
    r = solve(generate(params_from_dict("rail", {"sus": 1, "server": "gpu-server-8"})))
    q = bom_qty(r)
    assert q["osfp-400g-sr4"] == 256
    assert "osfp-2x400g-sr8-flt" not in q


def test_xdr_node_cage_is_single_port():
    """DGX B300 on XDR: 8 ConnectX-8 ports of 800G behind 8 cages, one module per port."""
    r = solve(generate(params_from_dict("rail", {"gpus": 256, "gear": "ib-xdr"})))
    assert bom_qty(r)["osfp-800g-dr4-xdr"] == 256


# 2. physical cables against logical links ---------------------------------------------------

def test_optical_links_are_one_fibre_each():
    """Twin-port modules have one MPO connector per port: a fibre per 400G link."""
    r = solve(generate(params_from_dict("rail", {"sus": 4})))
    assert r.cables.total == r.links.total == 2048
    assert r.cables.by_layer == r.links.by_layer
    j = r.to_json()
    assert j["cables"] == {"total": 2048, "by_layer": {"endpoint-leaf": 1024,
                                                        "leaf-spine": 1024}}


def test_twin_copper_carries_two_links_per_cable():
    """Short leaf-spine runs take twin DACs cage to cage (two 400G links, one cable); a
    generic server's single-port NICs share a splitter from one switch cage."""
    p = generate(params_from_dict("rail", {"sus": 4, "server": "gpu-server-8"}))
    r = solve(with_lengths(p, 1.0))
    assert r.links.total == 2048
    assert r.cables.by_layer == {"endpoint-leaf": 512, "leaf-spine": 512}
    assert r.cables.total == 1024
    q = bom_qty(r)
    assert q["dac-800g-to-2x400g"] + q["dac-2x400g"] == r.cables.total


def test_dgx_twin_cage_to_tor_is_one_cable_when_lanes_pair():
    """A ToR design lands both lanes of a DGX cage on one switch cage: one straight twin
    cable (active copper at 3 m) per node cage; a rail design splits them over two rail
    leaves, so the node stays on optics."""
    tor = solve(generate(params_from_dict("dragonfly", {"a": 4, "p": 2, "h": 2,
                                                        "server": "dgx-h100"})))
    el = tor.links.by_layer["endpoint-router"]
    assert tor.cables.by_layer["endpoint-router"] == el // 2
    rail = solve(with_lengths(generate(params_from_dict("rail", {"sus": 1})), 1.0))
    assert rail.cables.by_layer["endpoint-leaf"] == rail.links.by_layer["endpoint-leaf"]
    assert "osfp-2x400g-sr8-flt" in bom_qty(rail)


# 5. port utilisation ------------------------------------------------------------------------

def test_roce_leaves_use_half_their_ports_and_say_what_it_costs():
    """An SN5600 run as 128 x 400G leaves 64 of 128 ports unused on a 1:1 rail leaf (32
    servers down, 32 up)."""
    # the NDR layout (SUs of 32) on RoCE gear, whose own SU of 64 would fill the leaves
    r = solve(generate(params_from_dict("rail", {"sus": 4, "gear": "roce-400",
                                                 "servers_per_su": 32})))
    leaf = next(g for g in r.ports.groups if g.tier == "leaf")
    assert (leaf.model, leaf.switches, leaf.used, leaf.total) == ("sn5600", 32, 2048, 4096)
    assert leaf in r.ports.stranded
    price = builtin_catalog().price("sn5600")
    idle = 32 * price * 0.5  # half of every leaf's price
    assert leaf.unused_usd == pytest.approx(idle)
    notes = [p for p in r.problems if p.code == "stranded-ports"]
    assert len(notes) == 1 and f"${idle:,.0f}" in notes[0].message
    j = r.to_json()["ports"]
    assert j["used"] == 2048 + 1024 and j["total"] == 40 * 128
    assert j["stranded_usd"] == pytest.approx(idle)


def test_full_superpod_strands_nothing():
    r = solve(generate(params_from_dict("rail", {"sus": 4})))
    assert r.ports.used == r.ports.total == 48 * 64
    assert not r.ports.stranded
    assert not [p for p in r.problems if p.code == "stranded-ports"]


def test_dragonfly_routers_report_their_unused_ports():
    """a = 8, p = h = 4 on 64-port routers: 4 + 7 + 4 = 15 of 64 ports used."""
    r = solve(generate(params_from_dict("dragonfly", {"a": 8, "p": 4, "h": 4})))
    g = r.ports.groups[0]
    assert g.used == 15 * g.switches and g.total == 64 * g.switches


# 6. dragonfly oversubscription reflects the global cut ---------------------------------------

def test_dragonfly_global_oversubscription_matches_the_bisection():
    """A balanced dragonfly's routers are 1:1 (p = h), but a balanced cut of 33 groups crosses
    16 x 17 of its global links: 528 GPUs x 400G against 272 x 400G = 1.94:1, the inverse of
    its 51.5% bisection (Kim et al., dragonfly; DOMAIN.md)."""
    r = solve(generate(params_from_dict("dragonfly", {"a": 8, "p": 4, "h": 4})))
    o = r.oversubscription
    assert o.by_tier["router"].worst == 1.0
    assert o.global_cut == pytest.approx(528 / 272)
    assert o.worst == pytest.approx(528 / 272)
    assert "global" in o.blocking_tiers
    assert 1 / o.global_cut == pytest.approx(r.bisection.fraction_of_full)
    assert r.to_json()["oversubscription"]["global_cut"]["text"] == "1.94:1"


def test_fat_tree_has_no_global_cut_figure():
    r = solve(generate(params_from_dict("rail", {"sus": 2})))
    assert r.oversubscription.global_cut is None
    assert "global_cut" not in r.to_json()["oversubscription"]


# 7. decimal oversubscription ----------------------------------------------------------------

def test_decimal_ratio_as_meta_writes_it():
    """Meta's Llama 3 cluster runs its cross-zone tier at 1:2.8 (2.8 down per up):
    ``--oversubscription 1:1,2.8:1`` is accepted and never built above 2.8:1."""
    p = params_from_dict("fat-tree", {"gpus": 4096, "gear": "roce-400",
                                      "oversubscription": "1:1,2.8:1", "tiers": 3})
    assert [str(r) for r in p.oversubscription] == ["1:1", "2.8:1"]
    pl = plan(p)
    spine = float(pl.oversubscription["spine"].split(":")[0])
    assert spine <= 2.8 and spine > 2.6
    assert any("2.8:1 asked" in d for d in pl.details)


def test_undersubscribed_tier_is_built_and_said_so():
    """Meta doubled its rack switches' uplinks against ECMP collisions, 1:2 under the ToR
    (Gangidi et al., SIGCOMM 2024, section 5): 16 down and 32 up on a 2-server RTSW. The
    plan names it, with the ratio to write for oversubscription, since 1:2.8 may be a slip."""
    p = params_from_dict("fat-tree", {"gpus": 3072, "gear": "roce-400", "placement": "tor",
                                      "servers_per_leaf": 2, "oversubscription": "1:2"})
    assert str(p.oversubscription[0]) == "1:2" and p.oversubscription[0].undersubscribed
    pl = plan(p)
    assert pl.oversubscription["leaf"] == "1:2"
    assert pl.links["leaf-spine"] == 2 * pl.links["endpoint-leaf"]
    assert any("undersubscribed at 1:2: 32 up for 16 down" in d for d in pl.details)
    odd = params_from_dict("fat-tree", {"oversubscription": "1:2.8"})
    assert any("write 2.8:1" in d for d in plan(odd).details)
    with pytest.raises(GeneratorError, match="1000"):
        params_from_dict("fat-tree", {"oversubscription": "1:2000"})


@given(radix=st.integers(8, 512), ratio=st.floats(1.0, 12.0).map(lambda x: round(x, 2)))
@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_split_never_above_the_ratio_and_closest(radix, ratio):
    """The uplinks are the fewest that keep the tier at or under the ratio asked: one fewer
    would go above it."""
    r = Ratio.parse(f"{ratio}:1")
    down, up = split_ports(radix, r)
    assert down + up <= radix
    if down:
        assert down / up <= ratio + 1e-9
        assert up == 1 or down / (up - 1) > ratio - 1e-9


def test_whole_ratios_keep_whole_multiples():
    assert split_ports(64, Ratio.parse("7:1")) == (56, 8)
    assert split_ports(32, Ratio.parse("2:1")) == (20, 10)
    assert split_ports(64, Ratio.parse("2.8:1")) == (47, 17)
    assert math.isclose(Ratio.parse("2.8:1").value, 2.8)


# 8. gear that fits ---------------------------------------------------------------------------

def test_spine_switch_grows_to_fit_the_pod():
    """A 3,072-GPU pod of 192 RoCE ToRs needs spines with 192 down ports (at 7:1 up): the
    64-cage SN5600 (128 x 400G) cannot; the smallest Ethernet switch of the catalog that can
    is picked and the plan says so; --spine-switch still forces one."""
    values = {"gpus": 24576, "gear": "roce-400", "servers_per_leaf": 2,
              "oversubscription": "1:1,7:1", "pod_gpus": 3072}
    pl = plan(params_from_dict("fat-tree", values))
    assert pl.gear.upper.model == "th6-102t"
    assert any("cannot carry" in d and "th6-102t" in d for d in pl.details)
    forced = plan(params_from_dict("fat-tree", values | {"spine_switch": "j3ai-chassis"}))
    assert forced.gear.upper.model == "j3ai-chassis"
    with pytest.raises(GeneratorError, match="192"):
        plan(params_from_dict("fat-tree", values | {"spine_switch": "sn5600"}))


def test_modular_chassis_when_only_that_fits():
    values = {"gpus": 49152, "gear": "roce-400", "servers_per_leaf": 2,
              "oversubscription": "1:1,1:1", "pod_gpus": 6144}
    pl = plan(params_from_dict("fat-tree", values))
    assert pl.gear.upper.model == "j3ai-chassis"
    assert any("modular chassis" in d for d in pl.details)


def test_planes_pick_a_server_with_enough_ports_per_gpu():
    """Two RoCE planes need two NIC ports per GPU; the DGX H100 has one, a ConnectX-8 server
    (DGX B300, 2 x 400GbE per GPU) has two: it is picked and the plan says so."""
    pl = plan(params_from_dict("rail", {"gpus": 512, "gear": "roce-400", "planes": 2}))
    assert pl.gear.server.id == "dgx-b300" and pl.gear.nic_id == "connectx-8"
    assert any("using 'dgx-b300'" in d for d in pl.details)
    r = solve(generate(params_from_dict("rail", {"gpus": 512, "gear": "roce-400", "planes": 2})))
    assert r.links.by_layer["endpoint-leaf"] == 2 * 512


def test_planes_refused_with_a_way_out_when_nothing_fits():
    with pytest.raises(GeneratorError, match="gpu-server-8"):
        plan(params_from_dict("rail", {"sus": 2, "gear": "ib-ndr", "planes": 2}))


def test_cables_agree_with_the_bom_copper_and_fibres():
    """Every physical cable is a copper cable or a fibre of the BOM."""
    for values in ({"sus": 2}, {"sus": 2, "server": "gpu-server-8"}):
        p = with_lengths(generate(params_from_dict("rail", values)), 1.0)
        r = solve(p)
        q = {x.catalog_id: x.qty for x in r.bom.lines if x.category in ("cable", "fibre")}
        assert sum(q.values()) == r.cables.total
        assert np.unique(r.bom.cable_id).size == r.cables.total


def test_dragonfly_plan_says_its_global_oversubscription():
    """The generator's preview agrees with the solver: 528 GPUs against 16 x 17 global links
    (a = 8, p = h = 4, 33 groups) is 1.94:1, not the routers' 1:1."""
    p = params_from_dict("dragonfly", {"a": 8, "p": 4, "h": 4})
    pl = plan(p)
    assert pl.oversubscription == {"router": "1:1", "global": "1.94:1"}
    r = solve(generate(p))
    assert r.to_json()["oversubscription"]["global_cut"]["text"] == pl.oversubscription["global"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["rail", "fat-tree", "dragonfly"]),
       server=st.sampled_from(["dgx-h100", "gpu-server-8"]),
       metres=st.sampled_from([1.0, 2.5, 4.0, 30.0]),
       seed=st.integers(0, 2**16))
def test_cable_grouping_invariants(kind, server, metres, seed):
    """Whatever the design and lengths: every link is in exactly one cable, a cable carries
    no more lanes than its item serves, all lanes of a cable leave one device, the cables are
    the BOM's copper cables plus its fibres, and never more cables than links."""
    values = {"rail": {"sus": 1}, "fat-tree": {"gpus": 256},
              "dragonfly": {"a": 4, "p": 2, "h": 2}}[kind] | {"server": server}
    p = generate(params_from_dict(kind, values))
    rng = np.random.default_rng(seed)
    links = p.fabric.links
    lengths = np.where(rng.random(len(links)) < 0.5, metres, 1.0)
    p = p.with_fabric(p.fabric.with_links(links.replace(np.arange(len(links)),
                                                        length_m=lengths)))
    r = solve(p)
    ids, media = r.bom.cable_id, r.media
    n_links = r.links.total
    assert ids.shape == (n_links,) and r.cables.total <= n_links
    assert np.unique(ids).size == r.cables.total == sum(r.cables.by_layer.values())
    lanes = np.bincount(ids)
    cat = p.catalog(builtin_catalog())
    per_item = np.array([cat.get(i).links_per_item for i in media.items] or [1])
    copper = media.cable >= 0
    cap = np.ones(r.cables.total, np.int64)
    cap[ids[copper]] = per_item[media.cable[copper]]
    assert (lanes <= cap).all()
    assert (lanes[ids[~copper]] == 1).all()  # optics: a fibre per link
    # all lanes of a copper cable leave one device (the switch cage it plugs into)
    e = p.fabric.links.expand()
    sw = np.array([d.role.is_switch for d in p.fabric.devices])
    end = np.where(sw[e["a"]], e["a"], e["b"])[copper]
    cid = ids[copper]
    lo = np.full(r.cables.total, np.iinfo(np.int64).max)
    hi = np.full(r.cables.total, -1)
    np.minimum.at(lo, cid, end)
    np.maximum.at(hi, cid, end)
    assert (lo[cid] == hi[cid]).all()
    q = {x.catalog_id: x.qty for x in r.bom.lines if x.category in ("cable", "fibre")}
    assert sum(q.values()) == r.cables.total


# the command line ------------------------------------------------------------------------------

def test_cli_solve_json_and_text_carry_cables_and_ports(capsys):
    from designer.cli.main import main
    from designer.core.paths import projects_dir

    path = str(projects_dir() / "dragonfly-1056-gpus.fabric.json")
    assert main(["solve", path, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cables"] == {"total": 1980, "by_layer": {"endpoint-router": 528, "global": 528,
                                                        "local": 924}}
    assert (d["ports"]["used"], d["ports"]["total"]) == (3960, 16896)
    assert d["ports"]["by_model_tier"][0]["model"] == "qm9700"
    assert d["oversubscription"]["worst_ratio"] == "1.94:1"
    assert main(["solve", path]) == 0
    text = capsys.readouterr().out
    assert "cables         1,980 physical" in text and "3,960 of 16,896" in text


def test_cli_generate_decimal_ratio_and_fitted_spine(capsys):
    from designer.cli.main import main

    assert main(["generate", "fat-tree", "--gpus", "24576", "--gear", "roce-400",
                 "--servers-per-leaf", "2", "--oversubscription", "1:1,2.8:1",
                 "--pod-gpus", "3072", "--plan"]) == 0
    out = capsys.readouterr().out
    assert "2.8:1 asked" in out and "cannot carry this tier" in out
    assert main(["generate", "fat-tree", "--oversubscription", "1:2.8", "--plan"]) == 0
    assert "write 2.8:1" in capsys.readouterr().out


def test_summary_facts_name_cables_ports_and_p50(tmp_path):
    """The BOM's Summary sheet and the report's key facts: physical cables, switch ports used
    with the unused ports' price as a note, latency headline at p50."""
    from designer.core.writers.facts import summary_sections

    p = generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400", "servers_per_su": 32}))
    r = solve(p)
    facts = {f.key: f for s in summary_sections(p, r.to_json(), app_version="x", date="d")
             for f in s.facts}
    assert facts["cables"].value == r.cables.total
    assert facts["ports"].value == pytest.approx(r.ports.utilisation)
    assert facts["ports"].note.endswith("of switch price unused") and not facts["ports"].detail
    assert facts["latency_p50"].value == pytest.approx(r.latency.p50_us, abs=1e-4)
