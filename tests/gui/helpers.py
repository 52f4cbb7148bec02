"""What many GUI tests do: put a design in the window and wait for its own analysis."""

from __future__ import annotations

WAIT_MS = 60_000  # generous for a loaded CI runner; results usually arrive in well under 1 s


def current(window):
    """A ``check_params_cb`` for ``resultReady``: the result of the window's revision."""
    doc = window.doc
    return lambda revision, _result: revision == doc.revision


def solved_after(window, qtbot, change, timeout_ms: int = WAIT_MS):
    """Run ``change()`` and wait for the solver's result for the revision it made (not an
    older one still arriving); returns the result."""
    svc = window.analysis.service
    with qtbot.waitSignal(svc.resultReady, timeout=timeout_ms, check_params_cb=current(window)):
        change()
    return svc.latest


def load(window, qtbot, project, timeout_ms: int = WAIT_MS):
    """Replace the window's design with ``project`` and wait for its result."""
    return solved_after(window, qtbot, lambda: window.doc.replace(project), timeout_ms)
