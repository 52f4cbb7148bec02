"""Every writer of the command line with a symbolic link planted at its output: the link is
replaced by the file (or a folder link refused, exit 2), what it pointed at never changes."""

from __future__ import annotations

import pytest

from tests.writer_links import WRITERS, inputs, run_with_link, untouched


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return inputs(tmp_path_factory.mktemp("inputs"))


@pytest.mark.parametrize("w", WRITERS, ids=[w.name for w in WRITERS])
def test_no_writer_follows_a_link(w, files, tmp_path, capsys):
    code, target, outside = run_with_link(w, tmp_path, files)
    err = capsys.readouterr().err
    assert code in (0, 1, 2), err  # acceptance check: 1 when a run misses its band
    assert untouched(outside), f"{w.name} wrote through the link"
    if w.folder:
        assert code == 2 and "symbolic link" in err and err.count("\n") == 1, err
    elif code != 2:
        assert not target.is_symlink() and target.stat().st_size > 0


@pytest.mark.parametrize("fmt", ["infragraph", "htsim"])
def test_streamed_exports_refuse_a_fifo_at_the_output(fmt, files, tmp_path, capsys):
    import os
    import stat

    from designer.cli.main import main

    out = tmp_path / "out.json" if fmt == "infragraph" else tmp_path / "htsim"
    fifo = out if fmt == "infragraph" else out / "design.topo"
    fifo.parent.mkdir(exist_ok=True)
    os.mkfifo(fifo)
    from designer.core.paths import projects_dir

    k8 = projects_dir() / "k-ary-fat-tree-k8.fabric.json"  # htsim needs two switch tiers
    assert main(["export", fmt, str(k8), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "FIFO" in err and err.count("\n") == 1, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
