"""Small toolbar icons drawn with QPainter (crisp at any scale, no image files to ship)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF

INK = QColor("#3c4654")
ACCENT = QColor("#2f74c0")


def _icon(draw: Callable[[QPainter], None], size: int = 20) -> QIcon:
    icon = QIcon()
    for scale in (1, 2):
        pm = QPixmap(size * scale, size * scale)
        pm.fill(Qt.GlobalColor.transparent)
        p = QPainter(pm)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.scale(scale, scale)
        draw(p)
        p.end()
        pm.setDevicePixelRatio(scale)
        icon.addPixmap(pm)
    return icon


def _pen(p: QPainter, color: QColor = INK, width: float = 1.6) -> None:
    pen = QPen(color, width)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)


def pointer() -> QIcon:
    def draw(p: QPainter) -> None:
        _pen(p)
        p.setBrush(QColor("#ffffff"))
        poly = QPolygonF(
            [
                QPointF(5, 3),
                QPointF(15, 11),
                QPointF(10.5, 11.8),
                QPointF(13, 17),
                QPointF(11, 18),
                QPointF(8.5, 12.5),
                QPointF(5, 15.5),
            ]
        )
        p.drawPolygon(poly)

    return _icon(draw)


def link() -> QIcon:
    def draw(p: QPainter) -> None:
        _pen(p)
        p.setBrush(QColor("#e3effb"))
        p.drawRoundedRect(QRectF(2, 3, 8, 5), 1.5, 1.5)
        p.drawRoundedRect(QRectF(10, 12, 8, 5), 1.5, 1.5)
        _pen(p, ACCENT, 1.8)
        p.drawLine(QPointF(7, 8), QPointF(13, 12))

    return _icon(draw)


def zoom(sign: str) -> QIcon:
    def draw(p: QPainter) -> None:
        _pen(p)
        p.drawEllipse(QRectF(3, 3, 10, 10))
        p.drawLine(QPointF(11.5, 11.5), QPointF(17, 17))
        p.drawLine(QPointF(5.5, 8), QPointF(10.5, 8))
        if sign == "+":
            p.drawLine(QPointF(8, 5.5), QPointF(8, 10.5))

    return _icon(draw)


def fit() -> QIcon:
    def draw(p: QPainter) -> None:
        _pen(p)
        for x, y, dx, dy in ((3, 3, 1, 1), (17, 3, -1, 1), (3, 17, 1, -1), (17, 17, -1, -1)):
            p.drawLine(QPointF(x, y), QPointF(x + 4 * dx, y))
            p.drawLine(QPointF(x, y), QPointF(x, y + 4 * dy))
        p.setBrush(QColor("#e3effb"))
        p.drawRect(QRectF(7, 7, 6, 6))

    return _icon(draw)


def _box_sign(plus: bool) -> QIcon:
    """A group box with a plus (expand) or a minus (collapse)."""

    def draw(p: QPainter) -> None:
        _pen(p)
        p.setBrush(QColor("#eef1f5"))
        p.drawRoundedRect(QRectF(2.5, 2.5, 15, 15), 2, 2)
        _pen(p, ACCENT)
        p.drawLine(QPointF(6, 10), QPointF(14, 10))
        if plus:
            p.drawLine(QPointF(10, 6), QPointF(10, 14))

    return _icon(draw)


def expand() -> QIcon:
    return _box_sign(plus=True)


def collapse() -> QIcon:
    return _box_sign(plus=False)


def generate() -> QIcon:
    def draw(p: QPainter) -> None:
        _pen(p, INK, 1.3)
        p.setBrush(QColor("#ebe7fa"))
        p.drawRect(QRectF(7, 2.5, 6, 3.5))
        p.setBrush(QColor("#e3effb"))
        p.drawRect(QRectF(2.5, 9, 6, 3.5))
        p.drawRect(QRectF(11.5, 9, 6, 3.5))
        p.setBrush(QColor("#ffffff"))
        for x in (2.5, 7.5, 12.5):
            p.drawRect(QRectF(x, 15.5, 4.5, 2.5))
        _pen(p, ACCENT, 1.1)
        p.drawLine(QPointF(10, 6), QPointF(5.5, 9))
        p.drawLine(QPointF(10, 6), QPointF(14.5, 9))

    return _icon(draw)


def arrow(left: bool) -> QIcon:
    def draw(p: QPainter) -> None:
        _pen(p, INK, 1.7)
        path = QPainterPath()
        if left:
            path.moveTo(15, 14)
            path.cubicTo(15, 7, 11, 6, 5, 7)
            p.drawPath(path)
            p.drawLine(QPointF(5, 7), QPointF(8.5, 3.8))
            p.drawLine(QPointF(5, 7), QPointF(8.5, 10.2))
        else:
            path.moveTo(5, 14)
            path.cubicTo(5, 7, 9, 6, 15, 7)
            p.drawPath(path)
            p.drawLine(QPointF(15, 7), QPointF(11.5, 3.8))
            p.drawLine(QPointF(15, 7), QPointF(11.5, 10.2))

    return _icon(draw)


def app_icon() -> QIcon:
    def draw(p: QPainter) -> None:
        _pen(p, QColor("#2d6da3"), 1.2)
        p.setBrush(QColor("#ebe7fa"))
        p.drawRoundedRect(QRectF(10, 3, 12, 6), 1.5, 1.5)
        p.setBrush(QColor("#e3effb"))
        p.drawRoundedRect(QRectF(2, 14, 12, 6), 1.5, 1.5)
        p.drawRoundedRect(QRectF(18, 14, 12, 6), 1.5, 1.5)
        p.setBrush(QColor("#ffffff"))
        for x in (2, 11.5, 21):
            p.drawRoundedRect(QRectF(x, 25, 9, 4.5), 1, 1)
        _pen(p, QColor("#76b900"), 1.4)
        p.drawLine(QPointF(16, 9), QPointF(8, 14))
        p.drawLine(QPointF(16, 9), QPointF(24, 14))
        p.drawLine(QPointF(8, 20), QPointF(6.5, 25))
        p.drawLine(QPointF(24, 20), QPointF(25.5, 25))
        p.drawLine(QPointF(8, 20), QPointF(16, 25))

    return _icon(draw, 32)
