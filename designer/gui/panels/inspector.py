"""The inspector: edit what is selected. Every committed field is one undoable command.

Pages: the design (nothing selected), one device, several devices, one link (all cables
between two devices), collapsed groups, and a summed line between groups.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from designer.core import editing
from designer.core.device_choices import device_choices, neighbours
from designer.core.errors import DesignerError
from designer.core.links import MEDIA
from designer.core.model import SWITCH_ROLES
from designer.core.ports import planes_text, port_layout, used_port_counts
from designer.core.transport import transport_of
from designer.gui.canvas.groups import device_chain, key_path_label
from designer.gui.canvas.items import role_count_text
from designer.gui.project import commands
from designer.gui.project.document import Document, Selection
from designer.gui.transport.picker import TransportPicker, transport_note

MEDIUM_LABELS = {
    "auto": "Auto (cheapest that reaches)",
    "dac": "DAC (passive copper)",
    "acc": "ACC (active copper)",
    "mmf": "MMF (multimode optics)",
    "smf": "SMF (single-mode optics)",
}
SPEEDS = (100, 200, 400, 800, 1600)


def parse_groups(text: str) -> dict[str, int]:
    """ "su=1, pod=2" -> {"su": 1, "pod": 2}; raises ValueError with the bad part."""
    out: dict[str, int] = {}
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep:
            key, _, value = part.partition(" ")
        try:
            out[key.strip().lower()] = int(value.strip())
        except ValueError:
            raise ValueError(f"'{part}' is not label=number (e.g. su=1, pod=2)") from None
    return out


def groups_text(groups: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in groups.items())


def generator_text(kind: str, params: dict, profile_names: dict[str, str] | None = None) -> str:
    """ "rail · sus 64 · gear InfiniBand NDR 400G": the parameters that differ from the
    defaults; the gear profile by its name when ``profile_names`` knows it."""
    parts = [kind]
    for key, value in params.items():
        if key == "name" or value in (None, "", 0):
            continue
        if key == "gear" and profile_names and value in profile_names:
            value = profile_names[value]
        if key == "oversubscription" and isinstance(value, list):
            ratios = [f"{r['down']}:{r['up']}" for r in value if isinstance(r, dict)]
            if all(r == "1:1" for r in ratios):
                continue
            value = ",".join(ratios)
        parts.append(f"{key.replace('_', ' ')} {value}")
    return " · ".join(parts)


class _NotesEdit(QPlainTextEdit):
    committed = Signal()

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.committed.emit()


def _title(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("sectionTitle")
    return label


def _hint(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("hint")
    label.setWordWrap(True)
    return label


def _form() -> QFormLayout:
    form = QFormLayout()
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setHorizontalSpacing(10)
    form.setVerticalSpacing(6)
    return form


class InspectorPanel(QScrollArea):
    expandRequested = Signal(str)

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.stack = QStackedWidget()
        self.setWidget(self.stack)
        self._loading = False
        self._build_design_page()
        self._build_device_page()
        self._build_multi_page()
        self._build_link_page()
        self._build_group_page()
        document.selectionChanged.connect(self.refresh)
        document.projectChanged.connect(self.refresh)
        self.refresh()

    # -- pages --------------------------------------------------------------------------------
    def _page(self) -> tuple[QWidget, QVBoxLayout]:
        page = QWidget()
        lay = QVBoxLayout(page)
        lay.setContentsMargins(10, 8, 10, 10)
        lay.setSpacing(8)
        self.stack.addWidget(page)
        return page, lay

    def _build_design_page(self) -> None:
        self.design_page, lay = self._page()
        lay.addWidget(_title("Design"))
        form = _form()
        self.p_name = QLineEdit()
        self.p_name.setToolTip("The design's name (shown in the title bar and in exports)")
        self.p_name.editingFinished.connect(self._commit_name)
        form.addRow("Name", self.p_name)
        self.p_profile = QLabel()
        form.addRow("Gear", self.p_profile)
        self.p_transport = TransportPicker(self.doc)
        form.addRow("Transport", self.p_transport)
        self.p_transport_note = QLabel()
        self.p_transport_note.setWordWrap(True)
        form.addRow("", self.p_transport_note)
        self.p_size = QLabel()
        self.p_size.setWordWrap(True)
        form.addRow("Size", self.p_size)
        self.p_generator = QLabel()
        self.p_generator.setWordWrap(True)
        form.addRow("Generated", self.p_generator)
        lay.addLayout(form)
        lay.addWidget(_title("Notes"))
        self.p_notes = _NotesEdit()
        self.p_notes.setPlaceholderText("Assumptions, quotes, decisions…")
        self.p_notes.setToolTip("Saved with the project; committed when you leave the box")
        self.p_notes.committed.connect(self._commit_notes)
        lay.addWidget(self.p_notes, 1)
        lay.addWidget(
            _hint(
                "Select a device or a link to edit it. Drag gear from the palette, drag the dot "
                "on a device's right edge to another device to link them."
            )
        )

    def _build_device_page(self) -> None:
        self.device_page, lay = self._page()
        self.d_title = _title("Device")
        lay.addWidget(self.d_title)
        form = _form()
        self.d_id = QLabel()
        self.d_id.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("Id", self.d_id)
        self.d_name = QLineEdit()
        self.d_name.editingFinished.connect(self._commit_device_name)
        form.addRow("Name", self.d_name)
        self.d_model = QComboBox()
        self.d_model.setToolTip("Catalog gear; links must still fit its ports")
        self.d_model.activated.connect(self._commit_model)
        form.addRow("Model", self.d_model)
        self.d_role = QComboBox()
        self.d_role.activated.connect(self._commit_role)
        form.addRow("Role", self.d_role)
        self.d_mode = QComboBox()
        self.d_mode.setToolTip("How the ports run (an SN5600: 64 x 800G or 128 x 400G)")
        self.d_mode.activated.connect(self._commit_mode)
        form.addRow("Ports", self.d_mode)
        self.d_groups = QLineEdit()
        self.d_groups.setPlaceholderText("su=1, pod=2")
        self.d_groups.setToolTip(
            "Group labels (plane, pod, su, group, rail): the canvas collapses by them"
        )
        self.d_groups.editingFinished.connect(self._commit_groups)
        form.addRow("Groups", self.d_groups)
        self.d_usage = QLabel()
        self.d_usage.setWordWrap(True)
        form.addRow("In use", self.d_usage)
        self.d_planes = QLabel()
        self.d_planes.setWordWrap(True)
        self.d_planes.setToolTip("The plane or rail a switch is in; how a server's NIC ports "
                                 "split into lanes and how many planes its links reach")
        form.addRow("Planes", self.d_planes)
        self.d_pos = QLabel()
        form.addRow("Position", self.d_pos)
        lay.addLayout(form)
        lay.addWidget(_title("Links"))
        self.d_links = QListWidget()
        self.d_links.setToolTip("Click a link to select it")
        self.d_links.itemClicked.connect(self._select_neighbour_link)
        lay.addWidget(self.d_links, 1)

    def _build_multi_page(self) -> None:
        self.multi_page, lay = self._page()
        self.m_title = _title("Selection")
        lay.addWidget(self.m_title)
        self.m_text = QLabel()
        self.m_text.setWordWrap(True)
        lay.addWidget(self.m_text)
        lay.addWidget(
            _hint("Drag to move them together, Delete removes them, Ctrl+D duplicates them.")
        )
        lay.addStretch(1)

    def _build_link_page(self) -> None:
        self.link_page, lay = self._page()
        self.l_title = _title("Link")
        lay.addWidget(self.l_title)
        form = _form()
        self.l_ends = QLabel()
        self.l_ends.setWordWrap(True)
        form.addRow("Ends", self.l_ends)
        self.l_ports = QLabel()
        self.l_ports.setWordWrap(True)
        form.addRow("Ports", self.l_ports)
        self.l_count = QSpinBox()
        self.l_count.setRange(1, 100_000)
        self.l_count.setToolTip("Cables in this bundle; more take the next free ports")
        self.l_count.setKeyboardTracking(False)
        self.l_count.editingFinished.connect(self._commit_count)
        form.addRow("Cables", self.l_count)
        self.l_speed = QComboBox()
        self.l_speed.activated.connect(self._commit_speed)
        form.addRow("Speed", self.l_speed)
        self.l_medium = QComboBox()
        for m in MEDIA:
            self.l_medium.addItem(MEDIUM_LABELS[m], m)
        self.l_medium.activated.connect(self._commit_medium)
        form.addRow("Medium", self.l_medium)
        self.l_length = QDoubleSpinBox()
        self.l_length.setRange(-1, 100_000)
        self.l_length.setDecimals(1)
        self.l_length.setSuffix(" m")
        self.l_length.setSpecialValueText("Default for the layer")
        self.l_length.setKeyboardTracking(False)
        self.l_length.editingFinished.connect(self._commit_length)
        form.addRow("Length", self.l_length)
        lay.addLayout(form)
        self.l_delete = QPushButton("Delete link")
        self.l_delete.setToolTip("Remove every cable between these two devices (Delete)")
        self.l_delete.clicked.connect(self._delete_link)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.l_delete)
        lay.addLayout(row)
        lay.addStretch(1)

    def _build_group_page(self) -> None:
        self.group_page, lay = self._page()
        self.g_title = _title("Group")
        lay.addWidget(self.g_title)
        self.g_text = QLabel()
        self.g_text.setWordWrap(True)
        self.g_text.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.g_text)
        self.g_expand = QPushButton("Expand")
        self.g_expand.setToolTip("Show the devices of this group (or double-click the box)")
        self.g_expand.clicked.connect(self._expand_groups)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.g_expand)
        lay.addLayout(row)
        lay.addStretch(1)

    # -- refresh ------------------------------------------------------------------------------
    def refresh(self, *_args) -> None:
        sel = self.doc.selection
        self._loading = True
        try:
            if sel.link is not None:
                self._show_link(*sel.link)
            elif len(sel.devices) == 1 and not sel.groups:
                self._show_device(next(iter(sel.devices)))
            elif sel.devices or sel.groups:
                if sel.groups and not sel.devices:
                    self._show_groups(sel)
                else:
                    self._show_multi(sel)
            elif sel.aggregate is not None:
                self._show_aggregate(sel)
            else:
                self._show_design()
        finally:
            self._loading = False

    @staticmethod
    def _set_text(edit: QLineEdit, text: str) -> None:
        if not edit.hasFocus() and edit.text() != text:
            edit.setText(text)
            edit.setCursorPosition(0)

    def _show_design(self) -> None:
        p = self.doc.project
        self.stack.setCurrentWidget(self.design_page)
        self._set_text(self.p_name, p.name)
        try:
            self.p_profile.setText(self.doc.base_catalog.profile(p.profile).name)
        except DesignerError:
            self.p_profile.setText(p.profile)
        self.p_transport_note.setText(transport_note(transport_of(p, self.doc.catalog)))
        f = p.fabric
        switches = int(np.isin(f.roles, [r.value for r in SWITCH_ROLES]).sum())
        self.p_size.setText(
            f"{len(f.devices):,} devices ({switches:,} switches), {f.links.n_cables:,} cables "
            f"in {len(f.links):,} bundles"
        )
        if p.generator is None:
            self.p_generator.setText("no (drawn by hand or edited)")
        else:
            names = {k: v.name for k, v in self.doc.base_catalog.profiles.items()}
            self.p_generator.setText(generator_text(p.generator.kind, p.generator.params, names))
        if not self.p_notes.hasFocus() and self.p_notes.toPlainText() != p.notes:
            self.p_notes.setPlainText(p.notes)

    def _show_device(self, dev_id: str) -> None:
        fabric = self.doc.project.fabric
        if dev_id not in fabric.index:
            self._show_design()
            return
        cat = self.doc.catalog
        i = fabric.index[dev_id]
        d = fabric.devices[i]
        self.stack.setCurrentWidget(self.device_page)
        self.d_title.setText(d.role.label)
        self.d_id.setText(d.id)
        self._set_text(self.d_name, d.name)
        self._set_text(self.d_groups, groups_text(d.groups))
        self.d_pos.setText(f"x {d.x:,.0f}, y {d.y:,.0f}")
        ch = device_choices(fabric, i, cat)
        self.d_model.clear()
        for gid, name in ch.models:
            self.d_model.addItem(name, gid)
        self.d_model.setCurrentIndex(max(0, self.d_model.findData(ch.model)))
        self.d_role.clear()
        for r in ch.roles:
            self.d_role.addItem(r.label, r.value)
        self.d_role.setCurrentIndex(max(0, self.d_role.findData(d.role.value)))
        self.d_mode.clear()
        for label, speed in ch.modes:
            self.d_mode.addItem(label, speed)
        if ch.mode is not None:
            self.d_mode.setCurrentIndex(max(0, self.d_mode.findData(ch.mode)))
        try:
            lay = port_layout(d, cat)
            used = int(used_port_counts(fabric)[i])
            self.d_usage.setText(f"{used} of {lay.count} ports used, {lay.count - used} free")
        except DesignerError as exc:
            self.d_usage.setText(str(exc))
        try:
            self.d_planes.setText(planes_text(fabric, i, cat) or "one plane")
        except DesignerError:
            self.d_planes.setText("")
        self.d_links.clear()
        near, total = neighbours(fabric, i)
        for n in near:
            item = QListWidgetItem(f"{n.name}  —  {n.cables} x {n.speed_gbps}G")
            item.setData(Qt.ItemDataRole.UserRole, n.device)
            self.d_links.addItem(item)
        if total > len(near):
            self.d_links.addItem(f"… and {total - len(near):,} more")

    def _show_multi(self, sel: Selection) -> None:
        self.stack.setCurrentWidget(self.multi_page)
        fabric = self.doc.project.fabric
        roles: dict[str, int] = {}
        for dev_id in sel.devices:
            if dev_id in fabric.index:
                r = fabric.device(dev_id).role.value
                roles[r] = roles.get(r, 0) + 1
        parts = [role_count_text(roles)] if roles else []
        if sel.groups:
            parts.append(f"{len(sel.groups)} collapsed group(s)")
        self.m_title.setText(f"{len(sel.devices) + len(sel.groups):,} selected")
        self.m_text.setText(" · ".join(parts))

    def _show_groups(self, sel: Selection) -> None:
        self.stack.setCurrentWidget(self.group_page)
        keys = sorted(sel.groups)
        self.g_title.setText(key_path_label(keys[0]) if len(keys) == 1 else f"{len(keys)} groups")
        self._group_keys = keys
        if len(keys) == 1:
            head = self._group_summary(keys[0])
        else:
            head = "<br>".join(f"<b>{key_path_label(k)}</b>" for k in keys[:12])
            head += "<br>…" if len(keys) > 12 else ""
        self.g_text.setText(
            head + "<br><br>Collapsed: its devices and the links inside it are summed in one "
            "box; lines to other boxes carry the summed cable count."
        )
        self.g_expand.setText("Expand" if len(keys) == 1 else f"Expand {len(keys)} groups")

    def _group_summary(self, key: str) -> str:
        """Devices, GPUs and cables of one group (what its collapsed box stands for)."""
        fabric = self.doc.project.fabric
        cat = self.doc.catalog
        members = [i for i, d in enumerate(fabric.devices) if key in device_chain(d)]
        roles: dict[str, int] = {}
        gpus = 0
        for i in members:
            d = fabric.devices[i]
            roles[d.role.value] = roles.get(d.role.value, 0) + 1
            spec = cat.get(d.model) if d.model in cat else None
            gpus += getattr(spec, "gpus", 0) or 0
        inside = np.zeros(len(fabric.devices), bool)
        inside[members] = True
        links = fabric.links
        internal = int(links.count[inside[links.a] & inside[links.b]].sum())
        leaving = int(links.count[inside[links.a] ^ inside[links.b]].sum())
        return (
            f"{role_count_text(roles)}<br>{gpus:,} GPUs<br>{internal:,} cables inside, "
            f"{leaving:,} to the rest of the design"
        )

    def _show_aggregate(self, sel: Selection) -> None:
        self.stack.setCurrentWidget(self.group_page)
        a, b = sel.aggregate
        name = lambda k: key_path_label(k[4:]) if k.startswith("box:") else k  # noqa: E731
        self.g_title.setText("Links between groups")
        self._group_keys = [k[4:] for k in (a, b) if k.startswith("box:")]
        self.g_text.setText(
            f"<b>{name(a)}</b> ⟷ <b>{name(b)}</b><br><br>This line sums the link bundles "
            "between two collapsed groups. Expand both ends to edit single links."
        )
        self.g_expand.setText("Expand both ends")

    def _show_link(self, a: str, b: str) -> None:
        try:
            info = editing.bundle_info(self.doc.project, self.doc.catalog, a, b)
        except DesignerError:
            self._show_design()
            return
        fabric = self.doc.project.fabric
        cat = self.doc.catalog
        self.stack.setCurrentWidget(self.link_page)
        self.l_title.setText(f"Link · {info.count} cable{'s' if info.count != 1 else ''}")
        self.l_ends.setText(f"{fabric.device(a).name}  ⟷  {fabric.device(b).name}")
        self.l_ports.setText(f"{a}: {info.a_ports}\n{b}: {info.b_ports}")
        if not self.l_count.hasFocus():
            self.l_count.setValue(info.count)
        try:
            top = min(
                port_layout(fabric.device(a), cat).speed_gbps,
                port_layout(fabric.device(b), cat).speed_gbps,
            )
        except DesignerError:
            top = info.speed_gbps
        self.l_speed.clear()
        for s in SPEEDS:
            if s <= top or s == info.speed_gbps:
                self.l_speed.addItem(f"{s}G", s)
        self.l_speed.setCurrentIndex(max(0, self.l_speed.findData(info.speed_gbps)))
        self.l_medium.setCurrentIndex(max(0, self.l_medium.findData(info.medium)))
        if not self.l_length.hasFocus():
            self.l_length.setValue(-1 if info.length_m is None else info.length_m)

    # -- commits -------------------------------------------------------------------------------
    def _push(self, build) -> None:
        if self._loading:
            return
        try:
            self.doc.push(build())
        except (DesignerError, ValueError) as exc:
            self.doc.say(str(exc), True)
            self.refresh()

    def _device(self) -> str | None:
        sel = self.doc.selection
        return next(iter(sel.devices)) if len(sel.devices) == 1 else None

    def _commit_name(self) -> None:
        name = self.p_name.text().strip()
        if name and name != self.doc.project.name:
            self._push(lambda: commands.rename_project(self.doc, name))

    def _commit_notes(self) -> None:
        text = self.p_notes.toPlainText()
        if text != self.doc.project.notes:
            self._push(lambda: commands.edit_notes(self.doc, text))

    def _commit_device(self, field: str, value) -> None:
        """Set ``field`` of the selected device when ``value`` is given and new."""
        dev = self._device()
        if dev is None or value is None or value == "":
            return
        if value != getattr(self.doc.project.fabric.device(dev), field):
            self._push(lambda: commands.edit_device(self.doc, dev, **{field: value}))

    def _commit_device_name(self) -> None:
        self._commit_device("name", self.d_name.text().strip())

    def _commit_model(self) -> None:
        self._commit_device("model", self.d_model.currentData())

    def _commit_role(self) -> None:
        self._commit_device("role", self.d_role.currentData())

    def _commit_mode(self) -> None:
        dev = self._device()
        speed = self.d_mode.currentData()
        if dev is None or speed is None:
            return
        d = self.doc.project.fabric.device(dev)
        current = d.port_speed_gbps
        if self.d_mode.currentIndex() == 0 and current is None:
            return
        if speed != current:
            value = None if self.d_mode.currentIndex() == 0 else speed
            self._push(lambda: commands.edit_device(self.doc, dev, port_speed_gbps=value))

    def _commit_groups(self) -> None:
        try:
            groups = parse_groups(self.d_groups.text())
        except ValueError as exc:
            self.doc.say(str(exc), True)
            return
        self._commit_device("groups", groups)

    def _select_neighbour_link(self, item: QListWidgetItem) -> None:
        other = item.data(Qt.ItemDataRole.UserRole)
        dev = self._device()
        if other and dev:
            self.doc.set_selection(Selection(link=(dev, other)))

    def _link(self) -> tuple[str, str] | None:
        return self.doc.selection.link

    def _commit_link(self, field: str, value) -> None:
        """Set ``field`` of the selected link's cables when ``value`` is given and new."""
        link = self._link()
        if link is None or value is None or value == "":
            return
        if value != getattr(editing.bundle_info(self.doc.project, None, *link), field):
            self._push(lambda: commands.edit_link(self.doc, *link, **{field: value}))

    def _commit_count(self) -> None:
        self._commit_link("count", self.l_count.value())

    def _commit_speed(self) -> None:
        self._commit_link("speed_gbps", self.l_speed.currentData())

    def _commit_medium(self) -> None:
        self._commit_link("medium", self.l_medium.currentData())

    def _commit_length(self) -> None:
        link = self._link()
        if link is None:
            return
        v = self.l_length.value()
        new = None if v < 0 else float(v)
        old = editing.bundle_info(self.doc.project, None, *link).length_m
        if new != old and not (
            new is not None and old is not None and math.isclose(new, old, abs_tol=0.05)
        ):
            self._push(lambda: commands.edit_link(self.doc, *link, length_m=new))

    def _delete_link(self) -> None:
        link = self._link()
        if link:
            self._push(lambda: commands.delete(self.doc, (), [link]))

    def _expand_groups(self) -> None:
        for key in list(getattr(self, "_group_keys", [])):
            self.expandRequested.emit(key)
