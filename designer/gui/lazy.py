"""Refresh a panel on a later turn of the event loop, and only while it can be seen.

A result reaches a dozen panels at once; each one doing its work inside the ``resultReady``
emit would add up to one long stall of the GUI thread. ``LazyRefresh.request()`` instead
queues the refresh for the next turn (many requests in one turn make one refresh), so the
panels' work is spread over separate turns with the event loop running between them. A
panel that is hidden (its dock closed or a tab behind another) only remembers that it is
out of date, and refreshes when it is shown.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class LazyRefresh(QObject):
    def __init__(self, widget: QWidget, refresh: Callable[[], None]) -> None:
        super().__init__(widget)
        self.widget, self._refresh = widget, refresh
        self.dirty = False
        self.runs = 0  # refreshes done (tests read it)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._run)
        widget.installEventFilter(self)

    def request(self) -> None:
        self.dirty = True
        if self.widget.isVisible():
            self._timer.start()

    def flush(self) -> None:
        """Refresh now if out of date (e.g. before something reads the panel)."""
        self._timer.stop()
        if self.dirty:
            self._run()

    def _run(self) -> None:
        if not self.dirty:
            return
        if not self.widget.isVisible():
            return  # shown later: the Show event brings it up to date
        self.dirty = False
        self.runs += 1
        self._refresh()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.widget and event.type() == QEvent.Type.Show and self.dirty:
            self._timer.start()
        return False
