"""The canvas scene: mirrors the document's project as items, keyed by device id and group key.

It listens to the document and patches itself: a move only repositions the moved devices, a
link edit only redraws the lines, a new design rebuilds. Devices folded into collapsed groups
have no item at all; link bundles are summed between what is shown (``groups.py``) and drawn
by a few layer items (``edges.py``). Gestures (``interactions.py``) drive the mouse.

``CanvasScene`` holds the state and the signals; its parts, one job each, are mixins:
following the document (``sync.py``), folding groups (``folding.py``), drawing the items
(``drawing.py``), selection (``selection.py``) and input events (``events.py``).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QTimer, Signal
from PySide6.QtWidgets import QGraphicsScene

from designer.core.catalog import Catalog
from designer.core.model import Fabric
from designer.gui.base import style
from designer.gui.canvas import interactions
from designer.gui.canvas.drawing import Drawing
from designer.gui.canvas.edges import EdgeHighlight, EdgeLabelLayer, EdgeLayer
from designer.gui.canvas.events import SceneInput
from designer.gui.canvas.folding import Folding
from designer.gui.canvas.groups import GroupIndex, VisibleGraph, visible_graph
from designer.gui.canvas.items import DeviceItem, GroupBoxItem, GroupFrameItem
from designer.gui.canvas.networks_layer import NetworkLayers
from designer.gui.canvas.recall import Recall
from designer.gui.canvas.selection import SceneSelection
from designer.gui.canvas.sync import DEFER_ABOVE, DocumentSync
from designer.gui.project.document import Document


# the parts come before QGraphicsScene so their event handlers override Qt's
class CanvasScene(DocumentSync, Folding, Drawing, SceneSelection, SceneInput, QGraphicsScene):
    """Items for one document. Ask it, not the items, what is where."""

    collapsedChanged = Signal()
    synced = Signal()  # the items show the document's project again (after an edit's redraw)
    contextMenuWanted = Signal(object, object, object)  # item or None, screen pos, scene pos
    centreOn = Signal(QRectF)
    refused = Signal(str, QPointF)  # a gesture was refused: message, where (scene)

    def __init__(self, document: Document) -> None:
        super().__init__(document)  # owned by the document, so Qt deletes it in order
        self._sync_timer = QTimer(self)
        self._sync_timer.setSingleShot(True)
        self._sync_timer.setInterval(0)
        self._sync_timer.timeout.connect(self._next_step)
        self._prepared = False
        self.doc = document
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.index = GroupIndex.build(())
        self.collapsed: set[str] = set()
        self.vg: VisibleGraph = visible_graph(self.index, document.project.fabric.links, set(), 0)
        self.xs = np.empty(0)
        self.ys = np.empty(0)
        self.tech = np.empty(0, dtype=object)
        self.gpus = np.empty(0, dtype=np.int64)
        # the technologies as small ints too (``tech_names[code]``), for boxes' counts
        self.tech_code = np.empty(0, dtype=np.int64)
        self.tech_names: list[str | None] = []
        self.device_items: dict[str, DeviceItem] = {}
        self.box_items: dict[str, GroupBoxItem] = {}
        self.frame_items: dict[str, GroupFrameItem] = {}
        self.edge_layers: dict[tuple[int, int, int], EdgeLayer] = {}  # colour, width, over
        self.edge_seg = np.empty((0, 4))
        self.node_keys: list[str] = []  # per visible edge endpoint lookups
        self.labels = EdgeLabelLayer()
        self.labels.obstacles = self.label_obstacles
        self.addItem(self.labels)
        self.hover_edge = EdgeHighlight(style.HOVER, 3.0)
        self.sel_edge_item = EdgeHighlight(style.SELECTION, 3.5)
        self.addItem(self.hover_edge)
        self.addItem(self.sel_edge_item)
        self.selected_edge: tuple[str, str] | None = None
        self.gesture: interactions.Gesture | None = None
        self.connect_mode = False
        self.view_lod = 1.0
        self._devices_ref: tuple | None = None
        self._links_ref = None
        self._catalog_ref: Catalog | None = None
        self._generator_ref = None
        self._syncing = False
        self._geometry_timer = QTimer(self)
        self._geometry_timer.setSingleShot(True)
        self._geometry_timer.setInterval(15)
        self._geometry_timer.timeout.connect(self.refresh_geometry)
        # the fabric the items show: the document's, or the one before an edit whose redraw
        # waits for the next turn (``pending``); every lookup of the scene uses this one, so
        # the scene is never half of one design and half of the other
        self._fabric: Fabric = document.project.fabric
        self.defer_above = DEFER_ABOVE
        self._recall = Recall()
        document.projectChanged.connect(self._on_project_changed)
        document.projectReplaced.connect(self._on_replaced)
        document.selectionChanged.connect(self._on_doc_selection)
        document.focusRequested.connect(self.focus_devices)
        document.marksChanged.connect(self.apply_marks)
        self.selectionChanged.connect(self._on_scene_selection)
        # the other networks' bands and the layer switch (rebuilt on every ``synced``)
        self.networks = NetworkLayers(self)
        self._on_replaced()
