"""What a new user meets in the first hour (issue 17): names and files after Generate > Replace,
bundled examples that Save must not overwrite, and the small messages of the window."""

from __future__ import annotations

import shutil

from designer.core.fileformat import load_project
from designer.core.generators import params_from_dict
from designer.core.paths import is_bundled_example, projects_dir

EXAMPLE = projects_dir() / "dragonfly-1056-gpus.fabric.json"


def test_replace_takes_the_generated_name_and_leaves_the_file(window, answers, tmp_path):
    own = tmp_path / "mine.fabric.json"
    shutil.copy(EXAMPLE, own)
    assert window.open_path(own, ask=False)
    doc = window.doc
    old_name = doc.project.name
    assert "mine.fabric.json" in window.windowTitle()
    window.apply_generated(params_from_dict("rail", {"sus": 2}))
    assert doc.project.name.startswith("Rail-optimized 2 SU") and doc.project.name != old_name
    assert doc.path is None and "mine.fabric.json" not in window.windowTitle()
    assert "untitled" in window.windowTitle()
    # Save asks where: it never overwrites the design that was replaced
    answers.save_path = None
    before = own.read_bytes()
    assert not window.save()
    assert own.read_bytes() == before
    target = tmp_path / "rail.fabric.json"
    answers.save_path = str(target)
    assert window.save() and doc.path == target
    assert load_project(target).name.startswith("Rail-optimized 2 SU")


def test_replace_is_one_undo_step_that_restores_name_and_file(window, answers, tmp_path):
    own = tmp_path / "mine.fabric.json"
    shutil.copy(EXAMPLE, own)
    window.open_path(own, ask=False)
    doc = window.doc
    old_name = doc.project.name
    window.apply_generated(params_from_dict("rail", {"sus": 2}))
    assert doc.undo_stack.count() == 1
    doc.undo_stack.undo()
    assert doc.project.name == old_name and doc.path == own
    assert not doc.modified and "mine.fabric.json" in window.windowTitle()
    doc.undo_stack.redo()
    assert doc.path is None and doc.project.name.startswith("Rail-optimized")


def test_a_bundled_example_is_saved_elsewhere_on_first_save(window, answers, tmp_path):
    assert is_bundled_example(EXAMPLE) and not is_bundled_example(tmp_path / "x.fabric.json")
    window.open_path(EXAMPLE, ask=False)
    doc = window.doc
    assert doc.example and "example" in window.windowTitle()
    before = EXAMPLE.read_bytes()
    answers.save_path = None  # the user cancels the Save As dialog
    assert not window.save()
    assert EXAMPLE.read_bytes() == before
    target = tmp_path / "copy.fabric.json"
    answers.save_path = str(target)
    assert window.save()
    assert doc.path == target and not doc.example and target.is_file()
    assert EXAMPLE.read_bytes() == before
