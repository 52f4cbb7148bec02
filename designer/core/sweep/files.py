"""Writing a sweep's table (CSV, xlsx, Parquet, JSON) and its best designs as project files."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
from openpyxl.styles import PatternFill

from designer.core.catalog import Catalog
from designer.core.fileformat import dumps_project
from designer.core.safe_io import ExportFolder, FileRefused
from designer.core.sweep.metrics import METRICS
from designer.core.sweep.results import SweepTable
from designer.core.sweep.run import SweepRun
from designer.core.sweep.worker import build
from designer.core.writers.csv_writer import write_csv
from designer.core.writers.output import ExportError, write_bytes
from designer.core.writers.xlsx import header, new_workbook, put, save_workbook, set_widths

FORMATS = ("csv", "xlsx", "parquet", "json")
PARETO_FILL = PatternFill("solid", fgColor="FFE9B3")


def format_of(path: str | os.PathLike[str]) -> str:
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in FORMATS:
        raise ExportError(f"{path}: say .csv, .xlsx, .parquet or .json")
    return ext


def write_table(table: SweepTable, path: str | os.PathLike[str],
                summary: dict[str, Any] | None = None) -> None:
    fmt = format_of(path)
    if fmt == "csv":
        write_csv(path, table.columns, table.rows)
    elif fmt == "xlsx":
        _write_xlsx(table, path)
    elif fmt == "parquet":
        _write_parquet(table, path)
    else:
        data = {"summary": summary or {}, "columns": table.columns, "rows": table.rows}
        write_bytes(path, json.dumps(data, indent=1, default=str).encode("utf-8"))


def _write_xlsx(table: SweepTable, path: str | os.PathLike[str]) -> None:
    wb = new_workbook()
    ws = wb.create_sheet("Points")
    header(ws, 1, table.columns)
    pareto_col = table.columns.index("pareto")
    for r, row in enumerate(table.rows, start=2):
        fill = PARETO_FILL if row[pareto_col] else None
        for c, value in enumerate(row, start=1):
            put(ws, r, c, value, fill=fill)
    ws.freeze_panes = "C2"
    ws.auto_filter.ref = ws.dimensions
    set_widths(ws, [max(9.0, min(24.0, len(c) + 2.0)) for c in table.columns])
    best = wb.create_sheet("Best")
    header(best, 1, ["constraint", "point", *table.params, *table.objectives])
    recs = table.records()
    for r, (key, idx) in enumerate(table.best.items(), start=2):
        put(best, r, 1, key)
        if idx is None:
            put(best, r, 2, "no point meets it")
            continue
        rec = recs[idx]
        for c, name in enumerate(["point", *table.params, *table.objectives], start=2):
            put(best, r, c, rec.get(name))
    set_widths(best, [22.0] + [14.0] * (1 + len(table.params) + len(table.objectives)))
    save_workbook(wb, path)


def _write_parquet(table: SweepTable, path: str | os.PathLike[str]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ExportError("Parquet needs pyarrow (pip install pyarrow); write .csv or .xlsx"
                          ) from None
    cols: dict[str, list[Any]] = {}
    for i, name in enumerate(table.columns):
        values = [r[i] for r in table.rows]
        kinds = {type(v) for v in values if v is not None}
        if len(kinds) > 1 and not kinds <= {int, float}:
            values = [None if v is None else str(v) for v in values]  # mixed: text column
        cols[name] = values
    import io

    buf = io.BytesIO()
    pq.write_table(pa.table(cols), buf)
    write_bytes(path, buf.getvalue())


def top_points(table: SweepTable, n: int) -> list[int]:
    """The ``n`` best point indices: the Pareto front by the first objective, then the other
    feasible points by it."""
    first = np.array([np.nan if v is None else v for v in table.column(table.objectives[0])],
                     dtype=float)
    sign = 1.0 if METRICS[table.objectives[0]].sense == "min" else -1.0
    order = np.lexsort((sign * first, ~table.pareto))  # front first, then by the objective
    picked = [int(i) for i in order if table.feasible[i]]
    return picked[:n]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80] or "design"


def write_designs(run: SweepRun, table: SweepTable, n: int, folder: str | os.PathLike[str],
                  catalog: Catalog | None = None) -> list[Path]:
    """Regenerate the ``n`` best designs and save them as project files in ``folder``."""
    try:
        out = ExportFolder(folder, "designs folder")
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    paths: list[Path] = []
    for rank, i in enumerate(top_points(table, n), start=1):
        point = run.points[i]
        project = build(point, catalog)
        project = project.model_copy(update={
            "name": f"{run.spec.name} #{point.index}: {point.label()}"[:200],
            "notes": f"Point {point.index} of the sweep '{run.spec.name}' "
                     f"(rank {rank}): {point.label()}"})
        name = f"{rank:02d}-point{point.index}-{_slug(point.label())}.fabric.json"
        try:
            paths.append(out.write(name, dumps_project(project)))
        except FileRefused as exc:
            raise ExportError(str(exc)) from None
    return paths
