"""One call per export format, shared by the command line and the window's File > Export.

Each takes the project, its catalog (with the project's overrides), the output path, an
optional solver Result (the window already has one; otherwise the solver runs here) and an
optional ``progress(fraction, message)`` callback, and returns a one-line summary. The file
type follows the output's suffix (``.xlsx`` or ``.csv``, ``.html``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.writers.output import ExportError

ProgressFn = Callable[[float, str], None]

SUFFIXES: dict[str, tuple[str, ...]] = {
    "bom": (".xlsx", ".csv"),
    "cabling": (".xlsx", ".csv"),
    "graphml": (".graphml",),
    "drawio": (".drawio", ".xml"),
    "report": (".html", ".htm", ".pdf"),
    "image": (".png", ".svg"),
}


def check_suffix(fmt: str, path: str | os.PathLike[str]) -> str:
    suffix = Path(path).suffix.lower()
    allowed = SUFFIXES[fmt]
    if suffix not in allowed:
        raise ExportError(
            f"{fmt} exports write {' or '.join(allowed)} files; "
            f"name the output with one of those (got '{Path(path).name}')"
        )
    return suffix


def report_progress(progress: ProgressFn | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(fraction, message)


def solve_for_export(project: Project, catalog: Catalog, progress: ProgressFn | None = None,
                     span: tuple[float, float] = (0.0, 0.6)) -> Any:
    """The solver's Result, with its progress mapped onto ``span`` of the export's."""
    from designer.core.solver import solve

    lo, hi = span

    def on_progress(fraction: float, stage: str = "") -> None:
        report_progress(progress, lo + (hi - lo) * float(fraction),
                        f"Analysing: {stage}".rstrip(": "))

    return solve(project, progress=on_progress if progress else None, catalog=catalog)


def export_bom(project: Project, catalog: Catalog, path: str | os.PathLike[str],
               result: Any = None, progress: ProgressFn | None = None) -> str:
    from datetime import date

    from designer import __version__
    from designer.core.networks.solve import solve_networks
    from designer.core.writers.bom_rows import bom_table, csv_rows
    from designer.core.writers.csv_writer import write_csv

    suffix = check_suffix("bom", path)
    if result is None:
        result = solve_for_export(project, catalog, progress)
    table = bom_table(result, solve_networks(project, catalog))
    report_progress(progress, 0.7, "Writing the bill of materials")
    if suffix == ".csv":
        write_csv(path, table.header, csv_rows(table))
    else:
        from designer.core.writers.bom_xlsx import write_bom_xlsx
        from designer.core.writers.facts import assumption_sections, summary_sections

        summary = summary_sections(project, result.to_json(), app_version=__version__,
                                   date=date.today().isoformat(), catalog=catalog)
        assumptions = assumption_sections(
            project, catalog, [x.catalog_id for x in table.lines],
            result.latency.assumptions.get("figures"))
        write_bom_xlsx(path, project.name, table, summary, assumptions,
                       tco=_tco_inputs(project, catalog, result))
    report_progress(progress, 1.0, "Done")
    return (f"wrote {path}: {len(table.lines)} BOM lines, total ${table.total_usd:,.0f} "
            f"(${table.per_gpu_usd:,.0f} per GPU)")


def _tco_inputs(project: Project, catalog: Catalog, result: Any) -> tuple | None:
    """The estimate behind the workbook's TCO sheet; None when the workload cannot run."""
    from designer.core.analysis.estimates import estimate
    from designer.core.errors import DesignerError

    try:
        est = estimate(project, result, catalog=catalog)
    except DesignerError:
        return None
    return est, result.power_w, result.rack_units


def export_cabling(project: Project, catalog: Catalog, path: str | os.PathLike[str],
                   result: Any = None, progress: ProgressFn | None = None) -> str:
    from designer.core.writers.cabling import cabling_plan
    from designer.core.writers.cabling_files import write_cabling_csv, write_cabling_xlsx

    suffix = check_suffix("cabling", path)
    report_progress(progress, 0.05, "Choosing cables and optics, naming ports")
    bom = getattr(result, "bom", None)
    plan = cabling_plan(project, catalog, getattr(result, "media", None),
                        getattr(bom, "cable_id", None))
    report_progress(progress, 0.35, f"Writing {plan.n:,} cables")
    if suffix == ".csv":
        from designer.core.writers.network_cabling import networks_cabling

        nets = networks_cabling(project, catalog)
        write_cabling_csv(plan, path, nets)
        if nets:  # one P2P table for every network, a Network column saying whose a row is
            report_progress(progress, 1.0, "Done")
            more = ", ".join(f"{len(n.cables):,} {n.label.lower()}" for n in nets)
            return (f"wrote {path}: {plan.n:,} back-end cables; {more} cables (the port maps "
                    "are in the .xlsx workbook)")
    else:
        def rows_done(done: int, total: int) -> None:
            report_progress(progress, 0.35 + 0.6 * done / max(total, 1),
                    f"Writing cables: {done:,} of {total:,}")

        from designer.core.writers.port_map import port_map

        ports = port_map(project, catalog, getattr(result, "media", None),
                         getattr(bom, "cable_id", None), plan)
        from designer.core.writers.network_cabling import networks_cabling

        nets = networks_cabling(project, catalog)
        write_cabling_xlsx(plan, path, progress=rows_done if progress else None, ports=ports,
                           networks=nets)
        if nets:
            report_progress(progress, 1.0, "Done")
            more = ", ".join(f"{len(n.cables):,} {n.label.lower()}" for n in nets)
            return f"wrote {path}: {plan.n:,} back-end cables; {more} cables"
    report_progress(progress, 1.0, "Done")
    return f"wrote {path}: {plan.n:,} cables"


def export_graphml(project: Project, catalog: Catalog, path: str | os.PathLike[str],
                   result: Any = None, progress: ProgressFn | None = None) -> str:
    from designer.core.writers.graphml import write_graphml

    check_suffix("graphml", path)
    report_progress(progress, 0.1, "Choosing cables and optics, writing the graph")
    counts = write_graphml(project, catalog, path, getattr(result, "media", None))
    report_progress(progress, 1.0, "Done")
    return f"wrote {path}: {counts['nodes']:,} nodes, {counts['edges']:,} edges"


def export_drawio(project: Project, catalog: Catalog, path: str | os.PathLike[str],
                  result: Any = None, progress: ProgressFn | None = None) -> str:
    from designer.core.writers.drawio import write_drawio

    check_suffix("drawio", path)
    report_progress(progress, 0.1, "Grouping devices and bundling cables")
    counts = write_drawio(project, catalog, path, getattr(result, "media", None))
    report_progress(progress, 1.0, "Done")
    return (f"wrote {path}: {counts['pages']} page(s), {counts['boxes']:,} device groups, "
            f"{counts['bundles']:,} cable bundles")


def report_data_for(project: Project, catalog: Catalog, result: Any = None,
                    progress: ProgressFn | None = None) -> Any:
    from designer.core.writers.report import report_data

    if result is None:
        result = solve_for_export(project, catalog, progress)
    report_progress(progress, 0.7, "Composing the report")
    return report_data(project, catalog, result)


def export_report_html(project: Project, catalog: Catalog, path: str | os.PathLike[str],
                       result: Any = None, progress: ProgressFn | None = None) -> str:
    from designer.core.writers.html_report import report_html
    from designer.core.writers.output import write_bytes

    suffix = check_suffix("report", path)
    if suffix == ".pdf":
        raise ExportError("PDF reports are made by the window's code; use export_report_pdf")
    data = report_data_for(project, catalog, result, progress)
    write_bytes(path, report_html(data).encode("utf-8"))
    report_progress(progress, 1.0, "Done")
    return f"wrote {path}: design report ({len(data.charts)} charts, {len(data.problems)} problems)"
