"""The printable installable cabling plan: an xlsx set up for paper.

Two sheets, each printed landscape, fitted to the page width, with the header row repeated on
every page and one section per rack starting on a new page: "Cabling plan" (every cable, at
the rack it starts from) and "Labels" (one label per cable end, under the rack of that end,
to print and stick on). Written by the streaming writer (``xlsx_stream``): a 64-SU plan
(49,152 cables, 98,304 labels) took about a minute cell by cell through openpyxl.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

from designer.core.physical.install import HEADER, LABEL_HEADER, InstallPlan
from designer.core.writers.csv_writer import write_csv
from designer.core.writers.output import write_bytes
from designer.core.writers.xlsx_stream import (
    Heading,
    Printed,
    StreamColumn,
    StreamSheet,
    workbook_bytes,
)

WIDTHS = (10, 5, 22, 7, 10, 5, 22, 7, 11, 18, 20, 20, 20, 11)
LABEL_WIDTHS = (12, 48, 48, 11, 18)


def _columns(names: tuple[str, ...], widths: tuple[int, ...]) -> tuple[StreamColumn, ...]:
    # "text" columns: numbers (U, length) are written as plain numbers, text always as text
    return tuple(StreamColumn(h, w) for h, w in zip(names, widths, strict=True))


def _rows(sections: Iterator[tuple[str, Iterable[tuple]]],
          done: Callable[[int], None]) -> Iterator[object]:
    """Each (title, rows) section as a ``Heading`` and its rows; ``done(n)`` after a section of
    n rows."""
    for title, rows in sections:
        yield Heading(title)
        n = 0
        for r in rows:
            yield r
            n += 1
        done(n)


def install_xlsx_bytes(plan: InstallPlan,
                       progress: Callable[[int, int], None] | None = None) -> bytes:
    rows = list(plan.rows())
    total = len(rows) * 2  # a label per cable end: the labels are half the work
    done = 0

    def advance(weight: float) -> Callable[[int], None]:
        def step(n: int) -> None:
            nonlocal done
            done += int(n * weight)
            if progress is not None:
                progress(done, total)
        return step

    cables = StreamSheet(
        "Cabling plan", _columns(HEADER, WIDTHS),
        _rows(((f"Rack {rack}: {len(rng):,} cable(s) start here", rows[rng.start:rng.stop])
               for rack, rng in plan.sections()), advance(1.0)),
        filter=False, printed=Printed(f"Cabling plan: {plan.project_name}"))
    labels = StreamSheet(
        "Labels", _columns(LABEL_HEADER, LABEL_WIDTHS),
        _rows(((f"Rack {rack}: {len(rng):,} label(s)", plan.label_rows(rng))
               for rack, rng in plan.label_sections()), advance(0.5)),
        filter=False, printed=Printed(f"Cable labels: {plan.project_name}"))
    return workbook_bytes([cables, labels], title=f"Cabling plan: {plan.project_name}")


def write_install_xlsx(plan: InstallPlan, path: str | os.PathLike[str],
                       progress: Callable[[int, int], None] | None = None) -> None:
    write_bytes(path, install_xlsx_bytes(plan, progress))


def write_install_csv(plan: InstallPlan, path: str | os.PathLike[str]) -> None:
    write_csv(path, HEADER, plan.rows())
