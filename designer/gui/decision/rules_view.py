"""The recommendation's rules, readable in a narrow dock: a summary line, then one row per
rule with what fired, the rule, and its figure and source on a second line, wrapped to the
width (no horizontal scrolling)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.analysis import ETH, IB, Recommendation

FIRED_BG = "#e8f3ec"


def summary(r: Recommendation) -> str:
    fired = [x for x in r.rules if x.fired]
    ib = sum(1 for x in fired if x.favours == IB)
    eth = sum(1 for x in fired if x.favours == ETH)
    return (f"{len(fired)} of {len(r.rules)} rules fired: {ib} for InfiniBand, {eth} for "
            f"Ethernet (RoCE)")


class RulesView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.choice = QLabel()
        self.choice.setWordWrap(True)
        self.choice.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.choice)
        self.count = QLabel()
        self.count.setWordWrap(True)
        lay.addWidget(self.count)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Fired", "Rule (figure; source)"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        head.sectionResized.connect(lambda *_: self._fit_rows())
        lay.addWidget(self.table, 1)

    def clear(self) -> None:
        self.choice.clear()
        self.count.clear()
        self.table.setRowCount(0)

    def show_recommendation(self, r: Recommendation) -> None:
        note = f"<br><i>{r.note}</i>" if r.note else ""
        self.choice.setText(f"<b>Recommendation: {r.choice}</b><br>{r.break_even}{note}")
        self.count.setText(summary(r))
        self.table.setRowCount(len(r.rules))
        for i, rule in enumerate(r.rules):
            mark = QTableWidgetItem("yes" if rule.fired else "no")
            text = QTableWidgetItem(f"{rule.rule}\n{rule.figure}; {rule.source}")
            for cell in (mark, text):
                cell.setToolTip(f"{rule.rule}\n{rule.figure}\nSource: {rule.source}\n"
                                f"Favours: {rule.favours}")
                if rule.fired:
                    cell.setBackground(QColor(FIRED_BG))
            self.table.setItem(i, 0, mark)
            self.table.setItem(i, 1, text)
        self._fit_rows()

    def _fit_rows(self) -> None:
        # after the layout has given the columns their widths (a hidden tab has none yet)
        QTimer.singleShot(0, self.table.resizeRowsToContents)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_rows()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit_rows()
