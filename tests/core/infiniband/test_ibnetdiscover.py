"""ibnetdiscover topology files: export, reading both dialects, as-built import, cable diff.

Pure tests (no InfiniBand tools needed). The format is what ``ibnetdiscover`` prints and
``ibsim`` loads; the designs are the generators' published ones (DOMAIN.md section 5).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.cli.main import main
from designer.core.fileformat import save_project
from designer.core.infiniband import (
    NotInfiniBand,
    diff_projects,
    ib_fabric_of,
    parse_netfile,
    project_from_ib,
    write_netfile,
)
from designer.core.infiniband.netfile import NetfileError
from designer.core.infiniband.topology import SWITCH, split_hca_description
from designer.core.model import Role
from designer.core.ports import port_counts
from tests.core.ib_helpers import cables, design, row, with_cables


@pytest.fixture(scope="module")
def rail2():
    # DGX SuperPOD, 2 SU: 16 leaves, 8 spines, 512 node-leaf + 512 leaf-spine cables
    return design("rail", sus=2)


def _round_trip(project, catalog):
    text = write_netfile(ib_fabric_of(project, project.catalog(catalog)).fabric)
    return project_from_ib(parse_netfile(text), catalog)


# --- export ------------------------------------------------------------------------------------


def test_export_counts_names_and_ports(rail2, catalog):
    pib = ib_fabric_of(rail2, rail2.catalog(catalog))
    ib = pib.fabric
    assert int(ib.is_switch.sum()) == 24 and ib.n_nodes - 24 == 512 and ib.n_cables == 1024
    text = write_netfile(ib, title=rail2.name)
    assert text.count("\nSwitch\t64 ") == 24 and text.count("\nCa\t1 ") == 512
    # one HCA per ConnectX-7, named as the mlx5 driver names it; switches keep their names
    assert 'Ca\t1 "su1-node01 mlx5_0"' in text and 'Ca\t1 "su2-node32 mlx5_7"' in text
    assert 'Switch\t64 "su1-leaf-r3"' in text
    # GPU i of su1-node01 (rail i+1) plugs into leaf r(i+1) at port 1: both ends are written
    assert re.search(r'^\[1\]\t"su1-node01 mlx5_2"\[1\]\(0fab[0-9a-f]{12}\)', text, re.M)
    assert re.search(r'^\[1\]\(0fab[0-9a-f]{12}\) \t"su1-leaf-r3"\[1\]', text, re.M)
    # the cage/lane mapping of twin-port cages is documented in the file
    assert "port 17 is 9/1" in text
    # ibsim reads lines into 256 bytes
    assert max(len(line) for line in text.splitlines()) < 255


def test_export_is_stable_and_guids_unique(rail2, catalog):
    a = ib_fabric_of(rail2, rail2.catalog(catalog)).fabric
    b = ib_fabric_of(rail2, rail2.catalog(catalog)).fabric
    assert write_netfile(a) == write_netfile(b)
    assert np.unique(a.guid).size == a.n_nodes
    port_guids = a.port_guid(np.arange(a.n_nodes), np.ones(a.n_nodes, int))
    assert np.unique(port_guids).size == a.n_nodes


def test_multi_plane_hcas_one_per_nic_port(catalog):
    # a 2-plane design: each GPU has one NIC port per plane, each port its own HCA
    p = design("rail", sus=1, planes=2, server="gpu-server-8")
    pib = ib_fabric_of(p, p.catalog(catalog))
    ib = pib.fabric
    hcas = [d for d, k in zip(ib.desc, ib.kind, strict=True) if k != SWITCH]
    assert len(hcas) == 2 * 256
    assert "su1-node01 mlx5_0" in hcas and "su1-node01 mlx5_15" in hcas
    # ports 2i+1 and 2i+2 of a server (GPU i, planes 1 and 2) sit in different planes
    node = ib.desc.index("su1-node01 mlx5_1")
    peer = ib.b[ib.a == node].tolist() + ib.a[ib.b == node].tolist()
    assert ib.desc[peer[0]].startswith("p2-")


def test_ethernet_design_is_refused(catalog, tmp_path, capsys):
    p = design("rail", sus=1, gear="roce-400")
    with pytest.raises(NotInfiniBand, match="InfiniBand"):
        ib_fabric_of(p, p.catalog(catalog))
    save_project(p, tmp_path / "roce.fabric.json")
    code = main(
        [
            "export",
            "ibnetdiscover",
            str(tmp_path / "roce.fabric.json"),
            "-o",
            str(tmp_path / "x.topo"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Ethernet" in err and "InfiniBand" in err and "Traceback" not in err
    assert not (tmp_path / "x.topo").exists()


def test_export_to_an_unwritable_place_is_one_line(rail2, tmp_path, capsys):
    plan = tmp_path / "plan.fabric.json"
    save_project(rail2, plan)
    for out, words in ((tmp_path / "no" / "x.topo", "does not exist"), (tmp_path, "is a folder")):
        # an OSError would escape main() here; a DesignerError becomes exit 2 and one line
        assert main(["export", "ibnetdiscover", str(plan), "-o", str(out)]) == 2
        assert words in capsys.readouterr().err


def test_unique_names_are_used_else_ids(rail2, catalog):
    devices = list(rail2.fabric.devices)
    devices[0] = devices[0].model_copy(update={"name": "rack A node 1"})
    renamed = rail2.with_fabric(rail2.fabric.with_devices(tuple(devices)))
    assert ib_fabric_of(renamed, catalog).descriptions[0] == "rack A node 1"
    devices[1] = devices[1].model_copy(update={"name": "rack A node 1"})  # now not unique
    clash = rail2.with_fabric(rail2.fabric.with_devices(tuple(devices)))
    pib = ib_fabric_of(clash, catalog)
    assert pib.named_by == "id" and pib.descriptions[0] == "su1-node01"


# --- reading ------------------------------------------------------------------------------------

REAL_OUTPUT = """#
# Topology file: generated on Mon Jan  1 00:00:00 2024
#
# Initiated from node 0002c903000a0b0c port 0002c903000a0b0d

vendid=0x2c9
devid=0xd2f0
sysimgguid=0xb8599f0300aa0001
switchguid=0xb8599f0300aa0001(b8599f0300aa0001)
Switch\t64 "S-b8599f0300aa0001"\t\t# "MF0;leaf-a:MQM9700/U1" enhanced port 0 lid 3 lmc 0
[1]\t"H-0002c903000a0b0c"[1](2c903000a0b0d) \t\t# "gpu01 mlx5_0" lid 7 4xNDR
[2]\t"H-0002c903000a0b1c"[1](2c903000a0b1d) \t\t# "gpu01 mlx5_1" lid 8 4xNDR
[3][ext 2]\t"H-0002c903000a0b2c"[2](2c903000a0b2e) \t\t# "gpu02 HCA-1" lid 9 4xNDR
[33]\t"S-b8599f0300aa0002"[1]\t\t# "MF0;spine-a:MQM9700/U1" lid 4 4xNDR

vendid=0x2c9
devid=0xd2f0
sysimgguid=0xb8599f0300aa0002
switchguid=0xb8599f0300aa0002(b8599f0300aa0002)
Switch\t64 "S-b8599f0300aa0002"\t\t# "MF0;spine-a:MQM9700/U1" enhanced port 0 lid 4 lmc 0
[1]\t"S-b8599f0300aa0001"[33]\t\t# "MF0;leaf-a:MQM9700/U1" lid 3 4xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0x0002c903000a0b0c
caguid=0x0002c903000a0b0c
Ca\t1 "H-0002c903000a0b0c"\t\t# "gpu01 mlx5_0"
[1](2c903000a0b0d) \t"S-b8599f0300aa0001"[1]\t\t# lid 7 lmc 0 "MF0;leaf-a:MQM9700/U1" lid 3 4xNDR

vendid=0x2c9
devid=0x1021
caguid=0x0002c903000a0b1c
Ca\t1 "H-0002c903000a0b1c"\t\t# "gpu01 mlx5_1"
[1](2c903000a0b1d) \t"S-b8599f0300aa0001"[2]\t\t# lid 8 lmc 0 "MF0;leaf-a:MQM9700/U1" lid 3 4xNDR

vendid=0x2c9
devid=0x101b
caguid=0x0002c903000a0b2c
Ca\t2 "H-0002c903000a0b2c"\t\t# "gpu02 HCA-1"
[2](2c903000a0b2e) \t"S-b8599f0300aa0001"[3]\t\t# lid 9 lmc 0 "MF0;leaf-a:MQM9700/U1" lid 3 4xNDR
"""

IBSIM_STYLE = """# a hand-written net file, as ibsim's examples are
Switch\t8 "Switch1"
[1]\t"Hca1"[1]
[2]\t"Hca2"[1]
[3]\t"Switch2"[3]\tw=4
[4]\t"Switch2"[4]

Switch 8 "Switch2"
[3]\t"Switch1"[3]
[4]\t"Switch1"[4]
[5]\t"Hca3"

Hca\t2 "Hca1"
[1]\t"Switch1"[1]

Hca\t1 "Hca2"
[1]\t"Switch1"[2]

Hca\t1 "Hca3"
[1]\t"Switch2"[5]
"""


def test_reads_real_ibnetdiscover_output():
    ib = parse_netfile(REAL_OUTPUT)
    assert ib.n_nodes == 5 and ib.n_cables == 4  # each cable listed from both ends, kept once
    assert ib.desc[0] == "MF0;leaf-a:MQM9700/U1" and ib.nodeid[0] == "S-b8599f0300aa0001"
    assert int(ib.guid[0]) == 0xB8599F0300AA0001 and int(ib.devid[0]) == 0xD2F0
    assert int(ib.lid[0]) == 3 and int(ib.lid[2]) == 7  # switch port 0 and HCA port LIDs
    assert set(ib.speed_gbps.tolist()) == {400}  # 4xNDR
    # an HCA port on the HCA's second port ("[ext 2]" marks a split switch port)
    hca2 = ib.desc.index("gpu02 HCA-1")
    sel = (ib.a == hca2) | (ib.b == hca2)
    assert {int(ib.a_port[sel][0]), int(ib.b_port[sel][0])} == {2, 3}


def test_reads_ibsim_style_input():
    ib = parse_netfile(IBSIM_STYLE)
    assert ib.n_nodes == 5 and ib.n_cables == 5
    assert ib.desc == ib.nodeid  # no comments: the node id is the description
    # "[5] "Hca3"" names no peer port: ibsim's default is port 1
    i, j = ib.desc.index("Switch2"), ib.desc.index("Hca3")
    sel = ((ib.a == i) & (ib.b == j)) | ((ib.a == j) & (ib.b == i))
    assert sel.sum() == 1


def test_import_of_real_output_maps_names_ports_and_models(catalog):
    p = project_from_ib(parse_netfile(REAL_OUTPUT), catalog)
    by_name = {d.name: d for d in p.fabric.devices}
    # two HCA ports: not a DGX (8), so a generic 2-GPU server carried by the project
    assert by_name["gpu01"].role == Role.GPU_SERVER and by_name["gpu01"].model == "gpu-server-2g"
    assert "gpu-server-2g" in {g.id for g in p.overrides.gear}
    assert by_name["MF0;leaf-a:MQM9700/U1"].role == Role.LEAF
    assert by_name["MF0;spine-a:MQM9700/U1"].role == Role.SPINE
    assert by_name["MF0;spine-a:MQM9700/U1"].model == "qm9700"  # devid 0xd2f0, 64 ports
    assert p.profile == "ib-ndr"  # 4xNDR links
    # "gpu01 mlx5_1" port 1 is port 2 of gpu01; "gpu02 HCA-1" port 2 is port 2 of gpu02
    e = p.fabric.links.expand()
    idx = p.fabric.index
    ends = {(int(a), int(ap)) for a, ap in zip(e["a"], e["a_port"], strict=True)} | {
        (int(b), int(bp)) for b, bp in zip(e["b"], e["b_port"], strict=True)
    }
    assert (idx[by_name["gpu01"].id], 2) in ends and (idx[by_name["gpu02"].id], 2) in ends


@pytest.mark.parametrize(
    "text, message",
    [
        ('Switch 8 "a"\n[1] "b"[1]\n', "no record"),
        ('Switch 8 "a"\n[9] "b"[1]\n\nCa 1 "b"\n[1] "a"[9]\n', "out of its range"),
        ('Switch 8 "a"\n[1] "b"[1]\n\nCa 1 "b"\n[1] "a"[2]\n', "two"),
        ("hello\n", "no Switch or Ca records"),
        ('Switch 8 "a"\n\nSwitch 8 "a"\n', "defined twice"),
    ],
)
def test_bad_files_name_the_problem(text, message):
    with pytest.raises(NetfileError, match=message):
        parse_netfile(text, "t.topo")


@pytest.mark.parametrize(
    "desc, host, index",
    [
        ("su1-node01 mlx5_3", "su1-node01", 3),
        ("gpu7 HCA-2", "gpu7", 1),
        ("node 12 mlx4_0", "node 12", 0),
        ("ufm1", "ufm1", None),
    ],
)
def test_hca_descriptions(desc, host, index):
    assert split_hca_description(desc) == (host, index)


# --- round trips and diff ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, params",
    [
        ("rail", {"sus": 2}),
        ("rail", {"sus": 1, "reserve_leaf_ports": 4}),  # with the UFM appliance
        ("fat-tree", {"k_ary": 8}),
        ("dragonfly", {"a": 4, "p": 2, "h": 2}),
        ("rail", {"sus": 1, "planes": 2, "server": "gpu-server-8"}),
        ("rail", {"sus": 16}),  # 3 tiers (DOMAIN.md: 128 leaf, 128 spine, 64 core)
    ],
)
def test_export_import_round_trip_equals_design(kind, params, catalog):
    planned = design(kind, **params)
    built = _round_trip(planned, catalog)
    diff = diff_projects(planned, built, catalog)
    assert diff.equal, diff.lines()
    assert diff.matched == planned.fabric.links.n_cables

    # roles guessed from the wiring, port counts and switch models as designed
    def shape(p):
        counts = port_counts(p.fabric, p.catalog(catalog))
        return sorted(
            (d.name, d.role.value, int(n), d.model if d.role.is_switch else "")
            for d, n in zip(p.fabric.devices, counts, strict=True)
        )

    assert shape(built) == shape(planned)
    if "server" not in params:  # the profile's server (DGX H100) is what the import guesses
        assert sorted(d.model for d in built.fabric.devices) == sorted(
            d.model for d in planned.fabric.devices
        )








def test_diff_two_swapped_and_one_missing(rail2, catalog):
    cols = cables(rail2)
    r1, r2 = row(rail2, cols, "su1-node01", 1), row(rail2, cols, "su1-node02", 1)
    cols["b_port"][[r1, r2]] = cols["b_port"][[r2, r1]]  # swapped at the leaf
    keep = np.ones(len(cols["a"]), bool)
    keep[row(rail2, cols, "spine1", 5)] = False
    built = with_cables(rail2, cols, keep)
    diff = diff_projects(rail2, built, catalog)
    c = diff.counts
    assert (c["miswired"], c["missing"], c["extra"], c["as_planned"]) == (2, 1, 0, 1021)
    assert set(diff.miswired_kind.tolist()) == {0}
    lines = diff.lines()
    assert lines[0].startswith(
        "miswired  su1-node01 port 1 (mlx5_0): planned to su1-leaf-r1 "
        "port 1 (1/1), found on su1-leaf-r1 port 2 (1/2)"
    )
    assert lines[2] == "missing   su1-leaf-r2 port 33 (17/1) <-> spine1 port 5 (3/1)"
    # the other way round the missing cable is extra
    back = diff_projects(built, rail2, catalog).counts
    assert (back["miswired"], back["missing"], back["extra"]) == (2, 0, 1)
    # for the window: problems naming the plan's device ids (to mark them on the canvas)
    problems = diff.problems(rail2)
    assert [p.code for p in problems] == ["as-built-miswired"] * 2 + ["as-built-missing"]
    assert problems[0].devices == ("su1-node01", "su1-leaf-r1")
    assert problems[2].devices == ("su1-leaf-r2", "spine1")
    assert all(p.severity.value == "error" for p in problems)


def test_diff_wrong_device(rail2, catalog):
    cols = cables(rail2)
    freed = row(rail2, cols, "spine1", 5)  # leaf-r2 port 33 <-> spine1 port 5, removed
    moved = row(rail2, cols, "spine2", 7)  # a leaf port now cabled to spine1 port 5
    leaf_end = "a" if rail2.fabric.devices[cols["a"][moved]].role == Role.LEAF else "b"
    other = "b" if leaf_end == "a" else "a"
    cols[other][moved] = rail2.fabric.index["spine1"]
    cols[other + "_port"][moved] = 5
    keep = np.ones(len(cols["a"]), bool)
    keep[freed] = False
    diff = diff_projects(rail2, with_cables(rail2, cols, keep), catalog)
    assert diff.counts["miswired"] == 1 and diff.counts["missing"] == 1
    j = diff.to_json()
    assert j["miswired"][0]["found"]["b"] == "spine1" or j["miswired"][0]["found"]["a"] == "spine1"


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_diff_counts_exactly_what_was_changed(data, rail2, catalog):
    """Swapping the leaf ends of m disjoint pairs of GPU cables on one leaf and removing k
    other cables is found as exactly 2m miswired and k missing cables."""
    cols = cables(rail2)
    leaf = data.draw(st.sampled_from([f"su{s}-leaf-r{r}" for s in (1, 2) for r in range(1, 9)]))
    li = rail2.fabric.index[leaf]
    gpu_rows = np.flatnonzero((cols["b"] == li) & (cols["b_port"] <= 32))
    m = data.draw(st.integers(0, 8))
    picked = data.draw(st.permutations(gpu_rows.tolist()))[: 2 * m]
    for x, y in zip(picked[0::2], picked[1::2], strict=True):
        cols["b_port"][[x, y]] = cols["b_port"][[y, x]]
    rest = np.setdiff1d(np.arange(len(cols["a"])), picked)
    k = data.draw(st.integers(0, 5))
    gone = data.draw(st.permutations(rest.tolist()))[:k]
    keep = np.ones(len(cols["a"]), bool)
    keep[gone] = False
    diff = diff_projects(rail2, with_cables(rail2, cols, keep), catalog)
    c = diff.counts
    assert (c["miswired"], c["missing"], c["extra"]) == (2 * m, k, 0)
    assert c["as_planned"] == 1024 - 2 * m - k


def test_cli_export_import_diff(rail2, tmp_path, capsys):
    plan = tmp_path / "plan.fabric.json"
    save_project(rail2, plan)
    topo = tmp_path / "plan.topo"
    assert main(["export", "ibnetdiscover", str(plan), "-o", str(topo)]) == 0
    built = tmp_path / "built.fabric.json"
    assert main(["import", "ibnetdiscover", str(topo), "-o", str(built)]) == 0
    assert main(["diff", str(plan), str(built)]) == 0
    assert "equal" in capsys.readouterr().out
    # a topology file compares directly; a difference exits 1 and is listed port by port
    assert main(["diff", str(plan), str(topo)]) == 0
    cols = cables(rail2)
    keep = np.ones(len(cols["a"]), bool)
    keep[row(rail2, cols, "su1-node05", 3)] = False
    cut = tmp_path / "cut.fabric.json"
    save_project(with_cables(rail2, cols, keep), cut)
    capsys.readouterr()
    assert main(["diff", str(plan), str(cut)]) == 1
    out = capsys.readouterr().out
    assert "missing   su1-node05 port 3 (mlx5_2) <-> su1-leaf-r3 port 5 (3/1)" in out
    assert main(["diff", str(plan), str(cut), "--json"]) == 1
    j = json.loads(capsys.readouterr().out)
    assert j["equal"] is False and j["missing"] == [
        {"a": "su1-node05", "a_port": 3, "b": "su1-leaf-r3", "b_port": 5}
    ]
    # bad input: exit 2 with one line
    assert main(["diff", str(plan), str(tmp_path / "nope.topo")]) == 2


# --- properties and the route walk (no tools needed) --------------------------------------------


@st.composite
def ib_fabrics(draw):
    """Random switches and single-port HCAs, every port used at most once."""
    from designer.core.infiniband.topology import CA, IbFabric

    n_sw = draw(st.integers(1, 6))
    n_ca = draw(st.integers(0, 12))
    ports = [draw(st.integers(2, 16)) for _ in range(n_sw)] + [1] * n_ca
    free = [(n, p) for n in range(n_sw + n_ca) for p in range(1, ports[n] + 1)]
    order = draw(st.permutations(free))
    cables, used = [], set()
    for (n, p), (m, q) in zip(order[0::2], order[1::2], strict=False):
        if n == m or (n >= n_sw and m >= n_sw):  # no loops, no HCA-to-HCA cables
            continue
        if (n, p) in used or (m, q) in used:
            continue
        used |= {(n, p), (m, q)}
        cables.append((n, p, m, q))
    names = [f"sw{i}" for i in range(n_sw)] + [f"host{i // 2} mlx5_{i % 2}" for i in range(n_ca)]
    col = np.array(cables, dtype=np.int32).reshape(-1, 4)
    n = n_sw + n_ca
    return IbFabric(
        nodeid=tuple(names),
        desc=tuple(names),
        kind=np.array([SWITCH] * n_sw + [CA] * n_ca, np.int8),
        nports=np.array(ports, np.int32),
        guid=np.arange(1, n + 1, dtype=np.uint64) << 8,
        devid=np.zeros(n, np.int32),
        lid=np.zeros(n, np.int32),
        a=col[:, 0],
        a_port=col[:, 1],
        b=col[:, 2],
        b_port=col[:, 3],
        speed_gbps=np.full(len(col), 400, np.int32),
    )


def _cable_set(ib):
    return {
        frozenset(((ib.desc[a], ap), (ib.desc[b], bp)))
        for a, ap, b, bp in zip(
            ib.a.tolist(), ib.a_port.tolist(), ib.b.tolist(), ib.b_port.tolist(), strict=True
        )
    }


@settings(max_examples=40, deadline=None)
@given(ib_fabrics())
def test_write_then_read_keeps_every_node_and_cable(ib):
    back = parse_netfile(write_netfile(ib))
    assert back.desc == ib.desc and back.nports.tolist() == ib.nports.tolist()
    assert back.guid.tolist() == ib.guid.tolist()
    assert _cable_set(back) == _cable_set(ib)


def test_route_walk_counts_switches_and_finds_loops():
    from designer.core.ibcheck.routes import UNREACHED, parse_dump_fts, port_loads, route_hops

    # h1 - s1 =(ports 3,4)= s2 - h2, LIDs: s1 1, s2 2, h1 3, h2 4
    text = (
        'Switch 8 "s1"  # "s1" lid 1\n[1] "h1"[1]\n[3] "s2"[3]\n[4] "s2"[4]\n\n'
        'Switch 8 "s2"  # "s2" lid 2\n[1] "h2"[1]\n[3] "s1"[3]\n[4] "s1"[4]\n\n'
        'Ca 1 "h1"  # "h1"\n[1] "s1"[1]  # lid 3 lmc 0 "s1" lid 1 4xNDR\n\n'
        'Ca 1 "h2"  # "h2"\n[1] "s2"[1]  # lid 4 lmc 0 "s2" lid 2 4xNDR\n'
    )
    ib = parse_netfile(text)
    ib = type(ib)(**{**ib.__dict__, "guid": np.array([10, 20, 30, 40], np.uint64)})
    head = "Unicast lids [0x0-0x4] of switch DR path slid 0; dlid 0; 0 guid 0x{:016x} ({}):\n"
    fts = (
        head.format(10, "s1") + "0x0001 000 \n0x0002 003 \n0x0003 001 \n0x0004 004 \n"
        "4 lids dumped\n" + head.format(20, "s2") + "0x0001 003 \n0x0002 000 \n0x0003 003 \n"
        "0x0004 001 \n"
    )
    lfts = parse_dump_fts(fts, ib)
    hosts = np.array([2, 3])  # h1, h2
    hops = route_hops(ib, lfts, hosts)
    assert hops.tolist() == [[1, 2], [2, 1]]
    loads = port_loads(lfts, ib.lid[hosts].astype(np.int64))
    assert loads[0, 4] == 1 and loads[0, 3] == 0 and loads[1, 3] == 1
    # s2 sends h2's LID back up to s1, which sends it to s2 again: a loop, never arrives
    looped = fts.replace("0x0004 001", "0x0004 003")
    hops = route_hops(ib, parse_dump_fts(looped, ib), hosts)
    assert hops[0, 1] == UNREACHED and hops[1, 1] == UNREACHED
