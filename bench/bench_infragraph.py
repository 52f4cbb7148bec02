"""InfraGraph, simulator and acceptance exports of a 65,536-GPU 3-tier fat-tree (196,608
cables): time and the memory each takes above the loaded design, against the solve's own
and against a plain baseline that builds the whole Infrastructure as Python objects and
serialises it at once.

Memory is measured with tracemalloc (Python allocations, numpy's included), one step at a
time from the same starting point. The target: the streamed export stays within the memory
a solve takes.
Run: python bench/bench_infragraph.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from designer.core.acceptance.plan import acceptance_plan
from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.infragraph.export import infragraph_chunks, write_infragraph
from designer.core.infragraph.importer import project_from_infragraph
from designer.core.simulate.astrasim import write_astrasim
from designer.core.simulate.htsim_export import write_htsim
from designer.core.solver import solve


def measured(fn):
    """(seconds, peak MB above the start, value): timed on a plain run, then run again
    under tracemalloc (which slows Python allocations many times) for the memory."""
    t = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return dt, peak / 2**20, out


def baseline(project, cat, path: Path) -> None:
    """The plain way: every edge a dict, the whole document one json.dumps."""
    text = "".join(infragraph_chunks(project, cat))
    doc = json.loads(text)
    path.write_text(json.dumps(doc))


def main() -> None:
    project = generate(params_from_dict("fat-tree", {"gpus": 65536, "tiers": 3}))
    cat = project.catalog(builtin_catalog())
    n = project.fabric.links.n_cables
    print(f"65,536-GPU 3-tier fat-tree: {len(project.fabric.devices):,} devices, {n:,} cables, "
          f"{len(project.fabric.links):,} bundles")
    t_solve, m_solve, result = measured(lambda: solve(project, catalog=cat))
    print(f"  solve                           {t_solve:6.2f} s  {m_solve:8.1f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        t, m, s = measured(lambda: write_infragraph(project, cat, d / "fabric.json"))
        size = os.path.getsize(d / "fabric.json") / 2**20
        print(f"  InfraGraph export (streamed)    {t:6.2f} s  {m:8.1f} MB   file {size:.1f} MB, "
              f"{s.edges:,} edges; memory {m / m_solve:.2f} x the solve's (target <= 1)")
        tb, mb, _ = measured(lambda: baseline(project, cat, d / "plain.json"))
        print(f"  baseline (objects, one dumps)   {tb:6.2f} s  {mb:8.1f} MB   "
              f"streamed uses {m / mb:.2f} x its memory, {t / tb:.2f} x its time")
        t, m, back = measured(lambda: project_from_infragraph(d / "fabric.json", cat))
        print(f"  InfraGraph import               {t:6.2f} s  {m:8.1f} MB   "
              f"{back.fabric.links.n_cables:,} cables back")
        t, m, _ = measured(lambda: write_htsim(project, cat, d / "htsim", ("ring", "incast"),
                                               predict_flows=False))
        print(f"  htsim topology + ring, incast   {t:6.2f} s  {m:8.1f} MB")
        t, m, _ = measured(lambda: write_astrasim(project, result, cat, d / "astra"))
        print(f"  ASTRA-sim inputs and traces     {t:6.2f} s  {m:8.1f} MB")
        t, m, plan = measured(lambda: acceptance_plan(project, result, cat))
        print(f"  acceptance plan                 {t:6.2f} s  {m:8.1f} MB   "
              f"{len(plan.pairs):,} perftest runs")


if __name__ == "__main__":
    main()
