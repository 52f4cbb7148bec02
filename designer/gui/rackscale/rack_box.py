"""A collapsed rack-scale domain drawn as its rack: compute trays above and below the band of
scale-up switch trays, as an NVL72 stands (10 trays, 9 NVLink switch trays, 8 trays), empty
slots where trays are missing. Drawn in scene units with the view scale (``lod``) so it keeps
its look from far out to close in."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen

from designer.core.catalog import Catalog, ServerSpec
from designer.core.errors import DesignerError
from designer.gui.base import style

CABINET = QColor("#39424e")
TRAY_FILL = QColor("#ffffff")
SWITCH_FILL, SWITCH_LINE = QColor("#e7e2f8"), QColor("#5a4aa6")
EMPTY = QColor("#c3cad3")


@dataclass(frozen=True)
class RackLook:
    system: str  # "NVIDIA GB200 NVL72"
    trays: int  # compute trays present
    expected: int  # compute trays the system has
    switch_trays: int
    fabric: str  # "NVLink 5"
    gpus: int

    @property
    def summary(self) -> str:
        short = f", {self.trays} of {self.expected} trays" if self.trays < self.expected else ""
        fab = f" · {self.fabric}" if self.fabric else ""
        return f"{self.system} · {self.gpus:,} GPUs{fab}{short}"


def rack_info(model: str, catalog: Catalog, trays: int, gpus: int) -> RackLook:
    try:
        spec = catalog.get(model)
    except DesignerError:
        spec = None
    if not isinstance(spec, ServerSpec) or spec.scale_up is None:
        return RackLook(model, trays, trays, 0, "", gpus)
    su = spec.scale_up
    return RackLook(spec.name.split(" (")[0], trays, su.servers, su.switch_trays, su.fabric, gpus)


def _pen(color: QColor, px: float, lod: float) -> QPen:
    pen = QPen(color, px / max(lod, 1e-6))
    pen.setCosmetic(False)
    return pen


def paint_rack(painter: QPainter, lod: float, r: QRectF, rack: RackLook, outline: QColor,
               emphasis: bool) -> None:
    """The cabinet in ``r`` (scene units): a slot per tray, the switch band in the middle."""
    painter.save()
    painter.setPen(_pen(outline if emphasis else CABINET, 2.5 if emphasis else 1.6, lod))
    painter.setBrush(QBrush(QColor("#4a5563")))
    radius = min(4 / lod, r.width() / 8)
    painter.drawRoundedRect(r, radius, radius)
    pad = min(4 / lod, r.width() / 10)
    inner = r.adjusted(pad, pad, -pad, -pad)
    slots = max(rack.expected, 1) + rack.switch_trays
    slot_h = inner.height() / slots
    upper = (rack.expected + 1) // 2 + (1 if rack.expected % 2 == 0 else 0)
    upper = min(upper, rack.expected)
    gap = min(slot_h * 0.25, 1.2 / lod)
    y = inner.top()
    kinds = (["tray"] * upper + ["switch"] * rack.switch_trays
             + ["tray"] * (rack.expected - upper))
    filled = 0
    for kind in kinds:
        cell = QRectF(inner.left(), y + gap / 2, inner.width(), slot_h - gap)
        if kind == "switch":
            painter.fillRect(cell, SWITCH_LINE if slot_h * lod < 3 else SWITCH_FILL)
        else:
            filled += 1
            present = filled <= rack.trays
            painter.fillRect(cell, TRAY_FILL if present else EMPTY)
            if present and slot_h * lod >= 3:
                # the tray's four GPUs as ticks
                painter.fillRect(QRectF(cell.left() + cell.width() * 0.08, cell.top(),
                                        cell.width() * 0.04, cell.height()),
                                 style.TECH_COLORS.get("eth", QColor("#888888")))
        y += slot_h
    # the switch band's label, when the rack is big enough on screen
    band_top = inner.top() + upper * slot_h
    band = QRectF(inner.left(), band_top, inner.width(), rack.switch_trays * slot_h)
    if rack.switch_trays and band.height() * lod >= 16 and band.width() * lod >= 40:
        painter.setPen(_pen(SWITCH_LINE, 1, lod))
        font = QFont(style.ui_font(8.5))
        font.setPointSizeF(max(1.0, 8.5 / lod))
        painter.setFont(font)
        painter.drawText(band, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                         f"{rack.switch_trays} switch trays")
    painter.restore()
