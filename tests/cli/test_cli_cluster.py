"""``designer cluster``: the JSON keys the command documents, one-line errors naming the row,
the side-by-side of two designs and the policy x design x trace grid."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from designer.cli.main import main
from designer.core.cluster.sweep import cluster_sweep
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict

KEYS = {"jobs", "goodput", "gpu_hours_lost_network", "gpu_hours_lost_failures",
        "usd_lost_network", "usd_lost_failures", "policy"}
JOB_KEYS = {"job", "gpus", "start_h", "end_h", "slowdown", "interruptions"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cluster")
    a = d / "a.fabric.json"
    b = d / "b.fabric.json"
    save_project(generate(params_from_dict("fat-tree", {"gpus": 128, "tiers": 2})), a)
    save_project(generate(params_from_dict("fat-tree", {"gpus": 128, "tiers": 2,
                                                        "oversubscription": "2:1"})), b)
    t = d / "t.csv"
    t.write_text("job,arrival_h,gpus,duration_h,workload,tenant,tokens\n"
                 "a,0,64,10,,t1,\nb,1,32,5,dense-70b-dp,t2,1e9\nc,2,8,3,none,t1,\n")
    return a, b, t


def test_json_has_the_documented_keys(files, capsys):
    a, _b, t = files
    assert main(["cluster", str(a), str(t), "--policy", "scattered", "--days", "2",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= KEYS
    assert out["policy"] == "scattered"
    assert 0 <= out["goodput"] <= 1
    assert [set(j) for j in out["jobs"]] == [JOB_KEYS] * 3
    assert out["usd_lost_network"] == pytest.approx(out["gpu_hours_lost_network"] * 2.0,
                                                    abs=0.01)


@pytest.mark.parametrize("row, message", [
    ("x,0,4096,1", "t.csv, job x: asks for 4,096 GPUs, but the design has 128"),
    ("x,-2,8,1", "t.csv, row 2: arrival_h is negative (-2)"),
    ("x,0,8", "t.csv, row 2: 3 fields, the header has 4"),
])
def test_errors_are_one_line_naming_the_row(files, tmp_path, capsys, row, message):
    a, _b, _t = files
    t = tmp_path / "t.csv"
    t.write_text("job,arrival_h,gpus,duration_h\n" + row + "\n")
    assert main(["cluster", str(a), str(t), "--quiet"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.endswith(message) and "\n" not in err


def test_side_by_side_and_grid(files, capsys):
    a, b, t = files
    assert main(["cluster", str(a), str(t), "--vs", str(b), "--json", "--comm-share",
                 "0.5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["designs"]) == 2
    cells = cluster_sweep([a, b], [t], ["pack", "first-fit"], {"comm_share": 0.3}, workers=0)
    assert [(c.policy, c.error) for c in cells] == [("pack", None), ("first-fit", None)] * 2
    assert all(0 <= c.figures["goodput"] <= 1 for c in cells)


def test_grid_on_dask(files):
    """The grid on a local Dask cluster (in a child process: its cluster and IO loop end
    with it), the same figures as in this process."""
    pytest.importorskip("distributed")
    a, b, t = files
    cmd = [sys.executable, "-m", "designer", "cluster", str(a), str(t), "--vs", str(b),
           "--grid", "pack", "--workers", "1", "--comm-share", "0.3", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=True)
    cells = json.loads(out.stdout)
    local = cluster_sweep([a, b], [t], ["pack"], {"comm_share": 0.3}, workers=0)
    assert [c["figures"]["goodput"] for c in cells] == [c.figures["goodput"] for c in local]
    assert [c["error"] for c in cells] == [None, None]


@pytest.mark.parametrize("args", [["synthetic:300", "--days", "3"], ["synthetic:300"],
                                  ["synthetic", "--days", "3"]])
def test_synthetic_mix_offers_80_percent_and_says_what_it_reached(files, capsys, args):
    a, _b, _t = files
    assert main(["cluster", str(a), *args, "--quiet", "--no-failures"]) == 0
    out = capsys.readouterr().out
    assert "offering 80% of the design" in out and "offered load 80.0%" in out
    assert main(["cluster", str(a), *args, "--quiet", "--no-failures", "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["offered_load"] == pytest.approx(0.8, abs=1e-4)
    # what the scheduler reached: never more than was offered
    assert 0 < js["utilisation"] <= js["offered_load"] + 1e-9


def test_synthetic_with_no_jobs_is_refused(files, capsys):
    a, _b, _t = files
    assert main(["cluster", str(a), "synthetic:0"]) == 2
    assert "one job or more" in capsys.readouterr().err
