"""Compare's one-click transport columns: the design as it is, under each ticked transport
(the gear unchanged), so what the transport alone changes stands side by side. Transports
that cannot run on the design's gear are greyed out."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QWidget

from designer.core.transport import TRANSPORTS, project_tech, transport_of
from designer.gui.transport.picker import transport_tooltip


class TransportRow(QWidget):
    changed = Signal(list)  # the ticked transports that run on the design

    def __init__(self, doc, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Transports:")
        label.setToolTip("This design under each transport, its gear unchanged: routing of "
                         "the all-to-all, incast behaviour and tuning effort change, the "
                         "bill of materials does not")
        lay.addWidget(label)
        self.boxes: dict[str, QCheckBox] = {}
        for t in TRANSPORTS.values():
            box = QCheckBox(t.short)
            box.setToolTip(transport_tooltip(t))
            box.toggled.connect(lambda _v: self.changed.emit(self.ticked()))
            self.boxes[t.id] = box
            lay.addWidget(box)
        lay.addStretch(1)
        doc.projectChanged.connect(lambda _r: self.refresh())
        self.refresh()

    def ticked(self) -> list[str]:
        return [k for k, b in self.boxes.items() if b.isChecked() and b.isEnabled()]

    def refresh(self) -> None:
        project = self.doc.project
        tech = project_tech(project, self.doc.catalog)
        own = transport_of(project, self.doc.catalog).id
        before = self.ticked()
        for k, box in self.boxes.items():
            box.setEnabled(TRANSPORTS[k].runs_on(tech) and k != own)
        if self.ticked() != before:
            self.changed.emit(self.ticked())
