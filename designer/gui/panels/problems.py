"""The problems list: every problem of the latest result, and of an as-built comparison.

Clicking a problem opens the groups hiding its devices, selects them and centres the view
(``document.focus_devices``). The canvas rings every device named by a problem in its
severity's colour (``document.set_marks``); a folded box shows the worst ring of its members.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.problems import Problem, Severity
from designer.core.solver import Result
from designer.gui.base import style
from designer.gui.panels import fmt

SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
PROBLEM_ROLE = Qt.ItemDataRole.UserRole + 1
SECTION_ANALYSIS = "Analysis"
SECTION_ASBUILT = "As-built comparison"
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def severity_icon(severity: str) -> QIcon:
    pm = QPixmap(QSize(14, 14))
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    colour = style.MARK_COLORS.get(str(severity), QColor("#888"))
    p.setBrush(colour)
    p.setPen(colour.darker(130))
    p.drawEllipse(QRectF(2, 2, 10, 10))
    p.setPen(QColor("white"))
    mark = {"error": "!", "warning": "!", "info": "i"}.get(str(severity), "")
    f = p.font()
    f.setPixelSize(8)
    f.setBold(True)
    p.setFont(f)
    p.drawText(QRectF(2, 2, 10, 10), Qt.AlignmentFlag.AlignCenter, mark)
    p.end()
    return QIcon(pm)


class ProblemsPanel(QWidget):
    problemActivated = Signal(object)  # Problem

    def __init__(self, service, document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self.analysis: tuple[Problem, ...] = ()
        self.asbuilt: tuple[Problem, ...] = ()
        self.asbuilt_title = ""
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(4)
        top = QHBoxLayout()
        self.summary = QLabel("No problems")
        self.summary.setObjectName("sectionTitle")
        self.clear_button = QPushButton("Clear Comparison")
        self.clear_button.setToolTip("Remove the as-built differences from this list")
        self.clear_button.clicked.connect(self.clear_asbuilt)
        self.clear_button.hide()
        top.addWidget(self.summary, 1)
        top.addWidget(self.clear_button)
        lay.addLayout(top)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["Problem", "Devices", "Code"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setWordWrap(False)
        self.tree.setIndentation(14)
        head = self.tree.header()
        head.setStretchLastSection(False)
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)
        lay.addWidget(self.tree, 1)
        self.hint = QLabel("Click a problem to select and centre its devices on the canvas.")
        self.hint.setObjectName("hint")
        lay.addWidget(self.hint)
        self._icons = {s: severity_icon(s.value) for s in Severity}
        service.resultReady.connect(self.show_result)

    # -- content ---------------------------------------------------------------------------------
    def show_result(self, _revision: int, r: Result) -> None:
        if tuple(r.problems) == self.analysis and self.tree.topLevelItemCount():
            return  # unchanged: keep the list (and its scroll position) as it is
        self.analysis = tuple(r.problems)
        self._rebuild()

    def show_asbuilt(self, problems: Iterable[Problem], title: str) -> None:
        """The differences of an as-built comparison (a section of their own)."""
        self.asbuilt = tuple(problems)
        self.asbuilt_title = title
        self.clear_button.show()
        self._rebuild()

    def clear_asbuilt(self) -> None:
        self.asbuilt = ()
        self.asbuilt_title = ""
        self.clear_button.hide()
        self._rebuild()

    def problems(self) -> list[Problem]:
        return [*self.asbuilt, *self.analysis]

    def _rebuild(self) -> None:
        self.tree.clear()
        sections = []
        if self.asbuilt or self.asbuilt_title:
            sections.append((f"{SECTION_ASBUILT}: {self.asbuilt_title}", self.asbuilt))
        sections.append((SECTION_ANALYSIS, self.analysis))
        for title, problems in sections:
            head = QTreeWidgetItem([f"{title} ({len(problems):,})", "", ""])
            f = head.font(0)
            f.setBold(True)
            head.setFont(0, f)
            head.setFirstColumnSpanned(True)
            head.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(head)
            ordered = sorted(problems, key=lambda p: SEVERITY_RANK.get(p.severity, 3))
            children = []
            for p in ordered:
                item = QTreeWidgetItem([p.message, f"{len(p.devices):,}" if p.devices else "",
                                        p.code])
                item.setIcon(0, self._icons.get(Severity(p.severity)))
                item.setToolTip(0, p.message + (
                    f"\n\nDevices: {', '.join(p.devices[:12])}"
                    + (" …" if len(p.devices) > 12 else "") if p.devices else ""))
                item.setTextAlignment(1, RIGHT)
                item.setData(0, PROBLEM_ROLE, p)
                children.append(item)
            if not children:
                empty = QTreeWidgetItem(["No problems found" if title == SECTION_ANALYSIS
                                         else "No differences: built as planned", "", ""])
                empty.setIcon(0, QIcon())
                empty.setForeground(0, QColor(style.OK))
                empty.setFlags(Qt.ItemFlag.ItemIsEnabled)
                children.append(empty)
            head.addChildren(children)
            head.setExpanded(True)
        self._summary()
        self._apply_marks()

    def _summary(self) -> None:
        all_ = self.problems()
        counts = {s: sum(1 for p in all_ if p.severity == s) for s in Severity}
        parts = [fmt.plural(counts[Severity.ERROR], "error"),
                 fmt.plural(counts[Severity.WARNING], "warning"),
                 fmt.plural(counts[Severity.INFO], "note")]
        self.summary.setText(" · ".join(parts))

    def _apply_marks(self) -> None:
        marks: dict[str, str] = {}
        for p in sorted(self.problems(), key=lambda p: -SEVERITY_RANK.get(p.severity, 3)):
            for d in p.devices:
                marks[d] = str(p.severity)  # a StrEnum: its value
        self.doc.set_marks(marks)

    # -- clicking ----------------------------------------------------------------------------------
    def _clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        p = item.data(0, PROBLEM_ROLE)
        if not isinstance(p, Problem):
            return
        self.activate(p)

    def activate(self, p: Problem) -> None:
        if p.devices:
            self.doc.focus_devices(list(p.devices))
            self.doc.say(f"{fmt.plural(len(p.devices), 'device')} of “{p.code}” selected")
        self.problemActivated.emit(p)

    def item_for(self, code: str) -> QTreeWidgetItem | None:
        """The first listed problem with ``code`` (tests, links from other panels)."""
        for i in range(self.tree.topLevelItemCount()):
            head = self.tree.topLevelItem(i)
            for k in range(head.childCount()):
                child = head.child(k)
                p = child.data(0, PROBLEM_ROLE)
                if isinstance(p, Problem) and p.code == code:
                    return child
        return None
