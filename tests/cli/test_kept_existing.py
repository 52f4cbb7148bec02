"""Every writer of a new project file keeps what is at its output unless told --force, a link
that points nowhere included, and says so in one line."""

from __future__ import annotations

import os

import pytest

from designer.cli.main import main


@pytest.mark.parametrize("make", ["file", "dangling link"])
def test_generate_keeps_what_is_at_the_output(tmp_path, capsys, make):
    out = tmp_path / "x.fabric.json"
    if make == "file":
        out.write_text("mine")
    else:
        os.symlink(tmp_path / "nowhere", out)
    assert main(["generate", "rail", "--sus", "1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"designer generate: {out} exists; use --force to overwrite\n"
    assert os.path.lexists(out) and not (tmp_path / "nowhere").exists()
    assert main(["generate", "rail", "--sus", "1", "-o", str(out), "--force"]) == 0
    assert not out.is_symlink() and out.stat().st_size > 1000


def test_import_keeps_an_existing_file(tmp_path, capsys):
    out = tmp_path / "x.fabric.json"
    out.write_text("mine")
    ig = tmp_path / "in.json"
    ig.write_text("{}")
    assert main(["import", "infragraph", str(ig), "-o", str(out)]) == 2
    assert "exists; use --force" in capsys.readouterr().err and out.read_text() == "mine"
