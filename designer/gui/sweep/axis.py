"""A small row under the spec editor that adds an axis without typing YAML: pick a generator
parameter (or a price), type its values (``1, 2, 4`` or a range ``1..8`` or ``1..8 step 2``),
and the spec text is rewritten with that axis in place."""

from __future__ import annotations

from typing import Any

import yaml
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QPushButton, QWidget

from designer.core.generators import PARAMS_BY_KIND
from designer.core.sweep import SweepSpecError, load_yaml

PARAMS = sorted({k for cls in PARAMS_BY_KIND.values() for k in cls.model_fields
                 if k not in ("name",)})


def _scalar(text: str) -> Any:
    try:
        value = load_yaml(text)
    except yaml.YAMLError:
        return text
    return text if value is None else value


def parse_values(text: str) -> Any:
    """``1, 2, 4`` -> [1, 2, 4]; ``1..8`` -> {min: 1, max: 8}; ``1..8 step 2`` adds the step;
    a single value stays a value."""
    text = text.strip()
    if not text:
        raise SweepSpecError("give values such as 1, 2, 4 or a range such as 1..8")
    if ".." in text:
        lo, _, rest = text.partition("..")
        hi, _, step = rest.partition("step")
        rng: dict[str, Any] = {"min": _scalar(lo.strip()), "max": _scalar(hi.strip())}
        if step.strip():
            rng["step"] = _scalar(step.strip())
        return rng
    parts = [p.strip() for p in text.split(",") if p.strip()]
    values = [_scalar(p) for p in parts]
    return values if len(values) > 1 else values[0]


def with_axis(spec_text: str, param: str, values_text: str) -> str:
    """``spec_text`` with ``param`` set to the values in every generate block (a price when
    ``param`` is ``price:<catalog id>``)."""
    try:
        data = load_yaml(spec_text) or {}
    except (yaml.YAMLError, SweepSpecError):
        raise SweepSpecError("fix the spec text first: it is not valid YAML") from None
    if not isinstance(data, dict):
        raise SweepSpecError("fix the spec text first: it is not a mapping")
    value = parse_values(values_text)
    if param.startswith("price:"):
        data.setdefault("prices", {})[param[6:]] = value
    else:
        blocks = data.get("generate") or {"kind": "rail"}
        for block in blocks if isinstance(blocks, list) else [blocks]:
            block[param] = value
        data["generate"] = blocks
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


class AxisRow(QWidget):
    """Parameter, values, Add Axis; emits ``specChanged(text)`` or ``refused(message)``."""

    specChanged = Signal(str)
    refused = Signal(str)

    def __init__(self, spec_text, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec_text = spec_text  # callable returning the editor's text
        self.param = QComboBox()
        self.param.setEditable(True)  # also price:<catalog id>
        self.param.addItems(PARAMS)
        self.param.setCurrentText("sus")
        self.param.setToolTip("A generator parameter, or price:<catalog id> for a price axis")
        self.values = QLineEdit()
        self.values.setPlaceholderText("1, 2, 4  or  1..8 step 1")
        self.add = QPushButton("Add Axis")
        self.add.clicked.connect(self.apply)
        self.values.returnPressed.connect(self.apply)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.param)
        lay.addWidget(self.values, 1)
        lay.addWidget(self.add)

    def apply(self) -> bool:
        try:
            text = with_axis(self.spec_text(), self.param.currentText().strip(),
                             self.values.text())
        except SweepSpecError as exc:
            self.refused.emit(str(exc))
            return False
        self.specChanged.emit(text)
        return True
