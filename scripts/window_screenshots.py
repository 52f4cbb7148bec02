"""Pictures of the window for the README: ``python scripts/window_screenshots.py [OUT_DIR]``.

Runs offscreen with throwaway settings; writes window.png (a 512-GPU DGX SuperPOD being
edited), window-large.png and window-large-all.png (the 16,384-GPU example, collapsed,
arranged compactly, one pod open) and generate.png (the rail generate dialog).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["FABRIC_DESIGNER_DATA_DIR"] = tempfile.mkdtemp()

from PySide6.QtCore import QRectF, QSettings

from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.paths import projects_dir
from designer.gui.app import make_app
from designer.gui.document import Selection


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    app = make_app()
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from designer.gui.main_window import MainWindow

    w = MainWindow()
    w.resize(1600, 940)
    w.show()
    app.processEvents()

    def shot(name: str) -> None:
        app.processEvents()
        w.grab().save(str(out / name))
        print("wrote", out / name)

    tmp = Path(tempfile.mkdtemp())
    small = tmp / "dgx-superpod-2su.fabric.json"
    save_project(generate(params_from_dict("rail", {"sus": 2})), small)
    w.open_path(small, ask=False)
    w.view.show_rect(QRectF(-40, -580, 1500, 640), margin=8)
    w.doc.set_selection(Selection(link=("su1-leaf-r3", "spine3")))
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
    shot("window-large.png")
    w.view.fit_all()
    shot("window-large-all.png")

    dlg = w.show_generate("rail")
    dlg.set_value("sus", 16)
    app.processEvents()
    dlg.grab().save(str(out / "generate.png"))
    print("wrote", out / "generate.png")
    dlg.reject()
    w.doc.undo_stack.setClean()
    w.close()


if __name__ == "__main__":
    main()
