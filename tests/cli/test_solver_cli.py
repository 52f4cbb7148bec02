"""``designer solve``: the readable report, the stable JSON keys, options and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from designer.cli.main import main
from designer.core.paths import projects_dir

KEYS = {
    "gpus", "servers", "switches", "links", "bisection", "oversubscription", "hops",
    "latency_us", "bom", "power_w", "problems",
}


def solve_json(capsys, *args: str) -> dict:
    assert main(["solve", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def check_keys(d: dict) -> None:
    assert set(d) >= KEYS
    assert {"total", "by_tier", "by_model"} <= set(d["switches"])
    assert {"total", "by_layer"} <= set(d["links"])
    assert {"gbps", "per_gpu_gbps", "fraction_of_full", "method", "exact"} <= set(d["bisection"])
    assert {"worst", "by_tier"} <= set(d["oversubscription"])
    assert {"min", "mean", "max", "histogram"} <= set(d["hops"])
    assert {"min", "mean", "p99", "max"} <= set(d["latency_us"])
    assert {"total_usd", "per_gpu_usd", "lines"} <= set(d["bom"])
    for line in d["bom"]["lines"]:
        assert {"category", "item", "qty", "unit_usd", "total_usd"} <= set(line)
    for p in d["problems"]:
        assert {"severity", "message", "devices"} <= set(p)
    assert isinstance(d["power_w"], float | int)


EXAMPLES = sorted(projects_dir().glob("*.fabric.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_project_solves_with_the_keys(path: Path, capsys):
    d = solve_json(capsys, str(path))
    check_keys(d)
    assert d["gpus"] > 0 and d["bisection"]["gbps"] > 0
    assert d["hops"]["max"] in (3, 4, 5)


def test_generated_design_report_and_json(tmp_path, capsys):
    f = tmp_path / "pod.fabric.json"
    assert main(["generate", "rail", "--sus", "4", "-o", str(f)]) == 0
    capsys.readouterr()
    assert main(["solve", str(f)]) == 0
    text = capsys.readouterr().out
    for section in ("Size", "Bisection bandwidth", "Oversubscription", "Hops and latency",
                    "Bill of materials", "Power and space", "Problems"):
        assert section in text
    assert "204.8 Tb/s" in text and "exact" in text
    d = solve_json(capsys, str(f))
    check_keys(d)
    assert d["links"]["by_layer"] == {"endpoint-leaf": 1024, "leaf-spine": 1024}
    assert d["switches"]["by_tier"] == {"leaf": 32, "spine": 16}
    assert d["bisection"]["gbps"] == 204800 and d["bisection"]["exact"] is True
    assert d["hops"]["histogram"] == {"1": 15872, "3": 504320}


def test_message_size_changes_latency(tmp_path, capsys):
    f = tmp_path / "pod.fabric.json"
    main(["generate", "rail", "--sus", "2", "-o", str(f)])
    capsys.readouterr()
    small = solve_json(capsys, str(f), "--message-bytes", "64")
    big = solve_json(capsys, str(f), "--message-bytes", "1048576")
    # 1 MiB at 400G serialises in 21 us; 64 bytes in 1.3 ns
    assert small["latency_us"]["min"] < 1.5 < 20 < big["latency_us"]["min"]
    assert small["latency_us"]["assumptions"]["message_bytes"] == 64


@pytest.mark.parametrize("args", [["--message-bytes", "0"], ["--message-bytes", "x"],
                                  ["--propagation-ns-per-m", "-1"]])
def test_bad_options_exit_2(tmp_path, capsys, args):
    f = tmp_path / "pod.fabric.json"
    main(["generate", "rail", "--sus", "1", "-o", str(f)])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["solve", str(f), *args])
    assert exit_.value.code == 2


def test_missing_file_is_one_line(tmp_path, capsys):
    assert main(["solve", str(tmp_path / "nope.fabric.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("designer: ")
