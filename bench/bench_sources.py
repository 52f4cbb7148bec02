"""Price books and measured latencies: import speed and what they cost a solve.

* Reading a quote of N rows (CSV and xlsx) into a price book, against a plain baseline that
  only splits the CSV and parses the numbers (no header search, no catalog match, no checks).
* The whole solve of a 65,536-GPU fat-tree with and without a price book and a latency
  measurement (the sources are applied once to the catalog; the BOM looks up one origin per
  line, not per item).

Run: python bench/bench_sources.py [--rows N]
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import best_of

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve
from designer.core.sources import LatencyMeasurement
from designer.core.sources.edit import with_latency, with_price_book
from designer.core.sources.pricebook_io import read_price_book


def write_quote(folder: Path, rows: int) -> tuple[Path, Path]:
    import openpyxl

    ids = [i.id for i in builtin_catalog()]
    body = [(ids[k % len(ids)] if k % 3 else f"SERVICE-{k}", 1000 + k % 997, "USD",
             "2026-11-02") for k in range(rows)]
    c = folder / "quote.csv"
    with c.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(("part id", "unit price", "currency", "date"))
        w.writerows(body)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet()
    ws.append(("part id", "unit price", "currency", "date"))
    for r in body:
        ws.append(r)
    x = folder / "quote.xlsx"
    wb.save(x)
    return c, x


def plain_csv(path: Path) -> dict[str, float]:
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    return {r[0]: float(r[1]) for r in rows}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    args = ap.parse_args()
    cat = builtin_catalog()
    with tempfile.TemporaryDirectory() as tmp:
        c, x = write_quote(Path(tmp), args.rows)
        t_plain, _ = best_of(lambda: plain_csv(c))
        t_csv, got = best_of(lambda: read_price_book(c, cat))
        t_xlsx, _ = best_of(lambda: read_price_book(x, cat), repeat=1)
    print(f"quote of {args.rows:,} rows ({len(got.book.prices)} catalog parts, "
          f"{len(got.skipped):,} rows skipped)")
    print(f"  CSV  {t_csv * 1000:8.1f} ms   (plain split-and-parse baseline "
          f"{t_plain * 1000:.1f} ms, ratio {t_csv / t_plain:.1f}x)")
    print(f"  xlsx {t_xlsx * 1000:8.1f} ms")

    p = generate(params_from_dict("fat-tree", {"gpus": 65536, "tiers": 3}))
    q = with_price_book(p, got.book, cat)
    q = with_latency(q, LatencyMeasurement(tech="ib-ndr", end_to_end_us=1.9, switches=1), cat)
    solve(p)  # warm up
    t0, _ = best_of(lambda: solve(p), repeat=3)
    t1, r = best_of(lambda: solve(q), repeat=3)
    print(f"65,536-GPU fat-tree solve: {t0:.3f} s plain, {t1:.3f} s with a price book and a "
          f"measured latency (ratio {t1 / t0:.2f}; {len(r.bom.lines)} BOM lines)")


if __name__ == "__main__":
    main()
