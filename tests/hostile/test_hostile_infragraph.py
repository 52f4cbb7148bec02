"""Hostile InfraGraph files: each refused with one line naming the file, the instance or field
and the limit (exit 2), or imported into a project that reads back; never a hang, an internal
error or a file the tool cannot read. Small inputs that reach each limit check."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.infragraph.importer import _tiers, project_from_infragraph, xpu_counts
from designer.core.infragraph.reader import parse
from designer.core.structured import MAX_EXPANDED, StructuredError, expanded_items, loads
from tests.infragraph_cases import (
    alias_bomb,
    composed,
    deep_paths,
    infrastructure,
    pair,
    server,
    servers_on_own_switches,
    switch,
)


def _import(tmp_path, capsys, data, suffix=".json") -> tuple[int, str]:
    src = tmp_path / f"in{suffix}"
    src.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    code = main(["import", "infragraph", str(src), "-o", str(tmp_path / "o.fabric.json"),
                 "--force"])
    err = capsys.readouterr().err
    if code == 2:
        assert err.startswith("designer: ") and err.count("\n") == 1, err
    return code, err


# 1 --------------------------------------------------------------------------------------------
def test_an_alias_bomb_is_refused_before_any_walk(tmp_path, capsys):
    text = alias_bomb()
    assert len(text.encode()) < 1000
    code, err = _import(tmp_path, capsys, text, ".yaml")
    assert code == 2 and "in.yaml" in err and f"more than {MAX_EXPANDED:,}" in err


def test_anchors_that_repeat_a_little_still_read_and_cycles_are_refused():
    data = loads("base: &b {count: 2}\nx: *b\ny: *b\n", "f.yaml")
    assert data["x"] == data["y"] == {"count": 2}
    distinct, expanded = expanded_items({"a": [1, 2], "b": [[1], [2]]})
    assert expanded <= distinct
    with pytest.raises(StructuredError, match="alias cycle"):
        loads("a: &a [1, *a]\n", "f.yaml")


def test_a_custom_type_must_be_a_string():
    data = infrastructure([{"name": "s", "components": [
        {"name": "x", "choice": "custom", "count": 1, "custom": {"type": [1, 2]}}]}], [], [])
    with pytest.raises(Exception, match=r"'custom\.type' must be a string"):
        parse(data, "f.json")


# 2 --------------------------------------------------------------------------------------------
def test_composed_devices_are_counted_once_each():
    inf = parse(composed(levels=8, width=12), "f.json")
    counts = xpu_counts(inf)  # memoised: 8 x 12 sums, where the recursion made 12^8 calls
    assert counts["top"] == 12 ** 9 and counts["l3_5"] == 12 ** 3 and counts["w"] == 0


def test_a_server_of_too_many_composed_accelerators_is_refused(tmp_path, capsys):
    code, err = _import(tmp_path, capsys, composed(levels=3, width=12))
    assert code == 2 and "instance 't'" in err and "20,736 accelerators" in err \
        and "at most 1,024" in err


# 3 --------------------------------------------------------------------------------------------
def test_deep_component_paths_are_counted_before_they_are_listed(tmp_path, capsys):
    code, err = _import(tmp_path, capsys, deep_paths(1000))  # 10^12 paths, none listed
    assert code == 2 and "'c2.c1.c0.port' expands to more than 4,000,000 endpoints" in err
    code, _err = _import(tmp_path, capsys, deep_paths(2))  # 8 ports: read
    assert code == 2 or code == 0


# 4 --------------------------------------------------------------------------------------------
def _tiers_reference(n, is_switch, has_gpu, a, b):
    """Every source's own search, as before: the nearest GPU switch per switch."""
    sw = np.flatnonzero(is_switch)
    pos = np.full(n, -1)
    pos[sw] = np.arange(sw.size)
    isl = is_switch[a] & is_switch[b]
    m = coo_matrix((np.ones(int(isl.sum())), (pos[a[isl]], pos[b[isl]])),
                   shape=(sw.size, sw.size)).tocsr()
    src = np.flatnonzero(has_gpu[sw])
    if not src.size:
        return np.full(sw.size, -1)
    best = np.atleast_2d(shortest_path(m, directed=False, unweighted=True, indices=src)).min(0)
    return np.where(np.isfinite(best), best, -1).astype(np.int64)


@pytest.mark.parametrize("seed", range(20))
def test_one_multi_source_search_gives_the_tiers_of_one_search_per_source(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    is_switch = rng.random(n) < 0.7
    has_gpu = is_switch & (rng.random(n) < 0.3)
    e = int(rng.integers(0, 3 * n))
    a, b = rng.integers(0, n, e), rng.integers(0, n, e)
    got = _tiers(n, is_switch, has_gpu, a, b)
    assert got.tolist() == _tiers_reference(n, is_switch, has_gpu, a, b).tolist()


def test_the_multi_source_tiers_on_a_normal_design_are_unchanged(tmp_path):
    # the bundled 3-tier fat tree: exported, imported back, the same leaves, spines and cores
    from designer.core.paths import projects_dir

    src = projects_dir() / "k-ary-fat-tree-k8.fabric.json"
    ig = tmp_path / "k8.json"
    assert main(["export", "infragraph", str(src), "-o", str(ig)]) == 0
    back = project_from_infragraph(ig, builtin_catalog())
    before = load_project(src)
    from collections import Counter

    assert Counter(d.role for d in back.fabric.devices) == \
        Counter(d.role for d in before.fabric.devices)


def test_many_servers_each_on_its_own_switch_import_in_linear_memory(tmp_path, capsys):
    code, _err = _import(tmp_path, capsys, servers_on_own_switches(2000))
    assert code == 0
    p = load_project(tmp_path / "o.fabric.json")
    assert sum(d.role.value == "leaf" for d in p.fabric.devices) == 2000


# 5 --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("key", "value"), [
    ("gigabits_per_second", 0.5), ("gigabits_per_second", 1e-300),
    ("gigabits_per_second", 1e300), ("gigabits_per_second", 2e18),
    ("gigabytes_per_second", 1e308)])
def test_link_speeds_outside_the_models_range_are_refused(tmp_path, capsys, key, value):
    code, err = _import(tmp_path, capsys, pair(link_gbps=(key, value)))
    assert code == 2 and "link 'l'" in err and "outside 1 to 3,200 Gb/s" in err
    assert not (tmp_path / "o.fabric.json").exists()


def test_a_speed_in_range_is_read(tmp_path, capsys):
    assert _import(tmp_path, capsys, pair(link_gbps=("gigabytes_per_second", 50)))[0] == 0
    p = load_project(tmp_path / "o.fabric.json")
    assert p.fabric.links.speed_gbps.tolist() == [400]


# 6 --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), [("服务器", "交换机"), ("a" * 120 + "x", "a" * 120 + "y"),
                                      ("srv\u202e", "sw")])
def test_names_an_id_cannot_hold_map_to_unique_ids(tmp_path, capsys, a, b):
    code, err = _import(tmp_path, capsys, pair(a, b))
    assert code == 0, err
    p = load_project(tmp_path / "o.fabric.json")
    ids = [d.id for d in p.fabric.devices]
    assert len(set(ids)) == 2 and all(len(i) <= 120 for i in ids)


def test_a_control_character_in_a_device_name_does_not_reach_the_gear(tmp_path, capsys):
    data = pair()
    data["devices"][0]["name"] = "srv\x1b[2J"
    data["instances"][0]["device"] = "srv\x1b[2J"
    data["name"] = "x\x1b[2J"
    assert _import(tmp_path, capsys, data)[0] == 0
    assert "\x1b" not in (tmp_path / "o.fabric.json").read_text()


@pytest.mark.parametrize(("data", "words"), [
    (infrastructure([server("s", 8), switch("w", 10_000_000)],
                    [{"name": "s", "device": "s", "count": 1},
                     {"name": "w", "device": "w", "count": 1}],
                    [{"ep1": {"instance": "s", "component": "nic[0]"},
                      "ep2": {"instance": "w[0]", "component": "port[0]"}}]),
     ("instance 'w'", "10,000,000 ports", "at most 100,000")),
    (pair(gpus=10_000_000), ("instance 's'", "10,000,000 accelerators", "at most 1,024")),
])
def test_gear_beyond_the_models_range_is_refused_naming_the_instance(tmp_path, capsys, data,
                                                                      words):
    code, err = _import(tmp_path, capsys, data)
    assert code == 2 and all(w in err for w in words), err
