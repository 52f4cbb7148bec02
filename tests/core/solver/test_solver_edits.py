"""Edits move the solver's numbers by the right amount (DGX SuperPOD 4 SU and 16 SU)."""

from __future__ import annotations

import numpy as np
import pytest

from designer.core.generators import generate, params_from_dict
from designer.core.model import Project
from designer.core.solver import solve

NDR = 400.0


@pytest.fixture(scope="module")
def four_su() -> Project:
    return generate(params_from_dict("rail", {"sus": 4}))


@pytest.fixture(scope="module")
def sixteen_su() -> Project:
    return generate(params_from_dict("rail", {"sus": 16}))


def without_link(p: Project, a_id: str, b_id: str, keep: int = 0) -> Project:
    """``p`` with the bundle between two devices removed (keep=0) or cut to ``keep`` cables."""
    f = p.fabric
    a, b = f.index[a_id], f.index[b_id]
    links = f.links
    rows = np.flatnonzero(((links.a == a) & (links.b == b)) | ((links.a == b) & (links.b == a)))
    assert rows.size == 1
    if keep:
        return p.with_fabric(f.with_links(links.replace(rows, count=keep)))
    mask = np.ones(len(links), bool)
    mask[rows] = False
    return p.with_fabric(f.with_links(links.take(mask)))


def test_removing_one_of_sixteen_spines_drops_its_share(four_su):
    # 1,024 GPUs: full bisection crosses 512 links; each leaf sends 2 of its 32 uplinks to each
    # spine, so one spine less leaves 30/32 of it: 480 links x 400G, proven exact.
    r = solve(four_su.with_fabric(four_su.fabric.remove_devices({"spine1"})))
    assert r.bisection.gbps == 480 * NDR
    assert r.bisection.exact
    assert r.switches.by_tier == {"leaf": 32, "spine": 15}
    assert r.links.by_layer["leaf-spine"] == 1024 - 64
    assert r.oversubscription.by_tier["leaf"].worst == pytest.approx(32 / 30)
    assert r.oversubscription.blocking_tiers == ("leaf",)
    assert r.hops.max == 3


def test_removing_a_leaf_spine_bundle_drops_two_links(four_su):
    # su1-leaf-r1 keeps 30 uplinks: a cut with it and 15 other leaves on one side crosses 510
    r = solve(without_link(four_su, "su1-leaf-r1", "spine1"))
    assert r.bisection.gbps == 510 * NDR
    assert r.bisection.exact
    assert r.links.total == 2048 - 2
    assert r.oversubscription.by_tier["leaf"].worst == pytest.approx(32 / 30)
    assert r.oversubscription.by_tier["leaf"].typical == 1.0


def test_removing_one_cable_drops_one_link(four_su):
    r = solve(without_link(four_su, "su1-leaf-r1", "spine1", keep=1))
    assert r.bisection.gbps == 511 * NDR and r.bisection.exact


def test_edits_in_a_three_tier_fabric(sixteen_su):
    base = solve(sixteen_su)
    assert base.bisection.gbps == 2048 * NDR and base.hops.max == 5
    # one leaf-spine link less: one link less across the best cut
    r = solve(without_link(sixteen_su, "su1-leaf-r1", "pod1-spine1"))
    assert r.bisection.gbps == 2047 * NDR and r.bisection.exact
    # a spine-core bundle of 16 cables: the pod's spine uplinks lose 16
    r = solve(without_link(sixteen_su, "pod1-spine1", "core1-1"))
    assert r.bisection.gbps == 2032 * NDR and r.bisection.exact
    assert r.oversubscription.by_tier["spine"].worst == 2.0
    assert r.oversubscription.worst == 2.0
    # a whole spine: its pod loses 32 uplinks; the cut between pod pairs shows it. Not proven
    # exact, but the bound over the share of the top tier every leaf reaches is close.
    r = solve(sixteen_su.with_fabric(sixteen_su.fabric.remove_devices({"pod1-spine1"})))
    assert r.bisection.gbps == 2016 * NDR
    assert 0.95 * r.bisection.gbps <= r.bisection.lower_gbps <= r.bisection.gbps
    assert r.hops.max == 5
    # a core: the spines of position 1 lose half their uplinks
    r = solve(sixteen_su.with_fabric(sixteen_su.fabric.remove_devices({"core1-1"})))
    assert r.bisection.gbps == 2016 * NDR
    assert r.bisection.lower_gbps == 1984 * NDR  # what topping those spines back up would add
    assert r.oversubscription.by_tier["spine"].worst == 2.0


def test_removing_a_server_changes_the_gpu_count(four_su):
    r = solve(four_su.with_fabric(four_su.fabric.remove_devices({"su1-node01"})))
    assert r.gpus == 1016 and r.servers == 127
    assert r.bisection.gbps == 508 * NDR and r.bisection.exact
    # the bill counts 8 NICs and the node's 4 twin-port cage modules fewer (DGX SuperPOD H100
    # RA, network fabrics page: a two-port transceiver per node cage)
    nic = {x.catalog_id: x.qty for x in r.bom.lines}
    assert nic["connectx-7"] == 1016 and nic["osfp-2x400g-sr8-flt"] == 127 * 4


def test_hop_counts_react_to_a_cut_off_leaf(four_su):
    # a leaf with all its uplinks removed: its GPUs only reach each other
    f = four_su.fabric
    leaf = f.index["su1-leaf-r1"]
    links = f.links
    spines = [f.index[f"spine{i}"] for i in range(1, 17)]
    spine_rows = (links.a == leaf) & np.isin(links.b, spines)
    p = four_su.with_fabric(f.with_links(links.take(~spine_rows)))
    r = solve(p)
    # its 32 GPUs against the 992 others, less the 7 same-server partners of each
    assert r.hops.unreachable_pairs == 32 * (1024 - 32) - 32 * 7
    assert any(x.code == "gpus-unreachable" for x in r.problems)
    assert r.bisection.gbps == 0 or r.bisection.gbps < 512 * NDR
