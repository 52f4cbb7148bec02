"""Generate dialogs: the command line's generator parameters as a form, with a live preview.

Every change re-plans (``designer.core.generators.plan``, cheap: nothing is built) and shows
the GPUs, switches per tier, links per layer and oversubscription, or the GeneratorError that
says why the parameters cannot work; a quick solve in a worker thread then adds cost per GPU,
bisection, oversubscription and latency (``preview.py``). The dialog only yields
parameters; the window generates and pushes one undo command ("Replace design" or "Add to
design").
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from designer.core.catalog import Catalog, ServerSpec, SwitchSpec
from designer.core.errors import DesignerError
from designer.core.generators import (
    GEAR_PROFILES,
    KIND_LABELS,
    Plan,
    params_from_dict,
    plan,
    resolve_gear,
)
from designer.core.networks import BACKEND, EXTRA_NETWORKS, NETWORK_LABELS, NETWORK_NAMES
from designer.gui.generate.preview import PreviewAnalysis


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: str  # int, choice, text
    default: Any = None
    minimum: int = 0
    maximum: int = 1_000_000
    special: str = ""  # shown for 0 / "" (the generator's default)
    tip: str = ""
    choices: tuple[tuple[str, Any], ...] = ()


TIERS = (("Automatic", None), ("2 tiers", 2), ("3 tiers", 3))

KIND_FIELDS: dict[str, tuple[Field, ...]] = {
    "rail": (
        Field(
            "sus",
            "Scalable units",
            "int",
            4,
            0,
            10_000,
            "enough for the GPUs",
            "SUs of S servers (or of racks of a rack-scale system); one leaf per rail per SU",
        ),
        Field(
            "gpus",
            "GPUs in all",
            "int",
            0,
            0,
            10_000_000,
            "every slot",
            "a whole number of servers, or of racks of a rack-scale system (72 GPUs an NVL72); "
            "set Scalable units to 'enough' to size the SUs from it",
        ),
        Field("servers_per_su", "Servers per SU", "int", 0, 0, 4096, "reference",
              tip="default: what one rail leaf serves at 1:1 (32 on QM9700, 72 on Q3400, 64 on "
                  "SN5610), the DGX SuperPOD's SUs; the preview says published or derived. A "
                  "rack-scale system's SU is counted in racks"),
        Field("racks_per_su", "Racks per SU", "int", 0, 0, 4096, "8",
              tip="rack-scale systems (NVL72): racks per SU, 8 (576 GPUs) in the DGX SuperPOD"),
        Field(
            "servers",
            "Servers in all",
            "int",
            0,
            0,
            1_000_000,
            "every slot",
            "fewer servers leave the last SU partial",
        ),
        Field(
            "reserve_leaf_ports",
            "Reserved leaf ports",
            "int",
            0,
            0,
            4096,
            "none",
            "leaf ports for UFM/management appliances (the SuperPOD's 1 SU table reserves 4)",
        ),
        Field(
            "tiers",
            "Tiers",
            "choice",
            None,
            choices=TIERS,
            tip="2 up to the 2-tier limit of the spine radix, then 3",
        ),
    ),
    "fat-tree": (
        Field("gpus", "GPUs", "int", 1024, 1, 10_000_000, tip="endpoints (one NIC port per GPU)"),
        Field(
            "k_ary",
            "k-ary (Al-Fares)",
            "int",
            0,
            0,
            1024,
            "off",
            "build Al-Fares' k-ary fat-tree: k-port switches, k^3/4 hosts (overrides GPUs)",
        ),
        Field("tiers", "Tiers", "choice", None, choices=TIERS),
        Field(
            "oversubscription",
            "Oversubscription",
            "text",
            "1:1",
            tip="down:up per tier from the bottom, e.g. 1:1, 1:1,7:1, 1:1,2.8:1, or 1:2 for a "
            "tier with twice the uplink (decimals: the closest split not above the ratio is "
            "built, and the preview says which)",
        ),
        Field(
            "placement",
            "Placement",
            "choice",
            "tor",
            choices=(
                ("ToR (a server under one leaf)", "tor"),
                ("Rail (GPUs over G leaves)", "rail"),
            ),
        ),
        Field("servers_per_leaf", "Servers per leaf", "int", 0, 0, 4096, "as many as fit"),
        Field("pod_gpus", "GPUs per pod", "int", 0, 0, 10_000_000, "one spine tier's worth"),
        Field(
            "striping",
            "Striping",
            "choice",
            "balanced",
            choices=(
                ("Balanced (fewest spines and cores)", "balanced"),
                ("Uniform (divisor rule)", "uniform"),
            ),
            tip="balanced: the fewest spines and cores that hold every uplink, link counts "
            "differing by at most one; uniform: every leaf as many links to every spine, "
            "whatever ports that idles (the preview prices them)",
        ),
    ),
    "rail-only": (
        Field("gpus", "GPUs", "int", 1024, 1, 10_000_000,
              tip="a whole number of scale-up domains (servers, or NVL72 racks)"),
        Field("tiers", "Tiers in a rail", "choice", None,
              choices=(("Automatic", None), ("1 (a switch a rail)", 1),
                       ("2 (a Clos a rail)", 2)),
              tip="no spine joins the rails: GPUs on different rails meet through their "
              "scale-up domain (arXiv 2307.12169)"),
    ),
    "dragonfly": (
        # the bundled example's size (1,056 GPUs); 0 ("balanced") takes the largest the
        # router radix allows, 262,656 GPUs on 64-port routers: too big to start from
        Field("p", "GPU ports per router (p)", "int", 4, 0, 1024, "balanced"),
        Field("a", "Routers per group (a)", "int", 8, 0, 1024, "balanced (2p)"),
        Field("h", "Global links per router (h)", "int", 4, 0, 1024, "balanced (p)"),
        Field("groups", "Groups (g)", "int", 0, 0, 100_000, "a*h + 1"),
        Field("links_per_pair", "Links per group pair", "int", 0, 0, 1024, "as many as fit"),
        Field(
            "arrangement",
            "Global arrangement",
            "choice",
            "absolute",
            choices=(
                ("Absolute", "absolute"),
                ("Relative", "relative"),
                ("Circulant", "circulant"),
            ),
        ),
    ),
}


def gear_fields(catalog: Catalog, default_gear: str, default_planes: int) -> tuple[Field, ...]:
    profiles = catalog.profiles
    gear_choices = tuple(
        (profiles[g].name if g in profiles else g, g) for g in GEAR_PROFILES if g in profiles
    )
    default = ("Profile default", "")
    switches = (
        default,
        *((s.name, s.id) for s in catalog.of_kind("switch") if isinstance(s, SwitchSpec)),
    )
    servers = (
        default,
        *(
            (s.name, s.id)
            for s in catalog.of_kind("server")
            if isinstance(s, ServerSpec) and s.gpus
        ),
    )
    nics = (("The server's", ""), *((n.name, n.id) for n in catalog.of_kind("nic")))
    return (
        Field("gear", "Gear profile", "choice", default_gear, choices=gear_choices),
        Field("switch", "Switch", "choice", "", choices=switches),
        Field(
            "spine_switch",
            "Spine/core switch",
            "choice",
            "",
            choices=switches,
            tip="default: the leaf switch, or the smallest catalog switch that carries the "
            "tier when it cannot (the preview says so); a switch chosen here is kept",
        ),
        Field(
            "radix",
            "Generic radix",
            "int",
            0,
            0,
            4096,
            "catalog switch",
            "a generic K-port switch at the profile's speed",
        ),
        Field("server", "GPU server or rack", "choice", "", choices=servers,
              tip="an 8-GPU server, or a rack-scale system (GB200/GB300/Vera Rubin NVL72, "
              "Helios): its trays come a rack at a time, one scale-up domain a rack"),
        Field("gpus_per_server", "GPUs per server", "int", 0, 0, 1024, "the server's"),
        Field("nic", "NIC", "choice", "", choices=nics,
              tip="default: the server's, or the profile's when the server's cannot run it"),
        Field("nics", "NICs per server", "int", 0, 0, 1024, "the server's",
              tip="fewer NICs than GPUs makes GPUs share a NIC (NCCL's GPU-to-NIC affinity)"),
        Field(
            "planes",
            "Planes",
            "int",
            default_planes,
            0,
            16,
            "the profile's",
            "parallel fabrics; each GPU has one port per plane",
        ),
        Field("plane_split", "Lanes to planes", "choice", None,
              choices=(("No split", None), ("2 planes a NIC port", 2),
                       ("4 planes a NIC port", 4), ("8 planes a NIC port", 8)),
              tip="split each NIC port into P ports of 1/P its speed, one plane each (an 800G "
              "port as 8 x 100G, OCP MRC); the switches run their mode of that speed "
              "(Tomahawk 6 as 1,024 x 100G); the NIC must list the breakout (thor-ultra)"),
        Field("name", "Design name", "text", "", tip="default: a description of the design"),
    )


class GenerateDialog(QDialog):
    """Parameters for one generator kind (or, with ``multi_plane``, a kind chooser too)."""

    REPLACE, ADD = "replace", "add"

    def __init__(
        self,
        kind: str,
        catalog: Catalog,
        parent: QWidget | None = None,
        multi_plane: bool = False,
        gear: str = "ib-ndr",
        has_design: bool = False,
    ) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.kind = kind
        self.multi_plane = multi_plane
        self.mode = self.REPLACE
        self.has_design = has_design
        self._plan: Plan | None = None
        self._error = ""
        self.widgets: dict[str, QWidget] = {}
        self.fields: dict[str, Field] = {}
        title = "Multi-plane fabric" if multi_plane else KIND_LABELS[kind]
        self.setWindowTitle(f"Generate: {title}")
        self.setMinimumSize(900, 580)

        outer = QHBoxLayout(self)
        left = QVBoxLayout()
        outer.addLayout(left, 3)
        self.kind_box = QComboBox()
        for k, label in KIND_LABELS.items():
            self.kind_box.addItem(label, k)
        self.kind_box.setCurrentIndex(self.kind_box.findData(kind))
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        if multi_plane:
            top = QFormLayout()
            top.addRow("Topology of each plane", self.kind_box)
            left.addLayout(top)
        self.topology_box = QGroupBox("Topology")
        self.topology_form = QFormLayout(self.topology_box)
        left.addWidget(self.topology_box)
        gear_box = QGroupBox("Gear")
        self.gear_form = QFormLayout(gear_box)
        left.addWidget(gear_box)
        # the cluster's other networks, generated from the servers with the back-end
        nets_box = QGroupBox("Networks")
        nets_box.setToolTip("The back-end fabric is always built; the others follow the "
                            "reference layouts from its servers (see Help: Networks)")
        nets_row = QHBoxLayout(nets_box)
        self.network_boxes: dict[str, QCheckBox] = {}
        short = {"backend": "Back-end", "frontend": "Front-end", "storage": "Storage",
                 "oob": "Out-of-band"}
        for name in NETWORK_NAMES:
            box = QCheckBox(short[name])
            box.setToolTip(NETWORK_LABELS[name])
            box.setObjectName(f"network_{name}")
            if name == BACKEND:
                box.setChecked(True)
                box.setEnabled(False)
            nets_row.addWidget(box)
            self.network_boxes[name] = box
        left.addWidget(nets_box)
        left.addStretch(1)
        for f in gear_fields(catalog, gear, 2 if multi_plane else 0):
            self._add_field(self.gear_form, f)
        self._build_kind_fields(kind)

        right = QVBoxLayout()
        outer.addLayout(right, 2)
        head = QLabel("What it will build")
        head.setObjectName("sectionTitle")
        right.addWidget(head)
        self.preview = QLabel()
        self.preview.setObjectName("preview")
        self.preview.setTextFormat(Qt.TextFormat.RichText)
        self.preview.setWordWrap(True)
        self.preview.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # a long plan (notes on pods, a refusal's reasons) scrolls instead of being cut at the
        # dialog's foot
        scroll = QScrollArea()
        scroll.setObjectName("previewScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.preview)
        scroll.setMinimumWidth(320)
        scroll.viewport().setAutoFillBackground(False)  # the dialog's own background
        self.preview.setAutoFillBackground(False)
        right.addWidget(scroll, 1)
        self.buttons = QDialogButtonBox()
        self.replace_btn = QPushButton("Replace design")
        self.replace_btn.setDefault(True)
        self.replace_btn.setToolTip("Make this the whole design (one undo step)")
        self.add_btn = QPushButton("Add to design")
        self.add_btn.setToolTip("Place it beside what is there (one undo step)")
        self.buttons.addButton(self.replace_btn, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.add_btn, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.replace_btn.clicked.connect(lambda: self._finish(self.REPLACE))
        self.add_btn.clicked.connect(lambda: self._finish(self.ADD))
        self.buttons.rejected.connect(self.reject)
        right.addWidget(self.buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(120)
        self._timer.timeout.connect(self.update_preview)
        # cost, bisection, oversubscription and latency: generated and solved in a worker
        self.analysis = PreviewAnalysis(catalog, self)
        self.analysis.changed.connect(self._show_preview)
        self.finished.connect(lambda _r: self.analysis.shutdown())
        self.update_preview()
        self.adjustSize()

    # -- fields --------------------------------------------------------------------------------
    def _add_field(self, form: QFormLayout, f: Field) -> None:
        if f.kind == "int":
            w = QSpinBox()
            w.setRange(f.minimum, f.maximum)
            w.setValue(int(f.default or 0))
            w.setGroupSeparatorShown(True)
            if f.special:
                w.setSpecialValueText(f.special)
            w.valueChanged.connect(self._changed)
        elif f.kind == "choice":
            w = QComboBox()
            for label, value in f.choices:
                w.addItem(label, value)
            i = w.findData(f.default)
            w.setCurrentIndex(max(0, i))
            w.currentIndexChanged.connect(self._changed)
        else:
            w = QLineEdit(str(f.default or ""))
            if f.special:
                w.setPlaceholderText(f.special)
            w.textChanged.connect(self._changed)
        if f.tip:
            w.setToolTip(f.tip)
        self.widgets[f.name] = w
        self.fields[f.name] = f
        label = QLabel(f.label)
        if f.tip:
            label.setToolTip(f.tip)
        form.addRow(label, w)

    def _build_kind_fields(self, kind: str) -> None:
        while self.topology_form.rowCount():
            name = self.topology_form.itemAt(0, QFormLayout.ItemRole.FieldRole).widget()
            for key, w in list(self.widgets.items()):
                if w is name:
                    del self.widgets[key]
                    del self.fields[key]
            self.topology_form.removeRow(0)
        self.kind = kind
        self.topology_box.setTitle(f"{KIND_LABELS[kind]} topology")
        for f in KIND_FIELDS[kind]:
            self._add_field(self.topology_form, f)

    def _kind_changed(self) -> None:
        self._build_kind_fields(self.kind_box.currentData())
        self.update_preview()

    def _changed(self, *_args) -> None:
        self._timer.start()

    def set_value(self, name: str, value: Any) -> None:
        """Set a field as a user would (tests and presets)."""
        w = self.widgets[name]
        if isinstance(w, QSpinBox):
            w.setValue(int(value or 0))
        elif isinstance(w, QComboBox):
            w.setCurrentIndex(w.findData(value))
        else:
            w.setText(str(value))
        self.update_preview()

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, w in self.widgets.items():
            if isinstance(w, QSpinBox):
                v: Any = w.value() or None
            elif isinstance(w, QComboBox):
                v = w.currentData()
                v = v if v not in ("", None) else None
            else:
                v = w.text().strip() or None
            if v is not None:
                out[name] = v
        if self.kind == "fat-tree" and out.get("k_ary"):
            out.pop("gpus", None)
        return out

    def networks(self) -> tuple[str, ...]:
        """The other networks ticked, in their canonical order."""
        return tuple(n for n in EXTRA_NETWORKS if self.network_boxes[n].isChecked())

    # -- preview -------------------------------------------------------------------------------
    def params(self):
        return params_from_dict(self.kind, self.values())

    def plan(self) -> Plan | None:
        return self._plan

    def error_text(self) -> str:
        return self._error

    def _show_su_unit(self) -> None:
        """A rail SU is counted in servers, or in racks of a rack-scale system: only the field
        that governs the chosen server is shown (the other would be refused)."""
        if self.kind != "rail" or "racks_per_su" not in self.widgets:
            return
        values = self.values()
        values.pop("servers_per_su", None)
        values.pop("racks_per_su", None)
        try:
            gear = resolve_gear(params_from_dict(self.kind, values), self.catalog)
        except DesignerError:
            return  # the preview says what is wrong; keep the rows as they are
        racks = gear.domain_servers > 1
        for name, show in (("racks_per_su", racks), ("servers_per_su", not racks)):
            w = self.widgets[name]
            if not show and isinstance(w, QSpinBox):
                w.blockSignals(True)
                w.setValue(0)  # a hidden field never carries a value the generator refuses
                w.blockSignals(False)
            self.topology_form.setRowVisible(w, show)

    def update_preview(self) -> None:
        self._timer.stop()
        self._show_su_unit()
        try:
            params = self.params()
            self._plan = plan(params, self.catalog)
            self._error = ""
        except DesignerError as exc:
            self._plan = None
            self._error = str(exc)
        if self._plan is not None:
            self.analysis.request(params)  # shows "analysing…" at once, figures when solved
        else:
            self._show_preview()
        ok = self._plan is not None
        self.replace_btn.setEnabled(ok)
        self.add_btn.setEnabled(ok and self.has_design)

    def _show_preview(self) -> None:
        self.preview.setText(self._preview_html())

    def _preview_html(self) -> str:
        if self._plan is None:
            return (
                "<p style='color:#c62828'><b>Cannot build this:</b></p>"
                f"<p style='color:#c62828'>{escape(self._error)}</p>"
            )
        pl = self._plan
        rows = [
            f"<p style='font-size:11pt'><b>{pl.gpus:,} GPUs</b> in "
            + (f"{pl.racks:,} racks ({pl.servers:,} trays)" if pl.racks
               else f"{pl.servers:,} servers")
            + (f" × {pl.planes} planes" if pl.planes > 1 else "")
            + "</p>",
            f"<p style='color:#5d6876'>{escape(pl.title)}</p>",
            "<table cellspacing='0' cellpadding='2'>",
            "<tr><td colspan='2'><b>Switches</b></td></tr>",
        ]
        for role, n in pl.switches.items():
            if n:
                rows.append(f"<tr><td>{escape(role)}</td><td align='right'>{n:,}</td></tr>")
        rows.append(
            f"<tr><td><i>in all</i></td><td align='right'><i>{pl.total_switches:,}</i></td></tr>"
        )
        rows.append("<tr><td colspan='2'><br><b>Links</b></td></tr>")
        for layer, n in pl.links.items():
            if n:
                rows.append(f"<tr><td>{escape(layer)}</td><td align='right'>{n:,}</td></tr>")
        rows.append(
            f"<tr><td><i>in all</i></td><td align='right'><i>{pl.total_links:,}</i></td></tr>"
        )
        if pl.oversubscription:
            rows.append("<tr><td colspan='2'><br><b>Oversubscription</b></td></tr>")
            for tier, r in pl.oversubscription.items():
                rows.append(f"<tr><td>{escape(tier)}</td><td align='right'>{escape(r)}</td></tr>")
        rows.append(self.analysis.html())
        rows.append("</table>")
        if pl.details:
            rows.append(
                "<p style='color:#5d6876'>" + "<br>".join(escape(d) for d in pl.details) + "</p>"
            )
        return "".join(rows)

    def _finish(self, mode: str) -> None:
        self.update_preview()
        if self._plan is None:
            return
        self.mode = mode
        self.accept()
