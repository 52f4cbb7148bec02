"""Links on the canvas: a handful of layer items, each one painter path for many lines.

A 16,384-GPU fabric has about 37,000 link bundles; one QGraphicsItem each would make the
scene crawl. Lines are grouped by colour (fabric layer) and width (cables in the line) into
at most a few dozen paths built straight from numpy arrays, count labels are painted only
for the lines in view when there is room, and hit tests are numpy distance computations.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem

from designer.gui.base import style
from designer.gui.canvas.declutter import place_labels
from designer.gui.canvas.items import Z_EDGES, Z_LABELS, Z_OVERLAY, draw_screen_text, lod_of
from designer.gui.canvas.paths import segments_path

# screen width of a line by the cables it carries
WIDTH_STEPS = ((16, 1.0), (256, 2.0), (4096, 3.0), (1 << 62, 4.0))
MAX_LABELS = 400
LABEL_REACH_PX = 120.0  # how far (screen px) a label may reach beyond its line's middle
LABEL_SPOTS = (0.5, 0.32, 0.68)  # where along a line its label may sit, in this order
DENSE_LINES = 3000  # distinct on-screen lines above which a layer is drawn aliased


def width_class(count: np.ndarray) -> np.ndarray:
    bounds = np.array([w[0] for w in WIDTH_STEPS[:-1]])
    return np.searchsorted(bounds, count, side="left")


class EdgeLayer(QGraphicsItem):
    """Every line of one colour and width (not selectable: hits are numpy).

    On screen, each paint keeps only the lines that cross the exposed area, rounds them to
    device pixels and drops duplicates, then strokes one path in device coordinates: a
    zoomed-out 16,384-GPU fabric has ~37,000 lines but far fewer distinct pixel lines. Other
    devices (SVG, PDF) get every line in scene coordinates.
    """

    def __init__(self, color, width_px: float) -> None:
        super().__init__()
        self._pen = QPen(color, width_px)
        self._pen.setCosmetic(True)
        self._pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self._device_pen = QPen(self._pen)
        self._device_pen.setCosmetic(False)
        # many lines: aliased and opaque (the colour pre-blended on the canvas) strokes ~9x
        # faster than antialiased translucent ones, and a dense fan looks the same
        a = color.alphaF()
        bg = style.CANVAS_BG
        opaque = QColor.fromRgbF(
            color.redF() * a + bg.redF() * (1 - a),
            color.greenF() * a + bg.greenF() * (1 - a),
            color.blueF() * a + bg.blueF() * (1 - a),
        )
        self._dense_pen = QPen(self._device_pen)
        self._dense_pen.setColor(opaque)
        self._cache_n = 0
        self._seg = np.empty((0, 4))
        self._path: QPainterPath | None = None
        self._rect = QRectF()
        self._cache_key: tuple | None = None
        self._cache_path = QPainterPath()
        self.setZValue(Z_EDGES)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_segments(self, seg: np.ndarray) -> None:
        """``seg``: (n, 4) array of x1, y1, x2, y2."""
        self.prepareGeometryChange()
        self._seg = np.asarray(seg, dtype=np.float64)
        self._path = None
        self._cache_key = None
        if not len(seg):
            self._rect = QRectF()
        else:
            x = self._seg[:, [0, 2]]
            y = self._seg[:, [1, 3]]
            x0, y0 = float(x.min()), float(y.min())
            self._rect = QRectF(x0, y0, float(x.max()) - x0 or 1.0, float(y.max()) - y0 or 1.0)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def _scene_path(self) -> QPainterPath:
        if self._path is None:
            seg = self._seg
            self._path = segments_path(seg[:, [0, 2]].ravel(), seg[:, [1, 3]].ravel())
        return self._path

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if not len(self._seg):
            return
        t = painter.worldTransform()
        engine = painter.paintEngine()
        raster = engine is not None and engine.type() == engine.Type.Raster
        if not raster or t.isRotating():
            painter.setPen(self._pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._scene_path())
            return
        exposed = t.mapRect(option.exposedRect).adjusted(-2, -2, 2, 2)
        key = (t.m11(), t.m22(), t.dx(), t.dy(), exposed.getRect())
        if key != self._cache_key:
            self._cache_key = key
            self._cache_path, self._cache_n = self._device_path(t, exposed)
        painter.save()
        painter.resetTransform()
        if self._cache_n > DENSE_LINES:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setPen(self._dense_pen)
        else:
            painter.setPen(self._device_pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(self._cache_path)
        painter.restore()

    def _device_path(self, t, r: QRectF) -> tuple[QPainterPath, int]:
        s = self._seg
        sx, sy, dx, dy = t.m11(), t.m22(), t.dx(), t.dy()
        x1, x2 = s[:, 0] * sx + dx, s[:, 2] * sx + dx
        y1, y2 = s[:, 1] * sy + dy, s[:, 3] * sy + dy
        keep = (
            (np.maximum(x1, x2) >= r.left()) & (np.minimum(x1, x2) <= r.right())
            & (np.maximum(y1, y2) >= r.top()) & (np.minimum(y1, y2) <= r.bottom())
        )  # fmt: skip
        if not keep.any():
            return QPainterPath(), 0
        # far outside the view, clamp (the raster engine clips; huge values overflow)
        lim = 1 << 20
        q = np.clip(np.rint(np.column_stack([x1[keep], y1[keep], x2[keep], y2[keep]])), -lim, lim)
        q = q.astype(np.int64)
        swap = (q[:, 0] > q[:, 2]) | ((q[:, 0] == q[:, 2]) & (q[:, 1] > q[:, 3]))
        q[swap] = q[swap][:, [2, 3, 0, 1]]
        q = np.unique(q, axis=0) if len(q) > 64 else q
        path = segments_path(q[:, [0, 2]].ravel().astype(np.float64),
                             q[:, [1, 3]].ravel().astype(np.float64))
        return path, len(q)


class EdgeLabelLayer(QGraphicsItem):
    """Cable counts at the middle of the lines in view, when they fit."""

    def __init__(self) -> None:
        super().__init__()
        self.mid = np.empty((0, 2))
        self.length = np.empty(0)
        self.count = np.empty(0, np.int64)
        self.speed = np.empty(0, np.int64)
        self.single = np.empty(0, bool)
        self.seg = np.empty((0, 4))
        self._mids = QRectF()
        self.reach = 400.0
        # screen rects (x, y, w, h) labels must not cover: titles, boxes, devices
        self.obstacles = None
        self.setZValue(Z_LABELS)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_labels(
        self, seg: np.ndarray, count: np.ndarray, speed: np.ndarray, single: np.ndarray
    ) -> None:
        """Counts per line; ``single`` marks lines between two devices (labelled with speed)."""
        self.prepareGeometryChange()
        self.count, self.speed, self.single = count, speed, single
        if len(seg):
            self.mid = np.column_stack([(seg[:, 0] + seg[:, 2]) / 2, (seg[:, 1] + seg[:, 3]) / 2])
            self.length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
            self.seg = np.asarray(seg, float)
            lo, hi = self.mid.min(axis=0), self.mid.max(axis=0)
            self._mids = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1])
        else:
            self.mid = np.empty((0, 2))
            self.seg = np.empty((0, 4))
            self.length = np.empty(0)
            self._mids = QRectF()
        self.update()

    def text(self, i: int) -> str:
        n = int(self.count[i])
        if self.single[i]:
            return f"{n} x {int(self.speed[i])}G" if n > 1 else f"{int(self.speed[i])}G"
        return f"{n:,}"

    def set_view_scale(self, lod: float) -> None:
        """Labels keep their screen size: far out, one is thousands of scene units wide, and a
        rect that did not reach that far cut them (",02" of "1,024")."""
        self.set_reach(LABEL_REACH_PX / max(lod, 1e-9))

    def set_reach(self, reach: float) -> None:
        if reach != self.reach:
            self.prepareGeometryChange()
            self.reach = reach

    def boundingRect(self) -> QRectF:
        if self._mids.isNull() and not len(self.mid):
            return QRectF()
        e = self.reach
        return self._mids.adjusted(-e, -e, e, e)

    def placed(self, t: QTransform, exposed: QRectF) -> list[tuple[str, QRectF]]:
        """The labels drawn for view transform ``t`` over ``exposed`` (scene): each text with
        its screen rect; biggest bundles first, each at the first of three places along its
        line that is clear of titles, boxes, devices and the labels placed before it."""
        if not len(self.count):
            return []
        lod = max(abs(t.m11()), 1e-12)
        # a label whose middle is just outside the exposed strip still reaches into it
        r = exposed.adjusted(-60 / lod, -12 / lod, 60 / lod, 12 / lod)
        m = self.mid
        inside = (
            (m[:, 0] >= r.left())
            & (m[:, 0] <= r.right())
            & (m[:, 1] >= r.top())
            & (m[:, 1] <= r.bottom())
            & (self.length * lod >= 70)
            & (self.count > 1)  # single cables say nothing a label would add
        )
        idx = np.flatnonzero(inside)
        if idx.size > 4 * MAX_LABELS or not idx.size:  # a dense view: labels would be noise
            return []
        idx = idx[np.argsort(-self.count[idx], kind="stable")][:MAX_LABELS]  # biggest first
        texts = [self.text(i) for i in idx.tolist()]
        w = 7.0 * np.array([len(x) for x in texts]) + 8
        seg = self.seg[idx]
        cand = np.empty((idx.size, len(LABEL_SPOTS), 4))
        for j, f in enumerate(LABEL_SPOTS):
            cx = (seg[:, 0] + f * (seg[:, 2] - seg[:, 0])) * t.m11() + t.dx()
            cy = (seg[:, 1] + f * (seg[:, 3] - seg[:, 1])) * t.m22() + t.dy()
            cand[:, j] = np.column_stack([cx - w / 2, cy - 8, w, np.full(idx.size, 16.0)])
        obstacles = self.obstacles(exposed, t) if self.obstacles else np.empty((0, 4))
        choice = place_labels(cand, obstacles)
        return [(texts[k], QRectF(*cand[k, choice[k]]))
                for k in np.flatnonzero(choice >= 0).tolist()]

    def paint(self, painter: QPainter, option, widget=None) -> None:
        lod = lod_of(painter)
        t = painter.worldTransform()
        inv, _ok = t.inverted()
        for text, rect in self.placed(t, option.exposedRect):
            centre = inv.map(rect.center())
            bw = rect.width()
            painter.save()
            painter.translate(centre)
            painter.scale(1 / lod, 1 / lod)
            painter.setPen(QPen(style.FRAME_OUTLINE, 1))
            painter.setBrush(style.CANVAS_BG)
            painter.drawRoundedRect(QRectF(-bw / 2, -8, bw, 16), 3, 3)
            painter.restore()
            draw_screen_text(
                painter,
                lod,
                centre,
                text,
                px=10,
                color=style.TEXT_MUTED,
                align=Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter,
            )


class EdgeHighlight(QGraphicsPathItem):
    """The selected or hovered line, drawn over the layers."""

    def __init__(self, color, width_px: float) -> None:
        super().__init__()
        pen = QPen(color, width_px)
        pen.setCosmetic(True)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        self.setZValue(Z_OVERLAY - 1)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def show_segment(self, seg: np.ndarray | None) -> None:
        path = QPainterPath()
        if seg is not None:
            path.moveTo(float(seg[0]), float(seg[1]))
            path.lineTo(float(seg[2]), float(seg[3]))
        self.setPath(path)


def nearest_segment(seg: np.ndarray, x: float, y: float, tolerance: float) -> int | None:
    """Index of the segment closest to (x, y) within ``tolerance`` (scene units), or None."""
    if not len(seg):
        return None
    x1, y1, x2, y2 = seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3]
    near = (
        (np.minimum(x1, x2) - tolerance <= x)
        & (x <= np.maximum(x1, x2) + tolerance)
        & (np.minimum(y1, y2) - tolerance <= y)
        & (y <= np.maximum(y1, y2) + tolerance)
    )
    idx = np.flatnonzero(near)
    if not idx.size:
        return None
    dx, dy = x2[idx] - x1[idx], y2[idx] - y1[idx]
    len2 = dx * dx + dy * dy
    t = np.clip(((x - x1[idx]) * dx + (y - y1[idx]) * dy) / np.where(len2 > 0, len2, 1), 0, 1)
    px, py = x1[idx] + t * dx, y1[idx] + t * dy
    d = np.hypot(px - x, py - y)
    best = int(np.argmin(d))
    return int(idx[best]) if d[best] <= tolerance else None
