"""The palette: catalog gear grouped by technology, searchable, dragged onto the canvas.

A server appears under every technology its NICs can run (a DGX H100's ConnectX-7 runs
InfiniBand NDR or 400G Ethernet), so each section lists what can be wired together.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QDrag, QFontMetrics, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.catalog import Catalog, ServerSpec, SwitchSpec
from designer.gui.base import style
from designer.gui.canvas.interactions import gear_mime

GEAR_ROLE = Qt.ItemDataRole.UserRole
SUBTITLE_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2

SECTIONS = (
    ("ib-ndr", "InfiniBand NDR · 400G"),
    ("ib-xdr", "InfiniBand XDR · 800G"),
    ("eth", "Ethernet (RoCE) · 400G / 800G"),
)


def _modes_text(spec) -> str:
    return " or ".join(f"{m.ports} x {m.speed_gbps}G" for m in _distinct_modes(spec.modes))


def _distinct_modes(modes):
    seen, out = set(), []
    for m in modes:
        if (m.ports, m.speed_gbps) not in seen:
            seen.add((m.ports, m.speed_gbps))
            out.append(m)
    return out


def gear_icon(role: str, tech: str | None) -> QIcon:
    pm = QPixmap(30, 22)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    fill, line = style.ROLE_COLORS[role]
    w = 18 if role in ("gpu-server", "appliance") else 26
    x = (30 - w) // 2
    p.setPen(QPen(line, 1.2))
    p.setBrush(QBrush(fill))
    p.drawRoundedRect(x, 5, w, 12, 2, 2)
    p.fillRect(x + 1, 6, 3, 10, style.TECH_COLORS.get(tech or "", style.UNKNOWN_TECH))
    p.end()
    return QIcon(pm)


NAME_LINES = 3  # a gear name wraps onto at most this many lines


def wrapped_name(name: str, fm, width: int, lines: int = NAME_LINES) -> list[str]:
    """``name`` broken at spaces into lines that fit ``width`` (a word longer than the
    width is cut at its end, and so is a last line that still does not fit): names are
    never cut at the front or in the middle, where the model number sits."""
    out: list[str] = []
    words = name.split()
    while words and len(out) < lines:
        line = words.pop(0)
        while words and fm.horizontalAdvance(f"{line} {words[0]}") <= width:
            line = f"{line} {words.pop(0)}"
        out.append(line)
    if words:  # more than the lines hold: the last line ends in an ellipsis
        out[-1] = f"{out[-1]} {' '.join(words)}"
    return [fm.elidedText(x, Qt.TextElideMode.ElideRight, width) for x in out] or [""]


class _TwoLineDelegate(QStyledItemDelegate):
    """Gear name (wrapped, never cut at the front) with its ports or GPUs underneath, in a
    muted smaller font."""

    def _text_width(self, option: QStyleOptionViewItem, index: QModelIndex) -> int:
        view = option.widget
        indent = view.indentation() * (2 if index.parent().isValid() else 1) if view else 24
        full = view.viewport().width() if view is not None else option.rect.width()
        icon_w = option.decorationSize.width() + 8
        return max(40, full - indent - icon_w - 12)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        base = super().sizeHint(option, index)
        if not index.data(SUBTITLE_ROLE):
            return QSize(base.width(), max(base.height(), 24))
        fm = QFontMetrics(style.ui_font(9.0))
        sub = QFontMetrics(style.ui_font(8.0))
        lines = wrapped_name(str(index.data()), fm, self._text_width(option, index))
        return QSize(base.width(), 8 + len(lines) * fm.lineSpacing() + sub.lineSpacing())

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        subtitle = index.data(SUBTITLE_ROLE)
        if not subtitle:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        widget = opt.widget
        st = widget.style() if widget else None
        if st:
            st.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        r = opt.rect
        icon_w = opt.decorationSize.width() + 8
        width = self._text_width(option, index)
        x, y = r.left() + icon_w + 4, r.top() + 4
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        painter.save()
        painter.setPen(opt.palette.highlightedText().color() if selected else style.TEXT)
        painter.setFont(style.ui_font(9.0))
        fm = painter.fontMetrics()
        for line in wrapped_name(text, fm, width):
            painter.drawText(QRect(x, y, width, fm.lineSpacing()),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
            y += fm.lineSpacing()
        painter.setFont(style.ui_font(8.0))
        painter.setPen(QColor("#e6eefb") if selected else style.TEXT_MUTED)
        fm = painter.fontMetrics()
        painter.drawText(QRect(x, y, width, fm.lineSpacing()),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         fm.elidedText(subtitle, Qt.TextElideMode.ElideRight, width))
        painter.restore()


class _GearTree(QTreeWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setHeaderHidden(True)
        self.setRootIsDecorated(True)
        self.setIndentation(12)
        self.setIconSize(QSize(30, 22))
        self.setDragEnabled(True)
        self.setDragDropMode(QTreeWidget.DragDropMode.DragOnly)
        self.setUniformRowHeights(False)
        self.setItemDelegate(_TwoLineDelegate(self))
        self.setAnimated(True)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # names wrap to the width: rows are measured again when it changes
        if event.size().width() != event.oldSize().width():
            self.scheduleDelayedItemsLayout()

    def startDrag(self, actions) -> None:
        item = self.currentItem()
        gear = item.data(0, GEAR_ROLE) if item else None
        if not gear:
            return
        drag = QDrag(self)
        drag.setMimeData(gear_mime(gear))
        icon = item.icon(0)
        if not icon.isNull():
            drag.setPixmap(icon.pixmap(30, 22))
            drag.setHotSpot(QPoint(15, 11))
        drag.exec(Qt.DropAction.CopyAction)


class PalettePanel(QWidget):
    """Search box over a tree of gear; emits ``gearActivated`` on double-click or Enter."""

    gearActivated = Signal(str)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Search gear (name, ports, id)…")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Filter the palette; Ctrl+F puts the cursor here")
        self.tree = _GearTree()
        self.tree.setToolTip(
            "Drag gear onto the canvas to add it where you drop it; double-click adds it in "
            "the middle of the view"
        )
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.search)
        lay.addWidget(self.tree)
        self.search.textChanged.connect(self._filter)
        self.tree.itemActivated.connect(self._activated)
        self.set_catalog(catalog)

    def set_catalog(self, catalog: Catalog) -> None:
        self.tree.clear()
        for tech, title in SECTIONS:
            section = self._section(title)
            for spec in catalog.of_kind("switch"):
                if isinstance(spec, SwitchSpec) and tech in spec.techs:
                    role = "spine" if spec.modular else "leaf"
                    self._add(section, spec.id, spec.name, _modes_text(spec), role, tech, spec)
            for spec in catalog.of_kind("server"):
                if isinstance(spec, ServerSpec) and spec.gpus:
                    nic = catalog.nic(spec.nic)
                    modes = [m for m in nic.modes if tech in m.techs]
                    if not modes:
                        continue
                    m = modes[0]
                    sub = f"{spec.gpus} GPUs · {spec.nics * m.ports} x {m.speed_gbps}G ({nic.name})"
                    self._add(section, spec.id, spec.name, sub, "gpu-server", tech, spec)
        section = self._section("Management appliances")
        for spec in catalog.of_kind("server"):
            if isinstance(spec, ServerSpec) and not spec.gpus:
                nic = catalog.nic(spec.nic)
                m = nic.modes[0]
                sub = f"{spec.nics * m.ports} x {m.speed_gbps}G fabric ports"
                self._add(section, spec.id, spec.name, sub, "appliance", None, spec)
        self.tree.expandAll()
        self._filter(self.search.text())

    def _section(self, title: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([title])
        font = style.ui_font(9.0, bold=True)
        item.setFont(0, font)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        item.setForeground(0, QBrush(style.TEXT_MUTED))
        self.tree.addTopLevelItem(item)
        return item

    def _add(self, section, gear_id, name, subtitle, role, tech, spec) -> None:
        item = QTreeWidgetItem([name])
        item.setData(0, GEAR_ROLE, gear_id)
        item.setData(0, SUBTITLE_ROLE, subtitle)
        item.setData(0, SEARCH_ROLE, f"{name} {subtitle} {gear_id} {spec.vendor}".lower())
        item.setIcon(0, gear_icon(role, tech))
        price = f"${spec.price_usd:,.0f} (estimate)" if spec.price_usd else ""
        power = f"{spec.power_w:,.0f} W" if spec.power_w else ""
        extra = " · ".join(x for x in (price, power) if x)
        item.setToolTip(
            0,
            f"<b>{name}</b><br>{subtitle}<br>id: {gear_id}<br>{extra}"
            "<br><i>Drag onto the canvas</i>",
        )
        item.setFlags(
            Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled
        )
        section.addChild(item)

    def _filter(self, text: str) -> None:
        words = text.lower().split()
        for s in range(self.tree.topLevelItemCount()):
            section = self.tree.topLevelItem(s)
            visible = 0
            for c in range(section.childCount()):
                child = section.child(c)
                hay = child.data(0, SEARCH_ROLE) or ""
                show = all(w in hay for w in words)
                child.setHidden(not show)
                visible += show
            section.setHidden(visible == 0)

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        gear = item.data(0, GEAR_ROLE)
        if gear:
            self.gearActivated.emit(gear)

    def visible_gear(self) -> list[str]:
        out = []
        for s in range(self.tree.topLevelItemCount()):
            section = self.tree.topLevelItem(s)
            if section.isHidden():
                continue
            for c in range(section.childCount()):
                child = section.child(c)
                if not child.isHidden():
                    out.append(child.data(0, GEAR_ROLE))
        return out
