"""Guard against the PySide6 6.12.0 bug (MEASURED.md): void QPainter calls stole a reference
from None each time and the interpreter aborted. The pin keeps 6.11; this test catches a
regression if the pin is ever loosened."""

from __future__ import annotations

import sys

from PySide6.QtCore import QLineF
from PySide6.QtGui import QImage, QPainter


def test_qpainter_calls_do_not_drain_none(qapp):
    img = QImage(64, 64, QImage.Format.Format_ARGB32)
    painter = QPainter(img)
    line = QLineF(0, 0, 63, 63)
    for _ in range(200):  # warm up caches first
        painter.drawLine(line)
    before = sys.getrefcount(None)
    for _ in range(5000):
        painter.drawLine(line)
        painter.setOpacity(1.0)
    after = sys.getrefcount(None)
    painter.end()
    assert abs(after - before) < 100, f"None refcount drifted by {after - before}"
