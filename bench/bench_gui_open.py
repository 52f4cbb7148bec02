"""The window with large designs: open time and frame times while panning and zooming.

Issue 5 target: opening the 16,384-GPU example (rail, 64 SU) takes under 3 s and panning and
zooming stay smooth. Runs offscreen (QT_QPA_PLATFORM=offscreen). For each design it prints
the file load alone, the window's open (load + scene), the first full paint, and full
repaints of the canvas (the slowest kind of frame: a real pan only repaints the strip that
scrolls in) at a readable zoom and with the whole design in view, collapsed (how large
designs open) and with every device expanded.

Baseline: the plain approach, one QGraphicsItem per device and one QGraphicsLineItem per
cable, in a bare QGraphicsScene.
Run: python bench/bench_gui_open.py [--sus 64] [--big]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from PySide6.QtCore import QRectF, QSettings
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict

VIEW_W, VIEW_H = 1500, 900


def frames(app, view, moves, n: int = 12) -> tuple[float, float]:
    """Median and worst time (ms) of ``n`` full canvas repaints after each move."""
    times = []
    for k in range(n):
        moves[k % len(moves)]()
        app.processEvents()
        t0 = time.perf_counter()
        view.viewport().grab()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), max(times)


def pan_zoom(view):
    bar = view.horizontalScrollBar()
    return [
        lambda: bar.setValue(bar.value() + 300),
        lambda: bar.setValue(bar.value() - 150),
        lambda: view.set_scale(view.scale_factor() * 1.2),
        lambda: view.set_scale(view.scale_factor() / 1.2),
    ]


def bench_window(app, path: Path, label: str) -> None:
    from designer.gui.main_window import MainWindow

    w = MainWindow(data_dir=Path(tempfile.mkdtemp()))
    w.resize(VIEW_W, VIEW_H)
    w.show()
    app.processEvents()
    t0 = time.perf_counter()
    load_project(path)
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    w.open_path(path, ask=False)
    t_open = time.perf_counter() - t0
    t0 = time.perf_counter()
    app.processEvents()
    w.grab()
    t_paint = time.perf_counter() - t0
    sc, view = w.scene, w.view
    f = w.doc.project.fabric
    print(
        f"\n{label}: {len(f.devices):,} devices, {f.links.n_cables:,} cables in "
        f"{len(f.links):,} bundles"
    )
    print(f"  load file alone              {t_load:7.2f} s")
    print(f"  open in the window           {t_open:7.2f} s  (load + scene; target < 3 s)")
    print(f"  first paint of the window    {t_paint:7.2f} s")
    print(
        f"  collapsed: {len(sc.box_items)} boxes, {len(sc.device_items)} device items, "
        f"{sc.vg.edge_u.size:,} lines"
    )
    med, worst = frames(app, view, pan_zoom(view))
    print(f"  pan/zoom frame, readable     {med:7.1f} ms median, {worst:.1f} ms worst")
    view.fit_all()
    med, worst = frames(app, view, pan_zoom(view))
    print(f"  pan/zoom frame, all in view  {med:7.1f} ms median, {worst:.1f} ms worst")
    t0 = time.perf_counter()
    sc.expand_all()
    t_expand = time.perf_counter() - t0
    print(
        f"  expand everything            {t_expand:7.2f} s  ({len(sc.device_items):,} device "
        f"items, {sc.vg.edge_u.size:,} lines in {len(sc.edge_layers)} path items)"
    )
    view.fit_readable()
    med, worst = frames(app, view, pan_zoom(view))
    print(f"  expanded frame, readable     {med:7.1f} ms median, {worst:.1f} ms worst")
    view.fit_all()
    med, worst = frames(app, view, pan_zoom(view), n=6)
    print(f"  expanded frame, all in view  {med:7.1f} ms median, {worst:.1f} ms worst")
    w.doc.undo_stack.setClean()
    w.recovery.close()
    w.analysis.shutdown()  # no solve of this design runs on into the next measurement
    w.deleteLater()
    app.processEvents()


COLD = """
import os, sys, tempfile, time
t0 = time.perf_counter()
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["FABRIC_DESIGNER_DATA_DIR"] = tempfile.mkdtemp()
from PySide6.QtCore import QSettings
from designer.gui.app import make_app
app = make_app()
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
from designer.gui.main_window import MainWindow
w = MainWindow()
w.resize(1500, 900)
w.show()
w.open_path(sys.argv[1], ask=False)
app.processEvents()
w.grab()
print(time.perf_counter() - t0)
w.doc.undo_stack.setClean()
"""


def bench_cold(path: Path) -> None:
    """A fresh process: Python, Qt and the app start, open the file, paint the window."""
    import subprocess

    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", COLD, str(path)], capture_output=True, text=True, check=True
    )
    total = time.perf_counter() - t0
    inside = float(out.stdout.strip().splitlines()[-1])
    print(f"  cold start to painted window {total:7.2f} s  (in the process: {inside:.2f} s)")


def bench_baseline(app, path: Path) -> None:
    """One item per device and one line item per cable: what the canvas avoids."""
    project = load_project(path)
    f = project.fabric
    t0 = time.perf_counter()
    scene = QGraphicsScene()
    pos = {}
    for d in f.devices:
        scene.addRect(QRectF(d.x - 25, d.y - 14, 50, 28))
        pos[d.id] = (d.x, d.y)
    e = f.links.expand()
    xs = [d.x for d in f.devices]
    ys = [d.y for d in f.devices]
    pen = QPen()
    pen.setCosmetic(True)
    for a, b in zip(e["a"].tolist(), e["b"].tolist(), strict=True):
        scene.addLine(xs[a], ys[a], xs[b], ys[b], pen)
    t_build = time.perf_counter() - t0
    view = QGraphicsView(scene)
    view.resize(VIEW_W - 560, VIEW_H - 120)
    view.show()
    app.processEvents()
    view.fitInView(scene.itemsBoundingRect())
    bar = view.horizontalScrollBar()
    moves = [
        lambda: bar.setValue(bar.value() + 300),
        lambda: view.scale(1.2, 1.2),
        lambda: view.scale(1 / 1.2, 1 / 1.2),
    ]
    med, worst = frames(app, view, moves, n=4)
    print(f"  baseline: one item per cable ({len(scene.items()):,} items)")
    print(f"    build the scene            {t_build:7.2f} s")
    print(f"    frame, all in view         {med:7.1f} ms median, {worst:.1f} ms worst")
    scene.clear()
    view.deleteLater()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sus", type=int, default=64, help="rail SUs (default 64: 16,384 GPUs)")
    ap.add_argument("--big", action="store_true", help="also a 65,536-GPU rail design")
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    from designer.gui.app import make_app

    app = make_app()
    tmp = Path(tempfile.mkdtemp())
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp / "cfg"))
    os.environ["FABRIC_DESIGNER_DATA_DIR"] = str(tmp / "data")
    cases = [args.sus] + ([256] if args.big else [])
    for sus in cases:
        path = tmp / f"rail-{sus}.fabric.json"
        save_project(generate(params_from_dict("rail", {"sus": sus})), path)
        bench_window(app, path, f"rail {sus} SU ({sus * 256:,} GPUs)")
        bench_cold(path)
        if not args.no_baseline:
            bench_baseline(app, path)


if __name__ == "__main__":
    main()
