"""Edit > Edit Other Networks…: change an other network's parameters (switch model and speed,
oversubscription, storage nodes, management switches per rack) and regenerate it as one
undoable step. An empty field is automatic (its current value shown greyed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from designer.core.model import Project
from designer.core.networks import (
    NETWORK_LABELS,
    PARAM_LABELS,
    asked_params,
    parse_value,
    resolved_params,
)


class NetworkDialog(QDialog):
    """``apply(kind, changes)`` regenerates the network and returns an error text or None."""

    def __init__(self, project: Project, apply: Callable[[str, dict[str, Any]], str | None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit Other Networks")
        self.project = project
        self._apply = apply
        self.fields: dict[str, QLineEdit] = {}
        lay = QVBoxLayout(self)
        self.kind_box = QComboBox()
        for kind in project.networks or {}:
            self.kind_box.addItem(NETWORK_LABELS[kind], kind)
        lay.addWidget(self.kind_box)
        self.form_host = QWidget()
        self.form = QFormLayout(self.form_host)
        lay.addWidget(self.form_host)
        note = QLabel("Empty: automatic. The network is generated again from these values; the "
                      "out-of-band network follows the switches it manages.")
        note.setWordWrap(True)
        note.setStyleSheet("color: palette(mid);")
        lay.addWidget(note)
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #B00020;")
        self.error.hide()
        lay.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._ok)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.kind_box.currentIndexChanged.connect(self._fill)
        self._fill()

    def kind(self) -> str:
        return str(self.kind_box.currentData())

    def _fill(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        self.error.hide()
        kind = self.kind()
        asked = asked_params(self.project, kind)
        resolved = resolved_params(self.project, kind)
        for key, value in asked.items():
            edit = QLineEdit("" if value is None else str(value))
            edit.setMinimumWidth(170)
            if value is None and key in resolved:
                edit.setPlaceholderText(f"automatic: {resolved[key]}")
            elif value is None:
                edit.setPlaceholderText("automatic")
            self.fields[key] = edit
            self.form.addRow(PARAM_LABELS.get(key, key), edit)

    def changes(self) -> dict[str, Any]:
        """The fields that differ from what the network was asked with."""
        asked = asked_params(self.project, self.kind())
        out = {}
        for key, edit in self.fields.items():
            value = parse_value(edit.text())
            if value != asked.get(key) or type(value) is not type(asked.get(key)):
                out[key] = value
        return out

    def _ok(self) -> None:
        changes = self.changes()
        if not changes:
            self.accept()
            return
        err = self._apply(self.kind(), changes)
        if err:
            self.error.setText(err)
            self.error.show()
            return
        self.accept()
