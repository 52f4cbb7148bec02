"""Wide generated designs are arranged compactly by default (issue 17: Fit on the 16,384-GPU
example gave a strip one percent of the view high): rows of SUs or pods, the wiring unchanged."""

from __future__ import annotations

import numpy as np

from designer.cli.main import main
from designer.core.editing import bounds
from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from designer.core.layout import WIDE, compact_if_wide


def _aspect(project) -> float:
    x0, y0, x1, y1 = bounds(project.fabric)
    return (x1 - x0) / (y1 - y0)


def test_wide_is_wrapped_and_the_wiring_kept():
    wide = generate(params_from_dict("rail", {"sus": 32}))
    assert _aspect(wide) > WIDE
    compact = compact_if_wide(wide)
    assert _aspect(compact) < 4
    a, b = wide.fabric.links, compact.fabric.links
    assert np.array_equal(a.a, b.a) and np.array_equal(a.b, b.b)
    assert np.array_equal(a.count, b.count)
    assert [d.id for d in wide.fabric.devices] == [d.id for d in compact.fabric.devices]


def test_narrow_and_unwrappable_designs_are_left_alone():
    narrow = generate(params_from_dict("rail", {"sus": 2}))
    assert compact_if_wide(narrow) is narrow
    planes = generate(params_from_dict("rail", {"sus": 4, "gear": "roce-800"}))
    assert compact_if_wide(planes, aspect=0.5) is planes  # planes keep their layout


def test_the_command_line_writes_wide_designs_compact(tmp_path, capsys):
    out = tmp_path / "big.fabric.json"
    assert main(["generate", "rail", "--sus", "32", "-o", str(out)]) == 0
    assert _aspect(load_project(out)) < 4
