"""RoCE: switch configs and the LLDP round trip on a large design, and the live routed check.

Targets (issue 16): the live check of a 2-SU RoCE design under 60 s on 2 cores (printed as a
ratio to that budget); configs and the LLDP as-built of the 24k-GPU example in seconds.
Run: python bench/bench_roce.py [--no-live]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from designer.core.catalog import builtin_catalog
from designer.core.ethernet.configs import write_configs
from designer.core.ethernet.lab import missing_reason
from designer.core.ethernet.lldp import project_from_lldp, write_lldp_view
from designer.core.ethernet.netns import check_roce
from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from designer.core.infiniband import diff_projects

ROOT = Path(__file__).resolve().parents[1]
BUDGET_S = 60.0


def large() -> None:
    base = builtin_catalog()
    project = load_project(ROOT / "projects" / "roce-fat-tree-24k-oversubscribed.fabric.json",
                           base)
    cat = project.catalog(base)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        n = write_configs(project, cat, Path(tmp) / "cfg")
        t_cfg = time.perf_counter() - t0
        print(f"export configs, {project.name}: {n['switches']:,} switches, "
              f"{n['sessions']:,} sessions, {n['servers']:,} servers: {t_cfg:.2f} s")
        t0 = time.perf_counter()
        write_lldp_view(project, cat, Path(tmp) / "lldp")
        t_exp = time.perf_counter() - t0
        t0 = time.perf_counter()
        built = project_from_lldp([Path(tmp) / "lldp"], cat)
        t_imp = time.perf_counter() - t0
        t0 = time.perf_counter()
        diff = diff_projects(project, built, cat)
        t_diff = time.perf_counter() - t0
        print(f"LLDP view {t_exp:.2f} s, import {t_imp:.2f} s, diff {t_diff:.2f} s: "
              f"{diff.summary()}")


def live() -> None:
    reason = missing_reason()
    if reason:
        print(f"live check skipped: {reason}")
        return
    cat = builtin_catalog()
    project = generate(params_from_dict("rail", {"sus": 2, "gear": "roce-400"}), cat)
    marks: list[tuple[float, str]] = []
    t0 = time.perf_counter()
    report = check_roce(project, project.catalog(cat),
                        progress=lambda _f, m: marks.append((time.perf_counter() - t0, m)))
    wall = time.perf_counter() - t0
    first = next((t for t, m in marks if "starting FRR" in m), 0.0)
    fail = next((t for t, m in marks if "failing spine" in m), wall)
    print(f"live check, {project.name}: {report.switches} switches, "
          f"{report.first.sessions_expected} BGP sessions, {report.host_namespaces} hosts")
    print(f"  lab built {first:.1f} s; BGP converged {report.first.converged_s} s after FRR "
          f"started; spine failed at {fail:.1f} s, reconverged in "
          f"{report.failure.converged_s if report.failure else None} s")
    print(f"  total {wall:.1f} s = {wall / BUDGET_S:.2f} x the {BUDGET_S:.0f} s budget; "
          f"{'OK' if report.ok else 'PROBLEMS'}")


if __name__ == "__main__":
    large()
    if "--no-live" not in sys.argv:
        live()
