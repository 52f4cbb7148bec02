"""A minus typed into a spin box that holds no negative number says why instead of vanishing."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QLineEdit, QSpinBox


def test_a_minus_in_a_box_of_counts_is_refused_with_the_reason(window, qtbot):
    dlg = window.show_generate("rail")
    qtbot.addWidget(dlg)
    box = dlg.widgets["sus"]
    assert isinstance(box, QSpinBox) and box.minimum() >= 0
    before = box.value()
    refusals = QApplication.instance().property("spinRefusal")
    # typed into as a user types: the dialog in front, the box holding the focus
    dlg.show()
    dlg.activateWindow()
    box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() in (box, box.findChild(QLineEdit)))
    qtbot.keyClick(box, Qt.Key.Key_Minus)
    assert box.value() == before  # Qt still refuses the key...
    assert refusals.last.startswith("no negative values here: 0 or more")  # ...and says so
    refusals.last = ""
    qtbot.keyClick(box, Qt.Key.Key_X)
    assert "numbers only" in refusals.last
    dlg.reject()


def _focus(qtbot, box) -> None:
    box.window().show()
    box.window().activateWindow()
    box.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() in (box, box.findChild(QLineEdit)))


def test_a_box_that_takes_negatives_is_left_alone(app, qtbot):
    refusals = QApplication.instance().property("spinRefusal")
    box = QDoubleSpinBox()
    box.setRange(-10, 10)
    qtbot.addWidget(box)
    _focus(qtbot, box)
    refusals.last = ""
    qtbot.keyClick(box, Qt.Key.Key_Minus)
    assert refusals.last == ""


def test_the_refusal_follows_the_focus_from_box_to_box(app, qtbot):
    """The filter sits on the box being typed into, not on the whole application (an
    application-wide filter wrapped every object of every event, and crashed on one Qt was
    tearing down): the box left behind is no longer watched, the new one is."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    refusals = QApplication.instance().property("spinRefusal")
    page = QWidget()
    counts, offsets = QSpinBox(), QSpinBox()
    counts.setRange(0, 100)
    offsets.setRange(0, 100)
    lay = QVBoxLayout(page)
    lay.addWidget(counts)
    lay.addWidget(offsets)
    qtbot.addWidget(page)
    _focus(qtbot, counts)
    refusals.last = ""
    qtbot.keyClick(counts, Qt.Key.Key_Minus)
    assert refusals.last.startswith("no negative values here")
    _focus(qtbot, offsets)
    refusals.last = ""
    qtbot.keyClick(counts, Qt.Key.Key_Minus)  # sent to the box that lost the focus
    assert refusals.last == ""
    qtbot.keyClick(offsets, Qt.Key.Key_A)
    assert refusals.last.startswith("numbers only")
