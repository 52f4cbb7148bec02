"""``designer compare``: designs side by side, deltas, break-even, xlsx with one column each."""

from __future__ import annotations

import json

import pytest
from openpyxl import load_workbook

from designer.cli.main import main
from designer.core.analysis.comparison import FIGURES, compare
from designer.core.analysis.workload import PRESETS, Economics
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from designer.core.paths import projects_dir
from designer.core.solver import solve

IB = str(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json")
ROCE = str(projects_dir() / "dgx-superpod-4su-roce-400.fabric.json")


def test_compare_two_files_json(capsys, tmp_path):
    out = tmp_path / "cmp.xlsx"
    assert main(["compare", IB, ROCE, "--workload", "dense-70b-dp", "--json", "-o", str(out)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"designs", "deltas"} <= set(d)
    assert len(d["designs"]) == 2 and len(d["deltas"]) == 1
    a, b = d["designs"]
    for key, *_ in FIGURES:
        assert key in a and key in b
    assert d["deltas"][0]["switches"] == b["switches"] - a["switches"]
    assert b["latency_p50_us"] > a["latency_p50_us"]  # RoCE switches are slower
    # IB SHARP is a setting, off by default (NCCL keeps CollNet off unless
    # NCCL_COLLNET_ENABLE=1): the DP all-reduce runs the same ring on both fabrics
    assert a["busbw_gbytes_s"]["dp all-reduce"] == b["busbw_gbytes_s"]["dp all-reduce"]
    ws = load_workbook(out)["Compare"]
    assert [ws.cell(3, c).value for c in (2, 3)] == ["dgx-superpod-4su-ib-ndr",
                                                      "dgx-superpod-4su-roce-400"]
    # the Servers / GPU and Routing rows come first, then the figures with their deltas
    assert [ws.cell(r, 1).value for r in (4, 5)] == ["Servers / GPU", "Routing"]
    assert str(ws.cell(7, 4).value).startswith("=C7-B7")


def test_compare_profiles_text(capsys):
    assert main(["compare", IB, "--profiles", "ib-ndr,roce-400"]) == 0
    out = capsys.readouterr().out
    assert "IB NDR" in out and "RoCE 400G" in out and "Recommendation" in out


def test_compare_oversubscriptions(capsys, tmp_path):
    f = tmp_path / "ft.fabric.json"
    save_project(generate(params_from_dict("fat-tree", {"gpus": 512, "gear": "roce-400"})), f)
    assert main(["compare", str(f), "--oversubscriptions", "1:1,3:1", "--json",
                 "--workload", "dense-70b-dp"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["designs"][1]["oversubscription"] > d["designs"][0]["oversubscription"]
    # a workload too big for this design is fitted to it (data parallelism scaled) and says so
    assert not d["designs"][0]["error"] and d["designs"][0]["step_s"] > 0
    assert any("data parallel" in x for x in d["designs"][0]["workload_fitted"])
    # as written (--no-fit) it says why instead of failing the comparison
    assert main(["compare", str(f), "--oversubscriptions", "1:1,3:1", "--json", "--no-fit",
                 "--workload", "dense-70b-dp"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert "workload.gpus" in d["designs"][0]["error"] and d["designs"][0]["step_s"] is None


def test_break_even_rows():
    items = [(n, p, solve(p)) for n, p in (("ib", load_project(IB)), ("roce", load_project(ROCE)))]
    econ = Economics(gpu_hour_usd=2, years=3)
    c = compare(items, PRESETS["dense-70b-dp"], econ)
    (be,) = c.break_even
    gpus = 1024
    assert be["break_even_gain"] == pytest.approx(be["delta_tco_usd"] / (gpus * 3 * 8760 * 2),
                                                  abs=1e-6)
    assert c.recommendation is not None and c.recommendation.rules


def test_compare_bad_input(capsys):
    assert main(["compare", IB]) == 2
    assert "designs" in capsys.readouterr().err
    assert main(["compare", IB, ROCE, "--years", "0"]) == 2
    assert "economics.years" in capsys.readouterr().err


def test_compare_html_report_page(capsys, tmp_path):
    out = tmp_path / "cmp.html"
    assert main(["compare", IB, "--profiles", "ib-ndr,roce-400", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "<th class=\"n\">IB NDR</th>" in html and "RoCE 400G" in html
    assert "Break-even" in html and "Recommendation" in html
    assert main(["compare", IB, ROCE, "-o", str(tmp_path / "x.pdf")]) == 2
    assert ".xlsx or .html" in capsys.readouterr().err


def test_compare_html_shows_no_difference_below_the_figures_precision():
    from types import SimpleNamespace

    from designer.core.analysis.comparison import FIGURES
    from designer.core.writers.compare_html import compare_html

    key, _label, _unit, _ = next(f for f in FIGURES if f[2] not in ("%", "$"))

    def col(label, value):
        return SimpleNamespace(label=label, figures={key: value}, busbw={}, layout="", error="",
                               routing=None, text=lambda _key: None, result=None, project=None)

    c = SimpleNamespace(designs=[col("A", 3.94), col("B", 3.94 + 9.12e-05), col("C", 4.5)],
                        break_even=[], premium=None, recommendation=None, notes=())
    html = compare_html(c)
    assert "e-05" not in html and "(+9.12" not in html
    assert "(+0.56)" in html  # a real difference is still shown
