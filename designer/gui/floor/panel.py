"""The Floor panel: the floor view and the elevation of one rack, side by side.

"Place racks" makes the default plan (or places devices added since) as one undo step; moving
a device (drag in the elevation, or onto a rack of the floor) is one undo step too, refused
with a message when it does not fit. Selection follows the document both ways, so the canvas
and the floor select together. The cable lengths per layer come from the latest analysis.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from designer.core.errors import DesignerError
from designer.core.physical import Physical, length_distribution, move_device, with_floor
from designer.gui.base.background import BackgroundTask
from designer.gui.base.lazy import LazyRefresh
from designer.gui.floor.elevation import ElevationView
from designer.gui.floor.floor_view import FloorView
from designer.gui.floor.model import FloorData, floor_data
from designer.gui.project.commands import ProjectCommand
from designer.gui.project.document import Document, Selection

EXTRA_SWITCHES = (
    ("subnet_manager", "Subnet managers / UFM (InfiniBand)"),
    ("management_network", "Management network (a switch per rack)"),
    ("racks_and_pdus", "Racks and PDUs (PDUs from each placed rack's power)"),
    ("cable_management", "Cable managers and blanking panels (with racks)"),
    ("power_cords", "Power cords by connector (C13, C19)"),
    ("spares", "Spares (policy per item class)"),
    ("support", "Support contracts (% per year)"),
)


class FloorPanel(QWidget):
    def __init__(self, doc: Document, service=None, parent=None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.service = service
        self.data: FloorData | None = None
        self._shown_physical = object()
        self._shown_fabric = object()
        self.current_rack = -1
        self._task: BackgroundTask | None = None
        self._labels: tuple = (None, {}, {})

        self.place_button = QPushButton("Place racks")
        self.place_button.setToolTip(
            "Lay the design out in rows of racks (one row per scalable unit, ToR switches in "
            "their rack, rail leaves in the row's network racks, spines and cores in network "
            "rows); cable lengths then follow from rack positions")
        self.place_button.clicked.connect(self.place)
        self.mode = QComboBox()
        self.mode.addItem("Colour by fill (U)", "fill")
        self.mode.addItem("Colour by power (kW)", "power")
        self.mode.currentIndexChanged.connect(
            lambda _i: self.view.recolour(self.mode.currentData()))
        self.mode.setToolTip("Pale green: empty; amber to red: nearly full; dark red: over the "
                             "rack's limit. Dashed outline: network rack")
        self.summary = QLabel()
        self.summary.setObjectName("floorSummary")
        self.lengths = QLabel()
        self.lengths.setObjectName("floorLengths")
        self.lengths.setWordWrap(True)
        self.lengths.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.extras_button = QToolButton()
        self.extras_button.setText("BOM lines")
        self.extras_button.setToolTip("Optional lines of a complete bill of materials "
                                      "(estimated prices, saved with the project)")
        self.extras_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.extras_button)
        self.extra_actions = {}
        for flag, text in EXTRA_SWITCHES:
            act = menu.addAction(text)
            act.setCheckable(True)
            act.toggled.connect(lambda on, f=flag: self.set_extra(f, on))
            self.extra_actions[flag] = act
        self.extras_button.setMenu(menu)
        bar = QHBoxLayout()
        bar.addWidget(self.place_button)
        bar.addWidget(self.mode)
        bar.addWidget(self.extras_button)
        bar.addWidget(self.summary, 1)

        self.view = FloorView()
        self.elevation = ElevationView()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.view)
        split.addWidget(self.elevation)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([900, 320])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(bar)
        lay.addWidget(split, 1)
        lay.addWidget(self.lengths)

        self.view.rackClicked.connect(self._rack_clicked)
        self.view.rackActivated.connect(self.show_rack)
        self.view.deviceDropped.connect(self._dropped)
        self.elevation.deviceClicked.connect(self._device_clicked)
        self.elevation.deviceMoved.connect(self._moved_in_rack)
        doc.projectChanged.connect(self._on_project)
        doc.projectReplaced.connect(self._on_replaced)
        doc.selectionChanged.connect(self._on_selection)
        # the lengths line follows each result on a later turn, and only while the panel shows
        self._lengths_lazy = LazyRefresh(self, self._show_lengths)
        if service is not None:
            service.resultReady.connect(lambda *_: self._lengths_lazy.request())
        self._on_project()

    # document -> views ---------------------------------------------------------------------
    def _on_replaced(self) -> None:
        self.current_rack = -1
        self._shown_physical = object()
        self._on_project()
        QTimer.singleShot(0, self.view.fit)

    def _on_project(self, _revision: int | None = None) -> None:
        p = self.doc.project
        extras = (p.physical or Physical()).extras
        for flag, act in self.extra_actions.items():
            if act.isChecked() != getattr(extras, flag):
                act.blockSignals(True)
                act.setChecked(getattr(extras, flag))
                act.blockSignals(False)
        if p.physical is self._shown_physical and p.fabric is self._shown_fabric:
            return
        first = self.data is None
        self._shown_physical, self._shown_fabric = p.physical, p.fabric
        self.data = floor_data(p, self.doc.catalog)
        self.view.set_data(self.data, self.mode.currentData())
        if self.data is not None and not 0 <= self.current_rack < len(self.data.usage.names):
            self.current_rack = 0
        self._summary()
        self._on_selection()
        if first and self.data is not None:
            QTimer.singleShot(0, self.view.fit)

    def _summary(self) -> None:
        d = self.data
        if d is None:
            self.summary.setText("No floor plan: cable lengths are the per-layer defaults")
            self.place_button.setText("Place racks")
            return
        u = d.usage
        over_kw = int((u.used_kw > u.cap_kw + 1e-9).sum())
        over_u = int((u.used_u > u.cap_u).sum())
        warn = (f"  <span style='color:#c62828'>{over_kw} rack(s) over power, {over_u} over "
                "height</span>" if over_kw or over_u else "")
        self.summary.setText(
            f"{len(d.floor.rows)} rows, {len(u.names):,} racks, {u.used_kw.sum():,.1f} kW, "
            f"fullest rack {u.used_kw.max(initial=0):.1f} kW{warn}")
        self.place_button.setText("Place new devices")

    def _show_lengths(self) -> None:
        r = self.service.latest if self.service is not None else None
        if r is None or r.media is None:
            self.lengths.setText("")
            return
        m = r.media
        dist = length_distribution(m.length_m, m.layer, m.layers)
        parts = []
        for layer, by in dist.items():
            top = sorted(by.items(), key=lambda kv: -kv[1])[:6]
            parts.append(f"<b>{layer}</b>: " + ", ".join(f"{n:,} x {x} m" for x, n in
                                                          sorted(top, key=lambda kv: float(kv[0]))))
        self.lengths.setText("Cable lengths: " + "; ".join(parts))

    def _on_selection(self) -> None:
        d = self.data
        if d is None:
            self.elevation.show_rack(None, -1, {}, {}, frozenset())
            return
        sel = self.doc.selection.devices
        index = self.doc.project.fabric.index
        racks = {int(d.pos.rack[index[x]]) for x in sel if x in index} - {-1}
        if len(racks) == 1:
            self.current_rack = next(iter(racks))
        self.view.mark(racks, self.current_rack)
        self._draw_elevation()

    def _draw_elevation(self) -> None:
        d = self.data
        fabric = self.doc.project.fabric
        if self._labels[0] is not fabric:  # names and roles, once per fabric
            self._labels = (fabric, {x.id: x.name for x in fabric.devices},
                            {x.id: x.role.value for x in fabric.devices})
        _, names, roles = self._labels
        self.elevation.show_rack(d, self.current_rack, names, roles, self.doc.selection.devices)
        self.elevation.fit()

    # views -> document ---------------------------------------------------------------------
    def show_rack(self, k: int) -> None:
        self.current_rack = k
        self.view.mark(self.view._marked, k)
        self._draw_elevation()

    def _rack_clicked(self, k: int) -> None:
        if self.data is None:
            return
        ids = frozenset(self.data.ids[i] for i in self.data.devices_in(k))
        self.current_rack = k
        self.doc.set_selection(Selection(devices=ids))
        self.show_rack(k)

    def _device_clicked(self, device_id: str) -> None:
        self.doc.set_selection(Selection(devices=frozenset({device_id})))

    def place(self) -> None:
        """Make (or complete) the floor plan off the GUI thread (a 65,536-GPU design takes
        a few tenths of a second), then push it as one undo step."""
        if self._task is not None and self._task.running:
            return
        revision, project = self.doc.snapshot()
        catalog = self.doc.catalog
        had = project.physical is not None and project.physical.floor is not None

        def work(progress, cancelled):
            progress(0.1, "placing devices in racks")
            return with_floor(project, catalog)

        task = BackgroundTask(self.window() or self, "Place racks", "Placing devices in racks",
                              work)
        task.finished.connect(lambda after: self._placed(revision, after, had))
        task.failed.connect(lambda message: self.doc.say(message, True))
        self._task = task
        task.start()

    def _placed(self, revision: int, after, had: bool) -> None:
        if revision != self.doc.revision:
            self.doc.say("The design changed while racks were placed; place them again", True)
            return
        self.doc.push(ProjectCommand(self.doc, after,
                                     "Place new devices" if had else "Place racks"))
        QTimer.singleShot(0, self.view.fit)

    def shutdown(self) -> None:
        if self._task is not None and self._task.running:
            self._task.wait()
        exports = getattr(self, "exports", None)
        if exports is not None:
            exports.shutdown()

    def set_extra(self, flag: str, on: bool) -> None:
        """Switch one optional BOM line on or off: one undo step."""
        p = self.doc.project
        phys = p.physical or Physical()
        if getattr(phys.extras, flag) == on:
            return
        extras = phys.extras.model_copy(update={flag: on})
        after = p.evolve(physical=phys.model_copy(update={"extras": extras}))
        text = dict(EXTRA_SWITCHES)[flag].split(" (")[0]
        self.doc.push(ProjectCommand(self.doc, after, f"{'Add' if on else 'Remove'} BOM "
                                     f"lines: {text.lower()}"))

    def move(self, device_id: str, rack: int, u: int | None) -> bool:
        """Move ``device_id`` into rack index ``rack`` (at ``u``, or the first free place):
        one undo step, or a message saying why not."""
        if self.data is None:
            return False
        name = self.data.usage.names[rack]
        try:
            after = move_device(self.doc.project, self.doc.catalog, device_id, name, u)
        except DesignerError as exc:
            self.doc.say(str(exc), True)
            return False
        slot = after.physical.floor.placement[device_id]
        self.doc.push(ProjectCommand(self.doc, after, f"Move {device_id} to {name} U{slot.u}",
                                     Selection(devices=frozenset({device_id}))))
        return True

    def _moved_in_rack(self, device_id: str, u: int) -> None:
        self.move(device_id, self.current_rack, u)

    def _dropped(self, device_id: str, rack: int) -> None:
        if self.move(device_id, rack, None):
            self.show_rack(rack)


def install_floor(window) -> FloorPanel:
    """Dock the Floor panel beside the bill of materials (its tab in the bottom strip)."""
    service = getattr(getattr(window, "analysis", None), "service", None)
    panel = FloorPanel(window.doc, service)
    anchor = "problemsDock" if "problemsDock" in window.docks else None
    window.add_panel(panel, "Floor", "floorDock", Qt.DockWidgetArea.BottomDockWidgetArea,
                     tabify_with=anchor)
    window.floor_panel = panel
    from designer.gui.floor.exports import install_floor_exports

    panel.exports = install_floor_exports(window)
    return panel
