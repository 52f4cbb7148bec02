"""Thin CSV writing: a header and rows, every text field guarded against formula injection."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Sequence

from designer.core.writers.output import write_bytes
from designer.core.writers.safety import csv_text


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow([csv_text(h) for h in header])
    w.writerows([csv_text(v) for v in row] for row in rows)
    return buf.getvalue().encode("utf-8")


def write_csv(
    path: str | os.PathLike[str], header: Sequence[str], rows: Iterable[Sequence[object]]
) -> None:
    write_bytes(path, csv_bytes(header, rows))
