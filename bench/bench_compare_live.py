"""The Compare view in the real window (offscreen): edit-to-comparison time and GUI gaps.

Issue 12 targets: with two 16,384-GPU designs in the Compare view (this design and itself under
RoCE 400G), the comparison follows an edit within 500 ms; the GUI thread never blocks more than
50 ms (a 10 ms QTimer heartbeat: longest gap between beats while the work runs). Two edits are
timed: a workload edit (the variant is cached, only estimates run), a fabric edit (a device
moved: the design is solved again; the variant, keyed by wiring and gear, is reused) and a wiring
edit (a spine deleted: the design and its variant are both built and solved again, each in its
own worker, started on the edit).
Baseline: the same variant built and solved in the GUI thread, which blocks for all of it.
Run: QT_QPA_PLATFORM=offscreen python bench/bench_compare_live.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("FABRIC_DESIGNER_DATA_DIR", tempfile.mkdtemp())
sys.path.insert(0, str(Path(__file__).resolve().parent))

from PySide6.QtCore import QEventLoop, QSettings, QTimer

from designer.core.analysis.comparison import profile_variant
from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve


def main() -> None:
    from designer.gui.app import make_app
    from designer.gui.main_window import MainWindow

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    app = make_app([])
    w = MainWindow(data_dir=Path(tempfile.mkdtemp()))
    w.resize(1400, 900)
    w.show()
    panel = w.analysis.decision.compare
    svc = w.analysis.service
    project = generate(params_from_dict("rail", {"sus": 64}))

    def wait_for(signal, timeout_ms: int = 60_000) -> float:
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(timeout_ms, loop.quit)
        t0 = time.perf_counter()
        loop.exec()
        signal.disconnect(loop.quit)
        return time.perf_counter() - t0

    w.doc.replace(project)
    wait_for(svc.resultReady)
    panel.boxes["roce-400"].setChecked(True)
    wait_for(panel.compare.comparisonReady)

    gaps: list[float] = []
    last = [time.perf_counter()]

    def beat() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(beat)

    def timed(edit) -> tuple[float, float]:
        gaps.clear()
        last[0] = time.perf_counter()
        timer.start()
        t0 = time.perf_counter()
        edit()
        wait_for(panel.compare.comparisonReady)
        dt = time.perf_counter() - t0
        timer.stop()
        return dt, max(gaps or [0.0])

    wl = timed(lambda: panel.compare.doc.push(_years(w, 4)))
    devices = w.doc.project.fabric.devices
    moved = (devices[0].model_copy(update={"x": devices[0].x + 40}), *devices[1:])
    fab = timed(lambda: w.doc.set_project(w.doc.project.with_fabric(
        w.doc.project.fabric.with_devices(moved))))
    spine = next(d.id for d in w.doc.project.fabric.devices if d.role.value == "spine")
    from designer.gui.project import commands

    wiring = [timed(lambda: w.doc.push(commands.delete(w.doc, [spine]))),
              timed(lambda: w.doc.undo_stack.undo())]
    t0 = time.perf_counter()
    solve(profile_variant(w.doc.project, "roce-400", builtin_catalog()))
    base = time.perf_counter() - t0
    print("Compare view, two 16,384-GPU designs (this one and RoCE 400G):")
    print(f"  workload edit -> comparison {wl[0] * 1e3:.0f} ms, longest GUI gap "
          f"{wl[1] * 1e3:.0f} ms")
    print(f"  fabric edit   -> comparison {fab[0] * 1e3:.0f} ms, longest GUI gap "
          f"{fab[1] * 1e3:.0f} ms")
    for name, (dt, gap) in zip(("wiring edit (delete a spine)", "wiring edit (undo it)"),
                               wiring, strict=True):
        print(f"  {name} -> comparison {dt * 1e3:.0f} ms, longest GUI gap {gap * 1e3:.0f} ms")
    print(f"  baseline: the variant built and solved in the GUI thread blocks {base * 1e3:.0f} ms "
          f"({base / max(fab[1], 1e-3):.1f}x the longest gap)")
    w.doc.undo_stack.setClean()
    w.close()
    app.processEvents()


def _years(w, years: float):
    from designer.core.analysis.estimates import settings_of
    from designer.gui.project.commands import ProjectCommand

    s = settings_of(w.doc.project)
    new = s.model_copy(update={"economics": s.economics.model_copy(update={"years": years})})
    return ProjectCommand(w.doc, w.doc.project.evolve(decision=new), "Edit economics: years")


if __name__ == "__main__":
    main()
