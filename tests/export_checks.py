"""What every file an export writes must hold, whatever the names in the design: checks by
format, shared by the export walk and the consumer tests.

* CSV: no field a spreadsheet would run (first visible character a formula start) unless it
  carries the guard's apostrophe;
* xlsx: the only formulas are the exporter's own (cell references, numbers, arithmetic, SUM);
  text that looks like a formula is a string cell with the quote prefix;
* HTML, GraphML, SVG: they parse, and no name became an element;
* JSON and YAML: they parse strictly (no NaN or Infinity);
* frr.conf: every hostname is a hostname.
"""

from __future__ import annotations

import csv
import html.parser
import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import openpyxl
import yaml

# The test's own oracle, independent of the guard it checks: what a spreadsheet may run.
_STARTS = set("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")
_HOSTNAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def is_formula_like(text: str) -> bool:
    """True when the first character a reader sees (past spaces and invisible characters,
    which some programs skip) starts a formula."""
    for ch in text:
        if ch in _STARTS:
            return True
        if ch.isspace() or unicodedata.category(ch) in ("Zs", "Cf"):
            continue
        return False
    return False

_REF = r"(?:[A-Za-z]+!)?\$?[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d+)?"
_TOKEN = rf"(?:{_REF}|\d+(?:\.\d+)?|SUM|[-+*/(),])"
OUR_FORMULA = re.compile(rf"^=(?:{_TOKEN})+$")
# The elements the exporters' own HTML uses; a name turned into markup would add another.
HTML_TAGS = {"h4", "h5", "h6", "ol", "dl", "dt", "dd", "tfoot", "label", "sub", "abbr",
             "details", "summary", "header", "footer", "main", "nav", "article", "font",
             "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "table",
             "tr", "td", "th", "div", "span", "img", "b", "br", "ul", "li", "small", "section",
             "colgroup", "col", "thead", "tbody", "svg", "g", "rect", "line", "text", "path",
             "polyline", "circle", "tspan", "i", "em", "strong", "a", "sup", "hr",
             "caption", "polygon", "defs", "figure", "figcaption", "code", "pre"}


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "script":
            self.scripts += 1


def check_csv(path: Path) -> list[str]:
    bad = []
    with open(path, newline="", encoding="utf-8") as fh:
        for r, row in enumerate(csv.reader(fh), 1):
            for f in row:
                if is_formula_like(f):
                    bad.append(f"{path.name} row {r}: {f!r} would run as a formula")
    return bad


def check_xlsx(path: Path) -> list[str]:
    bad = []
    wb = openpyxl.load_workbook(path)
    for ws in wb:
        for row in ws.iter_rows():
            for c in row:
                where = f"{path.name} {ws.title}!{c.coordinate}"
                if c.data_type == "f" and not OUR_FORMULA.match(str(c.value)):
                    bad.append(f"{where}: formula {c.value!r}")
                elif (c.data_type != "f" and isinstance(c.value, str)
                      and is_formula_like(c.value)
                      and not (c.data_type == "s" and c.quotePrefix)):
                    bad.append(f"{where}: {c.value!r} without the quote prefix")
        for part in (ws.oddHeader.center.text or "", ws.oddFooter.center.text or ""):
            # '&' starts a code; a name's '&' is doubled
            if re.search(r"&(?!&|[PNDTAFZ\"0-9KBIUSEXYLCR])", part.replace("&&", "")):
                bad.append(f"{path.name} {ws.title}: header {part!r}")
    return bad


def check_html(path: Path) -> list[str]:
    p = _Tags()
    p.feed(path.read_text(encoding="utf-8"))
    bad = [f"{path.name}: a <script> element"] * p.scripts
    extra = p.tags - HTML_TAGS
    if extra:
        bad.append(f"{path.name}: unexpected elements {sorted(extra)}")
    return bad


def check_xml(path: Path) -> list[str]:
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        return [f"{path.name}: not XML ({exc})"]
    tags = {el.tag.rsplit("}", 1)[-1] for el in root.iter()}
    return [f"{path.name}: an element <{t}>" for t in tags if t in ("b", "script")]


def check_json(path: Path) -> list[str]:
    def refuse(const):
        raise ValueError(const)

    try:
        json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
    except ValueError as exc:
        return [f"{path.name}: not strict JSON ({exc})"]
    return []


def check_yaml(path: Path) -> list[str]:
    try:
        yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    except yaml.YAMLError as exc:
        return [f"{path.name}: not YAML ({exc})"]
    return []


def check_frr(path: Path) -> list[str]:
    bad = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("hostname "):
            name = line.removeprefix("hostname ")
            if not _HOSTNAME.fullmatch(name):
                bad.append(f"{path}: hostname {name!r}")
    return bad


CHECKS = {".csv": check_csv, ".xlsx": check_xlsx, ".html": check_html, ".graphml": check_xml,
          ".svg": check_xml, ".json": check_json, ".yml": check_yaml, ".yaml": check_yaml,
          ".conf": check_frr}


def check_tree(path: Path) -> tuple[list[str], int]:
    """(problems, files checked) for a file or every file under a folder."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    bad: list[str] = []
    checked = 0
    for f in files:
        check = CHECKS.get(f.suffix.lower())
        if check is not None:
            bad += check(f)
            checked += 1
    return bad, checked
