"""The generate dialog's quick analysis: what the planned design gives and costs, before it is
built into the document.

The dialog's parameters are generated and solved in a worker thread by the window's own
``SolverService`` (the same debounce, cancellation and stale-result rules), driven by a small
stand-in document whose "project" is the parameter set: the worker generates the design and
solves it, so neither step runs in the GUI thread. A newer parameter set cancels the running
solve; the result of an older one is dropped.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QObject, Signal

from designer.core.catalog import Catalog
from designer.core.generators import generate
from designer.core.solver import Result, solve
from designer.gui.analysis.solver_service import SolverService
from designer.gui.panels import fmt

PREVIEW_DEBOUNCE_MS = 250


class _ParamsDocument(QObject):
    """What ``SolverService`` reads from a document, holding generator parameters."""

    projectChanged = Signal(int)

    def __init__(self, catalog: Catalog, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.revision = 0
        self.params: Any = None

    def snapshot(self) -> tuple[int, Any]:
        return self.revision, self.params

    def set_params(self, params: Any) -> None:
        self.params = params
        self.revision += 1
        self.projectChanged.emit(self.revision)


def _generate_and_solve(params, progress=None, cancelled=None, catalog=None) -> Result:
    project = generate(params, catalog)
    if cancelled is not None and cancelled():
        from designer.core.solver import SolveCancelled

        raise SolveCancelled()
    return solve(project, progress=progress, cancelled=cancelled, catalog=catalog)


class PreviewAnalysis(QObject):
    """``request(params)``; ``changed`` fires when the analysis text changes."""

    changed = Signal()

    def __init__(self, catalog: Catalog, parent: QObject | None = None,
                 debounce_ms: int = PREVIEW_DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.doc = _ParamsDocument(catalog, self)
        self.service = SolverService(self.doc, self, debounce_ms=debounce_ms,
                                     solve_fn=_generate_and_solve)
        self.result: Result | None = None
        self.error = ""
        self.service.resultReady.connect(self._ready)
        self.service.solveFailed.connect(self._failed)

    @property
    def computing(self) -> bool:
        return self.service.state == "computing"

    def request(self, params: Any) -> None:
        self.result, self.error = None, ""
        self.doc.set_params(params)
        self.changed.emit()

    def shutdown(self) -> None:
        self.service.shutdown()

    def _ready(self, _revision: int, result: Result) -> None:
        self.result = result
        self.changed.emit()

    def _failed(self, _revision: int, message: str) -> None:
        self.error = message
        self.changed.emit()

    def html(self) -> str:
        """The analysis rows for the preview (a table fragment)."""
        head = "<tr><td colspan='2'><br><b>Analysis</b></td></tr>"
        if self.error:
            return head + (f"<tr><td colspan='2' style='color:#c62828'>{escape(self.error)}"
                           "</td></tr>")
        r = self.result
        if r is None:
            return head + "<tr><td colspan='2' style='color:#5d6876'>analysing…</td></tr>"
        b, o, lat = r.bisection, r.oversubscription, r.latency
        rows = [
            ("Cost per GPU", f"{fmt.money(r.bom.per_gpu_usd)} "
                             f"({fmt.money(r.bom.total_usd)} in all)"),
            ("Bisection", f"{fmt.percent(b.fraction_of_full)} of full" if
             r.rail_forwarding is None else
             f"{fmt.percent(r.rail_forwarding.fraction_of_full)} of full with forwarding"),
            ("Oversubscription", o.to_json()["worst_ratio"]),
            ("Latency", f"p50 {fmt.micro(lat.p50_us)} · p99 {fmt.micro(lat.p99_us)}"),
        ]
        return head + "".join(f"<tr><td>{escape(k)}</td><td align='right'>{escape(v)}</td></tr>"
                              for k, v in rows)
