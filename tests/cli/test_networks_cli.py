"""``designer generate ... --networks`` and ``designer solve`` with the other networks."""

from __future__ import annotations

import json

from designer.cli.main import main
from designer.core.fileformat import load_project


def test_generate_all_networks_then_solve_json_gives_each_network(tmp_path, capsys):
    f = tmp_path / "f.fabric.json"
    assert main(["generate", "rail", "--sus", "4", "--networks",
                 "backend,frontend,storage,oob", "-o", str(f)]) == 0
    out = capsys.readouterr().out
    assert "frontend: 6 switches, 360 links" in out
    assert set(load_project(f).networks) == {"frontend", "storage", "oob"}
    assert main(["solve", str(f), "--json"]) == 0
    nets = json.loads(capsys.readouterr().out)["networks"]
    assert list(nets) == ["backend", "frontend", "storage", "oob"]
    # the back-end as published: 4 SU, 32 leaves and 16 spines (DGX SuperPOD RA)
    assert nets["backend"]["switches"]["total"] == 48
    for name in ("frontend", "storage", "oob"):
        n = nets[name]
        assert n["switches"]["total"] > 0 and n["cost_usd"] > 0 and n["power_w"] > 0
        assert n["cost_usd"] == round(sum(x["total_usd"] for x in n["bom"]), 2)
    assert nets["storage"]["storage"]["reference_read_gbytes_s_per_gpu"] == 5.0
    assert main(["solve", str(f)]) == 0
    text = capsys.readouterr().out
    assert "Other networks of the cluster" in text and "Out-of-band management" in text


def test_default_is_the_back_end_alone_and_the_file_has_no_networks_key(tmp_path, capsys):
    f = tmp_path / "b.fabric.json"
    assert main(["generate", "rail", "--sus", "1", "-o", str(f)]) == 0
    assert b'"networks"' not in f.read_bytes()
    capsys.readouterr()
    assert main(["solve", str(f), "--json"]) == 0
    assert "networks" not in json.loads(capsys.readouterr().out)


def test_fat_tree_takes_networks_too(tmp_path, capsys):
    f = tmp_path / "t.fabric.json"
    assert main(["generate", "fat-tree", "--gpus", "512", "--networks", "oob,storage",
                 "-o", str(f)]) == 0
    assert set(load_project(f).networks) == {"storage", "oob"}


def test_an_unknown_network_is_refused_with_the_list(tmp_path, capsys):
    f = tmp_path / "x.fabric.json"
    assert main(["generate", "rail", "--sus", "1", "--networks", "backend,mgmt",
                 "-o", str(f)]) == 2
    err = capsys.readouterr().err
    assert "unknown network 'mgmt' (known: backend, frontend, storage, oob)" in err
    assert "Traceback" not in err and not f.exists()
