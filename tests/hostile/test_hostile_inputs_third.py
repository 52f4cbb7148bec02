"""Hostile acceptance results, job traces, options, workloads, names and environment: each case
refused with one line (exit 2) naming the file, field or option and the limit, or read right.
Small inputs that reach each check."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from designer.cli.main import main
from designer.core.acceptance import check as acceptance_check
from designer.core.acceptance.cluster import host_names
from designer.core.acceptance.results import parse_nccl, parse_perftest
from designer.core.analysis.workload import Workload
from designer.core.cluster.formats import read_trace
from designer.core.cluster.trace import MAX_HOURS, TraceError
from designer.core.desktop.installer import config_home, data_home
from designer.core.fileformat import load_project, save_project
from designer.core.model import Device
from designer.core.paths import projects_dir
from tests import _paths

DATA = _paths.DATA / "acceptance"
TWO_NODE = DATA / "two-node-roce.fabric.json"
NCCL = DATA / "nccl_tests_232_all_reduce_perf.txt"
K8 = projects_dir() / "k-ary-fat-tree-k8.fabric.json"
GB200 = projects_dir() / "gb200-nvl72-superpod-4su-ib-ndr.fabric.json"


def _refused(capsys, argv) -> str:
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("designer: ") and err.count("\n") == 1, err
    return err


# 7 --------------------------------------------------------------------------------------------
def test_a_log_of_reruns_is_read_as_that_many_runs_judged_alike(tmp_path, capsys):
    text = NCCL.read_text()
    one = parse_nccl(text, "a.txt")
    many = parse_nccl((text + "\n") * 300, "a.txt")  # what `tee -a` over reruns leaves
    assert len(many) == 300 * len(one)
    assert [r.rows for r in many[:len(one)]] == [r.rows for r in one]
    log = tmp_path / "night.txt"
    log.write_text((text + "\n") * 50)
    assert main(["acceptance", "check", str(TWO_NODE), str(log), "--json"]) in (0, 1)
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert len(runs) == 50 * len(one) and len({r["verdict"] for r in runs}) == 1


def test_medians_by_size_match_a_mask_per_size():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 6, 40).astype(float)
    vals = rng.random(40)
    want = [np.median(vals[keys == k]) for k in np.unique(keys)]
    assert np.allclose(acceptance_check._medians_by(keys, vals), want)


# 9 --------------------------------------------------------------------------------------------
TRACES = {
    "csv-huge-duration": ("t.csv", "job,arrival_h,gpus,duration_h\na,0,8,1e9\n", "duration_h"),
    "csv-huge-arrival": ("t.csv", "job,arrival_h,gpus,duration_h\na,0,8,1\nb,1e9,8,1\n",
                         f"more than {MAX_HOURS:,.0f} h"),
    "acme-nan": ("t.csv", "job_id,user,gpu_num,submit_time,start_time,end_time\n"
                 "j,u,8,nan,0,3600\n", "finite"),
    "acme-inf-gpus": ("t.csv", "job_id,user,gpu_num,submit_time,start_time,end_time\n"
                      "j,u,inf,0,0,3600\n", "gpu_num"),
    "acme-1e19-gpus": ("t.csv", "job_id,user,gpu_num,submit_time,start_time,end_time\n"
                       "j,u,1e19,0,0,3600\n", "gpu_num"),
    "acme-short-row": ("t.csv", "job_id,user,gpu_num,submit_time,start_time,end_time\n"
                       "j,u,8\n", "3 fields"),
    "csv-bare-cr": ("t.csv", "job,arrival_h,gpus,duration_h\na\rb,0,8,1\n", "not CSV"),
    "csv-long-field": ("t.csv", 'job,arrival_h,gpus,duration_h\n"' + "a" * 140_000
                       + '",0,8,1\n', "not CSV"),
    "philly-types": ("t.json", json.dumps([{"jobid": "j", "attempts": [
        {"start_time": 1, "end_time": 3600, "detail": "x"}]}]), "'detail'"),
    "philly-nan": ("t.json", '[{"jobid": "j", "attempts": [{"start_time": NaN, '
                   '"end_time": 3600, "detail": [{"ip": "a", "gpus": ["0"]}]}]}]', "time"),
    "pai-nan": ("t.csv", "j,t,1,Terminated,0,3600,1,1,nan,V100\n", "plan_gpu"),
    "pai-inf": ("t.csv", "j,t,1e400,Terminated,0,3600,1,1,100,V100\n", "plan_gpu"),
}


@pytest.mark.parametrize("case", sorted(TRACES))
def test_odd_traces_are_refused_naming_the_job_or_row(tmp_path, case):
    fname, text, words = TRACES[case]
    p = tmp_path / fname
    p.write_text(text)
    with pytest.raises(TraceError) as exc:
        read_trace(p)
    assert fname in str(exc.value) and words in str(exc.value)


def test_too_many_jobs_to_replay_are_refused_before_the_replay(capsys):
    err = _refused(capsys, ["cluster", K8, "synthetic:10000000", "--quiet"])
    assert "10,000,000 jobs, more than 1,000,000" in err
    su4 = projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json"
    err = _refused(capsys, ["cluster", su4, "synthetic:60000", "--quiet"])
    assert "more than 50,000 at once" in err and "--days" in err


# 10 -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("option", "words"), [
    (["--days", "-1"], "--days"), (["--checkpoint-h", "0"], "--checkpoint-h"),
    (["--comm-share", "2"], "--comm-share")])
def test_cluster_options_out_of_range_are_usage_errors(capsys, option, words):
    err = _refused(capsys, ["cluster", K8, "synthetic:10", "--quiet", *option])
    assert words in err


@pytest.mark.parametrize(("field", "value", "words"), [
    ("interleave", 1e400, "interleave"), ("interleave", [2], "interleave"),
    ("compute_efficiency", 1e-300, "compute_efficiency"),
    ("attention_efficiency", 1e-300, "attention_efficiency")])
def test_odd_workload_values_are_refused_naming_the_field(tmp_path, capsys, field, value,
                                                          words):
    raw = json.loads(GB200.read_text())
    raw["decision"]["workload"][field] = value
    f = tmp_path / "w.fabric.json"
    f.write_text(json.dumps(raw).replace("Infinity", "1e400"))
    err = _refused(capsys, ["validate", f])
    # 1e400 is refused by the JSON reader itself; the rest name the field
    assert (words in err or "not valid JSON" in err) and "fabric.links" not in err


def test_the_efficiency_floor_keeps_workloads_that_were_valid():
    assert Workload(compute_efficiency=0.01, attention_efficiency=0.0).compute_efficiency == 0.01
    assert Workload.model_validate({"interleave": 2}).schedule == "interleaved"


# 11 -------------------------------------------------------------------------------------------
def test_host_names_stay_unique_and_plan_lists_every_server(tmp_path):
    p = load_project(TWO_NODE)
    devs = list(p.fabric.devices)
    servers = [i for i, d in enumerate(devs) if d.role.value == "gpu-server"]
    devs[servers[0]] = devs[servers[0]].model_copy(update={"name": "gpu 1"})
    devs[servers[1]] = devs[servers[1]].model_copy(update={"name": "gpu-1"})
    p = p.evolve(fabric=p.fabric.model_copy(update={"devices": tuple(devs)}))
    f = tmp_path / "p.fabric.json"
    save_project(p, f)
    assert main(["acceptance", str(f), "-o", str(tmp_path / "plan")]) == 0
    hosts = (tmp_path / "plan" / "hosts.txt").read_text().split("\n")
    names = [h.split()[0] for h in hosts if h]
    assert len(names) == 2 and len(set(names)) == 2
    assert len(set(host_names([Device(id=f"d{i}", name=n, model="x", role="gpu-server")
                               for i, n in enumerate(["a b", "a-b", "A-B", "a_b"])]))) == 4


def test_perftest_result_names_split_at_the_right_hosts():
    runs = parse_perftest((DATA / "ib_write_bw_node1_node2_rail0.txt").read_text(),
                          "ib_write_bw_gpu-1.dc.example_gpu-2_rail3.txt")
    assert runs and (runs[0].server, runs[0].client) == ("gpu-1.dc.example", "gpu-2")
    assert "_" not in host_names([Device(id="d", name="gpu_node_1", model="x",
                                         role="gpu-server")])[0]


# 12 -------------------------------------------------------------------------------------------
def test_a_relative_xdg_folder_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")
    assert data_home().is_absolute() and config_home().is_absolute()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert data_home() == tmp_path


def test_image_export_without_a_display_draws_offscreen(tmp_path):
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["QT_QPA_PLATFORM"] = "xcb"
    out = tmp_path / "k8.svg"
    r = subprocess.run([sys.executable, "-m", "designer", "export", "image", str(K8), "-o",
                        str(out)], env=env, capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert out.read_text().lstrip().startswith("<?xml")


def test_a_replay_of_too_many_failures_is_refused_before_it_runs(tmp_path, capsys,
                                                                  monkeypatch):
    from designer.core.cluster import simulate

    monkeypatch.setattr(simulate, "MAX_FAILURE_EVENTS", 100)
    t = tmp_path / "long.csv"
    t.write_text("job,arrival_h,gpus,duration_h\na,0,8,80000\n")
    su4 = projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json"
    err = _refused(capsys, ["cluster", su4, t, "--quiet"])
    assert "80,000 h of replay" in err and "more than 100" in err and "--days" in err
    # without failures there is nothing to step through
    assert main(["cluster", str(su4), str(t), "--quiet", "--no-failures"]) == 0
