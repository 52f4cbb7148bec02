"""A minus typed into a spin box that holds no negative number says why instead of vanishing."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QSpinBox


def test_a_minus_in_a_box_of_counts_is_refused_with_the_reason(window, qtbot):
    dlg = window.show_generate("rail")
    qtbot.addWidget(dlg)
    box = dlg.widgets["sus"]
    assert isinstance(box, QSpinBox) and box.minimum() >= 0
    before = box.value()
    refusals = QApplication.instance().property("spinRefusal")
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Minus)
    assert box.value() == before  # Qt still refuses the key...
    assert refusals.last.startswith("no negative values here: 0 or more")  # ...and says so
    refusals.last = ""
    qtbot.keyClick(box, Qt.Key.Key_X)
    assert "numbers only" in refusals.last
    dlg.reject()


def test_a_box_that_takes_negatives_is_left_alone(app, qtbot):
    refusals = QApplication.instance().property("spinRefusal")
    box = QDoubleSpinBox()
    box.setRange(-10, 10)
    qtbot.addWidget(box)
    box.show()
    refusals.last = ""
    qtbot.keyClick(box, Qt.Key.Key_Minus)
    assert refusals.last == ""
