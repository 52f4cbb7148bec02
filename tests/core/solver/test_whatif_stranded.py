"""A failure that strands GPUs costs their hours (the issue's case: a rail leaf of the 1,024-GPU
SuperPOD strands 32 GPUs and was priced at $0 a day)."""

from __future__ import annotations

import pytest

from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.paths import projects_dir
from designer.core.solver.compile import compile_project
from designer.core.traffic.failures import n_minus_1, what_if


def test_n_minus_1_leaf_prices_the_stranded_gpus():
    p = load_project(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json")
    c = compile_project(p, p.catalog(builtin_catalog()))
    (row,) = n_minus_1(c, "leaf", usd_per_gpu_hour=2.0)
    w = row.result
    assert w.stranded_gpus == 32  # one NIC of each of the SU's 32 servers
    # the rest keep full bandwidth on this non-blocking fabric: the money is the 32 GPUs
    assert w.slowdown == pytest.approx(1.0)
    assert w.money_per_day_usd == pytest.approx(32 * 24 * 2.0)
    spine = what_if(c, ["spine:1"], usd_per_gpu_hour=2.0)
    assert spine.stranded_gpus == 0
    assert spine.money_per_day_usd == pytest.approx(
        (1 - 1 / spine.slowdown) * 1024 * 24 * 2.0)
