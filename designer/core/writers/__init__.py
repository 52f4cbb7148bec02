"""Writers: every file format the tool writes for other people and other tools to read (the
bill of materials and TCO workbooks, the cabling plan, the installable cable plan and NetBox
import files, draw.io and GraphML drawings, the HTML report and the compare report). Rows are
computed here or by the package that owns the figures (pure, tested without Qt); the modules
here lay them out in their format and write them through ``safe_io``. ``jobs`` (and
``physical`` for the floor's exports) are the one call per format the window and the command
line share.

Formats the tool also reads back (InfraGraph, ibnetdiscover, LLDP) stay beside their reader,
which shares the schema; simulator inputs (``simulate``) and switch configurations
(``ethernet``) stay with the model they translate the design into.
"""

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
    "export_install_plan": "physical",
    "export_netbox": "physical",
    "ExportError": "output",
    "write_bytes": "output",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.writers.bom_rows import category_label, order_cells
    from designer.core.writers.compare_html import write_compare_html
    from designer.core.writers.compare_xlsx import write_compare_xlsx
    from designer.core.writers.html_report import Chart, ReportData, report_html
    from designer.core.writers.jobs import (
        ProgressFn,
        check_suffix,
        export_bom,
        export_cabling,
        export_drawio,
        export_graphml,
        export_report_html,
        report_data_for,
    )
    from designer.core.writers.output import ExportError, write_bytes
    from designer.core.writers.physical import export_install_plan, export_netbox

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
    "export_install_plan",
    "export_netbox",
    "export_report_html",
    "order_cells",
    "report_data_for",
    "report_html",
    "write_bytes",
    "write_compare_html",
    "write_compare_xlsx",
]
