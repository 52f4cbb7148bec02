"""What many GUI tests do: put a design in the window and wait for its own analysis."""

from __future__ import annotations

WAIT_MS = 60_000  # generous for a loaded CI runner; results usually arrive in well under 1 s


def current(window):
    """A ``check_params_cb`` for ``resultReady``: the result of the window's revision."""
    doc = window.doc
    return lambda revision, _result: revision == doc.revision


def load(window, qtbot, project):
    """Replace the window's design with ``project`` and wait for the solver's result for
    that revision (not an older one still arriving); returns the result."""
    svc = window.analysis.service
    with qtbot.waitSignal(svc.resultReady, timeout=WAIT_MS, check_params_cb=current(window)):
        window.doc.replace(project)
    return svc.latest
