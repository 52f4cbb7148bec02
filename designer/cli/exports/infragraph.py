"""``designer export infragraph FILE -o OUT.json``: the design as an InfraGraph Infrastructure."""

from __future__ import annotations

import argparse
from pathlib import Path

from designer.cli.exports.registry import Exporter, register_exporter
from designer.core.catalog import Catalog
from designer.core.infragraph import write_infragraph
from designer.core.model import Project
from designer.core.writers import ExportError


def write(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    if out.suffix.lower() != ".json":
        raise ExportError(f"infragraph exports write .json files (got '{out.name}')")
    s = write_infragraph(project, catalog, out)
    return (f"wrote {out}: InfraGraph infrastructure, {s.devices} device kind(s), "
            f"{s.instances} instance group(s), {s.edges:,} edges for {s.cables:,} cables "
            "('designer import infragraph' reads it back)")


register_exporter("infragraph", Exporter(
    "the design as an InfraGraph infrastructure (devices, ports, links and counts) for "
    "ASTRA-sim, Chakra and other InfraGraph tools (.json)", ".json", write))
