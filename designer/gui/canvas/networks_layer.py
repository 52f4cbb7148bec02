"""The other networks on the canvas and the layer switch that shows one network or all.

Each extra network is a band under the back-end (``core.networks.drawing``): its switches as
small boxes in rows by tier and one line per link. The layer switch hides what is not the
chosen network: the back-end's links always, its switches too for the front-end and storage
(the management network reaches them, so its view keeps them). Servers stay: every network
reaches them.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem

from designer.core.model import Role
from designer.core.networks import (
    BACKEND,
    BOX_H,
    BOX_W,
    EXTRA_NETWORKS,
    NETWORK_LABELS,
    Band,
    bands,
)
from designer.gui.base import style
from designer.gui.canvas.edges import EdgeLayer
from designer.gui.canvas.items import Z_BOX, draw_screen_text, lod_of, text_metrics

ALL = "all"
LAYERS = (ALL, BACKEND, *EXTRA_NETWORKS)
LAYER_LABELS = {ALL: "All networks", **NETWORK_LABELS}
ENDPOINT_ROLES = {Role.GPU_SERVER.value, Role.APPLIANCE.value}


class NetworkBoxes(QGraphicsItem):
    """The switches (and storage nodes) of one network, with the band's title."""

    def __init__(self, band: Band) -> None:
        super().__init__()
        self.band = band
        x0, y0, x1, y1 = band.rect
        self._rect = QRectF(x0, y0, x1 - x0, y1 - y0)
        self._boxes = [QRectF(x - BOX_W / 2, y - BOX_H / 2, BOX_W, BOX_H)
                       for _i, _t, x, y in band.boxes]
        # storage nodes white, switches in the network's colour
        self._node = [t == "storage-node" for _i, t, _x, _y in band.boxes]
        self._pen = QPen(QColor(band.outline), 1.2)
        self._pen.setCosmetic(True)
        self._brush = QBrush(QColor(band.fill))
        self.setZValue(Z_BOX)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, option, widget=None) -> None:
        lod = lod_of(painter)
        exposed = option.exposedRect
        x0, _y0, _x1, _y1 = self.band.rect
        switches = len(self._node) - sum(self._node)
        nodes = f", {sum(self._node):,} storage nodes" if any(self._node) else ""
        title = f"{self.band.label}: {switches:,} switches{nodes}"
        # the title on a plate of the canvas's colour, so the lines under it do not cross it;
        # the boxes come after, so the plate never hides one
        fm = text_metrics(12.0, True)
        foot = self.band.top - BOX_H / 2 - 4 / lod  # just above the first row at any zoom
        plate = QRectF(x0 + BOX_W - 4 / lod, foot - (fm.height() + 2) / lod,
                       (fm.horizontalAdvance(title) + 8) / lod, (fm.height() + 4) / lod)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(style.CANVAS_BG))
        painter.drawRect(plate)
        draw_screen_text(painter, lod, QPointF(x0 + BOX_W, foot), title, px=12.0,
                         color=QColor(self.band.outline), bold=True,
                         align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
        painter.setPen(self._pen)
        painter.setBrush(self._brush)
        painter.drawRects([r for r, n in zip(self._boxes, self._node, strict=True)
                           if not n and r.intersects(exposed)])
        painter.setBrush(QBrush(QColor("#FFFFFF")))
        painter.drawRects([r for r, n in zip(self._boxes, self._node, strict=True)
                           if n and r.intersects(exposed)])
        if lod * BOX_W < 44:  # too small to read a name
            return
        for (dev_id, _t, x, y), r in zip(self.band.boxes, self._boxes, strict=True):
            if r.intersects(exposed):
                draw_screen_text(painter, lod, QPointF(x, y), dev_id, px=9.0,
                                 align=Qt.AlignmentFlag.AlignHCenter
                                 | Qt.AlignmentFlag.AlignVCenter,
                                 max_width_px=BOX_W * lod - 4)


class NetworkLayers:
    """The bands of a scene's project and which network the canvas shows."""

    def __init__(self, scene) -> None:
        self.scene = scene
        self.layer = ALL
        self.items: dict[str, tuple[EdgeLayer, NetworkBoxes]] = {}
        self._ref: tuple | None = None
        scene.synced.connect(self.rebuild)

    def rebuild(self) -> None:
        """Draw the project's networks again when they or the devices changed, then show the
        chosen layer (a redraw of the back-end shows every item again)."""
        project = self.scene.doc.project
        ref = (id(project.networks), id(project.fabric.devices))
        if ref != self._ref:
            self._ref = ref
            for edge, boxes in self.items.values():
                self.scene.removeItem(edge)
                self.scene.removeItem(boxes)
            self.items = {}
            for band in bands(project):
                colour = QColor(band.outline)
                colour.setAlphaF(0.55)
                edge = EdgeLayer(colour, 1.0)
                edge.set_segments(band.segments if band.segments.size else np.empty((0, 4)))
                boxes = NetworkBoxes(band)
                self.scene.addItem(edge)
                self.scene.addItem(boxes)
                self.items[band.kind] = (edge, boxes)
            self.scene._update_scene_rect()
        # the chosen layer stays chosen (an undo that takes a network away and a redo that
        # brings it back show it again)
        self.apply()

    def set_layer(self, name: str) -> None:
        if name not in LAYERS:
            raise ValueError(f"unknown network layer '{name}' (known: {', '.join(LAYERS)})")
        self.layer = name
        self.apply()

    def apply(self) -> None:
        layer = self.layer
        for kind, (edge, boxes) in self.items.items():
            edge.setVisible(layer in (ALL, kind))
            boxes.setVisible(layer in (ALL, kind))
        backend_links = layer in (ALL, BACKEND)
        backend_switches = layer in (ALL, BACKEND, "oob")
        s = self.scene
        for item in s.edge_layers.values():
            item.setVisible(backend_links)
        s.labels.setVisible(backend_links)
        for item in s.device_items.values():
            if item.look.role not in ENDPOINT_ROLES:
                item.setVisible(backend_switches)
