"""Painter paths of many separate line segments, built from numpy arrays in one call.

``QPainterPath.moveTo``/``lineTo`` per segment is two Python calls each: 74,000 of them for
a 16,384-GPU fabric. Qt reads a path from its binary stream form (an element count, then a
type and two doubles per element, then the index of the last subpath's start and the fill
rule, big-endian), and numpy writes that form for all segments at once. (pyqtgraph does the
same, but importing it costs 0.4 s of the window's start for this one function.)
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QByteArray, QDataStream, QIODevice
from PySide6.QtGui import QPainterPath

_ELEMENT = np.dtype([("type", ">i4"), ("x", ">f8"), ("y", ">f8")])  # 20 bytes, packed
_MOVE, _LINE = 0, 1  # QPainterPath.ElementType


def segments_path(x: np.ndarray, y: np.ndarray) -> QPainterPath:
    """One path of the segments (x[0], y[0])-(x[1], y[1]), (x[2], y[2])-(x[3], y[3]), ..."""
    n = int(x.size)
    if n < 2:
        return QPainterPath()
    n -= n % 2
    elements = np.empty(n, _ELEMENT)
    elements["type"] = _MOVE
    elements["type"][1::2] = _LINE
    elements["x"] = x[:n]
    elements["y"] = y[:n]
    raw = (np.array([n], ">i4").tobytes() + elements.tobytes()
           + np.array([n - 2, 0], ">i4").tobytes())  # last subpath's start; odd-even fill
    buf = QByteArray(raw)  # held while the stream reads it (the stream keeps a pointer)
    stream = QDataStream(buf, QIODevice.OpenModeFlag.ReadOnly)
    path = QPainterPath()
    stream >> path
    return path
