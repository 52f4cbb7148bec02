"""The floor's exports (NetBox import files, the installable cabling plan), one call each,
shared by the command line and the window (same shape as ``designer.core.writers.jobs``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.safe_io import ExportFolder, FileRefused
from designer.core.writers.jobs import ProgressFn, report_progress
from designer.core.writers.output import ExportError


def export_netbox(project: Project, catalog: Catalog, folder: str | os.PathLike[str],
                  result: Any = None, progress: ProgressFn | None = None,
                  site: str | None = None) -> str:
    from designer.core.physical.netbox import IMPORT_ORDER, netbox_tables
    from designer.core.writers.csv_writer import csv_bytes

    out = Path(folder)
    try:
        target = ExportFolder(out, "NetBox export")
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    report_progress(progress, 0.05, "Choosing cables, naming interfaces")
    nb = netbox_tables(project, catalog, getattr(result, "media", None), site)
    for k, name in enumerate(IMPORT_ORDER, start=1):
        try:
            target.write(f"{k:02d}_{name}.csv", csv_bytes(nb.header(name), nb.tables[name]))
        except FileRefused as exc:
            raise ExportError(str(exc)) from None
        report_progress(progress, 0.3 + 0.7 * k / len(IMPORT_ORDER), f"Wrote {name}")
    counts = ", ".join(f"{len(nb.tables[x]):,} {x.replace('_', ' ')}"
                       for x in ("racks", "devices", "interfaces", "cables"))
    return f"wrote {out}: {len(IMPORT_ORDER)} CSV files ({counts}); import them in file order"


def export_install_plan(project: Project, catalog: Catalog, path: str | os.PathLike[str],
                        result: Any = None, progress: ProgressFn | None = None) -> str:
    from designer.core.physical.install import install_plan
    from designer.core.writers.install_xlsx import write_install_csv, write_install_xlsx

    suffix = Path(path).suffix.lower()
    if suffix not in (".xlsx", ".csv"):
        raise ExportError("the installable cabling plan writes .xlsx or .csv files; name the "
                          f"output with one of those (got '{Path(path).name}')")
    report_progress(progress, 0.05, "Placing cables rack by rack")
    plan = install_plan(project, catalog, getattr(result, "media", None))
    if suffix == ".csv":
        write_install_csv(plan, path)
    else:
        def rows_done(done: int, total: int) -> None:
            report_progress(progress, 0.3 + 0.65 * done / max(total, 1),
                    f"Writing cables: {done:,} of {total:,}")

        write_install_xlsx(plan, path, rows_done if progress else None)
    report_progress(progress, 1.0, "Done")
    racks = sum(1 for _ in plan.sections())
    return f"wrote {path}: {plan.n:,} cables in {racks:,} rack section(s), with labels"
