"""What the gestures and tooltips need of the canvas scene, as a protocol: they take the scene
as this, so the scene (which builds them) and they never import each other."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from PySide6.QtCore import QPointF, QRectF


class SceneView(Protocol):
    doc: Any  # the gui Document that owns the project
    index: Any  # GroupIndex of the shown fabric
    vg: Any  # VisibleGraph: what is drawn, devices and boxes
    xs: np.ndarray
    ys: np.ndarray

    @property
    def fabric(self) -> Any: ...

    refused: Any  # Signal(str, QPointF): a gesture the rules refused, why and where

    def addItem(self, item: Any) -> None: ...  # QGraphicsScene's
    def selectedItems(self) -> list[Any]: ...
    def node_item_at(self, pos: QPointF, exclude: Any = None) -> Any: ...
    def preview_positions(self, idx: np.ndarray, x: np.ndarray, y: np.ndarray) -> None: ...
    def refresh_geometry(self) -> None: ...
    def box_rect(self, members: np.ndarray) -> QRectF: ...
    def box_look(self, key: str, members: np.ndarray, rect: QRectF) -> Any: ...
    def edge_nodes(self, edge: int) -> Any: ...
