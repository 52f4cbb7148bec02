"""Run a sweep off the GUI thread; each finished point reaches the GUI thread as a signal.

The workers (local processes, or a Dask client and its cluster) live in one Python thread for
the whole sweep (the core's ``run_sweep`` owns them and ends them whatever happens). The
window runs other threads, so local workers come from Python's fork server, which ``warm``
starts with the designer imported when the dialog opens; the window only sees
signals: ``started(points)``, ``outcome(outcome, done, total)``, then exactly one of
``finished(run)``, ``failed(message)``.
"""

from __future__ import annotations

import threading
import traceback

from PySide6.QtCore import QObject, Signal

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.sweep import SweepSpec, expand, run_sweep
from designer.core.sweep import warm as warm_workers
from designer.gui.base.background import emit_from_worker, join_for

THREAD_NAME = "fd-sweep"


class SweepRunner(QObject):
    started = Signal(object)  # list[Point]
    outcome = Signal(object, int, int)  # Outcome, done, total
    finished = Signal(object)  # SweepRun (cancelled set when stopped early)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @staticmethod
    def warm() -> None:
        """Start the local workers' fork server in the background (about a second of one core
        in its own process), so that Run starts at once."""
        threading.Thread(target=warm_workers, name=THREAD_NAME + "-warm", daemon=True).start()

    def start(self, spec: SweepSpec, catalog: Catalog | None, workers: int | None,
              scheduler: str | None, engine: str = "processes") -> None:
        if self.running:
            raise RuntimeError("a sweep is already running")
        self._cancel.clear()

        def work() -> None:
            try:
                points = expand(spec, catalog)
                emit_from_worker(self.started, points)
                run = run_sweep(spec, catalog=catalog, workers=workers, scheduler=scheduler,
                                points=points, cancelled=self._cancel.is_set, engine=engine,
                                on_outcome=lambda o, d, n: emit_from_worker(self.outcome, o, d, n))
            except DesignerError as exc:
                emit_from_worker(self.failed, str(exc))
            except Exception as exc:  # a bug must reach the user, not vanish with the thread
                traceback.print_exc()
                emit_from_worker(self.failed, f"{type(exc).__name__}: {exc}")
            else:
                emit_from_worker(self.finished, run)

        self._thread = threading.Thread(target=work, name=THREAD_NAME, daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def wait(self, timeout: float = 60.0) -> None:
        """Cancel and wait until the cluster is closed (closing the dialog)."""
        self._cancel.set()
        join_for(self._thread, timeout)
