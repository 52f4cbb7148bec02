"""Progress reporting and cancellation shared by every stage of a solve.

The window runs ``solve`` in a worker thread and cancels it when the design changes again, so
every stage calls ``Control.check`` between pieces of work that each take well under 50 ms on
the largest designs: a cancel request is then honoured within one such piece.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from designer.core.errors import DesignerError

ProgressFn = Callable[[float, str], None]
CancelledFn = Callable[[], bool]


class SolveCancelled(DesignerError):
    """The caller asked the solve to stop; no result is produced."""

    def __init__(self) -> None:
        super().__init__("solve cancelled")


@dataclass
class Control:
    """Calls the caller's progress and cancel callbacks; records stage timings."""

    progress: ProgressFn | None = None
    cancelled: CancelledFn | None = None
    timings: dict[str, float] = field(default_factory=dict)
    _stage: str = ""
    _start: float = field(default_factory=time.perf_counter)
    _span: tuple[float, float] = (0.0, 1.0)

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise SolveCancelled()

    def stage(self, name: str, start: float, end: float) -> None:
        """Enter stage ``name`` covering ``start..end`` of the progress bar."""
        now = time.perf_counter()
        if self._stage:
            self.timings[self._stage] = self.timings.get(self._stage, 0.0) + now - self._start
        self._stage, self._start, self._span = name, now, (start, end)
        self.check()
        if self.progress is not None:
            self.progress(start, name)

    def step(self, fraction: float) -> None:
        """Progress ``fraction`` (0..1) through the current stage, and a cancel check."""
        self.check()
        if self.progress is not None:
            lo, hi = self._span
            self.progress(lo + (hi - lo) * min(1.0, max(0.0, fraction)), self._stage)

    def finish(self) -> dict[str, float]:
        now = time.perf_counter()
        if self._stage:
            self.timings[self._stage] = self.timings.get(self._stage, 0.0) + now - self._start
            self._stage = ""
        if self.progress is not None:
            self.progress(1.0, "done")
        return dict(self.timings)
