"""``designer estimate``: the stable JSON keys of the issue, one-collective mode, bad input."""

from __future__ import annotations

import json

import pytest

from designer.cli.main import main
from designer.core.analysis.workload import DecisionSettings, Economics, Workload
from designer.core.fileformat import dumps_project, load_project, loads_project
from designer.core.paths import projects_dir

NDR = str(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json")
ROW = {"op", "algorithm", "group", "gpus", "bytes", "time_us", "algbw_gbytes_s", "busbw_gbytes_s"}


def run_json(capsys, *args: str) -> dict:
    assert main(["estimate", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_estimate_json_keys(capsys):
    d = run_json(capsys, NDR, "--workload", "dense-70b-dp", "--gpu-hour-usd", "3",
                 "--run-days", "30", "--years", "4")
    assert {"workload", "collectives", "step", "ideal", "tco", "recommendation"} <= set(d)
    assert d["collectives"] and all(set(r) >= ROW for r in d["collectives"])
    assert {"compute_s", "bubble_s", "exposed_comm_s", "comm_fraction", "step_s", "mfu"} <= \
        set(d["step"])
    assert {"step_s", "slowdown", "gpu_hours_lost", "usd_lost"} <= set(d["ideal"])
    assert {"capex_usd", "energy_usd_per_year", "support_usd_per_year", "total_usd", "years",
            "usd_per_useful_gpu_hour"} <= set(d["tco"])
    assert d["tco"]["years"] == 4
    assert {"choice", "rules"} <= set(d["recommendation"])
    for r in d["recommendation"]["rules"]:
        assert {"rule", "fired", "figure", "source"} <= set(r)
    assert d["workload"]["name"].startswith("Dense 70B")


def test_one_collective(capsys):
    d = run_json(capsys, NDR, "--collective", "all-gather", "--bytes", "1GiB", "--group", "tp",
                 "--algorithm", "ring")
    (row,) = d["collectives"]
    assert (row["op"], row["group"], row["gpus"], row["bytes"], row["algorithm"]) == \
        ("all-gather", "tp", 8, 2**30, "ring")


def test_text_report(capsys):
    assert main(["estimate", NDR]) == 0
    out = capsys.readouterr().out
    assert "communication is" in out and "Recommendation" in out


@pytest.mark.parametrize(("args", "field"), [
    (["--gpu-hour-usd", "-1"], "economics.gpu_hour_usd"),
    (["--workload", "nope"], "--workload"),
    (["--collective", "all-reduce", "--bytes", "12 parsecs"], "--bytes"),
    (["--collective", "all-reduce"], "--bytes"),
    (["--network-slowdown", "0.5"], "network_slowdown"),
])
def test_bad_input_exit_2(capsys, args, field):
    assert main(["estimate", NDR, *args]) == 2
    err = capsys.readouterr().err
    assert field in err and "Traceback" not in err


def test_bad_workload_file(tmp_path, capsys):
    f = tmp_path / "w.json"
    f.write_text(json.dumps({"tp": 16}))
    assert main(["estimate", NDR, "--workload", str(f)]) == 2
    assert "workload.tp: 16 is larger than the NVLink domain" in capsys.readouterr().err
    f.write_text(json.dumps({"tp": -2}))
    assert main(["estimate", NDR, "--workload", str(f)]) == 2
    assert "workload.tp" in capsys.readouterr().err


def test_decision_saved_in_project():
    p = load_project(NDR)
    s = DecisionSettings(workload=Workload(name="mine", tp=4), economics=Economics(years=5))
    back = loads_project(dumps_project(p.evolve(decision=s)))
    assert back.decision == s
    assert loads_project(dumps_project(p)).decision is None


def test_estimate_under_a_routing_model_scales_the_network_by_the_flow_model(tmp_path, capsys):
    """Issue 13 point 5: the step estimate "under ECMP" takes the slowdown the flow model
    finds for the ring traffic; on an oversubscribed 3:1 fabric the rings cross the spines."""
    from designer.core.fileformat import save_project
    from designer.core.generators import generate, params_from_dict
    from designer.core.traffic.load import collective_slowdown

    project = generate(params_from_dict("fat-tree", {
        "gpus": 1024, "gear": "roce-400", "placement": "tor", "servers_per_leaf": 2,
        "oversubscription": "3:1"}))
    path = tmp_path / "ft.fabric.json"
    save_project(project, path)
    slowdown = collective_slowdown(project, pattern="ring", routing="ecmp", trials=3)
    assert slowdown > 1.0
    assert main(["estimate", str(path), "--json"]) == 0
    ideal = json.loads(capsys.readouterr().out)
    assert main(["estimate", str(path), "--under", "ecmp", "--trials", "3", "--json"]) == 0
    under = json.loads(capsys.readouterr().out)
    assert under["step"]["exposed_comm_s"] > ideal["step"]["exposed_comm_s"]
    assert under["step"]["step_s"] > ideal["step"]["step_s"]


def test_compare_table_shows_whole_names_and_units(capsys):
    """Issue 27: file columns were cut to 15 characters and rows had no units."""
    files = [str(projects_dir() / f) for f in ("dgx-superpod-4su-ib-ndr.fabric.json",
                                                "dgx-superpod-4su-roce-400.fabric.json")]
    assert main(["compare", *files]) == 0
    out = capsys.readouterr().out
    head = out.splitlines()[0]
    assert "dgx-superpod-4su-ib-ndr" in head and "dgx-superpod-4su-roce-400" in head
    lines = {line.split("  ")[0]: line for line in out.splitlines()}
    assert lines["Bisection"].rstrip().endswith("Tb/s")
    assert "Gb/s" in lines["Bandwidth per GPU"] and " us" in lines["Latency p50"]
    assert " kW" in lines["Network power"] and " s" in lines["Step time"]
    assert "Network cost per GPU, no NIC side" in lines and "Servers / GPU" in lines
    assert any(k.startswith("busbw") and v.rstrip().endswith("GB/s") for k, v in lines.items())


def test_estimate_says_nothing_is_lost_instead_of_zero_hours_and_a_dollar(capsys):
    """Issue 27: a non-blocking design printed "0 GPU-hours, $1"."""
    assert main(["estimate", str(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "ideal step" in x)
    assert line.endswith("nothing lost to the fabric") and "$1," not in line
    assert main(["estimate", str(projects_dir() / "roce-fat-tree-24k-oversubscribed"
                                                  ".fabric.json")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "ideal step" in x)
    assert "GPU-hours" in line and line.endswith("days lost")
