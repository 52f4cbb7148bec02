"""Run one slow core call in a worker thread with a progress dialog that can cancel it.

For menu commands that take seconds (exports, the subnet-manager check, reading an
as-built): the dialog appears only when the work takes longer than a moment, Cancel sets an
event the work polls, and the outcome arrives in the GUI thread as a signal:
``finished(value)``, ``failed(message)`` or ``cancelled()``. A crash in the work becomes
``failed`` with its type and message, so nothing stops silently.
"""

from __future__ import annotations

import contextlib
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from designer.core.errors import DesignerError, readable

SHOW_AFTER_MS = 400
THREAD_PREFIX = "fd-task"
CLOSE_BUDGET_S = 0.5  # what closing the window may spend waiting on its workers, all told

_close_by: float | None = None  # the monotonic deadline while the window closes


@contextlib.contextmanager
def closing_within(seconds: float = CLOSE_BUDGET_S):
    """While the window closes: every worker is told to stop, and the waits on them share
    ``seconds`` between them (``join_for``). A worker still busy after that is a daemon
    thread that ends with the process; it stops at its next cancel check anyway."""
    global _close_by
    _close_by = time.monotonic() + seconds
    try:
        yield
    finally:
        _close_by = None


def join_for(thread: threading.Thread | None, timeout: float) -> None:
    """``thread.join(timeout)``, cut to what is left of the closing budget."""
    if thread is None:
        return
    if _close_by is not None:
        timeout = max(0.0, min(timeout, _close_by - time.monotonic()))
    thread.join(timeout)

Work = Callable[[Callable[[float, str], None], Callable[[], bool]], Any]


class _Bridge(QObject):
    progress = Signal(float, str)
    done = Signal(object)
    failed = Signal(str)
    stopped = Signal()


class BackgroundTask(QObject):
    """``work(progress, cancelled)`` in a thread; ``cancel_types`` are the exceptions that
    mean "stopped because asked" (besides none)."""

    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QWidget, title: str, label: str, work: Work,
                 cancel_types: tuple[type[BaseException], ...] = (),
                 show_after_ms: int = SHOW_AFTER_MS) -> None:
        super().__init__(parent)
        self.work = work
        self.cancel_types = cancel_types
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self.running = False
        self._in_set_value = False
        self._bridge = _Bridge(self)
        self._bridge.progress.connect(self._on_progress)
        self._bridge.done.connect(self._on_done)
        self._bridge.failed.connect(self._on_failed)
        self._bridge.stopped.connect(self._on_stopped)
        dlg = QProgressDialog(label, "Cancel", 0, 1000, parent)
        dlg.setWindowTitle(title)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(show_after_ms)
        dlg.setAutoClose(False)
        dlg.setAutoReset(False)
        dlg.setMinimumWidth(420)
        dlg.canceled.connect(self.cancel)
        dlg.setValue(0)
        self.dialog = dlg

    def start(self) -> None:
        bridge, cancel = self._bridge, self._cancel
        last = [0.0]

        def progress(fraction: float, message: str) -> None:
            now = time.monotonic()
            if now - last[0] > 0.05 or fraction >= 1.0:
                last[0] = now
                emit_from_worker(bridge.progress, float(fraction), str(message))

        def run() -> None:
            try:
                value = self.work(progress, cancel.is_set)
            except self.cancel_types:
                emit_from_worker(bridge.stopped)
            except DesignerError as exc:
                if cancel.is_set():
                    emit_from_worker(bridge.stopped)
                else:
                    emit_from_worker(bridge.failed, str(exc))
            except Exception as exc:  # a bug (or no memory left) must reach the user
                traceback.print_exc()
                emit_from_worker(bridge.failed, readable(exc))
            else:
                # work that returned has finished: only the work decides whether a late cancel
                # undoes it (an export deletes its new file and raises), or the window would
                # say "cancelled" over a file that was written
                emit_from_worker(bridge.done, value)

        self.running = True
        self._thread = threading.Thread(target=run, name=f"{THREAD_PREFIX}-{id(self):x}",
                                        daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()
        self.dialog.setLabelText("Cancelling…")

    def wait(self, timeout: float = 10.0) -> None:
        """Cancel and wait for the thread (closing the window)."""
        self._cancel.set()
        join_for(self._thread, timeout)

    # -- GUI thread --------------------------------------------------------------------------------
    def _on_progress(self, fraction: float, message: str) -> None:
        # a progress step arriving inside setValue's own event loop is dropped (the next one
        # shows): a nested setValue would clear the flag below while the outer one still runs,
        # and an outcome handled then would delete the dialog under the outer call
        if not self.running or self._in_set_value:
            return
        if not self._cancel.is_set():
            self.dialog.setLabelText(message[:1].upper() + message[1:])
        # a window-modal progress dialog runs the event loop inside setValue: the outcome may
        # arrive in there, and must not tear the dialog down under its own feet
        self._in_set_value = True
        try:
            self.dialog.setValue(int(fraction * 1000))
        finally:
            self._in_set_value = False

    def _later_if_busy(self, handler: Callable[..., None], *args: Any) -> bool:
        """True when ``handler(*args)`` was put off until ``setValue`` has returned."""
        if self._in_set_value:
            QTimer.singleShot(0, self, lambda: handler(*args))
            return True
        return False

    def _end(self) -> None:
        self.running = False
        if self._thread is not None:
            self._thread.join()
        self.dialog.reset()
        self.dialog.hide()
        self.dialog.deleteLater()

    def _on_done(self, value: Any) -> None:
        if self._later_if_busy(self._on_done, value):
            return
        self._end()
        self.finished.emit(value)

    def _on_failed(self, message: str) -> None:
        if self._later_if_busy(self._on_failed, message):
            return
        self._end()
        self.failed.emit(message)

    def _on_stopped(self) -> None:
        if self._later_if_busy(self._on_stopped):
            return
        self._end()
        self.cancelled.emit()


class TaskOwner:
    """What a menu command that runs one background check at a time has in common: whether it
    is busy, stopping on close, and an action enabled or greyed with the reason."""

    task: BackgroundTask | None = None

    @property
    def busy(self) -> bool:
        return self.task is not None and self.task.running

    def shutdown(self) -> None:
        if self.task is not None:
            self.task.wait()  # sets the cancel flag: the check cleans up on its way out

    @staticmethod
    def set_available(action, reason: str | None, what: str) -> None:
        action.setEnabled(reason is None)
        tip = f"Not available: {reason}" if reason else what
        action.setToolTip(tip)
        action.setStatusTip(tip)


def run_and_wait(task: BackgroundTask) -> tuple[str, Any]:
    """Start ``task`` and keep the window drawing until it ends: ``("finished", value)``,
    ``("failed", message)`` or ``("cancelled", None)``. For a command whose caller needs the
    outcome (opening a file); the progress dialog is window-modal, so no edit slips in."""
    loop = QEventLoop()
    outcome: list[tuple[str, Any]] = []

    def end(kind: str, value: Any = None) -> None:
        outcome.append((kind, value))
        loop.quit()

    task.finished.connect(lambda value: end("finished", value))
    task.failed.connect(lambda message: end("failed", message))
    task.cancelled.connect(lambda: end("cancelled"))
    task.start()
    if not outcome:
        loop.exec()
    if not outcome:  # the application quit under the loop: stop the work, report it so
        task.wait()
        return ("cancelled", None)
    return outcome[0]


def emit_from_worker(signal, *args) -> None:
    """Emit a bridge's signal from a worker thread (queued to the GUI thread); when the
    window went away meanwhile, there is nobody to tell."""
    with contextlib.suppress(RuntimeError):
        signal.emit(*args)
