"""Take the README's picture of Design > Explore… (docs/screenshots/sweep-dialog.png).

Run: QT_QPA_PLATFORM=offscreen python scripts/shoot_sweep.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = """\
name: Fat-trees, 1k-8k GPUs, four gear profiles, oversubscribed leaves
generate:
  kind: fat-tree
  gpus: {min: 1024, max: 8192, step: 1024}
  gear: [ib-ndr, ib-xdr, roce-400, roce-800]
  oversubscription: ["1:1", "2:1", "3:1"]
constraints: {min_bisection_share: 0.4}
objectives: [cost_per_gpu, bisection_per_gpu]
"""


def main() -> int:
    from PySide6.QtCore import QEventLoop, QTimer

    from designer.gui.app import make_app
    from designer.gui.main_window import MainWindow

    app = make_app()
    with tempfile.TemporaryDirectory() as data:
        w = MainWindow(data_dir=Path(data))
        w.resize(1400, 900)
        w.show()
        dlg = w.show_explore()
        dlg.editor.setPlainText(SPEC)
        dlg.workers.setValue(0)
        loop = QEventLoop()
        dlg.runner.finished.connect(lambda _r: QTimer.singleShot(300, loop.quit))
        dlg.runner.failed.connect(lambda m: (print(m), loop.quit()))
        dlg.start()
        loop.exec()
        front = sorted(dlg.plot.front)
        if front:
            dlg.choose(front[len(front) // 2])
        app.processEvents()
        out = ROOT / "docs" / "screenshots" / "sweep-dialog.png"
        dlg.grab().save(str(out))
        print(out, dlg.status.text())
        dlg.close()
        w.doc.undo_stack.setClean()
        w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
