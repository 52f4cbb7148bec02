"""Rack-scale designs at 131,040 GPUs: generate and solve times against an equal 8-GPU-server
design, and the window's longest stall while it opens, solves and is edited.

Issue 22 target: a 131,072-GPU NVL72 design generates and solves within the times an equal
8-GPU-server design takes, and the window stays under 50 ms per stall. 131,072 is not a whole
number of 72-GPU racks: both designs have 131,040 GPUs (1,820 GB300 NVL72 racks of 18 trays;
16,380 DGX B300 servers), rail-optimized on Quantum-X800 Q3400, SUs of 576 GPUs, three tiers.

Baseline: the 8-GPU-server design (the same GPUs, switches and cables; a domain per server).
Run: QT_QPA_PLATFORM=offscreen python bench/bench_rackscale.py [--gpus 131040] [--no-window]
The machine's load average is printed with each run: on shared cores, wall-clock times grow
with it; the edit's CPU time in the GUI thread does not.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("FABRIC_DESIGNER_DATA_DIR", tempfile.mkdtemp())
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import best_of

from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve

DESIGNS = {
    "GB300 NVL72 racks": {"gear": "gb300-ib-xdr"},
    "DGX B300 (8-GPU)": {"gear": "ib-xdr", "servers_per_su": 72},
}


def core(gpus: int, repeat: int) -> dict[str, tuple[float, float, object]]:
    out = {}
    for name, values in DESIGNS.items():
        params = params_from_dict("rail", {"gpus": gpus, **values})
        t_gen, project = best_of(lambda p=params: generate(p), repeat)
        t_solve, result = best_of(lambda pr=project: solve(pr), repeat)
        out[name] = (t_gen, t_solve, project)
        d = result.domains
        print(f"{name}: {len(project.fabric.devices):,} devices, "
              f"{project.fabric.links.n_cables:,} links, {d.count:,} domains of {d.gpus} GPUs; "
              f"generate {t_gen:.2f} s, solve {t_solve:.2f} s "
              f"(bisection {result.bisection.fraction_of_full:.0%} of full, "
              f"{result.hops.pairs:,} GPU pairs)")
    (a_gen, a_solve, _), (b_gen, b_solve, _) = out.values()
    print(f"ratio NVL72 / 8-GPU: generate {a_gen / b_gen:.2f}, solve {a_solve / b_solve:.2f} "
          "(target: at most 1)")
    return out


def window_stalls(app, window, name: str, project, runs: int) -> None:
    """Open the design in the window, then delete a spine and undo it ``runs`` times: the
    longest gaps of a 10 ms heartbeat in the GUI thread while each solve runs and its result
    reaches the panels, and in each edit's own GUI work (bench_live's measure)."""
    from bench_live import GcPauses, gaps_while_solving, p95, settle, wait_current

    from designer.gui.project import commands

    path = Path(tempfile.mkdtemp()) / "design.fabric.json"
    save_project(project, path)
    t0 = time.perf_counter()
    window.open_path(path, ask=False)
    opened = time.perf_counter() - t0
    wait_current(window, 600)
    settle(app, 1.0)
    doc = window.doc
    spine = next(d.id for d in project.fabric.devices if d.role.value == "spine")

    cpu: list[float] = []

    def edit(k: int) -> None:
        # the GUI thread's own CPU time for the edit: unlike the wall-clock gaps, it does not
        # grow with other processes' load on the shared cores
        t0 = time.thread_time()
        if k % 2 == 0:
            doc.push(commands.delete(doc, [spine]))
        else:
            doc.undo_stack.undo()
        cpu.append(time.thread_time() - t0)

    gcp = GcPauses()
    gaps, edit_gaps, secs = gaps_while_solving(app, window, runs, edit)
    print(f"window, {name}: opened in {opened:.2f} s; {runs} solves after edits (delete a "
          f"spine / undo), median solve {secs:.2f} s in the worker; GUI heartbeat while "
          f"solving: max gap {max(gaps) * 1000:.0f} ms, p95 {p95(gaps) * 1000:.0f} ms; the "
          f"edit's own GUI work: max {max(edit_gaps) * 1000:.0f} ms (target: 50 ms), the "
          f"edit's CPU time in the GUI thread max {max(cpu) * 1000:.0f} ms; "
          f"garbage collector: {gcp.take()}")
    doc.undo_stack.setClean()


def open_window():
    """The live benches' window (throw-away settings), at the size of a large screen."""
    from bench_live import open_window as live_window

    app, w = live_window()
    w.resize(1728, 972)
    app.processEvents()
    return app, w


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpus", type=int, default=131040)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--no-window", action="store_true")
    args = ap.parse_args()
    if hasattr(os, "getloadavg"):
        print("load average at start: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    out = core(args.gpus, args.repeat)
    if not args.no_window:
        app, window = open_window()
        for name, (_g, _s, project) in out.items():
            window_stalls(app, window, name, project, args.runs)
        window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
