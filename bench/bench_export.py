"""Exports at scale: a 65,536-GPU 3-tier fat-tree (196,608 cables) written in every format.

Prints each export's time and, for the cabling plan's xlsx, the ratio against writing the same
rows with openpyxl's own streaming writer (the plain baseline).
Run: python bench/bench_export.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.writers import jobs
from designer.core.writers.cabling import cabling_plan


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def openpyxl_baseline(plan, path: Path) -> float:
    import openpyxl

    t = time.perf_counter()
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Cables")
    ws.append(list(plan.header))
    for row in plan.rows():
        ws.append(list(row))
    wb.save(path)
    return time.perf_counter() - t


def main() -> None:
    project = generate(params_from_dict("fat-tree", {"gpus": 65536, "tiers": 3}))
    cat = project.catalog(builtin_catalog())
    n = project.fabric.links.n_cables
    print(f"65,536-GPU 3-tier fat-tree: {len(project.fabric.devices):,} devices, {n:,} cables")
    t_solve, result = timed(lambda: solve(project, catalog=cat))
    print(f"  solve (shared by the exports below)    {t_solve:6.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for name, fn, out in [
            ("BOM xlsx", jobs.export_bom, "bom.xlsx"),
            ("BOM csv", jobs.export_bom, "bom.csv"),
            ("cabling plan xlsx", jobs.export_cabling, "cables.xlsx"),
            ("cabling plan csv", jobs.export_cabling, "cables.csv"),
            ("GraphML", jobs.export_graphml, "fabric.graphml"),
            ("report HTML", jobs.export_report_html, "report.html"),
        ]:
            t, _ = timed(lambda fn=fn, out=out: fn(project, cat, d / out, result))
            size = (d / out).stat().st_size / 1e6
            print(f"  {name:<22} {t:6.2f} s  {size:7.1f} MB")
        plan = cabling_plan(project, cat, result.media)
        t_ours, _ = timed(lambda: jobs.export_cabling(project, cat, d / "c2.xlsx", result))
        t_base = openpyxl_baseline(plan, d / "base.xlsx")
        print(f"  cabling xlsx: ours {t_ours:.2f} s, openpyxl write-only {t_base:.2f} s "
              f"-> {t_base / t_ours:.1f}x faster")


if __name__ == "__main__":
    main()
