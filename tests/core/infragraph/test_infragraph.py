"""InfraGraph export and import: every bundled example's export is an Infrastructure the
``infragraph`` package itself accepts and expands to the design's cables; exports read back
as the same design; InfraGraph's own blueprints (DGX and AMD servers, Clos fabrics) import."""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
from infragraph import Infrastructure as IgInfrastructure
from infragraph.blueprints.devices.amd.mi300x import MI300X
from infragraph.blueprints.devices.generic.generic_switch import Switch
from infragraph.blueprints.devices.generic.server import Server
from infragraph.blueprints.devices.nvidia.dgx import NvidiaDGX
from infragraph.blueprints.fabrics.clos_fat_tree_fabric import ClosFatTreeFabric
from infragraph.blueprints.fabrics.single_tier_fabric import SingleTierFabric
from infragraph.infragraph_service import InfraGraphService

from designer.cli.main import main
from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from designer.core.infragraph.export import write_infragraph
from designer.core.infragraph.importer import project_from_infragraph
from designer.core.infragraph.reader import InfraGraphError
from designer.core.model import Role
from tests._paths import PROJECTS

EXAMPLES = sorted(PROJECTS.glob("*.fabric.json"))


def _graph(text: str) -> nx.Graph:
    """The graph InfraGraph's own service builds from the file (it raises on a bad one)."""
    inf = IgInfrastructure().deserialize(json.loads(text))
    svc = InfraGraphService()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a zero-degree component would warn: none may
        svc.set_graph(inf)
    return svc.get_networkx_graph()


def _between_instances(g: nx.Graph) -> list[tuple[str, str]]:
    return [(u, v) for u, v in g.edges() if u.split(".")[:2] != v.split(".")[:2]]


# One small design of every shape and gear family the examples hold, expanded by InfraGraph's
# own service (networkx, a few seconds per thousand devices): the examples themselves, four
# times larger, are checked by its schema below.
SHAPES = {
    "rail-ib-ndr-ufm": ("rail", {"sus": 1, "reserve_leaf_ports": 4}),
    "rail-roce-400": ("rail", {"sus": 1, "gear": "roce-400"}),
    "rail-b300-ib-xdr": ("rail", {"sus": 1, "gear": "ib-xdr"}),
    "rail-2-plane-roce-800": ("rail", {"sus": 1, "gear": "roce-800"}),
    "rail-gb200-nvl72": ("rail", {"gpus": 576, "gear": "gb200-ib-ndr"}),
    "rail-amd-mi355x": ("rail", {"gpus": 512, "gear": "amd-roce-400", "servers_per_su": 64}),
    "fat-tree-k8": ("fat-tree", {"k_ary": 8}),
    "fat-tree-tor-roce": ("fat-tree", {"gpus": 256, "gear": "roce-400", "placement": "tor",
                                       "servers_per_leaf": 2, "oversubscription": "3:1"}),
    "dragonfly": ("dragonfly", {"a": 4, "p": 2, "h": 2}),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_infragraph_expands_every_shape(shape: str, catalog, tmp_path: Path) -> None:
    kind, values = SHAPES[shape]
    project = generate(params_from_dict(kind, values), catalog)
    cat = project.catalog(catalog)
    out = tmp_path / "design.json"
    s = write_infragraph(project, cat, out)
    g = _graph(out.read_text())
    cables = _between_instances(g)
    # InfraGraph expands the slices to exactly the design's cables, each port used once
    assert len(cables) == int(project.fabric.links.count.sum()) == s.cables
    ends = Counter(n for e in cables for n in e)
    assert max(ends.values()) == 1
    gpus = sum(1 for _, d in g.nodes(data=True) if d.get("type") == "xpu")
    servers = [d for d in project.fabric.devices if d.role is Role.GPU_SERVER]
    assert gpus == sum(cat.server(d.model).gpus for d in servers)


@pytest.mark.parametrize("name", [p.name for p in EXAMPLES], ids=str)
def test_infragraph_accepts_every_example(name: str, catalog, tmp_path: Path) -> None:
    """Every example: InfraGraph's own schema decode and validation, and the slices expanded
    by this tool's reader (checked against InfraGraph's expansion on the shapes above)."""
    project = load_project(PROJECTS / name, catalog)
    cat = project.catalog(catalog)
    out = tmp_path / "design.json"
    write_infragraph(project, cat, out)
    inf = IgInfrastructure().deserialize(json.loads(out.read_text()))
    inf.validate()
    assert sum(x.count for x in inf.instances) == len(project.fabric.devices)
    back = project_from_infragraph(out, catalog)
    assert back.fabric.links.n_cables == project.fabric.links.n_cables


@pytest.mark.parametrize("name", ["dgx-superpod-4su-ib-ndr", "b300-2-plane-roce-800",
                                  "dragonfly-1056-gpus", "dgx-h100-superpod-3su-ufm",
                                  "k-ary-fat-tree-k8"])
def test_export_reads_back_as_the_same_design(name: str, catalog, tmp_path: Path) -> None:
    project = load_project(PROJECTS / f"{name}.fabric.json", catalog)
    out = tmp_path / "design.json"
    write_infragraph(project, project.catalog(catalog), out)
    back = project_from_infragraph(out, catalog)
    assert back.profile == project.profile
    assert Counter((d.role, d.model) for d in back.fabric.devices) == \
        Counter((d.role, d.model) for d in project.fabric.devices)

    def cables(p) -> Counter:
        devs = p.fabric.devices
        # a device is known by its role, model and rank among devices of that role and model
        rank: dict[int, tuple] = {}
        seen: Counter = Counter()
        for i, d in enumerate(devs):
            rank[i] = (d.role.value, d.model, seen[(d.role, d.model)])
            seen[(d.role, d.model)] += 1
        out = Counter()
        ln = p.fabric.links
        for a, pa, b, pb, c, s in zip(ln.a.tolist(), ln.a_port.tolist(), ln.b.tolist(),
                                      ln.b_port.tolist(), ln.count.tolist(),
                                      ln.speed_gbps.tolist(), strict=True):
            for k in range(c):
                out[(*tuple(sorted([(rank[a], pa + k), (rank[b], pb + k)])), s)] += 1
        return out

    assert cables(back) == cables(project)


def _blueprint(tmp_path: Path, infra) -> Path:
    path = tmp_path / "blueprint.json"
    path.write_text(infra.serialize(encoding="json"))
    return path


def test_dgx_clos_blueprint_imports(catalog, tmp_path: Path) -> None:
    # InfraGraph's 2-tier Clos of 16-port switches with DGX H100 hosts: 16 hosts of 8 GPUs,
    # 16 tier-0 and 8 tier-1 switches (its own test states these counts)
    fabric = ClosFatTreeFabric(Switch(port_count=16), NvidiaDGX("dgx_h100"), 2, [])
    path = _blueprint(tmp_path, fabric)
    project = project_from_infragraph(path, catalog)
    roles = Counter(d.role for d in project.fabric.devices)
    assert roles == {Role.GPU_SERVER: 16, Role.LEAF: 16, Role.SPINE: 8}
    cat = project.catalog(catalog)
    servers = [d for d in project.fabric.devices if d.role is Role.GPU_SERVER]
    assert {cat.server(d.model).gpus for d in servers} == {8}
    assert "H100" in cat.server(servers[0].model).gpu_model
    # every cable of the blueprint's own graph, at the blueprint's speeds (100G, 200G)
    g = InfraGraphService()
    g.set_graph(fabric)
    assert project.fabric.links.n_cables == len(_between_instances(g.get_networkx_graph()))
    assert set(project.fabric.links.speed_gbps.tolist()) == {100, 200}


def test_three_tier_clos_blueprint_gets_cores(catalog, tmp_path: Path) -> None:
    # 3 tiers of 4-port switches with generic servers: 8 + 8 + 4 switches (InfraGraph's test)
    fabric = ClosFatTreeFabric(Switch(port_count=4), Server(), 3, [])
    project = project_from_infragraph(_blueprint(tmp_path, fabric), catalog)
    roles = Counter(d.role for d in project.fabric.devices)
    assert roles[Role.LEAF] == 8 and roles[Role.SPINE] == 8 and roles[Role.CORE] == 4


def test_amd_server_blueprint_imports(catalog, tmp_path: Path) -> None:
    fabric = SingleTierFabric(MI300X(), 4, 400)
    project = project_from_infragraph(_blueprint(tmp_path, fabric), catalog)
    cat = project.catalog(catalog)
    servers = [d for d in project.fabric.devices if d.role is Role.GPU_SERVER]
    assert len(servers) == 4
    spec = cat.server(servers[0].model)
    # an AMD server stays an AMD server: its own GPU count and name, not the profile's DGX
    assert spec.gpus == 8 and "MI300X" in spec.gpu_model
    assert project.fabric.links.n_cables == 32


def test_cli_round_trip(tmp_path: Path, capsys) -> None:
    src = PROJECTS / "dgx-superpod-4su-roce-400.fabric.json"
    out = tmp_path / "x.json"
    assert main(["export", "infragraph", str(src), "-o", str(out)]) == 0
    proj = tmp_path / "back.fabric.json"
    assert main(["import", "infragraph", str(out), "-o", str(proj)]) == 0
    text = capsys.readouterr().out
    assert "2,048 cables" in text and "roce-400" in text
    assert main(["validate", str(proj)]) == 0


@pytest.mark.parametrize(("content", "words"), [
    ("not json {", "not an InfraGraph"),
    ("[1, 2]", "not an InfraGraph"),
    ('{"devices": [], "instances": [], "edges": []}', "no cables"),
    ('{"devices": [{"name": "s", "components": [{"name": "port", "choice": "port", '
     '"count": 4}]}], "instances": [{"name": "a", "device": "s", "count": 2}], '
     '"edges": [{"ep1": {"instance": "a[0]", "component": "port[9]"}, '
     '"ep2": {"instance": "a[1]", "component": "port[0]"}, "link": "x"}]}', "outside 0..3"),
    ('{"devices": [{"name": "s", "components": [{"name": "port", "choice": "port", '
     '"count": 4}]}], "instances": [{"name": "a", "device": "s", "count": 2}], '
     '"edges": [{"ep1": {"instance": "b[0]", "component": "port[0]"}, '
     '"ep2": {"instance": "a[1]", "component": "port[0]"}, "link": "x"}]}', "instance 'b'"),
    ('{"devices": [{"name": "s", "components": [{"name": "port", "choice": "port", '
     '"count": 10000000}]}], "instances": [{"name": "a", "device": "s", "count": 2}], '
     '"edges": [{"ep1": {"instance": "a[0]", "component": "port"}, "scheme": "many2many", '
     '"ep2": {"instance": "a[1]", "component": "port"}, "link": "x"}]}', "more than"),
    ('{"devices": [{"name": "s", "components": [{"name": "port", "choice": "port", '
     '"count": "many"}]}]}', "whole number"),
])
def test_hostile_files_get_one_line(tmp_path: Path, catalog, content: str, words: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InfraGraphError) as err:
        project_from_infragraph(path, catalog)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_fifo_is_refused(tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert main(["import", "infragraph", str(fifo), "-o", str(tmp_path / "p.fabric.json")]) == 2
    assert "a FIFO (named pipe), not a file to read" in capsys.readouterr().err


def test_composed_devices_and_one_cable_per_port(catalog, tmp_path: Path) -> None:
    # a server whose NICs are devices of their own (cx[k].port[j]), cabled to a switch
    doc = {
        "devices": [
            {"name": "cx", "components": [{"name": "port", "choice": "port", "count": 2}]},
            {"name": "srv", "components": [
                {"name": "xpu", "choice": "xpu", "count": 4, "description": "MI300X"},
                {"name": "cx", "choice": "device", "count": 2}]},
            {"name": "sw", "components": [{"name": "port", "choice": "port", "count": 8}]}],
        "links": [{"name": "l", "physical": {"bandwidth": {"choice": "gigabits_per_second",
                                                           "gigabits_per_second": 400}}}],
        "instances": [{"name": "host", "device": "srv", "count": 2},
                      {"name": "leaf", "device": "sw", "count": 1}],
        "edges": [{"ep1": {"instance": "host[0:2]", "component": "cx[0:2].port[0:2]"},
                   "ep2": {"instance": "leaf[0]", "component": "port[0:8]"},
                   "link": "l", "scheme": "one2one"}],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    project = project_from_infragraph(path, catalog)
    servers = [d for d in project.fabric.devices if d.role is Role.GPU_SERVER]
    assert len(servers) == 2 and project.fabric.links.n_cables == 8
    cat = project.catalog(catalog)
    assert cat.server(servers[0].model).gpus == 4
    # every server port and every switch port is used once
    ln = project.fabric.links
    ends = Counter(zip(ln.a.tolist(), ln.a_port.tolist(), strict=True)) + \
        Counter(zip(ln.b.tolist(), ln.b_port.tolist(), strict=True))
    assert max(ends.values()) == 1
    doc["edges"].append(dict(doc["edges"][0]))  # the same ports cabled twice
    path.write_text(json.dumps(doc))
    with pytest.raises(InfraGraphError, match="more than one cable"):
        project_from_infragraph(path, catalog)
