"""README.md stays a page a newcomer reads on one screen or two, and CI's two commands stay in it
in the form .ci/run extracts them (the line two below each marker)."""

from __future__ import annotations

import re

from tests._paths import ROOT

README = (ROOT / "README.md").read_text()


def _command_after(marker: str) -> str:
    lines = README.splitlines()
    i = next(n for n, line in enumerate(lines) if marker in line)
    assert lines[i + 1] == "```sh"
    return lines[i + 2]


def test_readme_is_short() -> None:
    assert len(README.splitlines()) < 200


def test_ci_commands_keep_their_form() -> None:
    assert _command_after("ci-app-command") == (
        "python3 -m venv .venv && .venv/bin/pip install -e . && "
        ".venv/bin/designer projects/dgx-superpod-4su-ib-ndr.fabric.json")
    assert _command_after("ci-test-command") == (
        'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && '
        "QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest -n 2 -q")


def test_readme_links_point_at_files() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def test_no_paragraph_twice_in_readme_and_docs() -> None:
    """A paragraph copied into two places drifts apart; each lives in one page."""
    seen: dict[str, str] = {}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for page in pages:
        if "figures" in page.parts:
            continue
        for para in re.split(r"\n\s*\n", page.read_text()):
            text = " ".join(para.split())
            if len(text) < 200 or text.startswith(("|", "```", "<!--")):
                continue
            where = f"{page.relative_to(ROOT)}"
            assert text not in seen, f"the same paragraph in {seen[text]} and {where}"
            seen[text] = where


def test_readme_sizes_are_the_tool_s() -> None:
    """The first-hour steps quote the 4-SU design's size; ``designer solve`` of that design
    (docs/figures/solve-4su.txt, itself checked against the tool) must say the same."""
    solved = (ROOT / "docs" / "figures" / "solve-4su.txt").read_text()
    gpus = re.search(r"GPUs\s+([\d,]+) in", solved).group(1)
    leaves, spines = re.search(r"switches\s+\d+: (\d+) leaf, (\d+) spine", solved).groups()
    assert f"{gpus} GPUs, {leaves} leaves, {spines} spines" in " ".join(README.split())
