"""LLDP as-built: a design's LLDP view imports back to the same cables, a swap shows."""

from __future__ import annotations

import json

import pytest

from designer.cli.main import main
from designer.core.as_built import load_as_built
from designer.core.ethernet.lldp import (
    LldpError,
    as_built_source,
    looks_like_lldp,
    project_from_lldp,
    write_lldp_view,
)
from designer.core.fileformat import save_project
from designer.core.infiniband.diff import diff_projects
from tests.core.ethernet_helpers import fat_tree_k4, rail_2su

SONIC_TABLE = """\
Capability codes: (R) Router, (B) Bridge, (O) Other
LocalPort    RemoteDevice    RemotePortID    Capability    RemotePortDescr
-----------  --------------  --------------  ------------  -----------------
Ethernet0    su1-node01      eth1            O             mlx5_0
Ethernet4    su1-node02      eth1            O
Ethernet128  spine1          Ethernet0       BR            su1-leaf-r1
--------------------------------------------------
Total entries displayed:  3
"""


@pytest.fixture(scope="module")
def rail_view(tmp_path_factory):
    project, cat = rail_2su()
    folder = tmp_path_factory.mktemp("lldp")
    assert write_lldp_view(project, cat, folder) == 20
    return project, cat, folder


def test_round_trip_is_equal(rail_view):
    """Export the design's LLDP view, import it, and the diff finds nothing."""
    project, cat, folder = rail_view
    built = project_from_lldp([folder], cat)
    roles = sorted(d.role.value for d in built.fabric.devices)
    assert roles.count("leaf") == 16 and roles.count("spine") == 4
    assert roles.count("gpu-server") == 64
    diff = diff_projects(project, built, cat)
    assert diff.equal, diff.lines(limit=5)
    assert diff.counts["as_planned"] == 1024


def test_two_swapped_server_cables_show(rail_view, tmp_path):
    """Two servers' cables swapped at a leaf: both show as miswired, nothing else."""
    project, cat, folder = rail_view
    for f in folder.iterdir():
        (tmp_path / f.name).write_text(f.read_text())
    leaf = tmp_path / "su1-leaf-r1.json"
    data = json.loads(leaf.read_text())
    ifaces = data["lldp"]["interface"]
    (k0, v0), (k1, v1) = next(iter(ifaces[0].items())), next(iter(ifaces[1].items()))
    ifaces[0], ifaces[1] = {k0: v1}, {k1: v0}
    leaf.write_text(json.dumps(data))
    diff = diff_projects(project, project_from_lldp([tmp_path], cat), cat)
    assert diff.counts["miswired"] == 2 and not diff.counts["missing"]
    text = "\n".join(diff.lines(limit=None))
    assert "su1-node01" in text and "su1-node02" in text and "su1-leaf-r1" in text


def test_cli_import_and_diff(rail_view, tmp_path, capsys):
    project, _cat, folder = rail_view
    plan = tmp_path / "plan.fabric.json"
    save_project(project, plan, keep_backup=False)
    out = tmp_path / "built.fabric.json"
    assert main(["import", "lldp", str(folder), "-o", str(out)]) == 0
    assert "16 leaf" in capsys.readouterr().out
    assert main(["diff", str(plan), str(out)]) == 0
    capsys.readouterr()
    assert main(["diff", str(plan), str(folder), "--json"]) == 0  # the folder directly
    assert json.loads(capsys.readouterr().out)["as_planned"] == 1024


def test_sonic_lldp_table_and_lldpcli_single_interface(tmp_path, catalog):
    (tmp_path / "su1-leaf-r1.txt").write_text(SONIC_TABLE)
    single = {"lldp": {"interface": {"Ethernet0": {
        "via": "LLDP", "chassis": {"su1-leaf-r1": {"id": {"type": "mac", "value": "x"},
                                                   "capability": [{"type": "Router",
                                                                   "enabled": True}]}},
        "port": {"id": {"type": "mac", "value": "02:00:00:00:00:01"}, "descr": "Ethernet128"},
    }}}}
    (tmp_path / "spine1.json").write_text(json.dumps(single))
    built = project_from_lldp([tmp_path], catalog)
    names = {d.name: d.role.value for d in built.fabric.devices}
    assert names == {"su1-leaf-r1": "leaf", "spine1": "spine", "su1-node01": "gpu-server",
                     "su1-node02": "gpu-server"}
    # the leaf-spine cable is reported by both ends and counted once: leaf port 17 (cage 17,
    # lane 0 of 2 x 400G) to spine port 1
    assert built.fabric.links.n_cables == 3
    assert looks_like_lldp(SONIC_TABLE.encode()) and looks_like_lldp(json.dumps(single).encode())
    assert as_built_source(tmp_path / "spine1.json") == tmp_path
    assert load_as_built(tmp_path, catalog).fabric.links.n_cables == 3


def test_bad_lldp_names_the_file(tmp_path, catalog):
    (tmp_path / "leaf1.json").write_text('{"lldp": {"interface": {"weird0": {"chassis": '
                                         '{"srv": {}}, "port": {"id": {"value": "eth1"}}}}}}')
    with pytest.raises(LldpError, match="leaf1: cannot read a port number from interface"):
        project_from_lldp([tmp_path / "leaf1.json"], catalog)
    (tmp_path / "leaf2.txt").write_text("hello\n")
    with pytest.raises(LldpError, match=r"leaf2\.txt: no 'LocalPort"):
        project_from_lldp([tmp_path / "leaf2.txt"], catalog)
    with pytest.raises(LldpError, match="not Ethernet"):
        project_from_lldp([tmp_path], catalog, gear="ib-ndr")


def test_fat_tree_round_trip(tmp_path):
    project, cat = fat_tree_k4()
    write_lldp_view(project, cat, tmp_path)
    assert diff_projects(project, project_from_lldp([tmp_path], cat), cat).equal


def test_json0_shape_and_a_folder_with_other_files(tmp_path, catalog):
    """'lldpcli -f json0' (every value a list) reads like '-f json'; a folder's other files
    (notes, a plan) are passed over."""
    json0 = {"lldp": [{"interface": [
        {"name": "Ethernet0", "via": "LLDP",
         "chassis": [{"id": [{"type": "mac", "value": "x"}], "name": [{"value": "srv1"}]}],
         "port": [{"id": [{"type": "ifname", "value": "eth1"}], "descr": [{"value": "eth1"}]}]},
        {"name": "Ethernet8", "via": "LLDP",
         "chassis": [{"name": [{"value": "spine9"}],
                      "capability": [{"type": "Router", "enabled": True}]}],
         "port": [{"id": [{"type": "ifname", "value": "Ethernet4"}]}]},
    ]}]}
    (tmp_path / "leaf9.json").write_text(json.dumps(json0))
    (tmp_path / "notes.txt").write_text("cabled on Tuesday\n")
    built = project_from_lldp([tmp_path], catalog)
    roles = {d.name: d.role.value for d in built.fabric.devices}
    assert roles == {"leaf9": "leaf", "spine9": "spine", "srv1": "gpu-server"}
    assert built.fabric.links.n_cables == 2
