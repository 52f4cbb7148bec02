"""The import graph of ``designer/`` reads top-down: no circles, no private names across modules.

Every import counts, including one inside a function (a lazy import that closes a circle is
still a circle) and one under ``if TYPE_CHECKING:`` (it never runs, but it ties two modules
together all the same: move the shared type down, or name a protocol).
``from package import module`` is an edge to that module, not to the package's ``__init__``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

from tests._paths import ROOT

PACKAGE = ROOT / "designer"


def _modules() -> dict[str, tuple[Path, bool]]:
    out: dict[str, tuple[Path, bool]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_pkg)
    return out


def _absolute(module: str, is_pkg: bool, level: int, name: str | None) -> str:
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _imports(mods: dict[str, tuple[Path, bool]], only: str | None = None):
    """(importer, imported module, imported name or None) for every import in ``designer``
    (or in module ``only``)."""
    for mod, (path, is_pkg) in mods.items():
        if only is not None and mod != only:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield mod, alias.name, None
            elif isinstance(node, ast.ImportFrom):
                base = (_absolute(mod, is_pkg, node.level, node.module) if node.level
                        else node.module or "")
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in mods:
                        yield mod, sub, None
                    else:
                        yield mod, base, alias.name


@pytest.fixture(scope="module")
def graph() -> tuple[nx.DiGraph, list[tuple[str, str, str | None]]]:
    mods = _modules()
    edges = [e for e in _imports(mods) if e[1] in mods and e[1] != e[0]]
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    g.add_edges_from((a, b) for a, b, _ in edges)
    return g, edges


def test_no_import_circles(graph) -> None:
    g, _ = graph
    circles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_no_private_names_across_modules(graph) -> None:
    _, edges = graph
    bad = sorted(f"{a} imports {name} from {b}" for a, b, name in edges
                 if name and name.startswith("_") and not name.startswith("__"))
    assert not bad, "\n".join(bad)


def test_the_checks_see_a_circle_and_a_private_name() -> None:
    """The graph code finds what it looks for (a check that finds nothing proves nothing)."""
    g = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")])
    assert [c for c in nx.strongly_connected_components(g) if len(c) > 1]
    mods = _modules()
    found = list(_imports(mods, "designer.core.solver.solve"))
    assert ("designer.core.solver.solve", "designer.core.solver.compile", "ROLES") in found
    # a submodule imported from its package is an edge to the submodule itself
    found = list(_imports(mods, "designer.core.solver.bisection"))
    assert ("designer.core.solver.bisection", "designer.core.solver.certificates", None) in found
    # an import made only for type checking is an edge too
    found = list(_imports(mods, "designer.core.acceptance.kpis"))
    assert ("designer.core.acceptance.kpis", "designer.core.acceptance.collective_test", None) \
        in found or ("designer.core.acceptance.kpis", "designer.core.acceptance.collective_test",
                     "CollectiveTest") in found


# The layers: core knows neither face; the window and the command line do not lean on each
# other, except where the command line starts the window or borrows Qt to draw a picture or a
# PDF (named here, so a new one is a decision, not an accident).
CLI_MAY_USE_GUI = {
    ("designer.cli.commands.open_window", "designer.gui.app"),
    ("designer.cli.exports.formats", "designer.gui.exports.report_pdf"),
    ("designer.cli.exports.formats", "designer.gui.exports.image"),
}


def _layer(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_layers_core_knows_neither_face_and_the_faces_keep_apart(graph) -> None:
    g, _ = graph
    bad = []
    for a, b in g.edges:
        la, lb = _layer(a), _layer(b)
        if la == "core" and lb in ("gui", "cli"):
            bad.append(f"{a} imports {b}: the core never imports a face")
        elif la == "gui" and lb == "cli":
            bad.append(f"{a} imports {b}: the window calls the core, not the command line")
        elif la == "cli" and lb == "gui" and (a, b) not in CLI_MAY_USE_GUI:
            bad.append(f"{a} imports {b}")
    assert not bad, "\n".join(sorted(bad))
