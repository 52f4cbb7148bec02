"""Every export of every bundled project after ``floor --place``: each ends written or refused
with one line, never an internal error. The install plan (which needs the floor) is written
for every one: two-lane cables merged into one row by the cabling plan once made its link
arrays disagree with the plan's rows.

Run in-process. The install plan runs on every design but the two large ones (tens of
thousands of GPUs, marked slow); every format runs on the small fat-tree, an InfiniBand and a
RoCE design and the two-node cluster, the others marked slow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.cli.exports import EXPORTERS
from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import save_project
from tests._paths import PROJECTS
from tests.core.acceptance_cases import two_node_roce

LARGE = 1_000_000  # bytes: the 64-SU and 24k-GPU designs
BUNDLED = sorted(PROJECTS.glob("*.fabric.json"))


# every format on these (one per fabric kind); the others only under "-m slow"
EVERY_FORMAT = {"k-ary-fat-tree-k8", "dgx-h100-superpod-3su-ufm", "dgx-superpod-4su-roce-400"}


def _marks(path: Path):
    return [pytest.mark.slow] if path.stat().st_size > LARGE else []


def _format_marks(path: Path):
    return [] if path.name.removesuffix(".fabric.json") in EVERY_FORMAT else [pytest.mark.slow]


@pytest.fixture(scope="module")
def placed(tmp_path_factory):
    """name -> the project file with a floor plan made by ``floor --place``."""
    folder = tmp_path_factory.mktemp("placed")
    cache: dict[str, Path] = {}

    def get(src: Path | None) -> Path:
        key = src.name if src else "two-node"
        if key not in cache:
            if src is None:
                src = folder / "two-node.fabric.json"
                save_project(two_node_roce(builtin_catalog()), src)
            out = folder / key
            assert main(["floor", str(src), "--place", "-o", str(out)]) == 0
            cache[key] = out
        return cache[key]

    return get


CASES = [pytest.param(p, id=p.name.removesuffix(".fabric.json"), marks=_marks(p))
         for p in BUNDLED] + [pytest.param(None, id="two-node")]
FORMAT_CASES = [pytest.param(p, id=p.name.removesuffix(".fabric.json"), marks=_format_marks(p))
                for p in BUNDLED] + [pytest.param(None, id="two-node")]


@pytest.mark.parametrize("src", CASES)
def test_install_plan_after_floor_place(placed, tmp_path, capsys, src):
    path = placed(src)
    out = tmp_path / "install.csv"
    code = main(["export", "install-plan", str(path), "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    rows = out.read_text(encoding="utf-8").splitlines()
    assert len(rows) > 1 and rows[0].startswith("Rack A,")


# the install plan is written for every design above, and read back there
@pytest.mark.parametrize("fmt", sorted(set(EXPORTERS) - {"install-plan"}))
@pytest.mark.parametrize("src", FORMAT_CASES)
def test_every_export_after_floor_place(placed, tmp_path, capsys, src, fmt):
    path = placed(src)
    suffix = EXPORTERS[fmt].suffix
    out = tmp_path / ("out" if suffix == "/" else f"out{'.svg' if fmt == 'image' else suffix}")
    code = main(["export", fmt, str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert code in (0, 2), err
    if code == 2:  # a format that does not apply (configs of an InfiniBand design): one line
        assert err.startswith("designer: ") and err.count("\n") == 1, err
    else:
        assert out.exists()
