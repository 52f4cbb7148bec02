"""The figures the documentation quotes are the tool's own output today.

``docs/figures/*`` are written by ``scripts/doc_figures.py`` from ``designer``'s output and
included in the pages; each is recomputed here and must match the committed file, so a change
to the catalog, the solver, the generators or the examples that moves a quoted figure fails
until the script is run again.
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests._paths import ROOT

DOCS = ROOT / "docs"


def _script():
    path = ROOT / "scripts" / "doc_figures.py"
    spec = importlib.util.spec_from_file_location("doc_figures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FIGURES = _script().FIGURES
SNIPPET = re.compile(r'--8<-- "([^"]+)"')


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_quoted_figures_are_what_the_tool_gives(name: str) -> None:
    committed = (DOCS / "figures" / name).read_text()
    assert FIGURES[name]() == committed, (
        f"docs/figures/{name} is stale: run python scripts/doc_figures.py")


def test_every_figure_file_is_quoted_and_every_quote_has_a_file() -> None:
    pages = [p for p in DOCS.rglob("*.md") if "figures" not in p.parts]
    quoted = {m for p in pages for m in SNIPPET.findall(p.read_text())}
    assert quoted == set(FIGURES), (quoted ^ set(FIGURES))


def test_deepseek_table_is_the_spec_s_designs() -> None:
    """The table has one row per design of the bundled spec, with the structures the paper
    gives (arXiv 2505.09343, Table 3): MPFT 768 switches for 16,384 endpoints, FT3 5,120 for
    65,536, FT2 96 for 2,048."""
    text = (DOCS / "figures" / "deepseek.md").read_text()
    rows = [r.split("|")[1:-1] for r in text.splitlines() if r.startswith("| ")][1:]
    by = {(c[0].strip(), c[1].strip()): c[2].strip() for c in rows}
    assert by[("FT2", "2,048")] == "96"
    assert by[("MPFT (8 planes)", "16,384")] == "768"
    assert by[("FT3", "65,536")] == "5,120"


@pytest.mark.parametrize("name", ["compare-transports-24k.md", "compare-transports-1024.md"])
def test_transport_tables_compare_like_for_like(name: str) -> None:
    """The transports page compares profiles on the design's own servers: an 800G profile
    changes switches and transport, never the GPUs (every column names the same server)."""
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]]
            for r in (DOCS / "figures" / name).read_text().splitlines()
            if r.startswith("| ") and not r.startswith("| |")}
    servers = rows["Servers / GPU"]
    assert len(servers) == 4 and len(set(servers)) == 1, servers
    assert len(set(rows["Bandwidth per GPU"])) == 1
