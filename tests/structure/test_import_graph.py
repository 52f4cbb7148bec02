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


def _package_all(module: str) -> set[str]:
    init = PACKAGE.parent.joinpath(*module.split("."), "__init__.py")
    if not init.exists():
        return set()
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "__all__"):
            return {ast.literal_eval(e) for e in node.value.elts}
    return set()


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
                    # a package's public name that is also one of its modules
                    # (``solver.solve``): the package binds the name, so the edge is to it
                    if sub in mods and alias.name not in _package_all(base):
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


# Public faces: a package of the core names in its ``__init__`` (``__all__``) what the window
# and the command line may import; they import those names from the package, never a module
# inside it, type-only imports included. A module directly under ``designer/core/``
# (``fileformat``, ``catalog`` ...) is its own face.
CORE_PACKAGES = sorted(p.name for p in (PACKAGE / "core").iterdir()
                       if (p / "__init__.py").exists())


def _public_names(package: str) -> set[str]:
    return _package_all(f"designer.core.{package}")


def _face_violations(edges) -> list[str]:
    public = {p: _public_names(p) for p in CORE_PACKAGES}
    bad = []
    for a, b, name in edges:
        if _layer(a) not in ("gui", "cli") or _layer(b) != "core":
            continue
        parts = b.split(".")
        if len(parts) < 3 or parts[2] not in public:
            continue  # a module directly under designer/core is its own face
        package = ".".join(parts[:3])
        if b != package:
            bad.append(f"{a} imports {b}{f' ({name})' if name else ''}: import it from "
                       f"{package} (add it to that package's __all__)")
        elif name is None or name not in public[parts[2]]:
            bad.append(f"{a} imports {name or 'the package'} from {package}, "
                       f"which is not in its __all__")
    return sorted(bad)


def test_faces_import_only_the_core_packages_public_names(graph) -> None:
    _, edges = graph
    bad = _face_violations(edges)
    assert not bad, "\n".join(bad)


def test_the_face_check_sees_a_deep_import_and_a_name_outside_all() -> None:
    edges = [("designer.gui.x", "designer.core.traffic.load", "run_load"),
             ("designer.cli.y", "designer.core.traffic", "not_a_public_name"),
             ("designer.cli.z", "designer.core.traffic", "run_load"),
             ("designer.cli.z", "designer.core.fileformat", "load_project"),
             ("designer.core.solver.solve", "designer.core.traffic.load", "run_load")]
    bad = _face_violations(edges)
    assert len(bad) == 2
    assert any("designer.gui.x" in b for b in bad) and any("not_a_public_name" in b for b in bad)


def test_every_public_name_of_a_core_package_resolves_to_what_it_names() -> None:
    """Every name in a package's ``__all__`` is there (many load on first use, see
    ``designer.core.faces``), its ``if TYPE_CHECKING:`` imports name the same modules as its
    table of lazy names, and no public name is shadowed by a module of the same name (Python
    binds ``package.name`` to the module once that module is imported)."""
    import importlib
    import pkgutil
    from types import ModuleType

    bad = []
    for name in CORE_PACKAGES:
        package = importlib.import_module(f"designer.core.{name}")
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{info.name}")
        public = _public_names(name)
        if not public:
            bad.append(f"designer.core.{name} has no __all__")
        for attr in sorted(public):
            value = getattr(package, attr, None)
            if value is None or isinstance(value, ModuleType):
                bad.append(f"designer.core.{name}.{attr} is {value!r}")
        where = getattr(package, "_WHERE", {})
        tree = ast.parse((PACKAGE / "core" / name / "__init__.py").read_text(encoding="utf-8"))
        typed = {alias.asname or alias.name: node.module.rsplit(".", 1)[1]
                 for block in tree.body if isinstance(block, ast.If)
                 for node in block.body if isinstance(node, ast.ImportFrom) and node.module
                 for alias in node.names}
        if typed != where:
            bad.append(f"designer.core.{name}: TYPE_CHECKING imports {typed} differ from "
                       f"_WHERE {where}")
        bad += [f"designer.core.{name}.{n} is lazy but not in __all__"
                for n in where if n not in public]
    assert not bad, "\n".join(bad)
