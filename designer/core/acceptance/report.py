"""The design report with a check's results and causes added after the predicted bands."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from designer.core.acceptance.check import CheckResult
from designer.core.acceptance.sections import check_sections
from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.writers.html_report import report_html
from designer.core.writers.output import ExportError, write_bytes
from designer.core.writers.report import report_data


def write_check_report(project: Project, catalog: Catalog, result: Any, res: CheckResult,
                       path: str | os.PathLike[str]) -> str:
    if not str(path).lower().endswith((".html", ".htm")):
        raise ExportError(f"the check's report is an .html page (got '{os.fspath(path)}')")
    data = report_data(project, catalog, result)
    data = replace(data, summary=[*data.summary, *check_sections(res)])
    write_bytes(path, report_html(data).encode("utf-8"))
    return f"wrote {os.fspath(path)}: design report with the acceptance results"
