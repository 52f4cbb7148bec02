"""Menus, toolbar and keyboard shortcuts of the main window, in one table-like place."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QMenu,
    QSizePolicy,
    QStyle,
    QToolBar,
    QToolButton,
    QWidget,
)

from designer.core.generators import GEAR_PROFILES, KIND_LABELS
from designer.gui.base import icons
from designer.gui.canvas.networks_layer import LAYER_LABELS, LAYERS
from designer.gui.transport.picker import TransportPicker

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow

Std = QKeySequence.StandardKey


class WindowActions:
    def __init__(self, w: QMainWindow) -> None:
        # the main window, typed by its Qt class: it builds these actions, so naming its own
        # class here would close an import circle
        self.w = w
        sv = w.view
        sc = w.scene
        doc = w.doc
        st = w.style()

        def act(
            text, slot: Callable | None, keys=(), tip="", icon: QIcon | None = None, checkable=False
        ) -> QAction:
            a = QAction(text, w)
            if keys:
                a.setShortcuts([QKeySequence(k) for k in keys])
            if tip:
                shortcut = a.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
                a.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)
                a.setStatusTip(tip)
            if icon is not None:
                a.setIcon(icon)
            a.setCheckable(checkable)
            if slot is not None:
                a.triggered.connect(slot)
            w.addAction(a)
            return a

        def keys(std) -> list[QKeySequence]:
            return QKeySequence.keyBindings(std)

        # file
        self.new = act(
            "&New",
            w.new_design,
            keys(Std.New),
            "Start an empty design",
            st.standardIcon(QStyle.StandardPixmap.SP_FileIcon),
        )
        self.open = act(
            "&Open…",
            w.open_dialog,
            keys(Std.Open),
            "Open a design file",
            st.standardIcon(QStyle.StandardPixmap.SP_DialogOpenButton),
        )
        self.save = act(
            "&Save",
            w.save,
            keys(Std.Save),
            "Save the design",
            st.standardIcon(QStyle.StandardPixmap.SP_DialogSaveButton),
        )
        self.save_as = act("Save &As…", w.save_as, ["Ctrl+Shift+S"], "Save under a new name")
        self.quit = act("&Quit", w.close, ["Ctrl+Q"], "Close the window")
        self.recent_menu = QMenu("Open &Recent", w)
        self.recent_menu.aboutToShow.connect(w.fill_recent_menu)
        self.examples_menu = QMenu("Open E&xample", w)
        self.examples_menu.setToolTipsVisible(True)
        self.examples_menu.aboutToShow.connect(w.fill_examples_menu)

        # edit: the menu items say what will be undone, the toolbar keeps short labels
        stack = doc.undo_stack

        def history(name: str, keys: list[str], menu_action: QAction, run, can, text):
            key = keys[0]
            icon = icons.arrow(left=name == "Undo")
            menu_action.setShortcuts([QKeySequence(k) for k in keys])
            menu_action.setIcon(icon)
            menu_action.setToolTip(f"{name} ({key})")
            w.addAction(menu_action)
            button = QAction(icon, name, w)
            button.setToolTip(f"{name} ({key})")
            button.triggered.connect(run)
            button.setEnabled(False)
            can.connect(button.setEnabled)
            text.connect(lambda t: button.setToolTip(f"{name} {t} ({key})"))
            return menu_action, button

        self.undo, self.tb_undo = history(
            "Undo", ["Ctrl+Z"], stack.createUndoAction(w, "&Undo"), stack.undo,
            stack.canUndoChanged, stack.undoTextChanged,
        )
        self.redo, self.tb_redo = history(
            "Redo", ["Ctrl+Shift+Z", "Ctrl+Y"], stack.createRedoAction(w, "&Redo"), stack.redo,
            stack.canRedoChanged, stack.redoTextChanged,
        )
        self.cut = act("Cu&t", w.cut, ["Ctrl+X"], "Copy the selected devices and delete them")
        self.copy = act("&Copy", w.copy, ["Ctrl+C"], "Copy the selected devices and their links")
        self.paste = act(
            "&Paste", w.paste, ["Ctrl+V"], "Paste devices (at the mouse when over the canvas)"
        )
        self.duplicate = act(
            "&Duplicate", w.duplicate, ["Ctrl+D"], "Copy the selection beside itself"
        )
        self.delete = act(
            "&Delete",
            w.delete_selection,
            ["Delete", "Backspace"],
            "Delete the selected devices or link",
        )
        self.select_all = act("Select &All", sc.select_all, ["Ctrl+A"], "Select everything shown")
        self.find = act(
            "&Find Device…",
            w.find_device,
            ["Ctrl+F"],
            "Find devices by id or name; expands their groups and selects them",
        )
        self.edit_networks = act(
            "Edit Other &Networks…",
            w.show_network_editor,
            tip="Change the front-end, storage or out-of-band network's parameters and "
            "generate it again",
        )

        # tools
        self.tools = QActionGroup(w)
        self.select_tool = act(
            "Select",
            lambda: w.set_link_tool(False),
            ["V"],
            "Select and move (drag the dot on a device's edge to link)",
            icons.pointer(),
            checkable=True,
        )
        self.link_tool = act(
            "Link",
            lambda: w.set_link_tool(True),
            ["L"],
            "Link tool: drag from one device to another",
            icons.link(),
            checkable=True,
        )
        self.tools.addAction(self.select_tool)
        self.tools.addAction(self.link_tool)
        self.select_tool.setChecked(True)

        # view
        self.zoom_in = act("Zoom &In", sv.zoom_in, ["Ctrl+=", "Ctrl++"], "Zoom in", icons.zoom("+"))
        self.zoom_out = act("Zoom &Out", sv.zoom_out, ["Ctrl+-"], "Zoom out", icons.zoom("-"))
        self.fit = act(
            "&Fit Design", sv.fit_all, ["Ctrl+0", "F"], "Show the whole design", icons.fit()
        )
        self.actual = act("Actual Si&ze", sv.zoom_actual, ["Ctrl+1"], "Zoom to 100%")
        self.expand_level = act(
            "&Expand One Level",
            sc.expand_one_level,
            ["E"],
            "Open the collapsed boxes shown now",
            icons.expand(),
        )
        self.collapse_level = act(
            "&Collapse One Level",
            sc.collapse_one_level,
            ["Shift+E"],
            "Fold the innermost open groups",
            icons.collapse(),
        )
        self.expand_all = act(
            "Expand All",
            w.expand_all,
            ["Ctrl+Shift+E"],
            "Show every device (slow to draw for very large designs)",
        )
        self.collapse_all = act(
            "Collapse All", sc.collapse_all, ["Ctrl+Shift+C"], "Fold every group into its box"
        )
        self.grid = act(
            "Show &Grid", w.toggle_grid, ["Ctrl+'"], "Show the snapping grid", checkable=True
        )
        self.grid.setChecked(True)
        self.reset_layout = act("Reset Panel Layout", w.reset_layout, (), "Put the panels back")

        # design
        self.gen = {
            kind: act(
                f"{label}…",
                lambda _=False, k=kind: w.show_generate(k),
                (),
                f"Generate a {label.lower()} fabric from a few parameters",
            )
            for kind, label in KIND_LABELS.items()
        }
        self.gen["rail"].setShortcut(QKeySequence("Ctrl+G"))
        self.gen["rail"].setToolTip("Generate a rail-optimized fabric (Ctrl+G)")
        self.gen_multi = act(
            "Multi-plane…",
            lambda: w.show_generate("rail", True),
            (),
            "Generate parallel planes (each GPU has a port on every plane)",
        )
        self.arrange = act(
            "&Arrange Compactly",
            w.arrange_compact,
            ["Ctrl+Shift+A"],
            "Wrap the pods (or SUs, or groups) of a wide design into rows so it fits a screen",
        )
        self.explore = act(
            "E&xplore…",
            w.show_explore,
            (),
            "Sweep a design space on Dask: many designs, a Pareto front, the best per constraint",
        )
        self.profile_group = QActionGroup(w)
        self.profile_actions: dict[str, QAction] = {}
        for pid in GEAR_PROFILES:
            try:
                name = doc.base_catalog.profile(pid).name
            except Exception:  # a user catalog may lack a profile
                continue
            a = act(
                name,
                lambda _=False, p=pid: w.switch_profile(p),
                (),
                f"Switch the whole design to {name}",
                checkable=True,
            )
            self.profile_group.addAction(a)
            self.profile_actions[pid] = a
        self.relayout = act(
            "Lay Out Again on a Gear Switch",
            None,
            (),
            "On: a gear switch that would leave switch ports idle plans the layout again for "
            "the same GPUs, bisection and oversubscription, as Compare does (one undo step, "
            "the plan in the status bar). Off: the layout is kept as drawn",
            checkable=True,
        )
        self.relayout.setChecked(True)

        # help
        self.shortcuts = act(
            "&Keyboard and Mouse…", w.show_shortcuts, ["F1"], "Every shortcut and gesture"
        )
        self.documentation = act(
            "&Documentation…", w.show_documentation, ["Shift+F1"],
            "The guides and reference, shipped with the app"
        )
        self.about = act("&About Fabric Designer", w.show_about)

    # menus and toolbar ----------------------------------------------------------------------
    def build_menus(self) -> None:
        w = self.w
        bar = w.menuBar()
        # other features add their entries here (e.g. File > Export before Quit)
        self.menus: dict[str, QMenu] = {}
        m = self.menus["file"] = bar.addMenu("&File")
        m.addActions([self.new, self.open])
        m.addMenu(self.recent_menu)
        m.addMenu(self.examples_menu)
        m.addSeparator()
        m.addActions([self.save, self.save_as])
        self.file_end = m.addSeparator()  # insert further file actions before this
        m.addAction(self.quit)

        m = self.menus["edit"] = bar.addMenu("&Edit")
        m.addActions([self.undo, self.redo])
        m.addSeparator()
        m.addActions([self.cut, self.copy, self.paste, self.duplicate, self.delete])
        m.addSeparator()
        m.addActions([self.select_all, self.find])
        m.addSeparator()
        m.addAction(self.edit_networks)
        m.addSeparator()
        m.addActions([self.select_tool, self.link_tool])

        m = self.menus["view"] = bar.addMenu("&View")
        m.addActions([self.zoom_in, self.zoom_out, self.fit, self.actual])
        m.addSeparator()
        m.addActions([self.expand_level, self.collapse_level, self.expand_all, self.collapse_all])
        m.addSeparator()
        m.addAction(self.grid)
        self._fill_networks(m.addMenu("&Network Layer"))
        self.panels_menu = m.addMenu("&Panels")
        m.addAction(self.reset_layout)

        m = self.menus["design"] = bar.addMenu("&Design")
        self._fill_generate(m.addMenu("&Generate"))
        m.addAction(self.arrange)
        m.addAction(self.explore)
        p = m.addMenu("Gear &Profile")
        p.addActions(list(self.profile_actions.values()))
        p.addSeparator()
        p.addAction(self.relayout)

        m = self.menus["help"] = bar.addMenu("&Help")
        m.addActions([self.documentation, self.shortcuts])
        m.addSeparator()
        m.addAction(self.about)

    def build_toolbar(self) -> QToolBar:
        w = self.w
        tb = QToolBar("Main toolbar", w)
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.addActions([self.new, self.open, self.save])
        tb.addSeparator()
        tb.addActions([self.tb_undo, self.tb_redo])
        tb.addSeparator()
        tb.addActions([self.select_tool, self.link_tool])
        tb.addSeparator()
        for a in (self.zoom_in, self.zoom_out, self.fit, self.expand_level, self.collapse_level):
            tb.addAction(a)
        for a in (self.zoom_in, self.zoom_out, self.expand_level, self.collapse_level):
            tb.widgetForAction(a).setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        tb.addSeparator()
        gen_menu = self._fill_generate(QMenu(w))
        gen = QAction(icons.generate(), "Generate", w)
        gen.setToolTip("Generate a fabric: rail-optimized, fat-tree, dragonfly, multi-plane")
        gen.setMenu(gen_menu)
        gen.triggered.connect(lambda: w.show_generate("rail"))
        tb.addAction(gen)
        button = tb.widgetForAction(gen)
        if isinstance(button, QToolButton):
            button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        tb.addSeparator()
        label = QLabel(" Gear ")
        label.setToolTip("Gear profile of the whole design")
        tb.addWidget(label)
        self.profile_combo = QComboBox()
        self.profile_combo.setToolTip(
            "Switch the whole design to another gear profile (one undo step); generated "
            "designs are generated again when the switch radix changes"
        )
        for pid in self.profile_actions:
            self.profile_combo.addItem(w.doc.base_catalog.profile(pid).name, pid)
        self.profile_combo.setMinimumContentsLength(22)
        self.profile_combo.activated.connect(
            lambda i: w.switch_profile(self.profile_combo.itemData(i))
        )
        tb.addWidget(self.profile_combo)
        label = QLabel(" Transport ")
        label.setToolTip("How RDMA crosses the fabric: it sets the load model's routing, the "
                         "incast model, the switch configs' QoS and the tuning in TCO")
        tb.addWidget(label)
        self.transport_picker = TransportPicker(w.doc)
        tb.addWidget(self.transport_picker)
        label = QLabel(" Network ")
        label.setToolTip("Which network of the cluster the canvas shows: the back-end, the "
                         "front-end, storage or out-of-band management network, or all")
        tb.addWidget(label)
        self.network_combo = QComboBox()
        self.network_combo.setToolTip(label.toolTip())
        for key in LAYERS:
            self.network_combo.addItem(LAYER_LABELS[key], key)
        self.network_combo.activated.connect(
            lambda i: self.show_network(self.network_combo.itemData(i)))
        tb.addWidget(self.network_combo)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        return tb

    def _fill_networks(self, menu: QMenu) -> None:
        """View > Network Layer: the same choice as the toolbar's Network box."""
        group = QActionGroup(self.w)
        self.network_actions: dict[str, QAction] = {}
        for key in LAYERS:
            a = QAction(LAYER_LABELS[key], self.w, checkable=True)
            a.setChecked(key == "all")
            a.triggered.connect(lambda _on=False, k=key: self.show_network(k))
            group.addAction(a)
            menu.addAction(a)
            self.network_actions[key] = a

    def show_network(self, key: str) -> None:
        """Show one network of the cluster on the canvas (or all), keeping the toolbar box and
        the menu in step."""
        self.w.scene.networks.set_layer(key)
        self.network_actions[key].setChecked(True)
        combo = getattr(self, "network_combo", None)
        if combo is not None:
            combo.setCurrentIndex(combo.findData(key))

    def _fill_generate(self, menu: QMenu) -> QMenu:
        menu.addActions(list(self.gen.values()))
        menu.addSeparator()
        menu.addAction(self.gen_multi)
        return menu

    def all_shortcuts(self) -> list[tuple[str, str]]:
        rows = []
        for a in self.w.actions():
            seqs = [s.toString(QKeySequence.SequenceFormat.NativeText) for s in a.shortcuts()]
            seqs = [s for s in seqs if s]
            if seqs and a.text():
                rows.append((a.text().replace("&", "").rstrip("…"), ", ".join(seqs)))
        return sorted(set(rows), key=lambda r: r[0])
