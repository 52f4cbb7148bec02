"""The solver service: the one place where analysis results cross from a worker to the GUI.

Every change of the document restarts a short single-shot timer (the debounce), so a burst of
edits becomes one solve. When it fires, the service takes ``document.snapshot()`` (revision,
immutable project) and runs ``core.solver.solve`` on it in a worker thread. A newer edit
cancels the running solve at once (the solver polls ``cancelled()`` between pieces of work
that each take well under 50 ms); one worker runs at a time, and the next solve starts when
the cancelled one has stopped. A result whose revision is no longer the document's is dropped,
so an old answer never overwrites a newer one. Errors arrive as ``solveFailed`` with a
message, never as a silent stop. The GUI thread never waits for a solve (only ``shutdown``
waits, briefly, for a cancelled one to stop).

Why a thread and not a process: the solver keeps native kernels on the small switch graph
and checks for cancellation between them, so the GUI thread is never kept from the GIL for
long (``bench/bench_live.py``: at most about 25 ms while a 65,536-GPU design solves), while a
worker process would have to serialise the whole project on every edit (hundreds of ms at
that size, on the GUI thread or holding the GIL). The solver's native libraries are imported
here, at module import, in the main thread: a first import inside a worker thread can hang.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from designer.core.errors import DesignerError, readable
from designer.core.model import Project
from designer.core.solver import Result, SolveCancelled, solve  # native imports, main thread
from designer.gui.base.background import emit_from_worker, join_for

DEBOUNCE_MS = 200
PROGRESS_INTERVAL_S = 0.05  # at most ~20 progress updates a second cross to the GUI
THREAD_PREFIX = "fd-solver"  # worker threads are named so tests can find leftovers

SolveFn = Callable[..., Result]


@dataclass
class _Job:
    revision: int
    project: Project
    cancel: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    started: float = 0.0


class _Bridge(QObject):
    """Lives in the GUI thread; the worker emits through it (queued across threads)."""

    progress = Signal(int, float, str)
    done = Signal(int, object, float)  # revision, Result, seconds
    failed = Signal(int, str)
    stopped = Signal(int)  # cancelled: no result


class SolverService(QObject):
    """Solves the document's project after every change, in the background."""

    solveStarted = Signal(int)  # revision
    progress = Signal(float, str)  # fraction 0..1, stage name
    resultReady = Signal(int, object)  # revision, Result (only for the current revision)
    solveFailed = Signal(int, str)  # revision, message
    stateChanged = Signal(str)  # "idle" | "computing" | "error"

    def __init__(
        self,
        document,
        parent: QObject | None = None,
        debounce_ms: int = DEBOUNCE_MS,
        solve_fn: SolveFn | None = None,
        auto: bool = True,
    ) -> None:
        super().__init__(parent)
        self.doc = document
        self.solve_fn: SolveFn = solve_fn or solve
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._start)
        self._bridge = _Bridge(self)
        self._bridge.progress.connect(self._on_progress)
        self._bridge.done.connect(self._on_done)
        self._bridge.failed.connect(self._on_failed)
        self._bridge.stopped.connect(self._on_stopped)
        self._job: _Job | None = None
        self._closed = False
        self.state = "idle"
        self.latest: Result | None = None  # the newest result of the current revision
        self.latest_revision = -1
        self.latest_project: Project | None = None
        self.last_seconds = 0.0  # wall time of the last finished solve
        self.last_error = ""
        self.progress_fraction = 0.0
        self.progress_stage = ""
        # counters, for tests and the bench
        self.solves_started = 0
        self.results_dropped = 0
        if auto:
            document.projectChanged.connect(self.schedule)

    # -- public ---------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._job is not None

    @property
    def up_to_date(self) -> bool:
        return self.latest is not None and self.latest_revision == self.doc.revision

    def schedule(self, _revision: int | None = None) -> None:
        """The design changed: cancel a running solve and solve again after the debounce."""
        if self._closed:
            return
        if self._job is not None and self._job.revision != self.doc.revision:
            self._job.cancel.set()
        self._timer.start()
        self._set_state("computing")

    def solve_now(self) -> None:
        """Skip the debounce (opening a file, a test, the bench)."""
        if self._closed:
            return
        self._timer.stop()
        if self._job is not None and self._job.revision != self.doc.revision:
            self._job.cancel.set()
        self._start()

    def result_for(self, project: Project) -> Result | None:
        """The latest Result when it was computed for exactly ``project`` (else None)."""
        if self.latest is not None and project is self.latest_project:
            return self.latest
        return None

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop: no more solves; cancel a running one and wait for its thread to end."""
        self._closed = True
        self._timer.stop()
        job = self._job
        if job is not None:
            job.cancel.set()
            join_for(job.thread, timeout)
        self._job = None

    # -- running ----------------------------------------------------------------------------------
    def _start(self) -> None:
        if self._closed:
            return
        if self._job is not None:
            # one worker at a time: the cancelled one reports soon, then _finish starts anew
            return
        revision, project = self.doc.snapshot()
        if revision == self.latest_revision and self.latest_project is project:
            self._set_state("error" if self.last_error else "idle")
            return
        catalog = self.doc.catalog
        job = _Job(revision, project)
        job.started = time.perf_counter()
        bridge = self._bridge
        solve_fn = self.solve_fn
        last = [0.0]

        def progress(fraction: float, stage: str) -> None:
            now = time.perf_counter()
            if now - last[0] >= PROGRESS_INTERVAL_S:
                last[0] = now
                emit_from_worker(bridge.progress, revision, float(fraction), stage)

        def run() -> None:
            try:
                result = solve_fn(project, progress=progress, cancelled=job.cancel.is_set,
                                  catalog=catalog)
            except SolveCancelled:
                emit_from_worker(bridge.stopped, revision)
            except DesignerError as exc:
                emit_from_worker(bridge.failed, revision, str(exc))
            except Exception as exc:  # a bug must reach the user, not vanish with the thread
                traceback.print_exc()
                emit_from_worker(bridge.failed, revision, readable(exc))
            else:
                emit_from_worker(bridge.done, revision, result, time.perf_counter() - job.started)

        job.thread = threading.Thread(target=run, name=f"{THREAD_PREFIX}-{revision}",
                                      daemon=True)
        self._job = job
        self.solves_started += 1
        self.progress_fraction, self.progress_stage = 0.0, "starting"
        self._set_state("computing")
        self.solveStarted.emit(revision)
        job.thread.start()

    def _finish(self, revision: int) -> bool:
        """The job of ``revision`` ended: join it, and start the next solve if one is due.
        Returns whether ``revision`` is still the document's (its outcome counts)."""
        job = self._job
        if job is not None and job.revision == revision:
            if job.thread is not None:
                job.thread.join()  # it has returned already: its last act was the emit
            self._job = None
        current = revision == self.doc.revision
        if not current and not self._timer.isActive() and not self._closed:
            self._start()  # an edit arrived while this one ran: its debounce has passed
        return current

    def _on_progress(self, revision: int, fraction: float, stage: str) -> None:
        if revision == self.doc.revision and self._job is not None:
            self.progress_fraction, self.progress_stage = fraction, stage
            self.progress.emit(fraction, stage)

    def _on_done(self, revision: int, result: Any, seconds: float) -> None:
        if self._closed:
            return
        job = self._job
        project = job.project if job is not None and job.revision == revision else None
        if not self._finish(revision) or project is None:
            self.results_dropped += 1  # stale: a newer edit is on its way
            return
        self.latest, self.latest_revision, self.latest_project = result, revision, project
        self.last_seconds = seconds
        self.last_error = ""
        self._set_state("idle" if self._job is None and not self._timer.isActive()
                        else "computing")
        self.resultReady.emit(revision, result)

    def _on_failed(self, revision: int, message: str) -> None:
        if self._closed:
            return
        if not self._finish(revision):
            self.results_dropped += 1
            return
        self.last_error = message
        self._set_state("error")
        self.solveFailed.emit(revision, message)

    def _on_stopped(self, revision: int) -> None:
        if self._closed:
            return
        current = self._finish(revision)
        if current and self._job is None and not self._timer.isActive():
            # cancelled although no newer edit came (a shutdown race): solve again
            self._timer.start()

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.stateChanged.emit(state)
