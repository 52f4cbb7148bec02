"""The printable install plan (``export install-plan FILE -o plan.xlsx``) of large designs.

The baseline is openpyxl's write-only writer, one styled cell at a time, as the plan was
written before: timed on the first 5,000 rows of each sheet and scaled to all of them. CPU
time (process_time), so a busy machine shows less. Run:
PYTHONPATH=. python bench/bench_install_plan.py
"""

from __future__ import annotations

import io
import os
import sys
import time
from itertools import islice
from pathlib import Path

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell

sys.path.insert(0, str(Path(__file__).resolve().parent))

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.physical.floor import Physical
from designer.core.physical.install import HEADER, LABEL_HEADER, install_plan
from designer.core.physical.placement import default_floor
from designer.core.writers.install_xlsx import install_xlsx_bytes

CASES = (("DGX SuperPOD 4 SU", {"sus": 4}), ("DGX SuperPOD 64 SU", {"sus": 64}))
SAMPLE = 5000


def _cpu(fn):
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def openpyxl_rows(sheets) -> bytes:
    """Rows written as before: a write-only workbook, a cell object per text value."""
    wb = Workbook(write_only=True)
    for name, header, rows in sheets:
        ws = wb.create_sheet(name)
        ws.append(list(header))
        for r in rows:
            row = []
            for v in r:
                if isinstance(v, str):
                    c = WriteOnlyCell(ws, v)
                    c.data_type = "s"
                    v = c
                row.append(v)
            ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def main() -> int:
    cat = builtin_catalog()
    print(f"load average {os.getloadavg()[0]:.2f}")
    for label, values in CASES:
        project = generate(params_from_dict("rail", values))
        project = project.evolve(physical=Physical(floor=default_floor(project, cat)))
        t_plan, plan = _cpu(lambda p=project: install_plan(p, cat))
        t_new, data = _cpu(lambda pl=plan: install_xlsx_bytes(pl))
        labels = [r for _, rng in plan.label_sections() for r in plan.label_rows(rng)]
        n_cells = plan.n * len(HEADER) + len(labels) * len(LABEL_HEADER)
        sample = [("Cabling plan", HEADER, list(islice(plan.rows(), SAMPLE))),
                  ("Labels", LABEL_HEADER, labels[:SAMPLE])]
        t_old, _ = _cpu(lambda s=sample: openpyxl_rows(s))
        scale = (plan.n + len(labels)) / max(len(sample[0][2]) + len(sample[1][2]), 1)
        old_all = t_old * scale
        print(f"{label}: {plan.n:,} cables, {len(labels):,} labels, {n_cells:,} cells; "
              f"plan {t_plan:.2f} s; xlsx {t_new:.2f} s ({len(data) / 1e6:.1f} MB); "
              f"openpyxl cell by cell ~{old_all:.1f} s (scaled from {SAMPLE:,} rows a sheet); "
              f"{old_all / t_new:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
