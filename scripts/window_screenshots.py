"""Pictures of the window for the documentation: ``python scripts/window_screenshots.py [DIR]``.

Runs offscreen with throwaway settings; writes window.png (a 512-GPU DGX SuperPOD being
edited), window-large.png and window-large-all.png (the 16,384-GPU example, collapsed,
arranged compactly, one pod open), generate.png (the rail generate dialog at 4 SUs, as the
first hour walks it), and the live analysis: window-analysis.png (the 1,024-GPU DGX SuperPOD
example with metrics, charts and BOM), window-analysis-roce-24k.png (the oversubscribed
24,576-GPU RoCE example),
window-analysis-dragonfly.png (the dragonfly example's global cut and unused router ports),
generate-fit.png (a pod too large for the profile's spine switch),
first-hour-compare.png and first-hour-estimate.png (the 4-SU example beside itself on RoCE 400G,
the Workload, Compare and Estimate panels in front), traffic-load.png and traffic-what-if.png
(a permutation under ECMP, then a spine failed), floor-panel.png (the example placed on the
floor, one rack's elevation open),
window-asbuilt.png (an as-built comparison in the problems panel, marked on the canvas) and
window-price-book.png (a supplier's quote applied: the BOM names its source per line); and
panel-*.png, each panel alone as the window pages show it (readable at a page's width).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["FABRIC_DESIGNER_DATA_DIR"] = tempfile.mkdtemp()

from PySide6.QtCore import QRectF, QSettings

from designer.core import editing
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.infiniband import ib_fabric_of, write_netfile
from designer.core.paths import projects_dir
from designer.gui.app import make_app
from designer.gui.panels.problems import PROBLEM_ROLE
from designer.gui.project.document import Selection


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    app = make_app()
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from designer.gui.main_window import MainWindow

    w = MainWindow()
    w.resize(1728, 972)  # the default window on a 1920 x 1080 screen
    w.show()
    app.processEvents()

    def shot(name: str) -> None:
        app.processEvents()
        w.grab().save(str(out / name))
        print("wrote", out / name)

    def dock_shot(dock: str, name: str, size: tuple[int, int] | None = None) -> None:
        """One panel alone, at the size the window gives it (or floated at ``size``, for a
        panel whose table sits below the fold when docked): readable at a page's width where
        the whole window is not (the page links the whole window beside it)."""
        d = w.docks[dock]
        if size:
            d.setFloating(True)
            d.resize(*size)
            for _ in range(20):
                app.processEvents()
        app.processEvents()
        d.grab().save(str(out / name))
        if size:
            d.setFloating(False)
            app.processEvents()
        print("wrote", out / name)

    def analysed() -> None:
        """Wait for the live analysis of the current design and its charts."""
        svc = w.analysis.service
        deadline = time.monotonic() + 60
        while not svc.up_to_date and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        for _ in range(20):  # charts draw one per event-loop turn
            app.processEvents()

    tmp = Path(tempfile.mkdtemp())
    small = tmp / "dgx-superpod-2su.fabric.json"
    save_project(generate(params_from_dict("rail", {"sus": 2})), small)
    w.open_path(small, ask=False)
    w.view.show_rect(QRectF(-40, -580, 1500, 640), margin=8)
    w.doc.set_selection(Selection(link=("su1-leaf-r3", "spine3")))
    analysed()
    shot("window.png")

    large = projects_dir() / "dgx-superpod-64su-ib-ndr.fabric.json"
    if not large.exists():
        large = tmp / "rail-64.fabric.json"
        save_project(generate(params_from_dict("rail", {"sus": 64})), large)
    w.open_path(large, ask=False)
    w.arrange_compact()
    w.scene.expand("pod=1")
    w.doc.set_selection(Selection(groups=frozenset({"pod=2"})))
    sc = w.scene
    pod1 = sc.frame_items["pod=1"].frame_rect()
    w.view.show_rect(pod1.adjusted(-100, -700, 1200, 1500), margin=4)
    analysed()
    shot("window-large.png")
    w.view.fit_all()
    shot("window-large-all.png")

    # live analysis on the examples
    w.open_path(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", ask=False)
    w.arrange_compact()
    analysed()
    w.view.hide_toast()
    shot("window-analysis.png")

    w.open_path(projects_dir() / "roce-fat-tree-24k-oversubscribed.fabric.json", ask=False)
    w.arrange_compact()
    analysed()
    w.view.hide_toast()
    shot("window-analysis-roce-24k.png")
    dock_shot("metricsDock", "panel-metrics.png")

    # a dragonfly: routers at 1:1 but the global cut oversubscribed, most router ports unused
    w.open_path(projects_dir() / "dragonfly-1056-gpus.fabric.json", ask=False)
    w.arrange_compact()
    analysed()
    w.view.hide_toast()
    shot("window-analysis-dragonfly.png")
    dock_shot("chartsDock", "panel-charts-dragonfly.png")

    # an as-built with one leaf's cables to spine 2 missing
    plan_path = projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json"
    w.open_path(plan_path, ask=False)
    w.arrange_compact()
    analysed()
    plan = w.doc.project
    built = editing.delete(plan, [], [("su2-leaf-r3", "spine2")])
    topo = tmp / "ibnetdiscover.out"
    topo.write_text(write_netfile(ib_fabric_of(built, w.doc.catalog).fabric))
    task = w.analysis.ib.compare_with(topo)
    deadline = time.monotonic() + 60
    while task.running and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    panel = w.analysis.problems
    first = panel.tree.topLevelItem(0).child(0)
    panel.tree.setCurrentItem(first)
    panel.activate(first.data(0, PROBLEM_ROLE))  # selects and centres its devices
    shot("window-asbuilt.png")
    dock_shot("problemsDock", "panel-problems-asbuilt.png")
    panel.clear_asbuilt()

    # a supplier's quote applied to the RoCE example: the BOM names the book per line
    w.open_path(projects_dir() / "dgx-superpod-4su-roce-400.fabric.json", ask=False)
    from designer.gui.sources import preview

    preview.confirm_book = lambda _parent, _got: True  # the modal preview: Apply, unattended
    quote = tmp / "acme-quote.csv"
    quote.write_text("part id,unit price,currency,date\nsn5600,52500,USD,2026-11-02\n"
                     "osfp-2x400g-sr8,1850,USD,2026-11-02\n")
    task = w.analysis.sources.import_from(quote)
    deadline = time.monotonic() + 60
    while (task.running or not w.doc.project.sources.price_books) and \
            time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    w.doc.set_selection(Selection())
    w.analysis.show_panel("bomDock")
    w.view.fit_all()
    analysed()
    w.view.hide_toast()
    shot("window-price-book.png")
    dock_shot("bomDock", "panel-bom-price-book.png")

    # the first hour: the 4-SU example against itself on RoCE 400G, each laid out at its best
    w.open_path(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", ask=False)
    w.arrange_compact()
    analysed()
    decision = w.analysis.decision
    w.analysis.show_panel("compareDock")
    w.analysis.show_panel("workloadDock")
    decision.compare.boxes["roce-400"].setChecked(True)
    deadline = time.monotonic() + 120
    while decision.compare.compare.latest is None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    for _ in range(20):
        app.processEvents()
    w.view.hide_toast()
    shot("first-hour-compare.png")
    dock_shot("compareDock", "panel-compare.png", (1100, 980))
    w.analysis.show_panel("estimateDock")
    for _ in range(20):
        app.processEvents()
    shot("first-hour-estimate.png")
    dock_shot("estimateDock", "panel-estimate.png")
    decision.compare.boxes["roce-400"].setChecked(False)

    def wait(task) -> None:
        deadline = time.monotonic() + 120
        while task is not None and task.running and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        for _ in range(20):
            app.processEvents()

    # Traffic: a permutation under ECMP on the 4-SU example, then a spine failed
    w.open_path(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json", ask=False)
    w.arrange_compact()
    analysed()
    traffic = w.traffic.panel
    w.analysis.show_panel("trafficDock")
    w.analysis.show_panel("estimateDock")
    traffic.pattern.setCurrentText("permutation")
    traffic.routing.setCurrentText("ecmp")
    traffic.run_load()
    wait(traffic.task)
    w.view.hide_toast()
    shot("traffic-load.png")
    dock_shot("trafficDock", "panel-traffic.png")
    w.traffic.what_if(["spine:3"])
    wait(traffic.task)
    shot("traffic-what-if.png")
    traffic.clear_overlay()

    # Floor: the 4-SU example placed on the floor, one rack's elevation open
    floor = w.floor_panel
    w.analysis.show_panel("floorDock")
    w.analysis.show_panel("chartsDock")
    floor.place()
    deadline = time.monotonic() + 120
    while w.doc.project.physical is None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    analysed()
    floor.show_rack(0)
    w.view.hide_toast()
    shot("floor-panel.png")
    dock_shot("floorDock", "panel-floor.png")
    w.doc.undo_stack.undo()

    dlg = w.show_generate("rail")
    dlg.set_value("sus", 4)  # the first hour's walk: 4 SUs, 1,024 GPUs
    app.processEvents()
    deadline = time.monotonic() + 120  # the picture shows the quick analysis, not "analysing"
    while dlg.analysis.result is None and not dlg.analysis.error and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    app.processEvents()
    dlg.grab().save(str(out / "generate.png"))
    print("wrote", out / "generate.png")
    dlg.reject()
    # a pod too large for the profile's spine switch: the preview names the one picked
    dlg = w.show_generate("fat-tree")
    for name, value in {"gear": "roce-400", "gpus": 24576, "servers_per_leaf": 2,
                        "oversubscription": "1:1,7:1", "pod_gpus": 3072}.items():
        dlg.set_value(name, value)
    app.processEvents()
    dlg.grab().save(str(out / "generate-fit.png"))
    print("wrote", out / "generate-fit.png")
    dlg.reject()
    w.doc.undo_stack.setClean()
    w.close()


if __name__ == "__main__":
    main()
