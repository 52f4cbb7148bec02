"""``designer simulate check`` on htsim output recorded once (tests/data/htsim-128, see its
README): the parser against the programs' output format, the figures, and the flow model
against the packet simulator on the same flows."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from designer.cli.main import main
from designer.core.generators import generate, params_from_dict
from designer.core.simulate.htsim import Flows
from designer.core.simulate.htsim_check import CheckError, check, has_output, read_output, table
from designer.core.simulate.htsim_export import write_htsim
from tests import _paths

DATA = _paths.DATA / "htsim-128"


def test_reads_both_programs_lines() -> None:
    f = Flows(np.array([3, 3, 5]), np.array([9, 9, 1]), np.array([100, 100, 7]))
    text = ("Flow Roce_3_9 2129 finished at 642.441 total bytes 15732000\n"
            "Flow Eqds_5_1 flowId 1000000195 eqdsSrc 97 finished at 83.4331 total packets 9\n"
            "Flow Roce_3_9 2130 finished at 700 total bytes 15732000\n"
            "Queue LS2->US1(10) LOSSLESS not working! I should have dropped this packet23\n")
    assert read_output(text, f).tolist() == [642.441, 700.0, 83.4331]
    assert np.isnan(read_output("", f)).all()
    with pytest.raises(CheckError, match="does not list"):
        read_output("Flow Roce_1_2 7 finished at 1 total bytes 3\n", f)


def test_recorded_runs_beside_the_prediction() -> None:
    rows = {(r.pattern, r.routing): r for r in check(DATA)}
    assert set(rows) == {(p, r) for p in ("ring", "incast", "permutation")
                         for r in ("ecmp", "spray")}
    for r in rows.values():
        assert r.finished == r.listed  # every flow finished within run.sh's -end
        ratio = r.ratio()
        th = ratio["throughput"]
        # the flow model against htsim: the worst flow within 25 %, the mean within 10 %
        assert 0.75 <= th["min"] <= 1.25, (r.pattern, r.routing, th)
        if (r.pattern, r.routing) != ("incast", "ecmp"):
            assert 0.9 <= th["mean"] <= 1.1, (r.pattern, r.routing, th)
        # the last completion is the worst flow's: within 25 % as well
        assert ratio["last_us"] == pytest.approx(1.0, abs=0.25), (r.pattern, r.routing)
    # ECMP's hash collisions: a permutation's worst flow far under its line rate in both
    perm = rows[("permutation", "ecmp")]
    assert perm.htsim["throughput"]["min"] < 0.5 and perm.tool["throughput"]["min"] < 0.5
    # an incast of 15 shares the sink, the last flow near the ideal in both; under PFC the
    # sink's port is fair among ingress ports, so flows alone on theirs finish first and the
    # median runs above 1/15 in both, where a per-flow fair share gives 1/15 to every flow
    inc = rows[("incast", "ecmp")]
    assert inc.htsim["slowdown"] == pytest.approx(1.0, abs=0.05)
    assert inc.tool["throughput"]["median"] > 1.05 / 15
    # this htsim run's hash put no two of the 12 remote flows on one cable into the sink's
    # switch (about one draw in nine: 12 flows on 32 cables), so its 15 flows share alike
    # and its mean sits under every one of the tool's draws; the check says so
    h = inc.htsim["throughput"]
    assert h["median"] == pytest.approx(h["min"], rel=0.01)
    assert inc.ratio()["throughput"]["mean"] < 0.9
    assert inc.htsim["throughput"]["mean"] < inc.tool["range"]["mean"][0]
    assert any("outside the tool's 4 hash draws" in n for n in inc.notes), inc.notes
    flat = json.loads((DATA / "prediction.json").read_text())["patterns"]["incast"]
    assert flat["ecmp_without_pfc"]["throughput"]["median"] < 1.0 / 15
    # under spraying each of the 15 gets 1/15 of the receiver's pull pacer (0.99 of the
    # line) in payload (4086 of every 4150 bytes): htsim's constants, not a fit
    sp = rows[("incast", "spray")].tool["throughput"]
    assert sp["mean"] == pytest.approx(0.99 * 4086 / 4150 / 15, rel=2e-3)


def test_the_recorded_prediction_is_what_export_writes_today(catalog, tmp_path) -> None:
    p = generate(params_from_dict("fat-tree", {"gpus": 128, "gear": "roce-400"}), catalog)
    write_htsim(p, p.catalog(catalog), tmp_path, nbytes=16 << 20)
    for name in ("design.topo", "ring.cm", "incast.cm", "permutation.cm"):
        assert (tmp_path / name).read_text() == (DATA / name).read_text(), name
    now = json.loads((tmp_path / "prediction.json").read_text())["patterns"]
    then = json.loads((DATA / "prediction.json").read_text())["patterns"]
    for pat, entry in then.items():
        for r, figs in entry["routings"].items():
            for k, v in figs["throughput"].items():
                assert now[pat]["routings"][r]["throughput"][k] == pytest.approx(v), (pat, r, k)


def test_unfinished_flows_count_at_zero(tmp_path) -> None:
    d = tmp_path / "run"
    shutil.copytree(DATA, d)
    out = d / "ring.ecmp.out"
    lines = out.read_text().splitlines()
    kept = [ln for ln in lines if " finished at " not in ln]
    done = [ln for ln in lines if " finished at " in ln]
    out.write_text("\n".join(kept + done[:-3]) + "\n")
    row = next(r for r in check(d) if (r.pattern, r.routing) == ("ring", "ecmp"))
    assert (row.finished, row.listed) == (125, 128)
    assert row.htsim["throughput"]["min"] == 0.0 and row.htsim["last_us"] is None


def test_cli(tmp_path, capsys) -> None:
    assert main(["simulate", "check", str(DATA), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["rows"]) == 6 and {"htsim", "tool", "ratio"} <= set(data["rows"][0])
    assert main(["simulate", "check", str(DATA)]) == 0
    assert "permutation  spray" in capsys.readouterr().out
    empty = tmp_path / "e"
    shutil.copytree(DATA, empty, ignore=shutil.ignore_patterns("*.out"))
    assert not has_output(empty) and has_output(DATA)
    assert main(["simulate", "check", str(empty)]) == 2
    assert "run its run.sh" in capsys.readouterr().err
    assert main(["simulate", "check", str(tmp_path / "none")]) == 2


def test_notes_name_the_known_differences(tmp_path) -> None:
    rows = {(r.pattern, r.routing): r for r in check(DATA)}
    # htsim_eqds prints its packets sent afresh and again; the note sets them beside the
    # share the tool counts trimmed
    perm = rows[("permutation", "spray")]
    assert perm.tool["trimmed"] > 0
    assert any("1.2% of its packets again" in n for n in perm.notes), perm.notes
    assert rows[("ring", "spray")].notes == ()  # nothing sent again, nothing trimmed
    # a worst flow past 25 % says why, in the text and the JSON
    d = tmp_path / "run"
    shutil.copytree(DATA, d)
    pred = json.loads((d / "prediction.json").read_text())
    th = pred["patterns"]["permutation"]["routings"]["ecmp"]["throughput"]
    th["min"] *= 2
    (d / "prediction.json").write_text(json.dumps(pred))
    row = next(r for r in check(d) if (r.pattern, r.routing) == ("permutation", "ecmp"))
    assert any("hash draws" in n and "one draw of its own" in n for n in row.notes)
    assert "note: permutation ecmp: worst flow" in table([row])
    assert row.to_json()["notes"] == list(row.notes)
