"""``export htsim`` folders that run as written: htsim's own limits (ports, flow sizes, the
fat tree's arithmetic, read from csg-htsim's sources), the flags run.sh passes, nothing
written on a refusal, and the prediction written beside the inputs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from designer.cli.main import main
from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from designer.core.simulate.htsim import read_matrix, read_topology
from designer.core.simulate.htsim_export import write_htsim
from designer.core.simulate.htsim_fit import (
    MAX_FLOW_BYTES,
    TOR_MAX_PORTS,
    UPPER_MAX_PORTS,
    fat_tree_problems,
    split_sizes,
)
from designer.core.simulate.tiers import SimulatorInputError
from tests._paths import PROJECTS
from tests.core.simulate.test_simulators import HTSIM_LEAF_SPINE  # htsim's leaf_spine_tiny.topo


def _topo(down0: int, up0: int, down1: int, bundle: int, nodes: int) -> dict:
    return read_topology(f"Nodes {nodes}\nTiers 2\nPodsize {nodes}\nTier 0\n"
                         f"Downlink_speed_Gbps 400\nRadix_Down {down0}\nRadix_Up {up0}\n"
                         f"Downlink_Latency_ns 50\nOversubscribed {down0 // up0}\nTier 1\n"
                         f"Downlink_speed_Gbps 400\nRadix_Down {down1}\n"
                         f"Downlink_Latency_ns 50\nBundle {bundle}\n")


def test_htsim_limits() -> None:
    assert fat_tree_problems(read_topology(HTSIM_LEAF_SPINE)) == []
    # a ToR takes ports 0..95: 48 down and 48 up build, 49 and 49 do not
    assert fat_tree_problems(_topo(48, 48, 64, 16, 192)) == []
    assert "at most 96" in fat_tree_problems(_topo(49, 49, 98, 49, 98))[0]
    # an aggregation (top) switch takes ports 0..63
    assert fat_tree_problems(_topo(32, 32, 64, 16, 128)) == []
    assert "64 on an aggregation" in fat_tree_problems(_topo(32, 32, 128, 32, 128))[0]
    assert (TOR_MAX_PORTS, UPPER_MAX_PORTS, MAX_FLOW_BYTES) == (96, 64, 2**31 - 1)
    # htsim's arithmetic: a ToR's up radix must meet the spines with the bundle given
    assert "aggregation switches per pod" in fat_tree_problems(_topo(32, 32, 64, 8, 128))[0]


def test_split_sizes_keep_the_total() -> None:
    for size in (2**31 - 1, 2**31, 4 << 30, 10**10 + 7):
        parts = split_sizes(size)
        assert sum(parts) == size and max(parts) <= MAX_FLOW_BYTES
        assert max(parts) - min(parts) <= 1
    assert split_sizes(2**31 - 1) == [2**31 - 1]


@pytest.fixture(scope="module")
def ft128(catalog):
    p = generate(params_from_dict("fat-tree", {"gpus": 128, "gear": "roce-400"}), catalog)
    return p, p.catalog(catalog)


def test_ft128_is_re_expressed_and_runs_as_printed(ft128, tmp_path: Path) -> None:
    p, cat = ft128
    ex = write_htsim(p, cat, tmp_path, ("ring", "incast"), nbytes=64 << 20)
    topo = read_topology((tmp_path / "design.topo").read_text())
    # 128-port leaves (64 GPUs, 64 up) and one 128-port spine exceed htsim: 64-port ones
    assert fat_tree_problems(topo) == []
    assert [t["radix_down"] + t.get("radix_up", 0) for t in topo["tiers"]] == [64, 64]
    assert "re-expressed" in ex.refit_note and "96" in ex.refit_note
    run = (tmp_path / "run.sh").read_text()
    assert "-linkspeed 400000" in run and "-nodes 128" in run
    assert "-strat ecmp_host -paths 1 " in run  # htsim_roce: one hashed path per flow
    paths = int(re.search(r'EQDS" \$common -strat ecmp_host -paths (\d+)', run).group(1))
    assert paths >= 32 and paths & (paths - 1) == 0  # EQDS masks with N - 1
    pred = json.loads((tmp_path / "prediction.json").read_text())
    for pat in ("ring", "incast"):
        flows = read_matrix((tmp_path / f"{pat}.cm").read_text())
        end = int(re.search(rf"{pat}\) END=(\d+)", run).group(1))
        # -end outlasts the flows on an ideal fabric many times over
        assert end > 10 * pred["patterns"][pat]["ideal_us"]
        assert pred["patterns"][pat]["flows"] == len(flows)
        assert set(pred["patterns"][pat]["routings"]) == {"ecmp", "spray"}
    # spraying on a 1:1 fabric: every ring flow at its line rate; ECMP's hash collides
    ring = pred["patterns"]["ring"]["routings"]
    # (as htsim measures it: EQDS's 64 header bytes per 4150 and its receivers pulling at
    # 0.99 of the line, and a round trip to the last ack)
    assert 0.9 < ring["spray"]["throughput"]["min"] <= 0.99 * 4086 / 4150
    assert ring["ecmp"]["throughput"]["min"] < 0.5
    # an incast shares the sink's NIC: 15 sources at 1/15 at the least, in RoCE payload
    inc = pred["patterns"]["incast"]["routings"]["ecmp"]["throughput"]
    assert inc["min"] == pytest.approx(9000 / 9064 / 15, rel=0.01)
    assert inc["mean"] >= inc["min"]


def test_big_flows_are_split(ft128, tmp_path: Path) -> None:
    p, cat = ft128
    ex = write_htsim(p, cat, tmp_path, ("incast",), nbytes=5 << 30, predict_flows=False)
    flows = read_matrix((tmp_path / "incast.cm").read_text())
    assert max(f[3] for f in flows) <= MAX_FLOW_BYTES
    assert sum(f[3] for f in flows) == 15 * (5 << 30)
    assert ex.split == {"incast": 15} and "32-bit" in ex.summary()


def test_refusal_writes_nothing(catalog, tmp_path: Path, monkeypatch) -> None:
    import designer.core.simulate.htsim as htsim

    p = load_project(PROJECTS / "dgx-superpod-4su-roce-400.fabric.json", catalog)
    cat = p.catalog(catalog)
    out = tmp_path / "x"
    # the ring is worked out before the all-to-all is refused: still nothing on disk
    monkeypatch.setattr(htsim, "MAX_CONNECTIONS", 100_000)
    with pytest.raises(SimulatorInputError, match="all-to-all"):
        write_htsim(p, cat, out, ("ring", "alltoall"))
    assert not out.exists()
    df = load_project(PROJECTS / "dragonfly-1056-gpus.fabric.json", catalog)
    with pytest.raises(SimulatorInputError, match="dragonfly"):
        write_htsim(df, df.catalog(catalog), out)
    assert not out.exists()


def test_ungenerated_design_over_the_limits_is_refused_naming_them(ft128, tmp_path) -> None:
    p, cat = ft128
    bare = p.model_copy(update={"generator": None})
    with pytest.raises(SimulatorInputError, match=r"at most 96 on a ToR.*not generated"):
        write_htsim(bare, cat, tmp_path / "y")
    assert not (tmp_path / "y").exists()


def test_cli_names_the_matrix_of_the_pattern(tmp_path: Path, capsys) -> None:
    src = PROJECTS / "dgx-superpod-4su-ib-ndr.fabric.json"
    assert main(["export", "htsim", str(src), "-o", str(tmp_path / "h"), "--pattern", "incast",
                 "--bytes", "16MiB"]) == 0
    out = capsys.readouterr().out
    assert "-tm incast.cm" in out and "ring.cm" not in out
    assert "simulate check" in out
    assert sorted(x.name for x in (tmp_path / "h").iterdir()) == [
        "design.topo", "incast.cm", "prediction.json", "run.sh"]


def test_an_end_time_past_htsims_int_is_refused(ft128, tmp_path: Path) -> None:
    p, cat = ft128
    # 15 senders of 16 TiB into one NIC: years of simulated time, past -end's 32-bit µs
    with pytest.raises(SimulatorInputError, match="-end"):
        write_htsim(p, cat, tmp_path / "z", ("incast",), nbytes=16 << 40, predict_flows=False)
    assert not (tmp_path / "z").exists()


def test_exporting_again_drops_the_old_runs_output(ft128, tmp_path: Path) -> None:
    p, cat = ft128
    write_htsim(p, cat, tmp_path, ("ring", "incast"), nbytes=1 << 20, predict_flows=False)
    for name in ("ring.ecmp.out", "ring.spray.out", "incast.ecmp.out"):
        (tmp_path / name).write_text("Flow Roce_0_8 1 finished at 5 total bytes 9\n")
    write_htsim(p, cat, tmp_path, ("ring",), nbytes=2 << 20, predict_flows=False)
    assert not (tmp_path / "ring.ecmp.out").exists()
    assert not (tmp_path / "ring.spray.out").exists()
    assert (tmp_path / "incast.ecmp.out").exists()  # a pattern not rewritten keeps its run
