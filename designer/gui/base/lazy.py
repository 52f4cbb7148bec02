"""Refresh a panel on a later turn of the event loop, and only while it can be seen.

A result reaches a dozen panels at once; each one doing its work inside the ``resultReady``
emit would add up to one long stall of the GUI thread. ``LazyRefresh.request()`` instead
queues the refresh for the next turn (many requests in one turn make one refresh), so the
panels' work is spread over separate turns with the event loop running between them. A
panel that is hidden (its dock closed or a tab behind another) only remembers that it is
out of date, and refreshes when it is shown. A tab behind another stays "visible" to Qt (it is
only covered), so in a dock the dock's ``visibilityChanged`` says whether it is in front.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QDockWidget, QWidget


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
        self._dock: QDockWidget | None = None
        self._front = True  # whether the dock's tab is in front (known once docked)

    def shown(self) -> bool:
        """Whether the panel can be seen: visible, and in a dock whose tab is in front."""
        if not self.widget.isVisible():
            return False
        if self._dock is None:
            parent = self.widget.parentWidget()
            while parent is not None and not isinstance(parent, QDockWidget):
                parent = parent.parentWidget()
            if parent is None:
                return True
            self._dock = parent
            self._front = not self.widget.visibleRegion().isEmpty()
            parent.visibilityChanged.connect(self._dock_visible)
        return self._front

    def request(self) -> None:
        self.dirty = True
        if self.shown():
            self._timer.start()

    def flush(self) -> None:
        """Refresh now if out of date (e.g. before something reads the panel)."""
        self._timer.stop()
        if self.dirty:
            self._run()

    def _run(self) -> None:
        if not self.dirty:
            return
        if not self.shown():
            return  # shown later: the Show event or the tab coming to the front catches up
        self.dirty = False
        self.runs += 1
        self._refresh()

    def _dock_visible(self, visible: bool) -> None:
        self._front = visible
        if visible and self.dirty:
            self._timer.start()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        # a window being torn down can still deliver events while this object's Python side
        # is already gone: nothing to do then
        if getattr(self, "widget", None) is not obj:
            return False
        if event.type() == QEvent.Type.Show and getattr(self, "dirty", False):
            self._timer.start()
        return False


_PAINTED = "fabricDesignerPainted"  # a window's property, set once it has painted


class _FirstPaint(QObject):
    """Waits for a window's first paint, then starts what was queued behind it."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self.queued: list[tuple[QObject, int, Callable[[], None]]] = []
        window.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() == QEvent.Type.Paint:
            self.window.removeEventFilter(self)
            self.window.setProperty(_PAINTED, True)
            for receiver, delay_ms, callback in self.queued:
                QTimer.singleShot(delay_ms, receiver, callback)
            self.queued.clear()
            self.deleteLater()
        return False


def after_first_paint(widget: QWidget, delay_ms: int, callback: Callable[[], None]) -> None:
    """Run ``callback`` ``delay_ms`` after ``widget``'s window has first painted (at once
    counted from now when it already has). A timer started when a panel is shown can expire
    before the window paints on a busy machine, and the panel's heavy build (pyqtgraph's
    import) then delays the first paint it was meant to follow."""
    win = widget.window()
    if win.property(_PAINTED):
        QTimer.singleShot(delay_ms, widget, callback)
        return
    waiter = win.findChild(_FirstPaint)
    if waiter is None:
        waiter = _FirstPaint(win)
    waiter.queued.append((widget, delay_ms, callback))
