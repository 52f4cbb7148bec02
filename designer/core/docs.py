"""The documentation pages shipped with the app, for reading them without the site.

A checkout has them in ``docs/``; a wheel or pipx install carries the same folder inside the
package (``designer/_bundled/docs``). The pages are the site's Markdown: the snippets the site
includes (``--8<-- "file"``, the tool's own figures) are included here too, and admonitions
become quoted paragraphs. The command-line reference is written from the parsers when the site
is built, so those pages point to ``designer COMMAND --help`` instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from designer.core.paths import docs_dir

PAGE_LIMIT = 4 * 1024 * 1024
_SNIPPET = re.compile(r'^--8<--\s+"([^"]+)"\s*$', re.MULTILINE)
_ADMONITION = re.compile(r'^(!!!|\?\?\?\+?)\s+(\w+)(?:\s+"([^"]*)")?\s*$')


@dataclass(frozen=True)
class Page:
    title: str
    path: str  # relative to the docs folder, with '/' between parts
    section: str


def pages() -> list[Page]:
    """The pages in the site's order (mkdocs.yml's nav), then any page it leaves out."""
    root = docs_dir()
    out: list[Page] = []
    cfg = root.parent / "mkdocs.yml"
    nav = []
    if cfg.is_file():
        try:
            nav = (yaml.safe_load(cfg.read_text(encoding="utf-8")) or {}).get("nav") or []
        except yaml.YAMLError:
            nav = []

    def walk(items, section: str) -> None:
        for item in items:
            if isinstance(item, str):
                out.append(Page(_title_of(root / item, item), item, section))
            elif isinstance(item, dict):
                for title, value in item.items():
                    if isinstance(value, list):
                        walk(value, str(title))
                    elif isinstance(value, str) and value.endswith(".md"):
                        out.append(Page(str(title), value, section))

    walk(nav, "")
    seen = {p.path for p in out}
    for md in sorted(root.rglob("*.md")):
        rel = md.relative_to(root).as_posix()
        if rel not in seen and not rel.startswith(("hooks/", "figures/")):
            out.append(Page(_title_of(md, rel), rel, "More"))
    return [p for p in out if (root / p.path).is_file() or p.path.startswith("cli/")]


def _title_of(path: Path, rel: str) -> str:
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("# "):
                    return line[2:].strip()
    except OSError:
        pass
    return rel.removesuffix(".md").replace("-", " ").capitalize()


def page_markdown(rel: str) -> str:
    """The Markdown of one page as a reader without the site should see it."""
    root = docs_dir()
    path = (root / rel).resolve()
    if not path.is_relative_to(root.resolve()):
        return f"# Not a page\n\n`{rel}` is outside the documentation."
    if rel.startswith("cli/") and not path.is_file():
        command = rel[4:].removesuffix(".md")
        what = "every command" if command == "index" else f"`designer {command}`"
        return (f"# Command line\n\nThe reference for {what} is written from the command's "
                "own parser when the site is built. Here, run it with `--help`:\n\n"
                f"    designer {'' if command == 'index' else command + ' '}--help\n")
    if not path.is_file():
        return f"# Not found\n\nThe page `{rel}` is not among the pages shipped."
    text = path.read_bytes()[:PAGE_LIMIT].decode("utf-8", "replace")
    figures = root / "figures"

    def snippet(m: re.Match) -> str:
        f = (figures / m.group(1)).resolve()
        if f.is_relative_to(figures.resolve()) and f.is_file():
            body = f.read_text(encoding="utf-8", errors="replace")
            return body if f.suffix == ".md" else "```\n" + body.rstrip("\n") + "\n```"
        return f"*(figure {m.group(1)} is written when the site is built)*"

    text = _SNIPPET.sub(snippet, text)
    return _admonitions(text)


def _admonitions(text: str) -> str:
    """``!!! note "Title"`` and its indented body as a quoted paragraph."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        m = _ADMONITION.match(line)
        if m:
            title = m.group(3) or m.group(2).capitalize()
            out.append(f"> **{title}**")
            out.append(">")
            inside = True
            continue
        if inside and (line.startswith("    ") or not line.strip()):
            out.append("> " + line[4:] if line.strip() else ">")
            continue
        inside = False
        out.append(line)
    return "\n".join(out) + "\n"
