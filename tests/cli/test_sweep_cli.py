"""``designer sweep``: JSON keys, the table files, the best designs, and bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from designer.cli.main import main
from designer.core.fileformat import load_project
from designer.core.paths import projects_dir

ISSUE_SPEC = {"generate": {"kind": "rail", "gear": ["ib-ndr", "roce-400"], "sus": [1, 2, 4, 8]},
              "objectives": ["cost_per_gpu", "bisection_per_gpu"]}


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "issue.sweep.json"
    path.write_text(json.dumps(ISSUE_SPEC))
    return path


def test_json_keys_and_the_table_files(capsys, spec_file, tmp_path):
    out = tmp_path / "results.csv"
    assert main(["sweep", str(spec_file), "--workers", "0", "-o", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"points", "failed", "pareto", "seconds", "workers"} <= set(data)
    assert data["points"] == 8 and data["failed"] == 0 and data["workers"] == 0
    assert data["pareto"] and all(r["pareto"] for r in data["pareto"])
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 8
    assert {"point", "kind", "gear", "sus", "cost_per_gpu", "bisection_per_gpu", "power_kw",
            "feasible", "pareto", "error"} <= set(rows[0])
    # the DGX SuperPOD H100 NDR reference architecture: 256 GPUs per SU
    assert [int(float(r["gpus"])) for r in rows[:4]] == [256, 512, 1024, 2048]


def test_xlsx_parquet_and_best_designs(capsys, spec_file, tmp_path):
    spec = dict(ISSUE_SPEC, constraints={"budget": 5e6})
    spec_file.write_text(json.dumps(spec))
    for name in ("r.xlsx", "r.parquet"):
        assert main(["sweep", str(spec_file), "--workers", "0", "-o", str(tmp_path / name),
                     "--top", "2", "--designs-dir", str(tmp_path / "best")]) == 0
    text = capsys.readouterr().out
    assert "Pareto front" in text and "budget" in text
    from openpyxl import load_workbook

    wb = load_workbook(tmp_path / "r.xlsx")
    assert wb.sheetnames == ["Points", "Best"]
    assert wb["Best"]["A2"].value == "budget"
    import pyarrow.parquet as pq

    t = pq.read_table(tmp_path / "r.parquet")
    assert t.num_rows == 8 and "meets:budget" in t.column_names
    designs = sorted((tmp_path / "best").glob("*.fabric.json"))
    assert len(designs) == 2
    for d in designs:  # a budget of $5M holds 1 and 2 SUs only (about $2M and $4M)
        assert load_project(d).generator.params["sus"] in (1, 2)


@pytest.mark.parametrize(("spec", "words"), [
    ({"generate": {"kind": "rail", "susses": [1]}}, "generate.susses"),
    ({"generate": {"kind": "rail", "sus": []}}, "generate.sus"),
    ({"generate": {"kind": "rail", "gear": ["ib-ndr", "bogus"]}}, "generate.gear = 'bogus'"),
])
def test_bad_specs_exit_2_with_one_line(capsys, tmp_path, spec, words):
    path = tmp_path / "bad.sweep.json"
    path.write_text(json.dumps(spec))
    assert main(["sweep", str(path), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("designer: ") and words in err and "Traceback" not in err


def test_bad_options_exit_2_before_any_work(capsys, spec_file, tmp_path):
    assert main(["sweep", str(spec_file), "--top", "3"]) == 2
    assert "--designs-dir" in capsys.readouterr().err
    assert main(["sweep", str(spec_file), "-o", str(tmp_path / "x.txt")]) == 2
    assert ".csv" in capsys.readouterr().err
    assert main(["sweep", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml: no such file" in capsys.readouterr().err


def test_example_sweeps_in_projects_load_and_expand():
    from designer.core.sweep import expand, load_spec

    specs = sorted(projects_dir().glob("*.sweep.yaml"))
    assert specs
    for path in specs:
        points = expand(load_spec(path))
        assert points and not all(p.error for p in points)


@pytest.mark.parametrize("engine", ["processes", "dask"])
def test_the_engine_option_runs_on_local_workers(capsys, spec_file, engine):
    """`--engine processes` (the default: workers forked from this process) and `--engine
    dask` (a local Dask cluster) give the in-process figures; the JSON says where it ran."""
    assert main(["sweep", str(spec_file), "--workers", "0", "--json"]) == 0
    serial = json.loads(capsys.readouterr().out)
    assert main(["sweep", str(spec_file), "--workers", "2", "--engine", engine, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["workers"] == 2 and data["failed"] == 0
    assert data["scheduler"] == ("local" if engine == "processes" else "local Dask")
    def figures(rows):
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
    assert figures(data["pareto"]) == figures(serial["pareto"])


def test_an_unknown_engine_is_a_usage_error(capsys, spec_file):
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(spec_file), "--engine", "ray"])
    assert exc.value.code == 2
    assert "invalid choice: 'ray'" in capsys.readouterr().err
