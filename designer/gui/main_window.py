"""The main window: canvas in the middle, palette and inspector docks, menus, toolbar,
status bar, files (open, save, recent, autosave and recovery), generate and gear switching.

Room for the analysis panels: ``add_panel`` docks any widget (bottom by default) and lists
it under View > Panels; ``document.projectChanged(revision)`` and ``document.snapshot()``
feed a solver; ``document.focus_devices(ids)`` selects and centres devices on the canvas.
"""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QByteArray, Qt, QTimer
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QFrame,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QUndoView,
    QVBoxLayout,
    QWidget,
)

from designer import __version__
from designer.core import editing
from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.generators import generate, plan
from designer.core.layout import compact_if_wide
from designer.core.model import Project
from designer.core.networks import with_networks
from designer.core.physical import for_new_design
from designer.gui.actions import WindowActions
from designer.gui.base import dialogs, icons, settings
from designer.gui.base.background import closing_within
from designer.gui.base.busy import busy_cursor
from designer.gui.canvas.interactions import devices_mime, project_from_mime
from designer.gui.canvas.items import DeviceItem, GroupBoxItem, GroupFrameItem
from designer.gui.canvas.scene import CanvasScene
from designer.gui.canvas.view import CanvasView
from designer.gui.generate.dialog import GenerateDialog
from designer.gui.generate.network_dialog import NetworkDialog
from designer.gui.panels.inspector import InspectorPanel
from designer.gui.panels.palette import PalettePanel
from designer.gui.project import commands
from designer.gui.project.document import Document
from designer.gui.project.files import FileActions
from designer.gui.project.recovery import AUTOSAVE_INTERVAL_MS, RecoveryStore

DEFAULT_NAME = Project.model_fields["name"].default
PASTE_STEP = 40.0
LARGE_EXPAND = 6000  # devices: ask before showing them all
# bumped when the set of panels changes: a saved layout without the new panels would place
# them oddly, so an older saved layout is ignored and the default one shown
# The most room a docked panel asks for before it scrolls.
PANEL_MIN_W, PANEL_MIN_H = 560, 260
LAYOUT_VERSION = 3  # 3: a taller bottom strip and a wider BOM by default


class MainWindow(FileActions, QMainWindow):
    def __init__(self, catalog: Catalog | None = None, data_dir: Path | None = None) -> None:
        super().__init__()
        self.setObjectName("FabricDesignerMainWindow")
        self.setWindowIcon(icons.app_icon())
        self.doc = Document(catalog, self)
        self.scene = CanvasScene(self.doc)
        self.view = CanvasView(self.scene, self)
        self.setCentralWidget(self.view)
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks
            | QMainWindow.DockOption.AllowTabbedDocks
            | QMainWindow.DockOption.AllowNestedDocks
        )
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.docks: dict[str, QDockWidget] = {}
        self.palette_panel = PalettePanel(self.doc.base_catalog)
        self.palette_panel.gearActivated.connect(self.add_gear_at_centre)
        self.inspector = InspectorPanel(self.doc)
        self.inspector.expandRequested.connect(self.scene.expand)
        self.history = QUndoView(self.doc.undo_stack)
        self.history.setEmptyLabel("Start")
        self.add_panel(
            self.palette_panel, "Palette", "paletteDock", Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.add_panel(
            self.inspector, "Inspector", "inspectorDock", Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.add_panel(
            self.history, "History", "historyDock", Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.resizeDocks(
            [self.docks["paletteDock"], self.docks["inspectorDock"]],
            [270, 310],
            Qt.Orientation.Horizontal,
        )
        self.resizeDocks(
            [self.docks["inspectorDock"], self.docks["historyDock"]],
            [520, 200],
            Qt.Orientation.Vertical,
        )

        self.actions_ = WindowActions(self)
        self.actions_.build_menus()
        self.addToolBar(self.actions_.build_toolbar())
        self._fill_panels_menu()
        self._build_status_bar()
        # live analysis: solver service, metrics, charts, BOM, problems, export and IB commands
        from designer.gui.analysis.install import install_analysis

        self.analysis = install_analysis(self)
        from designer.gui.floor.panel import install_floor
        from designer.gui.traffic.install import install_traffic

        install_floor(self)
        self.traffic = install_traffic(self)
        from designer.gui.cluster.install import install_cluster

        self.cluster = install_cluster(self)
        from designer.gui.base.lazy_import import import_after_show

        import_after_show(self)  # the plotting library: after the first paint, not before
        self._default_state = self.saveState(LAYOUT_VERSION)
        self._layout_restored = False
        self._bottom_sized = False

        self.sweep_dialog = None  # Design > Explore…, made on first use
        self._paste_count = 0
        self._last_copied: list[str] = []
        self.doc.projectChanged.connect(self._on_project_changed)
        self.scene.synced.connect(self._update_size_label)
        self.doc.pathChanged.connect(lambda _p: self._update_title())
        self.doc.undo_stack.cleanChanged.connect(lambda _c: self._update_title())
        self.doc.message.connect(self._on_message)
        self.doc.selectionChanged.connect(self._update_selection_status)
        self.scene.contextMenuWanted.connect(self._context_menu)
        self.view.zoomChanged.connect(lambda s: self.zoom_label.setText(f"{s * 100:.0f}%"))
        self.view.cursorMoved.connect(
            lambda x, y: self.pos_label.setText(f"x {x:,.0f}  y {y:,.0f}")
        )

        self.recovery = RecoveryStore(data_dir or settings.data_dir())
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_INTERVAL_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()
        self._restore_settings()
        self._on_project_changed(self.doc.revision)
        self._update_size_label()
        self._update_title()

    # -- layout ------------------------------------------------------------------------------
    def add_panel(
        self,
        widget: QWidget,
        title: str,
        object_name: str,
        area: Qt.DockWidgetArea = Qt.DockWidgetArea.BottomDockWidgetArea,
        tabify_with: str | None = None,
    ) -> QDockWidget:
        """Dock ``widget``; it can be moved, floated and hidden, and its place is remembered.
        A panel whose content needs more room than a dock stack can spare scrolls instead, so
        no panel makes the window wider or taller than a laptop screen."""
        dock = QDockWidget(title, self)
        dock.setObjectName(object_name)
        need = widget.minimumSizeHint()
        if need.width() > PANEL_MIN_W or need.height() > PANEL_MIN_H:
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(widget)
            scroll.setMinimumSize(min(need.width(), PANEL_MIN_W), min(need.height(), PANEL_MIN_H))
            dock.setWidget(scroll)
        else:
            dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(area, dock)
        if tabify_with and tabify_with in self.docks:
            self.tabifyDockWidget(self.docks[tabify_with], dock)
        self.docks[object_name] = dock
        if hasattr(self, "actions_"):
            self._fill_panels_menu()
        return dock

    def _fill_panels_menu(self) -> None:
        menu = self.actions_.panels_menu
        menu.clear()
        for dock in self.docks.values():
            a = dock.toggleViewAction()
            a.setStatusTip(f"Show or hide the {dock.windowTitle()} panel")
            menu.addAction(a)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.selection_label = QLabel()
        self.size_label = QLabel()
        self.size_label.setToolTip("Devices, GPUs, switches and cables of the design")
        self.pos_label = QLabel()
        self.pos_label.setMinimumWidth(120)
        self.zoom_label = QLabel("100%")
        self.zoom_label.setToolTip("Zoom (wheel, Ctrl+= / Ctrl+-, F fits)")
        self.zoom_label.setMinimumWidth(52)
        for w in (self.selection_label, self.size_label, self.pos_label, self.zoom_label):
            bar.addPermanentWidget(w)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._layout_restored and not self._bottom_sized:
            # the first time, at the window's real size: the analysis strip gets about a third
            # of the height (ten BOM rows), the canvas the rest
            self._bottom_sized = True
            height = max(340, min(420, int(self.height() * 0.37)))
            self.resizeDocks([self.docks["bomDock"]], [height], Qt.Orientation.Vertical)

    def reset_layout(self) -> None:
        self.restoreState(self._default_state, LAYOUT_VERSION)
        for dock in self.docks.values():
            dock.show()

    def toggle_grid(self, on: bool) -> None:
        self.view.grid_visible = on
        self.view.resetCachedContent()
        self.view.viewport().update()

    # -- settings ------------------------------------------------------------------------------
    def _restore_settings(self) -> None:
        s = settings.settings()
        geometry = s.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            screen = QGuiApplication.primaryScreen()
            avail = screen.availableGeometry() if screen else None
            if avail is not None and avail.width() > 400:
                # room for the canvas between the palette, metrics and the analysis strip
                self.resize(
                    min(1760, int(avail.width() * 0.9)), min(1000, int(avail.height() * 0.9))
                )
            else:
                self.resize(1400, 860)
        state = s.value("window/state")
        if isinstance(state, QByteArray) and not state.isEmpty():
            self._layout_restored = self.restoreState(state, LAYOUT_VERSION)
        grid = s.value("view/grid", True)
        on = grid not in (False, "false", "0", 0)
        self.actions_.grid.setChecked(on)
        self.view.grid_visible = on

    def save_settings(self) -> None:
        s = settings.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState(LAYOUT_VERSION))
        s.setValue("view/grid", self.view.grid_visible)
        s.sync()

    # -- status and title ----------------------------------------------------------------------
    def _update_title(self) -> None:
        if not shiboken6.isValid(self):  # the undo stack signals while the window is deleted
            return
        name = self.doc.project.name
        file = f" — {self.doc.path.name}" if self.doc.path else " — untitled"
        if self.doc.example:
            file += " (example: Save asks where)"
        self.setWindowTitle(f"{name}{file}[*] — Fabric Designer")
        self.setWindowModified(self.doc.modified)

    def _update_size_label(self) -> None:
        # from the canvas's arrays, so after its redraw (a large design's comes a turn later)
        fabric = self.scene.fabric
        n = len(fabric.devices)
        switches = int((self.scene.index.role_code > 0).sum()) if n else 0
        gpus = int(self.scene.gpus.sum()) if n else 0
        self.size_label.setText(
            f"{n:,} devices · {gpus:,} GPUs · {switches:,} switches · "
            f"{fabric.links.n_cables:,} cables"
        )

    def _on_project_changed(self, _revision: int) -> None:
        pid = self.doc.project.profile
        combo = self.actions_.profile_combo
        i = combo.findData(pid)
        if i >= 0 and combo.currentIndex() != i:
            combo.setCurrentIndex(i)
        if pid in self.actions_.profile_actions:
            self.actions_.profile_actions[pid].setChecked(True)
        self._update_title()

    def _update_selection_status(self) -> None:
        sel = self.doc.selection
        n = len(sel.devices) + len(sel.groups)
        if sel.link:
            self.selection_label.setText("1 link selected")
        elif n:
            self.selection_label.setText(f"{n:,} selected")
        else:
            self.selection_label.setText("")

    def _on_message(self, text: str, refusal: bool) -> None:
        self.statusBar().showMessage(
            ("Refused: " if refusal else "") + text, 8000 if refusal else 5000
        )

    def _hint_if_wide(self) -> None:
        rect = self.scene.content_rect()
        if rect.height() > 0 and rect.width() / rect.height() > 12:
            self.view.toast(
                f"This design is {rect.width() / rect.height():.0f} times wider than tall. "
                "Design > Arrange Compactly (Ctrl+Shift+A) wraps it into rows; F fits it."
            )

    def arrange_compact(self) -> None:
        if self._push(lambda: commands.arrange_compact(self.doc)):
            self.view.hide_toast()
            self.view.fit_all()
            self.doc.say("Arranged compactly (Ctrl+Z puts it back)")

    def closeEvent(self, event) -> None:
        self.scene.cancel_gesture()
        if not self.maybe_save():
            event.ignore()
            return
        self.stop_opening()  # a file still being read is cancelled, never opened after
        self.save_settings()
        self.autosave_timer.stop()
        self.recovery.close()
        # every worker is told to stop; the waits share a short budget, so closing never
        # waits out a long run (a worker past it stops at its next cancel check)
        with closing_within():
            if self.sweep_dialog is not None:
                self.sweep_dialog.runner.cancel()  # its processes end as the run unwinds
            for task in (self.traffic.panel.task, self.cluster.task):
                if task is not None and task.running:
                    task.wait()
            self.analysis.shutdown()  # no solver or check thread outlives the window
            self.floor_panel.shutdown()
            if self.sweep_dialog is not None:
                self.sweep_dialog.shutdown()  # nor a sweep's worker processes
        event.accept()

    # -- editing ---------------------------------------------------------------------------------
    def _push(self, build) -> bool:
        try:
            self.doc.push(build())
        except DesignerError as exc:
            self.view.toast(str(exc), error=True)
            self.doc.say(str(exc), True)
            return False
        return True

    def add_gear_at_centre(self, gear_id: str) -> None:
        self.view.add_gear_at(gear_id, self.view.viewport_center_scene())

    def delete_selection(self) -> None:
        ids = self.scene.selected_device_ids()
        sel = self.doc.selection
        pairs = [sel.link] if sel.link else []
        if not ids and not pairs:
            return
        self._push(lambda: commands.delete(self.doc, ids, pairs))

    def copy(self) -> bool:
        ids = self.scene.selected_device_ids()
        if not ids:
            self.doc.say("Nothing to copy: select devices first")
            return False
        QGuiApplication.clipboard().setMimeData(devices_mime(self.doc.project, ids))
        self._last_copied = ids
        self._paste_count = 0
        self.doc.say(f"Copied {len(ids):,} device(s)")
        return True

    def cut(self) -> None:
        if self.copy():
            ids = self.scene.selected_device_ids()
            self._push(lambda: commands.delete(self.doc, ids))

    def paste(self) -> None:
        clip = project_from_mime(QGuiApplication.clipboard().mimeData(), self.doc.base_catalog)
        if clip is None or not clip.fabric.devices:
            self.doc.say("The clipboard holds no devices")
            return
        at = self.view.cursor_scene_pos()
        b = editing.bounds(clip.fabric)
        assert b is not None
        if at is not None:
            from designer.gui.canvas.grid import snap

            dx, dy = snap(at.x() - b[0]), snap(at.y() - b[1])
        else:
            self._paste_count += 1
            dx = dy = PASTE_STEP * self._paste_count
        self._push(lambda: commands.paste(self.doc, clip, dx, dy))

    def duplicate(self) -> None:
        ids = self.scene.selected_device_ids()
        if not ids:
            return
        clip = editing.extract(self.doc.project, ids)
        self._push(lambda: commands.paste(self.doc, clip, PASTE_STEP, PASTE_STEP, "Duplicate"))

    def set_link_tool(self, on: bool) -> None:
        self.scene.connect_mode = on
        self.actions_.link_tool.setChecked(on)
        self.actions_.select_tool.setChecked(not on)
        cursor = Qt.CursorShape.CrossCursor if on else Qt.CursorShape.ArrowCursor
        self.view.viewport().setCursor(cursor)
        if on:
            self.doc.say(
                "Link tool: drag from one device to another (V or Esc for the select tool)"
            )

    def keyPressEvent(self, event) -> None:
        if (
            event.key() == Qt.Key.Key_Escape
            and self.scene.connect_mode
            and self.scene.gesture is None
        ):
            self.set_link_tool(False)
            return
        super().keyPressEvent(event)

    def expand_all(self) -> None:
        n = len(self.doc.project.fabric.devices)
        if n > LARGE_EXPAND and not dialogs.confirm(
            self,
            "Expand everything",
            f"Show all {n:,} devices one by one? Drawing that many is slow; expanding the "
            "groups you work on keeps the canvas fast.",
        ):
            return
        self.scene.expand_all()

    def find_device(self) -> None:
        text = dialogs.ask_text(self, "Find device", "Id or name (part of it):")
        if not text:
            return
        needle = text.strip().lower()
        hits = [
            d.id
            for d in self.doc.project.fabric.devices
            if needle in d.id.lower() or needle in d.name.lower()
        ]
        if not hits:
            self.doc.say(f"No device matches “{text}”", True)
            return
        self.doc.focus_devices(hits[:500])
        more = f" (first 500 of {len(hits):,})" if len(hits) > 500 else ""
        self.doc.say(f"{min(len(hits), 500):,} device(s) match “{text}”{more}")

    def _context_menu(self, item, screen_pos, scene_pos) -> None:
        a = self.actions_
        menu = QMenu(self)
        if isinstance(item, DeviceItem):
            menu.addAction(a.copy)
            menu.addAction(a.duplicate)
            menu.addAction(a.delete)
            chain = self.scene.group_of(item.device_id)
            if chain:
                menu.addSeparator()
                from designer.gui.canvas.groups import key_path_label

                for key in chain:
                    act = menu.addAction(f"Collapse {key_path_label(key)}")
                    act.triggered.connect(lambda _=False, k=key: self.scene.collapse(k))
            self.traffic.context_actions(menu, item.device_id, None)
        elif isinstance(item, GroupBoxItem):
            act = menu.addAction("Expand")
            act.triggered.connect(lambda: self.scene.expand(item.key))
            menu.addAction(a.copy)
            menu.addAction(a.delete)
        elif isinstance(item, GroupFrameItem):
            act = menu.addAction("Collapse")
            act.triggered.connect(lambda: self.scene.collapse(item.key))
        else:
            if self.doc.selection.link:
                menu.addAction(a.delete)
                self.traffic.context_actions(menu, None, self.doc.selection.link)
                menu.addSeparator()
            paste_here = menu.addAction("Paste Here")
            paste_here.triggered.connect(self.paste)
            menu.addSeparator()
            menu.addActions([a.fit, a.expand_level, a.collapse_level])
        menu.exec(screen_pos)

    # -- generate and gear -------------------------------------------------------------------------
    def show_network_editor(self) -> NetworkDialog | None:
        """Edit > Edit Other Networks…: a network's parameters, regenerated as one step."""
        if not self.doc.project.networks:
            dialogs.show_error(self, "No other networks", "This design has the back-end alone. "
                               "Generate with the front-end, storage or out-of-band network "
                               "ticked (Generate dialog, Networks row) first.")
            return None
        dlg = NetworkDialog(self.doc.project, self.edit_network, self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()
        return dlg

    def edit_network(self, kind: str, changes: dict) -> str | None:
        """Regenerate network ``kind`` with ``changes`` as one undoable step; the error's
        text when it cannot be."""
        from designer.core.networks import NETWORK_LABELS, with_network_params

        try:
            with busy_cursor():
                after = with_network_params(self.doc.project, kind, changes, self.doc.catalog)
        except DesignerError as exc:
            return str(exc)
        cmd = commands.generated(self.doc, after, f"Edit {NETWORK_LABELS[kind]} network")
        self.doc.push(cmd)
        n = len(after.networks[kind].devices) if after.networks else 0
        self.doc.say(f"{cmd.text()}: {n:,} switches and nodes")
        return None

    def show_generate(self, kind: str, multi_plane: bool = False) -> GenerateDialog:
        gear = "roce-800" if multi_plane else self.doc.project.profile
        dlg = GenerateDialog(
            kind,
            self.doc.catalog,
            self,
            multi_plane=multi_plane,
            gear=gear,
            has_design=bool(self.doc.project.fabric.devices),
        )
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        for name in self.doc.project.networks or {}:  # the design's networks, ticked
            dlg.network_boxes[name].setChecked(True)
        dlg.accepted.connect(lambda: self.apply_generated(dlg.params(), dlg.mode,
                                                          dlg.networks()))
        dlg.open()
        return dlg

    def apply_generated(self, params, mode: str = GenerateDialog.REPLACE,
                        networks: tuple[str, ...] = ()) -> bool:
        """Generate ``params`` into the design; ``networks``: the other networks to build
        from its servers too (front-end, storage, oob)."""
        cat = self.doc.catalog
        try:
            with busy_cursor():
                pl = plan(params, cat)
                if mode == GenerateDialog.REPLACE:
                    # the networks ticked are built below; the old ones go with the old design
                    base = self.doc.project.model_copy(update={"networks": None})
                    after = generate(params, cat, base=base)
                    # a new design: its own name (not the one it replaces) and no file yet
                    after = after.model_copy(update={"name": (params.name or pl.title)[:200]})
                    after = compact_if_wide(after)  # 64 SUs in a row read as a 1% strip
                    if networks:
                        after = with_networks(after, networks, cat)
                    if after.physical is None:  # a new bill: racks, power and spares on
                        after = for_new_design(after)
                    cmd = commands.replaced(self.doc, after, f"Generate {pl.title}")
                else:
                    fresh = generate(params, cat)
                    here = editing.bounds(self.doc.project.fabric)
                    there = editing.bounds(fresh.fabric)
                    dx = (here[2] - there[0] + 800.0) if here and there else 0.0
                    prefix = self._free_prefix()
                    after, _ids = editing.merge(self.doc.project, fresh, dx, 0.0, prefix)
                    after = after.model_copy(update={"generator": None})
                    if networks:
                        after = with_networks(after, networks, cat)
                    cmd = commands.generated(self.doc, after, f"Add {pl.title}")
        except DesignerError as exc:
            dialogs.show_error(self, "Cannot generate", str(exc))
            return False
        self.doc.push(cmd)
        self.view.fit_readable()
        self.doc.say(f"{cmd.text()}: {len(after.fabric.devices):,} devices")
        self._hint_if_wide()
        return True

    def _free_prefix(self) -> str:
        ids = self.doc.project.fabric.index
        k = 2
        while any(i.startswith(f"f{k}-") for i in ids):
            k += 1
        return f"f{k}-"

    def show_explore(self):
        from designer.gui.sweep.windows import show_explore

        return show_explore(self)

    def switch_profile(self, profile_id: str) -> bool:
        if not profile_id or profile_id == self.doc.project.profile:
            return False
        try:
            with busy_cursor():
                cmd, conv = commands.switch_profile(
                    self.doc, profile_id, relayout=self.actions_.relayout.isChecked())
        except DesignerError as exc:
            self.view.toast(str(exc), error=True)
            self.doc.say(str(exc), True)
            self._on_project_changed(self.doc.revision)  # put the combo back
            return False
        self.doc.push(cmd)
        if conv.regenerated:
            self.view.fit_readable()
        self.doc.say(f"{cmd.text()}: " + "; ".join(conv.notes))
        return True

    # -- help ---------------------------------------------------------------------------------
    def show_shortcuts(self) -> QDialog:
        dlg = QDialog(self)
        dlg.setWindowTitle("Keyboard and mouse")
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        lay = QVBoxLayout(dlg)
        gestures = [
            ("Add gear", "Drag it from the palette onto the canvas (or double-click it)"),
            ("Select", "Click; Ctrl+click adds; drag on empty canvas for a rubber band"),
            ("Move", "Drag selected devices or boxes (snaps to a 10 px grid); arrows nudge"),
            ("Link two devices", "Drag the dot on a device's right edge to another device, or L"),
            ("Cancel a drag", "Esc"),
            ("Zoom", "Mouse wheel (around the pointer)"),
            ("Pan", "Middle-drag, or hold Space and drag; Shift+wheel scrolls sideways"),
            ("Expand / collapse a group", "Double-click its box / the tab of its frame"),
            ("Details", "Hover a device (ports used/free) or a line (cables, speed)"),
        ]
        rows = gestures + self.actions_.all_shortcuts()
        table = QTableWidget(len(rows), 2)
        table.setHorizontalHeaderLabels(["Action", "Keys or gesture"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, (what, keys) in enumerate(rows):
            table.setItem(r, 0, QTableWidgetItem(what))
            table.setItem(r, 1, QTableWidgetItem(keys))
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(table)
        dlg.resize(640, 620)
        dlg.show()
        return dlg

    def show_documentation(self, page: str = "index.md") -> QDialog:
        from designer.gui.help.documentation import DocumentationDialog

        dlg = DocumentationDialog(self, page)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()
        return dlg

    def show_about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.about(
            self,
            "About Fabric Designer",
            f"<b>Fabric Designer {__version__}</b><p>Design, generate and analyse the back-end "
            "network fabric of GPU training clusters: rail-optimized, fat-tree, dragonfly and "
            "multi-plane fabrics on InfiniBand or RoCE Ethernet.</p><p>Prices and latencies in "
            "the catalog are estimates; override them per project.</p>",
        )

    def action(self, name: str) -> QAction:
        return getattr(self.actions_, name)
