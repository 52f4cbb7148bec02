"""What a price book would apply, shown before it is applied: each price as written in the
file, as read, in US dollars and against the price the project uses now; how the numbers were
read (the decimal mark and what showed it); the rows skipped; prices far from the one in use
marked, since a misread decimal mark or currency is a factor of 100 to 1,000."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QInputDialog,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from designer.core.sources import BookImport
from designer.core.text import shown

COLUMNS = ("Row", "Part", "As written", "Read as", "USD", "Now USD", "Check")
SUSPECT = QColor(255, 236, 200)
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class BookPreview(QDialog):
    """The import's table and an Apply / Cancel choice."""

    def __init__(self, parent: QWidget | None, got: BookImport) -> None:
        super().__init__(parent)
        b = got.book
        self.setWindowTitle(f"Import price book '{shown(b.name, 60)}'")
        layout = QVBoxLayout(self)
        rate = f" at {b.usd_per_unit:g} USD per {b.currency}" if b.currency != "USD" else ""
        head = QLabel(f"<b>{len(b.prices):,} prices in {b.currency}{rate}</b><br>"
                      f"Numbers: {_html(got.numbers)}")
        head.setWordWrap(True)
        layout.addWidget(head)
        table = QTableWidget(len(got.lines), len(COLUMNS), self)
        table.setHorizontalHeaderLabels([f"Read as ({b.currency})" if c == "Read as" else c
                                         for c in COLUMNS])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for i, x in enumerate(got.lines):
            now = f"{x.now_usd:,.2f}" if x.now_usd is not None else "–"
            cells = (str(x.row), shown(x.gear_id, 60), shown(x.text, 40), f"{x.price:,.2f}",
                     f"{x.usd:,.2f}", now, x.suspect)
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if j in (0, 2, 3, 4, 5):
                    item.setTextAlignment(RIGHT)
                if x.suspect:
                    item.setBackground(QBrush(SUSPECT))
                    item.setToolTip(f"{x.suspect}: check the quote's decimal mark and currency")
                table.setItem(i, j, item)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(table)
        notes = []
        if got.skipped:
            notes.append(f"Skipped {_html(got.skipped_summary(30))}.")
        if got.suspects:
            notes.append(f"<b>{len(got.suspects):,} price(s) far from the price in use</b> "
                         "(shaded): a misread decimal mark or currency?")
        if notes:
            note = QLabel("<br>".join(notes))
            note.setWordWrap(True)
            layout.addWidget(note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Apply
                                   | QDialogButtonBox.StandardButton.Cancel)
        apply = buttons.button(QDialogButtonBox.StandardButton.Apply)
        apply.clicked.connect(self.accept)
        # Enter applies, unless a price looks misread: then it takes a deliberate click
        target = buttons.button(QDialogButtonBox.StandardButton.Cancel) if got.suspects \
            else apply
        target.setDefault(True)
        target.setFocus()
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.table = table
        self.resize(760, min(640, 200 + 26 * len(got.lines)))


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# -- questions (tests answer these instead of dialogs) -------------------------------------------
def confirm_book(parent: QWidget, got: BookImport) -> bool:
    """Show what the book would apply; True to apply it."""
    return BookPreview(parent, got).exec() == QDialog.DialogCode.Accepted


def ask_decimal(parent: QWidget, message: str) -> str | None:
    """The quote's decimal mark, when its numbers do not show it."""
    items = ["Decimal comma: 31.500 is thirty-one thousand five hundred",
             "Decimal point: 31.500 is thirty-one and a half"]
    item, ok = QInputDialog.getItem(parent, "Import price book",
                                    f"{message[:1].upper()}{message[1:]}\n\nHow does the quote "
                                    "write its numbers?", items, 0, False)
    if not ok:
        return None
    return "," if item == items[0] else "."
