"""The formats of ``designer export``: each format module registers an ``Exporter`` here.

This module imports no format and no command, so the format modules and the command both
import it downward.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from designer.core.catalog import Catalog
from designer.core.model import Project


@dataclass(frozen=True)
class Exporter:
    help: str
    suffix: str  # the usual file suffix, or "/" for a folder
    write: Callable[[Project, Catalog, Path, argparse.Namespace], str]  # returns a summary
    add_options: Callable[[argparse.ArgumentParser], None] | None = None


EXPORTERS: dict[str, Exporter] = {}


def register_exporter(name: str, exporter: Exporter) -> None:
    EXPORTERS[name] = exporter
