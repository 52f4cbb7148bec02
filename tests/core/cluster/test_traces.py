"""Trace readers: the documented CSV (every bad row named), and the public traces' own
formats: Acme (the published sample rows, shipped), Philly's JSON, PAI's task table and
Lingjun's worker table with its topology (built here in their documented shapes)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from designer.core.cluster import TraceError, read_trace, synthetic
from designer.core.cluster.formats import detect
from tests import _paths

DATA = _paths.DATA / "traces"


def _csv(tmp_path, text: str) -> Path:
    p = tmp_path / "t.csv"
    p.write_text(text)
    return p


def test_csv_columns_in_any_order_and_optional_ones(tmp_path):
    tr = read_trace(_csv(tmp_path, "gpus,job,duration_h,arrival_h,tenant,workload\n"
                                   "64,b,2,1.5,t2,ring\n8,a,1,0,t1,\n"))
    assert tr.job == ("a", "b")  # sorted by arrival
    assert tr.gpus.tolist() == [8, 64]
    assert tr.arrival_h.tolist() == [0.0, 1.5]
    assert tr.tenant == ("t1", "t2") and tr.workload == ("", "ring")


@pytest.mark.parametrize("row, message", [
    ("a,-1,8,1", "row 2: arrival_h is negative (-1)"),
    ("a,0,x,1", "row 2: gpus 'x' is not a number"),
    ("a,0,2.5,1", "row 2: gpus '2.5' is not a whole number"),
    ("a,0,0,1", "row 2: gpus must be at least 1"),
    ("a,0,8,0", "row 2: duration_h must be positive"),
    ("a,0,8", "row 2: 3 fields, the header has 4"),
    ("a,0,8,nan", "row 2: duration_h 'nan' is not a finite number"),
])
def test_csv_bad_row_is_named(tmp_path, row, message):
    with pytest.raises(TraceError, match=re.escape(message)):
        read_trace(_csv(tmp_path, "job,arrival_h,gpus,duration_h\n" + row + "\n"))


def test_csv_header_and_duplicates(tmp_path):
    with pytest.raises(TraceError, match="row 1: the header lacks duration_h"):
        read_trace(_csv(tmp_path, "job,arrival_h,gpus\na,0,1\n"))
    with pytest.raises(TraceError, match="row 3: job 'a' appears twice"):
        read_trace(_csv(tmp_path, "job,arrival_h,gpus,duration_h\na,0,1,1\na,1,1,1\n"))


def test_job_larger_than_the_design_is_named(tmp_path):
    tr = read_trace(_csv(tmp_path, "job,arrival_h,gpus,duration_h\nsmall,0,8,1\nhuge,1,4096,1\n"))
    with pytest.raises(TraceError, match="job huge: asks for 4,096 GPUs, but the design has 1,024"):
        tr.check_fits(1024)


def test_acme_samples_as_published():
    """The README rows of InternLM/AcmeTrace: 8 GPUs for 117 s and 2,693 s (Seren), 64 GPUs
    for 8 s and 70 s (Kalos); submit-to-start waits 32 s, 13 s and 10 s, 12 s."""
    s = read_trace(DATA / "acme_seren_sample.csv")
    assert s.source == "acme" and s.gpus.tolist() == [8, 8]
    assert np.allclose(s.duration_h * 3600, [117, 2693])
    assert np.allclose(s.arrival_h * 3600, [0, (23 * 60 + 58) - (18 * 60 + 22)])
    k = read_trace(DATA / "acme_kalos_sample.csv")
    assert k.gpus.tolist() == [64, 64] and np.allclose(k.duration_h * 3600, [8, 70])
    assert k.tenant == ("uf794", "uf794")


def test_philly_json_runs_and_own_placement(tmp_path):
    """The schema of msr-fiddle/philly-traces' cluster_job_log: attempts with server and GPUs;
    a job that never ran is left out; the run time sums the attempts."""
    entries = [
        {"status": "Pass", "vc": "ee9e8c", "jobid": "application_1", "user": "u1",
         "submitted_time": "2017-10-07 01:11:39",
         "attempts": [
             {"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23",
              "detail": [{"ip": "m47", "gpus": [f"gpu{i}" for i in range(8)]}]},
             {"start_time": "2017-10-07 01:13:30", "end_time": "2017-10-09 06:53:12",
              "detail": [{"ip": "m412", "gpus": [f"gpu{i}" for i in range(8)]},
                         {"ip": "m413", "gpus": ["gpu0", "gpu1"]}]}]},
        {"status": "Killed", "vc": "ab", "jobid": "application_2", "user": "u2",
         "submitted_time": "2017-10-07 02:00:00", "attempts": []},
    ]
    p = tmp_path / "cluster_job_log"
    p.write_text(json.dumps(entries))
    tr = read_trace(p)
    assert tr.source == "philly" and tr.n == 1
    assert tr.gpus.tolist() == [10]  # the last attempt: 8 + 2
    run_s = 74 + (2 * 86400 + 5 * 3600 + 39 * 60 + 42)
    assert tr.duration_h[0] * 3600 == pytest.approx(run_s)
    assert tr.hosts[0] == (("m412", 8), ("m413", 2))


def test_pai_task_table_without_header(tmp_path):
    """pai_task_table columns; plan_gpu in percent per instance; a job's tasks together."""
    rows = ["j1,worker,4,Terminated,100,3700,600,29.3,100,V100",
            "j1,ps,1,Terminated,100,3700,600,29.3,,",
            "j2,worker,1,Terminated,50,1850,600,29.3,50,T4",
            "j3,worker,1,Failed,,,600,29.3,100,V100"]
    p = tmp_path / "pai_task_table.csv"
    p.write_text("\n".join(rows) + "\n")
    tr = read_trace(p, "pai")
    assert dict(zip(tr.job, tr.gpus.tolist(), strict=True)) == {"j1": 4, "j2": 1}
    assert sorted(tr.duration_h.tolist()) == pytest.approx([0.5, 1.0])


def test_lingjun_workers_keep_their_tor(tmp_path):
    """Lingjun's topo.csv header is ip,DSW,PSW,ASW: workers of one job on hosts under one ToR
    carry it in their host names, so the trace's own placement keeps them together."""
    topo = tmp_path / "topo.csv"
    topo.write_text("ip,DSW,PSW,ASW\nh1,G6,P10,S14\nh2,G6,P10,S14\nh3,G6,P12,S2\n")
    workers = tmp_path / "worker.csv"
    workers.write_text("job_name,host_ip,gpu_num,start_time,end_time\n"
                       "jA,h1,8,0,7200\njA,h2,8,0,7200\njB,h3,4,3600,5400\n")
    assert detect(workers, workers.read_text()) == "lingjun"
    tr = read_trace(workers, topology=topo)
    assert tr.job == ("jA", "jB") and tr.gpus.tolist() == [16, 4]
    assert tr.hosts[0] == (("G6/P10/S14/h1", 8), ("G6/P10/S14/h2", 8))
    assert tr.duration_h.tolist() == [2.0, 0.5]


def test_unknown_file_says_what_it_reads(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("a,b\n1,2\n")
    with pytest.raises(TraceError, match="not a trace this tool reads"):
        read_trace(p)


def _offered_in_window(tr, gpus: int) -> float:
    """Work inside the window, each job cut at the window's end, over the design's GPU-hours."""
    w = tr.window_h
    return float((tr.gpus * np.minimum(tr.duration_h, w - tr.arrival_h)).sum()) / (gpus * w)


@pytest.mark.parametrize(("gpus", "days", "jobs"), [
    (4096, 10, None),  # the count from the load
    (1024, 14, 300),  # a count and a window: run times sized
    (1024, 30, 2000),  # the window's default mix
    (1024, None, 300),  # a count alone: the window sized
    (64, 2, None),
])
def test_synthetic_mix_offers_the_load_asked_within_its_window(gpus, days, jobs):
    tr = synthetic(gpus, days, jobs=jobs, load=0.8, seed=3)
    assert _offered_in_window(tr, gpus) == pytest.approx(0.8, rel=1e-6)
    assert "offering 80% of the design" in tr.name
    assert tr.gpus.max() <= gpus and (np.diff(tr.arrival_h) >= 0).all()
    assert (tr.arrival_h <= tr.window_h).all()
    if jobs is not None:
        assert tr.n == jobs
    if days is not None:
        assert tr.window_h == pytest.approx(days * 24)


def test_synthetic_mix_too_small_to_fill_the_design_says_what_it_offers():
    # three jobs cannot offer 80% of 1,024 GPUs whatever their length: the name says so
    tr = synthetic(1024, 1, jobs=3, sizes={1: 1.0}, seed=1)
    offered = _offered_in_window(tr, 1024)
    assert offered < 0.01 and f"offering {offered:.0%}" in tr.name
