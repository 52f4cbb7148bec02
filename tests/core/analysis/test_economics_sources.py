"""Every money default of the estimate says where it comes from (a source, or an assumption
said so), in the text and the JSON; the one with a published figure is the GPU-hour rate:
DeepSeek-V3 costs its training at $2 an H800 GPU-hour (arXiv 2412.19437, section 1)."""

from __future__ import annotations

import pytest

from designer.core.analysis.constants import (
    ASSUMED,
    ECONOMICS_DEFAULTS,
    SOURCE,
    USER,
    economics_notes,
)
from designer.core.analysis.workload import Economics


def test_every_number_that_prices_a_design_is_listed():
    money = {name for name, f in Economics.model_fields.items()
             if f.annotation is not bool}
    assert money == set(ECONOMICS_DEFAULTS)
    for kind, note in ECONOMICS_DEFAULTS.values():
        assert kind in (SOURCE, ASSUMED) and note


def test_the_gpu_hour_rate_names_its_source_and_the_rest_say_assumed():
    notes = {n.field: n for n in economics_notes(Economics())}
    assert notes["gpu_hour_usd"].kind == SOURCE and "2412.19437" in notes["gpu_hour_usd"].note
    assert notes["gpu_hour_usd"].value == 2.0
    assert notes["pue"].kind == ASSUMED and notes["usd_per_kwh"].kind == ASSUMED


def test_a_value_set_in_the_project_says_so_and_transport_tuning_does_not():
    econ = Economics(gpu_hour_usd=3.0, tuning_weeks=6.0, tuning_usd_per_week=10_000.0)
    notes = {n.field: n for n in economics_notes(econ)}
    assert notes["gpu_hour_usd"].kind == USER
    assert notes["tuning_weeks"].kind == USER
    filled = {n.field: n for n in economics_notes(econ, tuning_from_transport=True)}
    assert filled["tuning_weeks"].kind == ASSUMED and filled["gpu_hour_usd"].kind == USER


@pytest.mark.parametrize("json_out", [False, True])
def test_estimate_prints_them(capsys, json_out):
    import json

    from designer.cli.main import main
    from designer.core.paths import projects_dir

    path = projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json"
    assert main(["estimate", str(path)] + (["--json"] if json_out else [])) == 0
    out = capsys.readouterr().out
    if json_out:
        rows = {r["field"]: r for r in json.loads(out)["economics_constants"]}
        assert rows["gpu_hour_usd"]["kind"] == SOURCE
        assert rows["tuning_weeks"]["kind"] == ASSUMED  # the transport's, not the project's
    else:
        assert "Money constants (source, assumption or set here)" in out
        assert "arXiv 2412.19437" in out
