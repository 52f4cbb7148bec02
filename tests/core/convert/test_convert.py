"""Switching a design's gear profile: regenerate when the radix changes, else map in place."""

from __future__ import annotations

import pytest

from designer.core import editing as E
from designer.core.convert import convert_profile
from designer.core.errors import PortsExhausted
from designer.core.generators import generate, params_from_dict
from designer.core.model import Project
from designer.core.problems import find_problems


def _models(project):
    return {d.model for d in project.fabric.devices}


@pytest.mark.parametrize(
    ("target", "switch", "server", "switches"),
    [
        # 1,024 GPUs: 32 x 128-port SN5600 leaves need 8 spines; Q3400 144 ports, same rule
        ("roce-400", "sn5600", "dgx-h100", 40),
        ("ib-xdr", "q3400", "dgx-b300", 40),
        ("roce-800", "sn5600", "dgx-b300", 80),  # two planes
    ],
)
def test_generated_design_is_generated_again(catalog, target, switch, server, switches):
    p = generate(params_from_dict("rail", {"sus": 4}), catalog)
    c = convert_profile(p, target, catalog)
    assert c.regenerated
    q = c.project
    assert q.profile == target and q.generator.params["gear"] == target
    assert _models(q) == {switch, server}
    assert sum(1 for d in q.fabric.devices if d.role.is_switch) == switches
    # the name keeps its words and names the new gear (issue 27: it named the old one)
    # the title as generated on the new gear names it: its full name, as the Gear box shows it
    assert q.name == p.name.replace("InfiniBand NDR 400G", catalog.profile(target).name)
    assert not [x for x in find_problems(q.fabric, q.catalog(catalog)) if x.severity == "error"]


def test_edited_generated_design_says_edits_are_dropped(catalog):
    p = generate(params_from_dict("rail", {"sus": 1}), catalog)
    p = E.move_devices(p, {"spine1": (0.0, -600.0)})
    c = convert_profile(p, "ib-xdr", catalog)
    assert any("edited after it was generated" in n for n in c.notes)


def test_hand_drawn_design_is_mapped_in_place(catalog):
    p = Project()
    p, s = E.add_device(p, catalog, "dgx-h100", 0, 0)
    p, sw = E.add_device(p, catalog, "qm9700", 0, -260)
    p, sp = E.add_device(p, catalog, "qm9700", 0, -520)
    p = E.connect(p, catalog, s, sw)
    p = E.connect(p, catalog, sw, sp, count=4)
    x = convert_profile(p, "ib-xdr", catalog).project
    assert [d.model for d in x.fabric.devices] == ["dgx-b300", "q3400", "q3400"]
    assert set(x.fabric.links.speed_gbps.tolist()) == {800}
    assert x.fabric.device(s).x == 0 and x.fabric.links.n_cables == 12
    r = convert_profile(p, "roce-800", catalog)
    f = r.project.fabric
    # CX-8 as 2 x 400GbE: GPU i owns ports 2i+1 (plane 1) and 2i+2; cables stay on plane 1
    e = f.links.expand()
    server_ports = sorted(e["a_port"][e["a"] == f.index[s]].tolist())
    assert server_ports == [1, 3, 5, 7, 9, 11, 13, 15]
    back = convert_profile(r.project, "ib-ndr", catalog).project
    assert [d.model for d in back.fabric.devices] == ["dgx-h100", "qm9700", "qm9700"]
    assert back.fabric.links.n_cables == p.fabric.links.n_cables


def test_mapping_refuses_when_the_new_switch_is_too_small(catalog):
    p = Project(profile="roce-400")
    p, sw = E.add_device(p, catalog, "sn5600", 0, -260)
    for k in range(9):
        p, s = E.add_device(p, catalog, "dgx-h100", k * 60, 0)
        p = E.connect(p, catalog, s, sw)  # 72 ports used on a 128-port switch
    with pytest.raises(PortsExhausted, match="fewer ports"):
        convert_profile(p, "ib-ndr", catalog)


def test_same_profile_is_a_no_op(catalog):
    p = generate(params_from_dict("fat-tree", {"k_ary": 4}), catalog)
    assert convert_profile(p, "ib-ndr", catalog).project is p


def test_a_name_that_mentions_the_gear_follows_a_gear_switch(catalog):
    from designer.core.convert import renamed_for

    ndr, roce = catalog.profile("ib-ndr"), catalog.profile("roce-400")
    xdr, r800 = catalog.profile("ib-xdr"), catalog.profile("roce-800")
    assert renamed_for("DGX SuperPOD 4 SU (1,024 GPUs), InfiniBand NDR", ndr, roce) == (
        "DGX SuperPOD 4 SU (1,024 GPUs), RoCE 400G")
    # the full name (a generated title, the Gear box) by the full name: title and profile agree
    assert renamed_for("Rail 4 SU, InfiniBand NDR 400G", ndr, xdr) == \
        "Rail 4 SU, InfiniBand XDR 800G"
    assert renamed_for("Pod A on RoCE Ethernet 800G (2 x 400G planes)", r800, ndr) == (
        "Pod A on InfiniBand NDR 400G")
    assert renamed_for("Pod A on RoCE 800G", r800, ndr) == "Pod A on InfiniBand NDR"
    # a name of the user's own, or a word that only contains a profile's name, stays
    assert renamed_for("Lab cluster B", ndr, roce) == "Lab cluster B"
    assert renamed_for("MyInfiniBand NDR-test", ndr, roce) == "MyInfiniBand NDR-test"


def test_compare_variants_are_named_for_their_gear(catalog):
    from designer.core.analysis.comparison import profile_variant
    from designer.core.fileformat import load_project
    from designer.core.paths import projects_dir

    p = load_project(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", catalog)
    assert profile_variant(p, "roce-400", catalog).name.endswith("RoCE 400G")
