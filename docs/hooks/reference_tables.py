"""MkDocs hook: tables written at build time from the code and the catalog themselves.

* ``<!-- schema: NAME -->`` in a page becomes a table of the top-level fields of that file
  format, and ``schemas/NAME.schema.json`` (JSON Schema from the pydantic models the loader
  validates with) is written into the site and linked.
* ``<!-- catalog-figures -->`` becomes, per kind of gear, every catalog figure with the
  source, date and confidence the catalog gives it.

The figures therefore always describe the code and catalog the site was built from.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Callable
from typing import Any

from designer.core.catalog import CatalogFile, builtin_catalog
from designer.core.model import Project
from designer.core.sources.model import PriceBook
from designer.core.sweep.spec import SweepSpec

SCHEMAS: dict[str, tuple[Callable[[], dict[str, Any]], str]] = {
    "project": (Project.model_json_schema, "Project file (*.fabric.json)"),
    "catalog": (CatalogFile.model_json_schema, "Catalog file (resources/catalog/*.json)"),
    "sweep-spec": (SweepSpec.model_json_schema, "Sweep spec (*.sweep.yaml or .json)"),
    "price-book": (PriceBook.model_json_schema, "Price book, as saved in a project"),
}
SCHEMA_MARK = re.compile(r"<!-- schema: ([a-z-]+) -->")
CATALOG_MARK = "<!-- catalog-figures -->"

KIND_TITLES = {
    "switch": "Switches", "nic": "NICs", "server": "Servers and rack-scale systems",
    "scale-up-switch": "Scale-up (NVLink) switches", "transceiver": "Transceivers",
    "cable": "Copper cables", "fiber": "Fibres", "cdu": "Cooling",
}


def _schema_path(name: str) -> str:
    return f"schemas/{name}.schema.json"


def _cell(text: str) -> str:
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def _type_of(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in prop:
        return " or ".join(_type_of(p) for p in prop["anyOf"])
    if "enum" in prop:
        return "one of " + ", ".join(map(str, prop["enum"]))
    kind = prop.get("type", "any")
    if kind == "array" and isinstance(prop.get("items"), dict):
        return f"list of {_type_of(prop['items'])}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map to {_type_of(prop['additionalProperties'])}"
    return kind if isinstance(kind, str) else " or ".join(kind)


def _default_of(prop: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    if "default" not in prop:
        return "empty"  # a default factory: an empty section of its kind
    d = prop["default"]
    if d in ({}, [], None, ""):
        return "empty" if d != None else "none"  # noqa: E711  (the schema's null)
    return f"`{json.dumps(d)}`"


def schema_table(name: str, page_dir: str) -> str:
    schema = SCHEMAS[name][0]()
    rows = ["| field | type | default | what |", "|---|---|---|---|"]
    required = set(schema.get("required", ()))
    for field, prop in schema.get("properties", {}).items():
        ref = prop.get("$ref") or next((p.get("$ref") for p in prop.get("anyOf", [])
                                        if "$ref" in p), None)
        what = prop.get("description") or ""
        if not what and ref:
            what = schema.get("$defs", {}).get(ref.rsplit("/", 1)[-1], {}).get("description", "")
        default = _default_of(prop, field in required)
        rows.append(f"| `{field}` | {_cell(_type_of(prop))} | {default} | {_cell(what)} |")
    link = posixpath.relpath(_schema_path(name), page_dir or ".")
    rows += ["", f"The full JSON Schema: [{name}.schema.json]({link}) (generated from the "
             "models the loader validates with)."]
    return "\n".join(rows)


def _value(item: Any, field: str) -> str:
    if field == "price_usd":
        return f"${item.price_usd:,.0f}"
    if field == "power_w":
        return f"{item.power_w:,.4g} W"
    if field == "latency_ns":
        ns = getattr(item, "latency_ns", None)
        return f"{ns:,.0f} ns" if isinstance(ns, int | float) else "per technology"
    return field


def catalog_tables() -> str:
    cat = builtin_catalog()
    by_kind: dict[str, list[Any]] = {}
    for gear_id in cat.ids():
        item = cat.get(gear_id)
        by_kind.setdefault(item.kind, []).append(item)
    out: list[str] = []
    for kind in sorted(by_kind, key=lambda k: list(KIND_TITLES).index(k)
                       if k in KIND_TITLES else 99):
        out += [f"### {KIND_TITLES.get(kind, kind)}", "",
                "| part | covers | figure | source | date | confidence |",
                "|---|---|---|---|---|---|"]
        for item in by_kind[kind]:
            for fig in item.figures:
                covers = ", ".join(_value(item, c) for c in fig.covers)
                source = "assumption: " + fig.source if fig.assumption and \
                    "assumption" not in fig.source.lower() else fig.source
                out.append(f"| `{item.id}` | {_cell(covers)} | {_cell(fig.what)} | "
                           f"{_cell(source)} | {fig.date or ''} | {fig.confidence} |")
        out.append("")
    return "\n".join(out)


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File  # only at build time: the tests import this module

    for name, (make, _title) in SCHEMAS.items():
        files.append(File.generated(config, _schema_path(name),
                                    content=json.dumps(make(), indent=2) + "\n"))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    page_dir = posixpath.dirname(page.file.src_uri)
    markdown = SCHEMA_MARK.sub(lambda m: schema_table(m.group(1), page_dir), markdown)
    if CATALOG_MARK in markdown:
        markdown = markdown.replace(CATALOG_MARK, catalog_tables())
    return markdown
