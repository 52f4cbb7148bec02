"""``designer export {bom,cabling,drawio,graphml,image,report}``: the formats people read.

The work is in ``designer.core.writers.jobs`` (shared with File > Export in the window); PNG and
SVG images and PDF reports need Qt's renderer, imported only when asked for (offscreen).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from designer.cli.commands._common import whole_number
from designer.cli.exports.registry import Exporter, register_exporter
from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.writers import (
    check_suffix,
    export_bom,
    export_cabling,
    export_drawio,
    export_graphml,
    export_report_html,
    report_data_for,
)


def _bom(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    return export_bom(project, catalog, out)


def _cabling(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    return export_cabling(project, catalog, out)


def _graphml(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    return export_graphml(project, catalog, out)


def _drawio(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    return export_drawio(project, catalog, out)


def _report(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    if check_suffix("report", out) != ".pdf":
        return export_report_html(project, catalog, out)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from designer.gui.exports.report_pdf import write_report_pdf

    data = report_data_for(project, catalog)
    pages = write_report_pdf(data, out, project, catalog)
    return f"wrote {out}: design report, {pages} page(s)"


def _image(project: Project, catalog: Catalog, out: Path, args: argparse.Namespace) -> str:
    check_suffix("image", out)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from designer.gui.exports.image import export_design_image

    return export_design_image(project, catalog, out, width=args.width,
                               expanded=args.expanded)


def _image_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--width", type=whole_number, default=None, metavar="PX",
                   help="PNG width in pixels (default: enough to read the labels, 1,600 to "
                        "8,000; SVG scales freely)")
    p.add_argument("--expanded", action="store_true",
                   help="draw every device and cable instead of collapsed groups (slow and "
                        "unreadable past a few thousand devices)")


register_exporter("bom", Exporter(
    "bill of materials: .xlsx (Summary, BOM with live formulas, Assumptions) or .csv",
    ".xlsx", _bom))
register_exporter("cabling", Exporter(
    "cabling plan, one row per physical cable with A/Z device and port: .xlsx or .csv",
    ".xlsx", _cabling))
register_exporter("graphml", Exporter(
    "the design as GraphML for yEd, Gephi or networkx (roles, speeds, cable counts)",
    ".graphml", _graphml))
register_exporter("drawio", Exporter(
    "the design for draw.io (diagrams.net): device groups, cable bundles per layer, racks",
    ".drawio", _drawio))
register_exporter("image", Exporter(
    "a picture of the whole design as drawn in the window: .png or .svg",
    ".png", _image, _image_options))
register_exporter("report", Exporter(
    "design report for managers: summary, charts, problems, BOM, assumptions (.html or .pdf)",
    ".html", _report))
