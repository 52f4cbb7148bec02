"""Exports: rows computed here (pure, tested without Qt), then thin writers per format."""

from typing import TYPE_CHECKING

from designer.core.faces import lazy_names

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "category_label": "bom_rows",
    "order_cells": "bom_rows",
    "write_compare_html": "compare_html",
    "write_compare_xlsx": "compare_xlsx",
    "Chart": "html_report",
    "ReportData": "html_report",
    "report_html": "html_report",
    "ProgressFn": "jobs",
    "check_suffix": "jobs",
    "export_bom": "jobs",
    "export_cabling": "jobs",
    "export_drawio": "jobs",
    "export_graphml": "jobs",
    "export_report_html": "jobs",
    "report_data_for": "jobs",
    "ExportError": "output",
    "write_bytes": "output",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.export.bom_rows import category_label, order_cells
    from designer.core.export.compare_html import write_compare_html
    from designer.core.export.compare_xlsx import write_compare_xlsx
    from designer.core.export.html_report import Chart, ReportData, report_html
    from designer.core.export.jobs import (
        ProgressFn,
        check_suffix,
        export_bom,
        export_cabling,
        export_drawio,
        export_graphml,
        export_report_html,
        report_data_for,
    )
    from designer.core.export.output import ExportError, write_bytes

__all__ = [
    "Chart",
    "ExportError",
    "ProgressFn",
    "ReportData",
    "category_label",
    "check_suffix",
    "export_bom",
    "export_cabling",
    "export_drawio",
    "export_graphml",
    "export_report_html",
    "order_cells",
    "report_data_for",
    "report_html",
    "write_bytes",
    "write_compare_html",
    "write_compare_xlsx",
]
