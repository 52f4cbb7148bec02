"""Canvas items: views only. They draw what the scene tells them and know no document.

Text is drawn at a constant screen size (scaled by the level of detail), so labels stay
readable when zoomed out and vanish when there is no room; far out, a device is one filled
rectangle, which keeps thousands of them cheap to paint.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem

from designer.core.model import Role
from designer.gui.base import style
from designer.gui.rackscale.rack_box import RackLook, paint_rack

DEVICE_H = 28.0
SERVER_SIZE = (50.0, DEVICE_H)
SWITCH_SIZE = (84.0, DEVICE_H)
ROUTER_SIZE = (74.0, DEVICE_H)
HANDLE_R = 5.0
# lines, then their count labels, then frames (tabs stay readable), boxes and devices on top
Z_EDGES, Z_LABELS, Z_FRAME, Z_BOX, Z_DEVICE, Z_OVERLAY = -10, -9, -8, 0, 5, 20
BOX_MIN_PAD_PX = 4.0  # a collapsed box keeps this much room around its bars on screen
BAR_MIN_PX = 6.0  # and its tier bars stay this tall

_PREFIX = re.compile(r"^(?:p\d+|su\d+|pod\d+|g\d+|rack\d+)-")


def device_size(role: str) -> tuple[float, float]:
    if role in (Role.GPU_SERVER.value, Role.APPLIANCE.value):
        return SERVER_SIZE
    if role == Role.ROUTER.value:
        return ROUTER_SIZE
    return SWITCH_SIZE


def half_widths(roles: np.ndarray) -> np.ndarray:
    """Half the drawn width of each device of ``roles`` (``device_size`` over an array)."""
    w = np.full(roles.shape, SWITCH_SIZE[0] / 2)
    w[np.isin(roles, (Role.GPU_SERVER.value, Role.APPLIANCE.value))] = SERVER_SIZE[0] / 2
    w[roles == Role.ROUTER.value] = ROUTER_SIZE[0] / 2
    return w


def tiny_label(label: str) -> str:
    """ "node01" -> "01", "leaf-r3" -> "r3": what still fits a device drawn small."""
    if "-" in label:
        return label.rsplit("-", 1)[-1]
    m = re.search(r"\d+$", label)
    return m.group(0) if m else label


def short_label(name: str) -> str:
    """ "p1-su3-leaf-r2" -> "leaf-r2": the frame around the device already says the rest."""
    out = name
    while True:
        m = _PREFIX.match(out)
        if not m or len(out) == m.end():
            return out
        out = out[m.end() :]


def _font(px: float, bold: bool = False) -> QFont:
    # cached per whole pixel size: text scales with the zoom, and a cache keyed on the exact
    # size would grow with every zoom step
    return _font_of(max(1, round(px)), bold)


def text_metrics(px: float, bold: bool = False) -> QFontMetricsF:
    return _metrics_of(max(1, round(px)), bold)


@functools.cache
def _font_of(px: int, bold: bool) -> QFont:
    f = QFont(style.ui_font())
    f.setPixelSize(px)
    f.setBold(bold)
    return f


@functools.cache
def _metrics_of(px: int, bold: bool) -> QFontMetricsF:
    return QFontMetricsF(_font_of(px, bold))


def _cpen(color: QColor, width_px: float) -> QPen:
    """A cosmetic pen: its width is in screen pixels, and it strokes fast at any zoom."""
    pen = QPen(color, width_px)
    pen.setCosmetic(True)
    return pen


def lod_of(painter: QPainter) -> float:
    return QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())


SEGMENT = " · "


def fit_text(text: str, fm, width: float) -> str:
    """``text`` within ``width`` pixels: a label of parts ("1,024 GPUs · 128 GPU servers ·
    32 leaves") keeps as many whole parts as fit, never half a word ("128 GP…"); a single
    part that does not fit is cut at its end."""
    if fm.horizontalAdvance(text) <= width:
        return text
    parts = text.split(SEGMENT)
    while len(parts) > 1:
        parts.pop()
        if fm.horizontalAdvance(SEGMENT.join(parts)) <= width:
            return SEGMENT.join(parts)
    return fm.elidedText(parts[0], Qt.TextElideMode.ElideRight, int(width))


def draw_screen_text(
    painter: QPainter,
    lod: float,
    anchor: QPointF,
    text: str,
    px: float = 11.0,
    color: QColor = style.TEXT,
    bold: bool = False,
    align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
    max_width_px: float | None = None,
) -> float:
    """Draw ``text`` at ``anchor`` (scene units) in a ``px`` pixel font; returns its width."""
    painter.save()
    painter.translate(anchor)
    painter.scale(1.0 / lod, 1.0 / lod)
    painter.setFont(_font(px, bold))
    painter.setPen(color)
    fm = text_metrics(px, bold)
    if max_width_px is not None:
        text = fit_text(text, fm, max_width_px)
    w = fm.horizontalAdvance(text)
    h = fm.height()
    x = 0.0
    if align & Qt.AlignmentFlag.AlignHCenter:
        x = -w / 2
    elif align & Qt.AlignmentFlag.AlignRight:
        x = -w
    y = 0.0
    if align & Qt.AlignmentFlag.AlignVCenter:
        y = -h / 2
    elif align & Qt.AlignmentFlag.AlignBottom:
        y = -h
    painter.drawText(QRectF(x, y, w + 2, h), Qt.AlignmentFlag.AlignLeft, text)
    painter.restore()
    return w


class _Hover:
    """Mixin of an item that redraws itself when the mouse enters or leaves it (``_hover``)."""

    _hover = False

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self.update()


class _ScreenTab:
    """Mixin of a group item whose title tab keeps its screen size: the scene passes the view
    scale, and the tab (``_layout_tab``) is laid out again when it changes."""

    _lod = 1.0
    tab_shown = True  # False: another title took the place (the scene declutters them)

    def set_view_scale(self, lod: float) -> None:
        if abs(lod - self._lod) > 1e-9:
            self.prepareGeometryChange()
            self._lod = lod
            self._layout_tab()

    def _layout_tab(self) -> None:
        self._tab = self._laid_tab()

    def _laid_tab(self) -> QRectF:
        """The tab where its group puts it at this zoom (item coordinates)."""
        raise NotImplementedError

    def _body_bounds(self) -> QRectF:
        """The item's bounds without its tab (item coordinates)."""
        raise NotImplementedError

    def boundingRect(self) -> QRectF:
        return self._body_bounds().united(self._tab)

    def tab_scene_rect(self) -> QRectF:
        """Where the title tab is, in scene coordinates."""
        return self._tab.translated(self.pos())

    def laid_tab_scene_rect(self) -> QRectF:
        """Where its group puts the tab, in scene coordinates, before the scene declutters."""
        return self._laid_tab().translated(self.pos())

    def tab_right_limit(self) -> float:
        """How far right (scene x) the tab may slide: the end of its group."""
        return self._body_bounds().united(self._laid_tab()).translated(self.pos()).right()

    def set_tab_place(self, dx: float, width: float, shown: bool) -> None:
        """The tab ``dx`` scene units right of where its group puts it (``width`` wide:
        narrower cuts its text), or hidden. Nothing is redrawn if that is where it is."""
        laid = self._laid_tab()
        tab = QRectF(laid.left() + dx, laid.top(), width, laid.height())
        if tab != self._tab or shown != self.tab_shown:
            self.prepareGeometryChange()
            self._tab = tab
            self.tab_shown = shown
            self.update()


@dataclass
class DeviceLook:
    """What a device item shows; the scene fills it from the project and catalog."""

    device_id: str
    label: str
    role: str
    tech: str | None
    subtitle: str = ""


class DeviceItem(_Hover, QGraphicsItem):
    """One switch, server or appliance, centred on its (x, y)."""

    kind = "device"

    def __init__(self, look: DeviceLook) -> None:
        super().__init__()
        self.look = look
        self.device_id = look.device_id
        self._w, self._h = device_size(look.role)
        self._cache_rects()
        self.link_target: bool | None = None  # None, True (can link), False (refused)
        self.mark: str | None = None  # a problem's severity, drawn as a ring
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(Z_DEVICE)

    def set_look(self, look: DeviceLook) -> None:
        if look != self.look:
            size = device_size(look.role)
            if size != (self._w, self._h):
                self.prepareGeometryChange()
                self._w, self._h = size
                self._cache_rects()
            self.look = look
            self.update()

    def body(self) -> QRectF:
        return QRectF(self._body)

    def _cache_rects(self) -> None:
        self._body = QRectF(-self._w / 2, -self._h / 2, self._w, self._h)
        self._bounds = self._body.adjusted(-4, -4, 4 + HANDLE_R, 4)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.body().adjusted(-2, -2, 2 + HANDLE_R, 2))
        return path

    def handle_center(self) -> QPointF:
        return QPointF(self._w / 2, 0.0)

    def on_handle(self, local: QPointF, lod: float) -> bool:
        """Whether a press at ``local`` grabs the connect handle (right edge, on hover)."""
        r = max(HANDLE_R, 6.0 / max(lod, 1e-6))
        d = local - self.handle_center()
        return d.x() * d.x() + d.y() * d.y() <= r * r

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = lod_of(painter)
        fill, outline = style.ROLE_COLORS.get(self.look.role, style.ROLE_COLORS["leaf"])
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        body = self._body
        if lod < 0.12:  # a few pixels: one rectangle, no pen, no text
            painter.fillRect(body, style.SELECTION if selected else outline)
            return
        pen = QPen(outline, 0)
        painter.setPen(pen)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(body, 3, 3)
        tech = style.TECH_COLORS.get(self.look.tech or "", style.UNKNOWN_TECH)
        painter.fillRect(QRectF(body.left() + 0.5, body.top() + 0.5, 4, body.height() - 1), tech)
        if lod * self._h >= 12:
            px = min(11.0, max(8.0, 9.0 * lod))
            room = (self._w - 10) * lod
            label = self.look.label
            if text_metrics(px).horizontalAdvance(label) > room:
                label = tiny_label(label)
            draw_screen_text(
                painter,
                lod,
                QPointF(body.left() + 7, body.center().y()),
                label,
                px=px,
                color=style.TEXT,
                align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                max_width_px=(self._w - 10) * lod,
            )
        if self.mark is not None:
            painter.setPen(_cpen(style.MARK_COLORS.get(self.mark, style.ERROR), 2.0))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(body.adjusted(-4, -4, 4, 4), 5, 5)
        if self.link_target is not None:
            color = style.OK if self.link_target else style.ERROR
            painter.setPen(_cpen(color, 2.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(body.adjusted(-2, -2, 2, 2), 4, 4)
        elif selected:
            painter.setPen(_cpen(style.SELECTION, 2.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(body.adjusted(-2, -2, 2, 2), 4, 4)
        elif self._hover:
            painter.setPen(_cpen(style.HOVER, 1.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(body.adjusted(-1.5, -1.5, 1.5, 1.5), 4, 4)
        if self._hover and lod > 0.35:
            painter.setPen(_cpen(style.HOVER, 1.2))
            painter.setBrush(QBrush(QColor("#ffffff")))
            painter.drawEllipse(self.handle_center(), HANDLE_R, HANDLE_R)


@dataclass
class TierBar:
    """One row of a collapsed group: its devices of one role, where they sit."""

    role: str
    count: int
    rect: QRectF  # in the box's coordinates
    label: str = ""  # what the bar says (default: its count and role)


@dataclass
class BoxLook:
    key: str
    title: str
    summary: str
    bars: list[TierBar]
    tech: str | None
    rack: RackLook | None = None  # a rack-scale domain: drawn as its rack


class GroupBoxItem(_Hover, _ScreenTab, QGraphicsItem):
    """A collapsed group: one box over where its members are, a bar per tier inside, and a
    title tab above it (kept at screen size: the scene passes the view scale)."""

    kind = "box"
    TAB_PX = 20.0

    def __init__(self, look: BoxLook, rect: QRectF) -> None:
        super().__init__()
        self.key = look.key
        self.look = look
        self._rect = QRectF(0, 0, rect.width(), rect.height())
        self._tab = QRectF()
        self.setPos(rect.topLeft())
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(Z_BOX)
        self.mark: str | None = None  # the worst problem among its members
        self._text_w: tuple[tuple[str, str], float] | None = None
        self._layout_tab()

    def set_geometry(self, look: BoxLook, rect: QRectF) -> bool:
        """Show ``look`` over ``rect`` (scene); False if that is what it shows already (an
        edit elsewhere in a large design leaves most boxes as they are: nothing to redraw)."""
        local = QRectF(0, 0, rect.width(), rect.height())
        if local == self._rect and look == self.look and rect.topLeft() == self.pos():
            return False
        if (
            local != self._rect
            or look.title != self.look.title
            or look.summary != self.look.summary
        ):
            self.prepareGeometryChange()
            self._rect = local
            self.look = look
            self._layout_tab()
        self.look = look
        self.setPos(rect.topLeft())
        self.update()
        return True

    def _extra(self) -> float:
        """Scene units added around the box so it keeps some height on screen when far out."""
        return max(0.0, BOX_MIN_PAD_PX / self._lod - 26.0)

    def _drawn(self) -> QRectF:
        e = self._extra()
        return self._rect.adjusted(-e, -e, e, e)

    def _laid_tab(self) -> QRectF:
        texts = (self.look.title, self.look.summary)
        if self._text_w is None or self._text_w[0] != texts:  # font metrics: once per text
            title_w = text_metrics(12, True).horizontalAdvance("▸ " + texts[0])
            self._text_w = (texts, title_w + text_metrics(10.5).horizontalAdvance(texts[1]))
        lod = self._lod
        drawn = self._drawn()
        width = min((self._text_w[1] + 34) / lod, drawn.width())
        h = self.TAB_PX / lod
        return QRectF(drawn.left(), drawn.top() - h, width, h)

    def scene_rect(self) -> QRectF:
        return self._rect.translated(self.pos())

    def _body_bounds(self) -> QRectF:
        e = self._extra() + 3
        return self._rect.adjusted(-e, -e, e, e)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self._drawn())
        path.addRect(self._tab)
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = lod_of(painter)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        r = self._drawn()
        outline = (
            style.SELECTION if selected else (style.HOVER if self._hover else style.BOX_OUTLINE)
        )
        radius = min(6 / lod, r.height() / 4, r.width() / 4)
        if self.mark is not None and not selected:
            outline = style.MARK_COLORS.get(self.mark, style.ERROR)
        if self.look.rack is not None:
            paint_rack(painter, lod, r, self.look.rack, outline,
                       selected or self.mark is not None or self._hover)
            self._paint_tab(painter, lod, selected, outline)
            return
        painter.setPen(_cpen(outline, 2.5 if selected or self.mark else 1.2))
        painter.setBrush(QBrush(style.BOX_FILL))
        painter.drawRoundedRect(r, radius, radius)
        tech = style.TECH_COLORS.get(self.look.tech or "", None)
        if tech is not None and r.height() * lod > 12:
            painter.fillRect(
                QRectF(r.left() + 1 / lod, r.top() + radius, 4 / lod, r.height() - 2 * radius), tech
            )
        for bar in self.look.bars:
            fill, line = style.ROLE_COLORS.get(bar.role, style.ROLE_COLORS["leaf"])
            rect = bar.rect
            grow = (BAR_MIN_PX / lod - rect.height()) / 2
            if grow > 0:
                rect = rect.adjusted(0, -grow, 0, grow)
            if rect.height() * lod < 9:  # a thin stripe on screen: no outline, no text
                painter.fillRect(rect, line)
                continue
            painter.setPen(_cpen(line, 1))
            painter.setBrush(QBrush(fill))
            br = min(3 / lod, rect.height() / 3)
            painter.drawRoundedRect(rect, br, br)
            if rect.height() * lod >= 13 and rect.width() * lod >= 60:
                draw_screen_text(
                    painter,
                    lod,
                    QPointF(rect.left() + 6 / lod, rect.center().y()),
                    bar.label or f"{bar.count:,} {_role_word(bar.role, bar.count)}",
                    px=10.5,
                    color=style.TEXT,
                    align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                    max_width_px=rect.width() * lod - 10,
                )
        self._paint_tab(painter, lod, selected, outline)

    def _paint_tab(self, painter: QPainter, lod: float, selected: bool, outline) -> None:
        tab = self._tab
        if tab.width() * lod < 36 or not self.tab_shown:  # no room: the tooltip has it
            return
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(outline if selected else QColor("#dfe5ec")))
        painter.drawRoundedRect(tab, 4 / lod, 4 / lod)
        w = draw_screen_text(
            painter,
            lod,
            QPointF(tab.left() + 7 / lod, tab.center().y()),
            "▸ " + self.look.title,
            px=12,
            bold=True,
            align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            max_width_px=tab.width() * lod - 10,
        )
        room = tab.width() * lod - w - 24
        if room > 40:
            draw_screen_text(
                painter,
                lod,
                QPointF(tab.left() + (w + 17) / lod, tab.center().y()),
                self.look.summary,
                px=10.5,
                color=style.TEXT_MUTED,
                align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                max_width_px=room,
            )


_ROLE_WORDS = {
    Role.GPU_SERVER.value: ("GPU server", "GPU servers"),
    Role.APPLIANCE.value: ("appliance", "appliances"),
    Role.LEAF.value: ("leaf", "leaves"),
    Role.SPINE.value: ("spine", "spines"),
    Role.CORE.value: ("core switch", "core switches"),
    Role.ROUTER.value: ("router", "routers"),
}


def _role_word(role: str, n: int) -> str:
    one, many = _ROLE_WORDS.get(role, (role, role + "s"))
    return one if n == 1 else many


def role_count_text(counts: dict[str, int]) -> str:
    order = [r.value for r in Role]
    return " · ".join(f"{counts[r]:,} {_role_word(r, counts[r])}" for r in order if counts.get(r))


class GroupFrameItem(_ScreenTab, QGraphicsItem):
    """An expanded group: a light frame around its members with a title tab above it.

    Only the tab takes the mouse (double-click collapses), so a rubber band can start
    anywhere inside the frame. The tab keeps its screen size: the scene passes the view
    scale in ``set_view_scale``.
    """

    kind = "frame"
    TAB_PX = 18.0

    def __init__(self, key: str, title: str, rect: QRectF, depth: int) -> None:
        super().__init__()
        self.key = key
        self.title = title
        self.depth = depth
        self._rect = QRectF(rect)
        self._tab = QRectF()
        self._title_w: tuple[str, float] | None = None
        self.setZValue(Z_FRAME + 0.1 * depth)
        self._layout_tab()

    def set_geometry(self, title: str, rect: QRectF) -> bool:
        """Frame ``rect`` under ``title``; False if it does already (nothing to redraw)."""
        if rect == self._rect and title == self.title:
            return False
        self.prepareGeometryChange()
        self._rect = QRectF(rect)
        self.title = title
        self._layout_tab()
        self.update()
        return True

    def _laid_tab(self) -> QRectF:
        if self._title_w is None or self._title_w[0] != self.title:
            self._title_w = (self.title,
                             text_metrics(11, True).horizontalAdvance("▾ " + self.title) + 14)
        lod = self._lod
        width = min(self._title_w[1] / lod, self._rect.width())
        h = self.TAB_PX / lod
        return QRectF(self._rect.left(), self._rect.top() - h, width, h)

    def frame_rect(self) -> QRectF:
        return QRectF(self._rect)

    def _body_bounds(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self._tab)
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = lod_of(painter)
        r = self._rect
        pen = _cpen(style.FRAME_OUTLINE, 1.0)
        pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(r, 8 / lod, 8 / lod)
        if r.width() * lod < 40 or not self.tab_shown:
            return
        tab = self._tab
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(QColor("#e2e7ee")))
        painter.drawRoundedRect(tab, 4 / lod, 4 / lod)
        draw_screen_text(
            painter,
            lod,
            QPointF(tab.left() + 6 / lod, tab.center().y()),
            "▾ " + self.title,
            px=11,
            bold=True,
            color=style.TEXT_MUTED,
            align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            max_width_px=tab.width() * lod - 8,
        )
