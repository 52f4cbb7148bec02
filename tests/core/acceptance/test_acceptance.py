"""The acceptance plan and check: bands from the design's own estimate, a round trip from
the plan to published nccl-tests output for a matching cluster and back, causes named for
misses, and results files read as they really are (and refused when they are not)."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.cli.main import main
from designer.core.acceptance.check import check_results, write_check_csv
from designer.core.acceptance.evidence import as_built_causes
from designer.core.acceptance.plan import acceptance_plan
from designer.core.analysis.estimates import busbw_curve, estimate
from designer.core.fileformat import load_project, save_project
from designer.core.solver import solve
from tests.core.acceptance_cases import DATA, PROJECTS, nccl_text, scaled, two_node_roce

SUPERPOD = PROJECTS / "dgx-superpod-4su-ib-ndr.fabric.json"


@pytest.fixture(scope="module")
def superpod(catalog):
    p = load_project(SUPERPOD, catalog)
    cat = p.catalog(catalog)
    r = solve(p, catalog=cat)
    return p, cat, r, acceptance_plan(p, r, cat)


@pytest.fixture
def roce(catalog, tmp_path: Path):
    p = two_node_roce(catalog)
    path = tmp_path / "two.fabric.json"
    save_project(p, path, keep_backup=False)
    cat = p.catalog(catalog)
    return p, cat, solve(p, catalog=cat), path


def test_bands_follow_the_estimate(superpod) -> None:
    p, cat, r, plan = superpod
    est = estimate(p, r, catalog=cat)
    sizes, bus, algo = busbw_curve(est, "all-reduce", "all")
    rows = {row.bytes: row for row in plan.collectives[0].rows}
    # the job's all-reduce over every GPU is the estimate's own curve, size by size
    assert plan.collectives[0].ranks == est.step.parallel.gpus == 1024
    for s, b, a in zip(sizes.tolist(), bus.tolist(), algo.tolist(), strict=True):
        assert rows[int(s)].busbw == pytest.approx(b, rel=1e-12)
        assert rows[int(s)].algorithm == a
    for row in plan.collectives[0].rows:
        assert row.low < row.busbw < row.high
    # bandwidth-bound sizes get a narrow band, latency-bound ones a wide one
    big, small = plan.collectives[0].rows[-1], plan.collectives[0].rows[0]
    assert (big.high - big.low) / big.busbw < 0.2 < (small.high - small.low) / small.busbw


def test_plan_has_every_test_rail_and_leaf(superpod) -> None:
    _p, _cat, _r, plan = superpod
    names = [t.name for t in plan.collectives]
    assert names[:3] == ["all_reduce_perf", "all_gather_perf", "alltoall_perf"]
    rails = [t for t in plan.collectives if t.rail is not None]
    assert [t.rail for t in rails] == list(range(8))
    assert all("NCCL_IB_HCA=mlx5_" in t.command for t in rails)
    # a one-GPU-per-node ring on one NDR rail: one NIC's rate under NCCL (46-49 GB/s per
    # ConnectX-7, nccl-tests issue 290) when no in-network reduction helps
    leaves = {p.leaf_a for p in plan.pairs} | {p.leaf_b for p in plan.pairs}
    assert len(leaves) == 32  # every leaf of the 4-SU SuperPOD is in a perftest pair
    lat = [p for p in plan.pairs if p.test == "ib_write_lat"]
    assert {p.hops for p in lat} <= {1, 3}
    kpis = {k.name: k.value for k in plan.kpis}
    assert kpis["ECMP imbalance (MMR), 1 QP per connection"] == 1.0  # IB routing by rule


def test_roce_mmr_is_the_balls_into_bins_figure(catalog) -> None:
    from designer.core.acceptance.kpis import expected_mmr

    # 32 flows on 32 links: the expected fullest bin holds about 3.5 (Gonnet 1981:
    # Gamma^-1(n) - 3/2 + o(1), about 3.5 for n = 32); perfect spreading is 1
    assert 3.2 < expected_mmr(32, 32) < 3.8
    assert expected_mmr(4096, 32) < 1.25
    assert expected_mmr(10, 1) == 1.0


def test_cli_writes_the_plan(tmp_path: Path, capsys) -> None:
    out = tmp_path / "plan"
    assert main(["acceptance", str(SUPERPOD), "-o", str(out)]) == 0
    assert "11 nccl-tests runs" in capsys.readouterr().out
    hosts = (out / "hosts.txt").read_text().splitlines()
    assert len(hosts) == 128 and hosts[0].endswith("slots=8")
    script = (out / "run_nccl_tests.sh").read_text()
    for binary in ("all_reduce_perf", "all_gather_perf", "alltoall_perf"):
        assert f"./build/{binary} -b 1K -e 16G" in script
    assert os.access(out / "run_perftest.sh", os.X_OK)
    plan = json.loads((out / "plan.json").read_text())
    assert plan["rails"] == 8 and len(plan["kpis"]) >= 6
    with open(out / "bands.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "test" and len(rows) == 1 + 3 * 25 + 8 * 7


def test_round_trip_published_output_names_the_rails(roce, tmp_path: Path, capsys) -> None:
    _p, _cat, _r, path = roce
    out = tmp_path / "plan"
    assert main(["acceptance", str(path), "-o", str(out)]) == 0
    assert "7 nccl-tests runs over 2 nodes" in capsys.readouterr().out
    measured = DATA / "nccl_tests_232_all_reduce_perf.txt"
    code = main(["acceptance", "check", str(path), str(measured), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and not data["passed"]
    run = data["runs"][0]
    assert run["verdict"] == "miss" and run["ranks"] == 2
    # the design's 4 NICs give about 190 GB/s; the run moved about 41: one NIC's worth
    judged = [r for r in run["rows"] if r["judged"]]
    assert all(r["verdict"] == "worse" for r in judged)
    titles = [c["cause"] for c in data["causes"]]
    assert "3 of 4 rails (or planes) down or unused" in titles


def test_a_run_at_the_predicted_rates_passes(roce, tmp_path: Path) -> None:
    p, cat, r, path = roce
    plan = acceptance_plan(p, r, cat)
    # 0.97 of the prediction: a ConnectX-7 at 48.5 of its 50 GB/s (nccl-tests issue 290)
    f = tmp_path / "all_reduce_perf.txt"
    f.write_text(nccl_text(scaled(plan.collectives[0].rows, 0.97)))
    res = check_results(p, r, cat, [f])
    assert res.passed, res.to_json()
    assert main(["acceptance", "check", str(path), str(f)]) == 0


def test_sharp_not_used_is_named(superpod, tmp_path: Path) -> None:
    p, cat, r, _plan = superpod
    from designer.core.acceptance.predict import predict_collective
    from designer.core.analysis.estimates import settings_of

    # the team runs NCCL with CollNet (IB SHARP), so the design's figures count on it
    w = settings_of(p).workload.model_copy(update={"ib_sharp": True})
    plan = acceptance_plan(p, r, cat, w)
    assert plan.collectives[0].rows[-1].algorithm == "sharp"
    assert "NCCL_COLLNET_ENABLE=1" in plan.collectives[0].command
    sizes = np.array([row.bytes for row in plan.collectives[0].rows], dtype=np.float64)
    t, bus, _a = predict_collective(plan.view, "all-reduce", sizes, 1024, 1, algorithm="tree")
    rows = [(s, x * 1e6, b) for s, x, b in zip(sizes, t, bus, strict=True)]
    f = tmp_path / "all_reduce_perf.txt"
    hosts = plan.cluster.nodes
    f.write_text(nccl_text(rows, hosts=hosts, gpus=8))
    res = check_results(p, r, cat, [f], workload=w)
    assert not res.passed
    assert "IB SHARP (CollNet) not used" in [c.title for c in res.causes]


def test_roce_collapse_names_pfc_and_ecn(roce) -> None:
    p, cat, r, _path = roce
    res = check_results(p, r, cat, [DATA / "nccl_1453_tagged_all_reduce_perf.txt"])
    # the [rank] tags splice every row in three, yet all ten rows are read
    assert len(res.runs[0].rows) == 10
    titles = [c.title for c in res.causes]
    assert "PFC or ECN off on RoCE (lossy fabric)" in titles
    # far below even one rail's figure: no rail count is named
    assert not any("rails" in t for t in titles)


def test_perftest_pairs_are_judged(roce) -> None:
    p, cat, r, _path = roce
    res = check_results(p, r, cat, [DATA / "ib_write_bw_node1_node2_rail0.txt",
                                    DATA / "ib_write_lat_node1_node2_rail0.txt"])
    bw, lat = res.runs
    assert bw.test == "ib_write_bw" and bw.rows[0].measured == pytest.approx(391.52)
    assert bw.verdict == "pass"
    assert lat.test == "ib_write_lat" and lat.rows[0].measured == pytest.approx(2.42)
    assert not lat.notes  # matched to the plan's node1 -> node2 pair by its file name


def test_as_built_evidence(superpod, tmp_path: Path) -> None:
    p, cat, _r, _plan = superpod
    net = tmp_path / "fabric.topo"
    assert main(["export", "ibnetdiscover", str(SUPERPOD), "-o", str(net)]) == 0
    # one cable (leaf port 1 to su1-node01's first NIC) trained at HDR instead of NDR, as
    # both of its ends report it
    lines = net.read_text().splitlines()
    for k, line in enumerate(lines):
        if '"su1-node01 mlx5_0"[1]' in line or line.startswith("[1](0fab200000000001)"):
            lines[k] = line.replace("4xNDR", "4xHDR")
    net.write_text("\n".join(lines) + "\n")
    titles = [c.title for c in as_built_causes(p, cat, net)]
    assert "1 link(s) slower than the design's 400G" in titles


@pytest.mark.parametrize(("name", "content", "words"), [
    ("x.txt", "size,busbw\n1,2\n", "no nccl-tests or perftest result table"),
    ("bin.txt", "\x00\x01\x02" * 10, "binary file"),
    ("cut.txt", "#       size         count      type   redop    root     time   algbw   "
                "busbw #wrong     time   algbw   busbw #wrong\n   2097152   524288  float", "no "),
])
def test_hostile_results_get_one_line(roce, tmp_path: Path, capsys, name, content,
                                      words) -> None:
    _p, _cat, _r, path = roce
    f = tmp_path / name
    f.write_text(content)
    assert main(["acceptance", "check", str(path), str(f)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_fifo_and_huge_files_are_refused(roce, tmp_path: Path, capsys, monkeypatch) -> None:
    _p, _cat, _r, path = roce
    fifo = tmp_path / "results.txt"
    os.mkfifo(fifo)
    assert main(["acceptance", "check", str(path), str(fifo)]) == 2
    assert "a FIFO (named pipe), not a file to read" in capsys.readouterr().err
    import designer.core.acceptance.results as results

    monkeypatch.setattr(results, "MAX_BYTES", 1000)
    big = tmp_path / "big.txt"
    big.write_text("#\n" * 2000)
    assert main(["acceptance", "check", str(path), str(big)]) == 2
    assert "bytes is too large" in capsys.readouterr().err


def test_figures_stay_data_in_the_csv(roce, tmp_path: Path) -> None:
    p, cat, r, _path = roce
    f = tmp_path / "=HYPERLINK(1)_all_reduce_perf.txt"
    f.write_text(nccl_text([(1048576.0, 50.0, 20.0), (2097152.0, 60.0, 30.0)]))
    res = check_results(p, r, cat, [f])
    out = tmp_path / "check.csv"
    write_check_csv(res, out)
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[1][0].startswith("'=HYPERLINK")
    assert rows[1][4] == "20.0"


def test_miswired_cables_are_named_from_the_as_built(superpod, tmp_path: Path) -> None:
    p, cat, _r, _plan = superpod
    links = p.fabric.links
    # a server's first two NIC cables land on each other's leaf (rails 1 and 2 crossed)
    rows = np.flatnonzero(links.count == 1)[:2]
    assert links.a[rows[0]] == links.a[rows[1]] and links.b[rows[0]] != links.b[rows[1]]
    b = links.b.copy()
    b[rows[0]], b[rows[1]] = b[rows[1]], b[rows[0]]
    from designer.core.links import LinkTable

    built_links = LinkTable(links.a, links.a_port, b, links.b_port, links.count,
                            links.speed_gbps)
    built = p.model_copy(update={"fabric": p.fabric.model_copy(update={"links": built_links})})
    path = tmp_path / "built.fabric.json"
    save_project(built, path, keep_backup=False)
    causes = as_built_causes(p, cat, path)
    assert any("miswired" in c.title for c in causes), [c.title for c in causes]


@settings(max_examples=40)
@given(junk=st.lists(st.from_regex(r"[A-Za-z#][ -~]{0,60}", fullmatch=True), max_size=12),
       where=st.lists(st.integers(0, 5), max_size=12))
def test_interleaved_log_lines_never_lose_a_row(junk, where) -> None:
    from designer.core.acceptance.results import parse_nccl

    rows = [(float(1 << k), 10.0 + k, 1.0 + k) for k in range(10, 16)]
    lines = nccl_text(rows).splitlines()
    head = next(i for i, ln in enumerate(lines) if "(B)" in ln) + 1
    body = lines[head:head + len(rows)]
    for text, at in zip(junk, where, strict=False):
        body.insert(min(at, len(body)), text)
    runs = parse_nccl("\n".join(lines[:head] + body + lines[head + len(rows):]), "x.txt")
    got = [(r.bytes, r.busbw) for run in runs for r in run.rows]
    assert got == [(int(s), round(b, 2)) for s, _t, b in rows]


@given(st.lists(st.floats(0.001, 1e4), min_size=1, max_size=30))
def test_bands_hold_the_prediction(values) -> None:
    from designer.core.acceptance.bands import band

    pred = np.array(values)
    low, high = band(pred, float(pred.max()))
    assert np.all(low < pred) and np.all(pred < high)
    # the bandwidth-bound end is the narrowest
    width = (high - low) / pred
    assert width[np.argmax(pred)] == pytest.approx(width.min())
