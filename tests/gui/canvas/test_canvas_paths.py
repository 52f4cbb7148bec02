"""Segment paths written in Qt's stream form (gui/canvas/paths.py): the paths pyqtgraph's
arrayToQPath (which the canvas used before) builds, and those of moveTo/lineTo calls when no
segment is a point (Qt drops a line to where it already is)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QPainterPath

from designer.gui.canvas.paths import segments_path

coord = st.integers(-10**6, 10**6).map(float)  # pixels and scene units: no fuzzy Qt compare


def _elements(p: QPainterPath) -> list:
    return [(p.elementAt(i).type, p.elementAt(i).x, p.elementAt(i).y)
            for i in range(p.elementCount())]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(coord, coord, coord, coord), max_size=40))
def test_the_path_pyqtgraph_and_calls_build(segs):
    a = np.array(segs, float).reshape(-1, 4)
    x, y = a[:, [0, 2]].ravel(), a[:, [1, 3]].ravel()
    got = segments_path(x, y)
    if segs:
        assert _elements(got) == _elements(pg.functions.arrayToQPath(x, y, connect="pairs"))
    calls = QPainterPath()
    for x1, y1, x2, y2 in segs:
        calls.moveTo(x1, y1)
        calls.lineTo(x2, y2)
    if all((x1, y1) != (x2, y2) for x1, y1, x2, y2 in segs):
        assert _elements(got) == _elements(calls)
