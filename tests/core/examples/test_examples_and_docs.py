"""The bundled examples as ``designer examples`` and File > Open Example list them, copying one
out, and the documentation pages the app ships."""

from __future__ import annotations

import json

import pytest

from designer.cli.main import main
from designer.core.docs import page_markdown, pages
from designer.core.examples import DESCRIPTIONS, ExampleError, copy_example, examples
from designer.core.paths import projects_dir


def test_every_bundled_project_has_its_line_and_no_line_is_orphaned():
    files = {p.name.removesuffix(".fabric.json") for p in projects_dir().glob("*.fabric.json")}
    assert files == set(DESCRIPTIONS)
    assert [e.name for e in examples()][:2] == list(DESCRIPTIONS)[:2]


def test_copy_puts_the_file_in_the_folder_and_keeps_an_existing_one(tmp_path):
    dest = copy_example("k-ary-fat-tree-k8", tmp_path / "new")
    assert dest.read_bytes() == (projects_dir() / "k-ary-fat-tree-k8.fabric.json").read_bytes()
    dest.write_text("mine")
    with pytest.raises(ExampleError, match="exists; use --force"):
        copy_example("k-ary-fat-tree-k8.fabric.json", tmp_path / "new")
    assert dest.read_text() == "mine"
    copy_example("k-ary-fat-tree-k8", tmp_path / "new", force=True)
    assert dest.read_text() != "mine"


def test_an_unknown_example_names_the_ones_there_are():
    with pytest.raises(ExampleError, match=r"no example called 'nope'.*dgx-superpod-4su-ib-ndr"):
        copy_example("nope", "x")


def test_cli_lists_copies_and_refuses(tmp_path, capsys):
    assert main(["examples", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [x["name"] for x in listed] == [e.name for e in examples()]
    assert main(["examples", "copy", "dragonfly-1056-gpus", str(tmp_path)]) == 0
    assert (tmp_path / "dragonfly-1056-gpus.fabric.json").is_file()
    assert main(["examples", "copy", "dragonfly-1056-gpus", str(tmp_path)]) == 2
    assert "exists; use --force" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["examples", "copy"])
    assert e.value.code == 2


def test_pages_follow_the_site_order_and_include_the_tools_figures():
    ps = pages()
    assert ps[0].path == "index.md" and {"getting-started.md", "decision.md"} <= {
        p.path for p in ps}
    md = page_markdown("examples.md")
    assert "--8<--" not in md and "GPUs" in md
    assert "designer compare --help" in page_markdown("cli/compare.md")
    assert "outside the documentation" in page_markdown("../pyproject.toml")
