"""A key a spin box will not take says why, instead of vanishing: a minus in a box that holds
no negative number, a letter in a number. One filter serves every spin box: it follows the
keyboard focus to the box being typed into."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPoint
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QDoubleSpinBox,
    QLineEdit,
    QToolTip,
    QWidget,
)


def _box_of(obj: QObject) -> QAbstractSpinBox | None:
    if isinstance(obj, QAbstractSpinBox):
        return obj
    if isinstance(obj, QLineEdit) and isinstance(obj.parent(), QAbstractSpinBox):
        return obj.parent()
    return None


def _shown(value: float, box: QAbstractSpinBox) -> str:
    if isinstance(box, QDoubleSpinBox):
        return f"{value:,.{box.decimals()}f}".rstrip("0").rstrip(".")
    return f"{int(value):,}"


def refusal(box: QAbstractSpinBox, text: str) -> str | None:
    """Why ``box`` will not take the typed ``text``, or None when it may."""
    if not text or not text.isprintable() or box.isReadOnly():
        return None
    low = box.minimum()
    if text == "-" and low >= 0:
        return f"no negative values here: {_shown(low, box)} or more"
    words = (box.suffix() + box.prefix() + box.specialValueText()).lower()
    if text.isalpha() and text.lower() not in words:
        return f"numbers only, from {_shown(low, box)} to {_shown(box.maximum(), box)}"
    return None


class SpinRefusal(QObject):
    """Shows, beside the box, the reason a typed key was refused; ``last`` keeps it.

    It filters the spin box that has the keyboard focus, and only it, following the
    application's focus. A filter on the whole application had every event of every object
    pass through Python, each receiver wrapped on the way; wrapping an object Qt was still
    building or already tearing down (a timer's target inside a PDF engine) crashed the
    interpreter."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.last = ""
        self._watched: list[QObject] = []

    def follow(self, _old: QWidget | None, new: QWidget | None) -> None:
        """The focus moved to ``new``: filter its spin box (and the box's editor), if any."""
        for obj in self._watched:
            if shiboken6.isValid(obj):
                obj.removeEventFilter(self)
        self._watched = []
        box = _box_of(new) if new is not None else None
        if box is not None:
            self._watched = [box, *box.findChildren(QLineEdit)]
            for obj in self._watched:
                obj.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress:
            box = _box_of(obj)
            if box is not None and box.isEnabled():
                why = refusal(box, event.text())
                if why:
                    self.last = why
                    QToolTip.showText(box.mapToGlobal(QPoint(0, box.height())), why, box)
        return False


def install(app: QApplication) -> SpinRefusal:
    f = SpinRefusal(app)
    app.focusChanged.connect(f.follow)
    app.setProperty("spinRefusal", f)
    return f
