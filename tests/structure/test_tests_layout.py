"""The tests mirror the packages: a test of ``designer.core.<name>`` (a package or a module)
sits in ``tests/core/<name>/``, of the command line in ``tests/cli/``, of the window in
``tests/gui/<feature>/`` (a package of ``designer.gui``, or ``window`` for the main window,
its menus and start-up), of this documentation in ``tests/docs/``; tests that cut across
packages sit in ``tests/hostile/`` (hostile and fuzzed input at every surface) and
``tests/structure/`` (imports, packaging, this layout). A test file anywhere else fails here,
with the folder its imports suggest."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from tests._paths import ROOT, TESTS

CORE = ROOT / "designer" / "core"
GUI = ROOT / "designer" / "gui"
ACROSS = {"cli", "docs", "hostile", "structure"}


def _core_names() -> set[str]:
    return {p.stem for p in CORE.iterdir()
            if (p.is_dir() and (p / "__init__.py").exists())
            or (p.suffix == ".py" and p.stem != "__init__")}


def _gui_features() -> set[str]:
    return {p.name for p in GUI.iterdir() if p.is_dir() and (p / "__init__.py").exists()} | {
        "window"}


def allowed(folder: tuple[str, ...]) -> bool:
    """Whether a test file may sit in ``tests/<folder...>/``."""
    if len(folder) == 1:
        return folder[0] in ACROSS
    if len(folder) == 2:
        top, name = folder
        return (top == "core" and name in _core_names()) or (
            top == "gui" and name in _gui_features())
    return False


def suggest(path: Path) -> str:
    """The folder a test file's imports point to: the window's feature it imports most, the
    command line, or the core package or module it imports most."""
    counts: Counter[tuple[str, str]] = Counter()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module else
                 [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            parts = name.split(".")
            if parts[0] in ("PySide6", "pytestqt"):
                counts["gui", "window"] += 1
            elif parts[:2] == ["designer", "gui"]:
                feature = parts[2] if len(parts) > 2 else "window"
                counts["gui", feature if feature in _gui_features() else "window"] += 3
            elif parts[:2] == ["designer", "cli"]:
                counts["cli", ""] += 1
            elif parts[:2] == ["designer", "core"] and len(parts) > 2:
                counts["core", parts[2]] += 1
    if "qtbot" in path.read_text(encoding="utf-8"):
        counts["gui", "window"] += 1
    gui = [(k, n) for k, n in counts.items() if k[0] == "gui"]
    if gui:
        return f"tests/gui/{max(gui, key=lambda kn: kn[1])[0][1]}/"
    core = [(k, n) for k, n in counts.items() if k[0] == "core" and k[1] != "errors"]
    if "cli" in path.stem or not core:
        return "tests/cli/"
    return f"tests/core/{max(core, key=lambda kn: kn[1])[0][1]}/"


def misplaced() -> list[str]:
    out = []
    for path in sorted(TESTS.rglob("test_*.py")):
        folder = path.relative_to(TESTS).parts[:-1]
        if folder and folder[0] == "data":
            continue
        if not allowed(folder):
            where = suggest(path)
            new = ("" if (ROOT / where / "__init__.py").exists()
                   else ", a new folder: add an empty __init__.py")
            out.append(f"{path.relative_to(ROOT)}: move it to {where} "
                       f"(git mv, so its history follows{new})")
    return out


def test_every_test_file_sits_in_the_folder_of_what_it_tests():
    assert not misplaced(), (
        "test files outside the agreed folders (tests/core/<package>/, tests/cli/, "
        "tests/gui/<feature>/, tests/docs/, tests/hostile/, tests/structure/):\n  "
        + "\n  ".join(misplaced()))


def test_every_test_folder_is_a_package():
    """Two test files may share a name in different folders (``test_compare_like_for_like``
    in core and gui) only if each folder is a package."""
    folders = {p.parent for p in TESTS.rglob("test_*.py") if "data" not in p.parts}
    missing = sorted(str(f.relative_to(ROOT)) for f in folders
                     if not (f / "__init__.py").exists())
    assert not missing, f"folders without __init__.py: {missing}"


def test_a_flat_test_file_is_named_with_where_it_belongs(tmp_path, monkeypatch):
    """The check itself: a file dropped flat into tests/ or tests/core/ is caught, and the
    message names the folder its imports suggest."""
    assert not allowed(()) and not allowed(("core",)) and not allowed(("gui",))
    assert not allowed(("core", "nosuchpackage")) and not allowed(("core", "solver", "deep"))
    assert allowed(("core", "solver")) and allowed(("core", "fileformat"))
    assert allowed(("gui", "canvas")) and allowed(("cli",))
    flat = tmp_path / "test_new.py"
    flat.write_text("from designer.core.traffic import run_load\n"
                    "from designer.core.traffic.load import project_load\n"
                    "from designer.core.solver import solve\n")
    assert suggest(flat) == "tests/core/traffic/"
    flat.write_text("from designer.gui.canvas.scene import FabricScene\n"
                    "from designer.core.generators import generate\n")
    assert suggest(flat) == "tests/gui/canvas/"
    flat.write_text("from designer.cli.main import main\n")
    assert suggest(flat) == "tests/cli/"


def test_no_test_finds_the_checkout_by_counting_parent_folders():
    """``Path(__file__).parents[N]`` breaks when a file moves to a deeper folder: the roots
    come from tests/_paths.py."""
    counting = sorted(str(p.relative_to(ROOT)) for p in TESTS.rglob("*.py")
                      if p.name not in ("_paths.py", Path(__file__).name)
                      and ".parents[" in p.read_text(encoding="utf-8"))
    assert not counting, f"use tests._paths (ROOT, DATA, PROJECTS) in: {counting}"
