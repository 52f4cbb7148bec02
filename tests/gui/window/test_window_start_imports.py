"""What the window loads before its first paint: ``designer FILE`` on the 1,024-GPU example, in a
fresh interpreter, stopped at the first paint. The plotting library, the acceptance planner and
the checks' labs (scipy's graph and linear-algebra modules with them) come later, when a panel
builds its plots after the paint or a command is first used; each once cost the window's start
0.4-2 s of CPU (docs/performance.md, Start-up)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests._paths import ROOT

EXAMPLE = ROOT / "projects" / "dgx-superpod-4su-ib-ndr.fabric.json"
NOT_BEFORE_PAINT = ("pyqtgraph", "scipy.sparse.csgraph", "scipy.linalg",
                    "designer.core.acceptance.run", "designer.core.acceptance.plan",
                    "designer.core.simulate.htsim", "designer.core.infragraph.importer",
                    "designer.core.ibcheck.check", "designer.gui.acceptance.dialog")

# QApplication.exec is replaced, once PySide6 is imported by the window's own code, by a
# function that lets the shown window paint, lists what is loaded, and returns.
# Once PySide6 is imported by the window's own code, QMainWindow.show is wrapped to list what is
# loaded when the shown window first paints (a file opening in a nested event loop can let the
# window paint, and later work run, before QApplication.exec), and QApplication.exec returns
# after printing that list.
SCRIPT = textwrap.dedent(
    """
    import importlib.abc, importlib.machinery, sys
    at_paint = []

    def patch(module):
        from PySide6.QtCore import QEvent, QObject

        class FirstPaint(QObject):
            def eventFilter(self, obj, event):
                if event.type() == QEvent.Type.Paint and not at_paint:
                    at_paint.append(sorted(sys.modules))
                return False

        seen = FirstPaint()
        show = module.QMainWindow.show

        def shown(self):
            self.installEventFilter(seen)
            show(self)

        def run(*_args):
            app = module.QApplication.instance()
            for w in app.topLevelWidgets():
                if w.isVisible():
                    w.repaint()
            app.processEvents()
            print("PAINTED", bool(at_paint))
            print("\\n".join(at_paint[0] if at_paint else []))
            return 0

        module.QMainWindow.show = shown
        module.QApplication.exec = run

    class _Patch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "PySide6.QtWidgets":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            load = spec.loader.exec_module

            def exec_module(module):
                load(module)
                patch(module)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _Patch())
    from designer.cli.main import main
    main(sys.argv[1:])
    """
)


def test_the_first_paint_comes_before_plots_planners_and_labs(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path),
               FABRIC_DESIGNER_DATA_DIR=str(tmp_path / "data"))
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(EXAMPLE)], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.split()
    assert "PAINTED" in lines and lines[lines.index("PAINTED") + 1] == "True", out.stdout[:500]
    loaded = set(lines)
    # the window did open its design: the core and the canvas are there
    assert {"designer.gui.main_window", "designer.core.solver", "numpy"} <= loaded
    early = [m for m in NOT_BEFORE_PAINT if m in loaded]
    assert not early, f"loaded before the window's first paint: {early}"
