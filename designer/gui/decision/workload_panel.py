"""The Workload panel: the job, the money assumptions and the decision answers, editable.

One line per field of ``Workload`` and ``Economics``; an edit is checked by the same pydantic
models the core uses, becomes one undo step (``Edit workload: tp``) and is saved with the
project. A value the model refuses is put back and the reason, naming the field, shown. The
scale-up domain is not edited here: the design gives it (an NVL72 rack, an 8-GPU server), and
the panel shows it from the latest solve.
"""

from __future__ import annotations

import typing

from pydantic import BaseModel, ValidationError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from designer.core.analysis import (
    ASSUMED,
    PRESETS,
    SOURCE,
    USER,
    DecisionSettings,
    Economics,
    Workload,
    constant_notes,
    settings_of,
)
from designer.gui.project.commands import ProjectCommand

VALUE_MIN_WIDTH = 120  # "Dense 70B, data parallel" and 16,777,216 read whole at a dock's width


LABEL_CHARS = 26  # a label this long leaves the value its room at the dock's default width


def _short(text: str) -> str:
    """A label short enough for a narrow dock: what a long one adds in brackets ("0: the
    design's", the NCCL variable) is left to its tooltip."""
    short, sep, _rest = text.partition(" (")
    return short if sep and len(text) > LABEL_CHARS else text


def _wrapped(text: str) -> QLabel:
    label = QLabel(_short(text))
    if label.text() != text:
        label.setProperty("fullLabel", text)
    return label


LABELS = {
    "params_b": "Parameters (billions)", "active_params_b": "Active parameters (B, MoE)",
    "kv_fraction": "K/V width / hidden", "global_batch_tokens": "Tokens per step",
    "gpus": "Job GPUs (0: all)", "tp": "Tensor parallel (TP, 0: domain)",
    "pp": "Pipeline parallel (PP)",
    "dp": "Data parallel (DP, 0: the rest)", "cp": "Context parallel (CP)",
    "ep": "Expert parallel (EP)", "zero_stage": "ZeRO / FSDP stage",
    "nvlink_domain": "Scale-up domain (the design's)",
    "nvlink_gbytes_s": "Scale-up GB/s per GPU (0: the design's)",
    "peak_tflops": "Peak TFLOPS (0: datasheet)",
    "compute_efficiency": "Compute efficiency (0: by GPU and shape)",
    "attention_width": "Attention width (0: hidden size)",
    "compute_sm_share": "SMs computing", "cp_split": "Context split",
    "name": "Name", "source": "Source", "layers": "Layers", "hidden": "Hidden size",
    "experts": "Experts (MoE)", "top_k": "Experts per token (top-k)",
    "precision": "Precision", "sequence": "Sequence length", "microbatches": "Microbatches",
    "overlap_dp": "DP overlap", "overlap_tp": "TP overlap",
    "overlap_pp": "PP overlap", "overlap_ep": "EP overlap",
    "overlap_cp": "CP overlap", "placement": "Placement",
    "train_tokens_b": "Training tokens (billions)", "run_days": "Run length (days)",
    "years": "Years (TCO)", "availability": "Availability",
    "attention_efficiency": "Attention efficiency (0: compute's)",
    "compute_s": "Measured compute s/step (0: FLOPs)", "gpu_hour_usd": "$ per GPU-hour",
    "usd_per_kwh": "$ per kWh", "pue": "PUE", "network_load": "Network load",
    "support_fraction": "Support (share of capex/yr)", "usd_per_ru_month": "$ per RU per month",
    "tuning_weeks": "Transport tuning weeks", "tuning_usd_per_week": "Tuning $ per week",
    "team_tunes_roce": "Team tunes PFC/ECN/DCQCN", "growth_expected": "Growth in 24-36 months",
    "avoid_lock_in": "Avoid vendor lock-in", "include_servers": "Servers in capex",
    "interleave": "Virtual stages (interleaved)", "schedule": "Pipeline schedule",
    "ib_sharp": "IB SHARP (NCCL_COLLNET_ENABLE=1)",
    "channels_per_nic": "NCCL ring channels per NIC",
    "qps_per_connection": "Queue pairs per connection (NCCL_IB_QPS_PER_CONNECTION)",
}
_OVERLAP = {"dp": "data-parallel gradient", "tp": "tensor-parallel", "pp": "pipeline",
            "ep": "expert-parallel all-to-all", "cp": "context-parallel"}
TIPS = {
    **{f"overlap_{k}": f"Share of the {what} communication hidden behind compute (0: none, "
                       f"1: all of it)." for k, what in _OVERLAP.items()},
    "compute_efficiency": "Share of peak the GEMMs reach. 0 (the default): by GPU generation, "
                          "precision and per-GPU GEMM shape (FP8 GEMMs at 0.43 of the FP8 peak "
                          "on Hopper, 0.39 on Blackwell, from NVIDIA's Megatron-Bridge runs; "
                          "BF16 at 0.55, assumed). A value set here overrides the model.",
    "attention_width": "Width of the attention products per token (heads x head size; "
                       "0: the hidden size). Multi-head latent attention differs: DeepSeek-V3 "
                       "uses 128 heads x (192 + 128) / 2 = 20,480 (arXiv 2412.19437).",
    "compute_sm_share": "Share of the GPU's SMs left to compute while communication kernels "
                        "hold the others: DeepSeek-V3 gives 20 of an H800's 132 SMs to "
                        "communication (arXiv 2412.19437, 3.2.2), 112/132 = 0.85.",
    "cp_split": "How context parallelism cuts a sequence: balanced (2 x CP chunks, rank i "
                "holds chunks i and 2CP-1-i, as Llama 3 and Megatron-LM do: even work) or "
                "contiguous (CP pieces in order: the last rank's causal attention is "
                "(2CP-1)/CP of the mean, and the step waits for it).",
    "attention_efficiency": "Share of peak the attention kernels reach, forward and backward "
                            "(0: the compute efficiency). Attention is its own kernel: "
                            "FlashAttention-2 reaches up to 335 of 989 TFLOPS on an H100 "
                            "(arXiv 2307.08691), well below a large GEMM; it matters at long "
                            "sequences, where attention is a large share of the FLOPs.",
    "ib_sharp": "In-network reduction on InfiniBand SHARP switches runs only when NCCL's CollNet "
                "is enabled (NCCL_COLLNET_ENABLE=1 with the SHARP plugin); NCCL keeps it off "
                "otherwise. Ethernet has no IB SHARP.",
    "channels_per_nic": "NCCL opens one ring channel per NIC and doubles them when NVLink "
                        "allows (2 on DGX-class servers); each is its own flow under ECMP.",
    "qps_per_connection": "NCCL_IB_QPS_PER_CONNECTION (NCCL's default 1): queue pairs per "
                          "connection, each hashed onto its own path under ECMP.",
}
MARK = {SOURCE: ("#2e7d32", "sourced"), ASSUMED: ("#b26a00", "assumed"),
        USER: ("#455a64", "set here")}


def _label(name: str) -> str:
    return LABELS.get(name, name.replace("_", " ").capitalize())


DESIGN_FIELDS = ("nvlink_domain",)  # given by the design, shown but not edited


def domain_text(d) -> tuple[str, str]:
    """(text, tooltip) of the scale-up domain a solve found."""
    if not d.count:
        return "– (no GPU servers yet)", ""
    fab = f" {d.fabric}" if d.fabric else ""
    kind = "rack" if d.rack_scale else "server"
    bw = f", {d.gbytes_s:,.0f} GB/s per GPU each way" if d.gbytes_s else ""
    return (f"{d.gpus} GPUs ({fab.strip() or 'NVLink'} {kind}{bw})",
            f"{d.count:,} domain(s) of {d.gpus} GPUs in the design. Tensor, expert and context "
            "parallel groups are placed inside a domain; a TP larger than the domain, or one "
            "that does not divide it, is refused with the field named.")


class WorkloadPanel(QWidget):
    edited = Signal()

    def __init__(self, doc, parent: QWidget | None = None, service=None) -> None:
        super().__init__(parent)
        self.doc = doc
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.preset = QComboBox()
        self.preset.addItem("Preset…", "")
        for key, w in PRESETS.items():
            self.preset.addItem(w.name, key)
        self.preset.activated.connect(self._apply_preset)
        outer.addWidget(self.preset)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color:#c62828")
        outer.addWidget(self.error)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        # the form fits the dock's width: labels wrap, values get the room they need, nothing
        # is cut at the right edge behind a sideways scroll
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        self.form = QFormLayout(inner)
        self.form.setContentsMargins(2, 2, 2, 2)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # a row too long for the dock puts its value under the label, at the full width
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        scroll.setWidget(inner)
        outer.addWidget(scroll, 1)
        self.editors: dict[tuple[str, str], QWidget] = {}
        self.labels: dict[tuple[str, str], QLabel] = {}
        for part, model in (("workload", Workload), ("economics", Economics)):
            head = QLabel(f"<b>{'Workload' if part == 'workload' else 'Money and team'}</b>")
            self.form.addRow(head)
            for name, info in model.model_fields.items():
                if part == "workload" and name in DESIGN_FIELDS:
                    self.domain = QLabel("– (not solved yet)")
                    self.domain.setWordWrap(True)
                    self.domain.setMinimumWidth(VALUE_MIN_WIDTH)
                    self.form.addRow(_wrapped(_label(name)), self.domain)
                    continue
                self.editors[(part, name)] = self._editor(part, name, info.annotation)
                label = _wrapped(_label(name))
                full = label.property("fullLabel")
                tip = "\n\n".join(t for t in (full, TIPS.get(name, "")) if t)
                label.setToolTip(tip)
                if full:
                    self.editors[(part, name)].setToolTip(
                        "\n\n".join(t for t in (full, self.editors[(part, name)].toolTip())
                                    if t))
                self.editors[(part, name)].setMinimumWidth(VALUE_MIN_WIDTH)
                self.labels[(part, name)] = label
                self.form.addRow(label, self.editors[(part, name)])
        doc.projectChanged.connect(lambda _r: self.load())
        doc.projectReplaced.connect(self.load)
        if service is not None:
            service.resultReady.connect(lambda _rev, result: self.show_domain(result))
            if service.latest is not None:
                self.show_domain(service.latest)
        self.load()

    def show_domain(self, result) -> None:
        text, tip = domain_text(result.domains)
        self.domain.setText(text)
        self.domain.setToolTip(tip)

    def _editor(self, part: str, name: str, ann) -> QWidget:
        if ann is bool:
            box = QCheckBox()
            box.toggled.connect(lambda v, p=part, n=name: self.commit(p, n, v))
            return box
        if typing.get_origin(ann) is typing.Literal:
            combo = QComboBox()
            for v in typing.get_args(ann):
                combo.addItem(str(v), v)
            combo.activated.connect(lambda _i, p=part, n=name, c=combo:
                                    self.commit(p, n, c.currentData()))
            return combo
        line = QLineEdit()
        line.editingFinished.connect(lambda p=part, n=name, e=line: self.commit(p, n, e.text()))
        return line

    @property
    def settings(self) -> DecisionSettings:
        return settings_of(self.doc.project)

    def load(self) -> None:
        s = self.settings
        for n in constant_notes(s.workload):
            label = self.labels.get(("workload", n.field))
            if label is None:
                continue
            colour, word = MARK[n.kind]
            full = _label(n.field)
            label.setText(f"{_short(full)} <span style='color:{colour}'>[{word}]</span>")
            tip = "\n\n".join(t for t in (full if _short(full) != full else "",
                                           TIPS.get(n.field, "")) if t)
            label.setToolTip(f"{tip}\n\n{word}: {n.note}" if tip else f"{word}: {n.note}")
        for (part, name), w in self.editors.items():
            value = getattr(getattr(s, part), name)
            w.blockSignals(True)
            if isinstance(w, QCheckBox):
                w.setChecked(bool(value))
            elif isinstance(w, QComboBox):
                w.setCurrentIndex(max(0, w.findData(value)))
            elif isinstance(w, QLineEdit):
                w.setText(f"{value:g}" if isinstance(value, float) else str(value))
                w.setCursorPosition(0)
            w.blockSignals(False)

    def commit(self, part: str, name: str, value) -> bool:
        """Set one field; True when the project changed (one undo step)."""
        s = self.settings
        current: BaseModel = getattr(s, part)
        if isinstance(value, str):
            value = value.strip().replace(",", "")
        try:
            new_part = type(current).model_validate(current.model_dump() | {name: value})
        except ValidationError as exc:
            msg = exc.errors()[0]["msg"]
            self.error.setText(f"{part}.{name}: {msg[:1].lower()}{msg[1:]}")
            self.load()
            return False
        self.error.clear()
        if new_part == current:
            return False
        new = s.model_copy(update={part: new_part})
        self.doc.push(ProjectCommand(self.doc, self.doc.project.evolve(decision=new),
                                     f"Edit {part}: {name}"))
        self.edited.emit()
        return True

    def _apply_preset(self, index: int) -> None:
        key = self.preset.itemData(index)
        self.preset.setCurrentIndex(0)
        if not key:
            return
        s = self.settings
        new = s.model_copy(update={"workload": PRESETS[key]})
        if new != s:
            self.doc.push(ProjectCommand(self.doc, self.doc.project.evolve(decision=new),
                                         f"Workload preset: {PRESETS[key].name}"))
            self.edited.emit()
