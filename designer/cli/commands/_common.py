"""Helpers shared by the commands: loading a project and its catalog, writing output."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from designer.core.catalog import Catalog, load_catalog
from designer.core.fileformat import load_project
from designer.core.model import Project


def add_command(
    sub: argparse._SubParsersAction,
    name: str,
    run: Callable[[argparse.Namespace], int],
    *,
    help: str,
    description: str,
    file: bool = True,
    json: bool = True,
) -> argparse.ArgumentParser:
    """A command's parser with what most commands take: a project ``file`` (when ``file``),
    ``--json`` (when ``json``) and ``--catalog``; the command adds its own options."""
    p = sub.add_parser(name, help=help, description=description)
    if file:
        p.add_argument("file", help="project file (*.fabric.json)")
    if json:
        p.add_argument("--json", action="store_true", help="print JSON")
    add_catalog_option(p)
    p.set_defaults(run=run)
    return p


def add_catalog_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--catalog",
        metavar="FILE",
        type=Path,
        help="a user catalog file to add (default: $FABRIC_DESIGNER_CATALOG or "
        "~/.config/fabric-designer/catalog.json when present)",
    )


def catalog_from(args: argparse.Namespace) -> Catalog:
    return load_catalog(getattr(args, "catalog", None))


def load(args: argparse.Namespace, path: str | Path) -> tuple[Project, Catalog]:
    """The project at ``path`` and the catalog it resolves against (with its overrides)."""
    base = catalog_from(args)
    project = load_project(path, base)
    return project, project.catalog(base)


def print_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=str)
    sys.stdout.write("\n")
