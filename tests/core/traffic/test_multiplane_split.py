"""NIC lanes to planes: a NIC port split into 2, 4 or 8 planes, switches at the radix mode of
the plane's speed, and OCP MRC's two-tier 131,072-GPU multi-plane design.

Source of the MRC figures: Araujo et al., "Resilient AI Supercomputer Networking using MRC and
SRv6" (OCP Multipath Reliable Connection, arXiv 2605.04333, May 2026): each 800 Gb/s NIC is
split into eight 100 Gb/s links to eight separate planes; a 64-port 800 Gb/s switch runs as 512
ports of 100 Gb/s; two tiers connect 131,072 GPUs at full bisection. The switch and link counts
follow from those figures by the two-tier Clos rule (512-port switches: 256 down and 256 up a
leaf, 131,072 / 256 = 512 leaves and 512 x 256 / 512 = 256 spines a plane).
"""

from __future__ import annotations

import numpy as np
import pytest

from designer.core.errors import GeneratorError
from designer.core.generators import generate, params_from_dict, plan
from designer.core.solver import solve
from designer.core.solver.compile import compile_project
from designer.core.traffic import run_load
from designer.core.traffic.load import plane_stripes
from designer.core.traffic.network import build_network

MRC = {"gear": "roce-400", "nic": "thor-ultra", "plane_split": 8, "switch": "th5-64x800",
       "tiers": 2}


def test_mrc_131072_gpus_two_tiers_eight_planes():
    pl = plan(params_from_dict("fat-tree", {**MRC, "gpus": 131_072}))
    assert pl.gpus == 131_072 and pl.planes == 8
    assert pl.gear.nic_mode.label == "8 x 100G"  # the 800G port as 8 x 100G lanes
    assert pl.gear.leaf.radix == 512 and pl.gear.leaf.speed_gbps == 100
    assert "core" not in pl.switches  # two tiers
    assert pl.switches == {"leaf": 8 * 512, "spine": 8 * 256}
    assert pl.total_switches == 6_144
    # every GPU has 8 lanes (one a plane), every leaf 256 uplinks
    assert pl.links == {"endpoint-leaf": 131_072 * 8, "leaf-spine": 8 * 512 * 256}
    assert pl.oversubscription == {"leaf": "1:1"}


def test_mrc_design_builds_and_costs_its_lane_optics():
    """A 4,096-GPU slice of the same design: modules serve 8 lanes a cage at both ends."""
    p = generate(params_from_dict("fat-tree", {**MRC, "gpus": 4096}))
    r = solve(p)
    assert r.switches.total == 8 * (16 + 8)
    assert r.links.total == 2 * 4096 * 8
    assert r.bisection.fraction_of_full == pytest.approx(1.0)
    mods = {x.catalog_id: x.qty for x in r.bom.lines if x.category == "transceiver"}
    # one DR8 module per NIC port (4,096), one per 8 switch lanes (a 800G cage of the 51.2T
    # switch): 32,768 leaf lanes to NICs and 2 x 32,768 lanes between leaves and spines
    lanes = 4096 * 8
    assert mods == {"osfp-800g-dr8-8x100g": 4096 + (lanes + 2 * lanes) // 8}
    fibres = sum(x.qty for x in r.bom.lines if x.category == "fibre")
    assert fibres == r.links.total  # one fibre a lane link


@pytest.mark.parametrize(("split", "radix", "speed"), [(4, 512, 200), (8, 1024, 100)])
def test_tomahawk6_runs_the_mode_of_the_plane_speed(split, radix, speed):
    """Tomahawk 6: 102.4 Tb/s as 512 x 200G or 1,024 x 100G (Broadcom; catalog th6-102t)."""
    pl = plan(params_from_dict("fat-tree", {"gear": "roce-400", "nic": "thor-ultra",
                                            "plane_split": split, "switch": "th6-102t",
                                            "gpus": 8192}))
    assert pl.planes == split
    assert (pl.gear.leaf.radix, pl.gear.leaf.speed_gbps) == (radix, speed)
    assert pl.gear.nic_mode.ports == split and pl.gear.nic_mode.speed_gbps == 800 // split


def test_a_split_the_nic_cannot_do_is_refused_in_one_line():
    with pytest.raises(GeneratorError, match="cannot split its 400G port into 8 x 50G"):
        plan(params_from_dict("fat-tree", {"gear": "roce-400", "plane_split": 8}))


def test_a_switch_without_the_plane_speed_is_refused_with_a_way_out():
    with pytest.raises(GeneratorError, match=r"no 100G mode.*th"):
        plan(params_from_dict("fat-tree", {"gear": "roce-400", "nic": "thor-ultra",
                                           "plane_split": 8, "switch": "sn5600"}))


def test_planes_disagreeing_with_the_split_are_refused():
    with pytest.raises(GeneratorError, match="--planes 8"):
        plan(params_from_dict("fat-tree", {**MRC, "gpus": 4096, "planes": 4}))


def _mrc_small():
    p = generate(params_from_dict("fat-tree", {**MRC, "gpus": 2048}))
    from designer.core.catalog import builtin_catalog
    c = compile_project(p, p.catalog(builtin_catalog()))
    return c, build_network(c)


def test_spraying_spreads_a_flow_over_the_eight_planes():
    """A permutation under adaptive spraying runs every connection at the 800G line rate, which
    only eight 100G planes together give."""
    c, net = _mrc_small()
    r = run_load(c, "permutation", "adaptive", net=net)
    assert r.line_rate_gbps == 800
    assert r.throughput["min"] == pytest.approx(1.0)


def test_ecmp_stripes_queue_pairs_over_the_planes():
    """Hashed routing opens a queue pair on each of a GPU's ports (NCCL uses every port):
    every plane's NIC links carry the same load, not one plane per connection."""
    c, net = _mrc_small()
    assert plane_stripes(net) == 8
    r = run_load(c, "permutation", "ecmp", net=net)
    assert r.flows_per_pair == 1
    assert r.throughput["mean"] > 1 / 8 + 0.1  # more than the one plane a hash would give
    # the same permutation one plane at a time is what a hashed single flow could reach
    plane = c.groups["plane"]
    assert set(np.unique(plane[c.is_switch]).tolist()) == set(range(1, 9))


def test_command_line_plane_split(capsys):
    from designer.cli.main import main

    assert main(["generate", "fat-tree", "--gear", "roce-400", "--gpus", "131072", "--nic",
                 "thor-ultra", "--plane-split", "8", "--switch", "th5-64x800", "--tiers", "2",
                 "--plan"]) == 0
    out = capsys.readouterr().out
    assert "4,096 leaf, 2,048 spine (6,144 in all)" in out
    with pytest.raises(SystemExit) as exc:
        main(["generate", "fat-tree", "--plane-split", "3", "--plan"])
    assert exc.value.code == 2
    assert "invalid choice: 3" in capsys.readouterr().err
