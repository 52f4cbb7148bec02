"""The transport picker of the gear box: the design's transport, one undo step per change.

The first entry follows the gear profile (the project stores no transport); the others are the
transports that run on the design's technology (core/transport). Its tooltip is the chosen
transport's reasoning, so the choice explains itself.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QWidget

from designer.core.errors import DesignerError
from designer.core.transport import (
    TRANSPORTS,
    Transport,
    profile_transport,
    project_tech,
    transport_of,
)
from designer.gui.project.commands import ProjectCommand

FOLLOW = ""  # item data of "the profile's"


def transport_tooltip(t: Transport) -> str:
    lines = [f"<b>{t.name}</b>", t.summary, ""]
    lines += [f"• {r}" for r in t.reasoning]
    lines += ["", f"Load model routing: {t.load_routing}; switch configs: "
              f"{t.qos_profile or 'none (InfiniBand)'}; tuning in TCO: {t.tuning_weeks:g} "
              "weeks unless the project sets its own"]
    return "<br>".join(lines)


def transport_note(t: Transport) -> str:
    """One line for the inspector: what this transport sets in the design's figures."""
    fc = {"credits": "link credits", "pfc": "PFC (lossless)", "none": "no PFC"}[t.flow_control]
    return (f"{fc}; load model routing {t.load_routing}; "
            f"{'hashed' if t.hashed else 'sprayed or routed'} all-to-all; "
            f"configs {t.qos_profile or 'n/a'}; tuning {t.tuning_weeks:g} wk")


def set_transport(doc, transport_id: str | None) -> ProjectCommand:
    after = doc.project.evolve(transport=transport_id or None)
    name = TRANSPORTS[transport_id].short if transport_id else "the gear profile's"
    return ProjectCommand(doc, after, f"Transport: {name}")


class TransportPicker(QComboBox):
    """Shows and sets ``doc.project.transport``."""

    def __init__(self, doc, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.setMinimumContentsLength(16)
        self._shown: tuple = ()
        self.activated.connect(self._chosen)
        doc.projectChanged.connect(lambda _rev: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        project = self.doc.project
        cat = self.doc.catalog
        tech = project_tech(project, cat)
        own = profile_transport(project.profile, cat)
        shown = (tech, own.id, project.transport)
        if shown == self._shown:  # most edits change neither: no relayout of the toolbar
            return
        self._shown = shown
        self.blockSignals(True)
        self.clear()
        self.addItem(f"{own.short} (profile's)", FOLLOW)
        for t in TRANSPORTS.values():
            if t.runs_on(tech):
                self.addItem(t.short, t.id)
        i = self.findData(project.transport or FOLLOW)
        self.setCurrentIndex(max(i, 0))
        self.blockSignals(False)
        self.setToolTip(transport_tooltip(transport_of(project, cat)))

    def _chosen(self, index: int) -> None:
        tid = self.itemData(index) or None
        if tid == self.doc.project.transport:
            return
        try:
            self.doc.push(set_transport(self.doc, tid))
        except DesignerError as exc:
            self.doc.say(str(exc), True)
            self.refresh()
