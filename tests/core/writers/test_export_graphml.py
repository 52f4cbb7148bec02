"""GraphML export, read back with networkx (what Gephi and yEd users script with)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from designer.core.generators import generate, params_from_dict
from designer.core.writers.graphml import graphml_bytes, write_graphml


@pytest.fixture(scope="module")
def rail():
    return generate(params_from_dict("rail", {"sus": 1, "reserve_leaf_ports": 4}))


@pytest.fixture(scope="module")
def dragonfly():
    return generate(params_from_dict("dragonfly", {"a": 4, "p": 2, "h": 2}))


def read(project, catalog, tmp_path):
    path = tmp_path / "g.graphml"
    counts = write_graphml(project, project.catalog(catalog), path)
    g = nx.read_graphml(path)
    assert counts == {"nodes": g.number_of_nodes(), "edges": g.number_of_edges()}
    return g


def test_nodes_edges_and_cables_match_the_design(rail, catalog, tmp_path):
    g = read(rail, catalog, tmp_path)
    fabric = rail.fabric
    assert not g.is_multigraph() and not g.is_directed()
    assert g.number_of_nodes() == len(fabric.devices)
    pairs = {frozenset((int(a), int(b))) for a, b in zip(fabric.links.a, fabric.links.b,
                                                         strict=True)}
    assert g.number_of_edges() == len(pairs)
    assert sum(d["cables"] for *_, d in g.edges(data=True)) == fabric.links.n_cables
    capacity = float((fabric.links.count.astype(np.int64) * fabric.links.speed_gbps).sum())
    assert sum(d["capacity_gbps"] for *_, d in g.edges(data=True)) == pytest.approx(capacity)
    roles = {d.id: d.role.value for d in fabric.devices}
    assert {n: d["role"] for n, d in g.nodes(data=True)} == roles
    ufm = g.nodes["ufm1"]
    assert ufm["gpus"] == 0 and ufm["tier"] == 0
    node = g.nodes["su1-node01"]
    assert node["gpus"] == 8 and node["su"] == 1 and node["model"] == "dgx-h100"
    assert isinstance(node["x"], float) and node["label"] == "su1-node01"
    layers = {d["layer"] for *_, d in g.edges(data=True)}
    assert layers == {"endpoint-leaf", "leaf-spine"}
    assert {d["speed_gbps"] for *_, d in g.edges(data=True)} == {400}


def test_dragonfly_layers(dragonfly, catalog, tmp_path):
    g = read(dragonfly, catalog, tmp_path)
    count = {}
    for *_, d in g.edges(data=True):
        count[d["layer"]] = count.get(d["layer"], 0) + d["cables"]
    # Kim et al. 2008, a = 4, p = h = 2: 9 groups, 36 global and 54 local links
    assert count["global"] == 36 and count["local"] == 54 and count["endpoint-router"] == 72


def test_names_are_escaped_and_media_listed(rail, catalog):
    devices = list(rail.fabric.devices)
    devices[0] = devices[0].model_copy(update={"name": '=1+1 <&> "x"\x01'})
    project = rail.with_fabric(rail.fabric.with_devices(tuple(devices)))
    data = graphml_bytes(project, project.catalog(catalog))
    g = nx.parse_graphml(data.decode())
    assert g.nodes[devices[0].id]["label"] == '=1+1 <&> "x"\ufffd'
    # the solver's choice for NDR at the default lengths (10 m and 30 m): multimode optics
    assert {d["medium"] for *_, d in g.edges(data=True)} == {"mmf"}


def test_yed_shapes_are_present(rail, catalog):
    data = graphml_bytes(rail, rail.catalog(catalog)).decode()
    assert data.count("<y:ShapeNode>") == len(rail.fabric.devices)
    assert 'yfiles.type="nodegraphics"' in data
