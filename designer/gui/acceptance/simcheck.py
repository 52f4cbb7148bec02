"""The htsim check in a dialog: per pattern and routing, htsim's figures, the tool's for the
same flows and their ratio (``designer simulate check``'s table)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout

from designer.core.simulate import Row, table


class SimCheckDialog(QDialog):
    def __init__(self, parent, folder: Path, rows: list[Row]) -> None:
        super().__init__(parent)
        self.setWindowTitle("htsim beside the prediction")
        self.rows = rows
        lay = QVBoxLayout(self)
        self.summary = QLabel(
            f"{folder}: throughput relative to each flow's share of its GPU's line rate; "
            "the last flow's completion; slowdown against an ideal fabric. Ratio: htsim "
            "over the tool.")
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.text = QPlainTextEdit(table(rows))
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lay.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay.addWidget(buttons)
        self.resize(900, 420)
