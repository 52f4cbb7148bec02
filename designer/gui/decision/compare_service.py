"""Keeps a comparison of the current design with its variants and opened files up to date.

The current design's column uses the solver's latest Result. Its variants under other gear
profiles and the opened files are built and solved in one worker thread, started on the edit
itself so it runs beside the main solve, and cached by the fabric they came from. When the main
result and every variant are ready, the comparison (estimates only, tens of milliseconds at
16,384 GPUs) is made in a second short-lived worker, so the GUI thread only fills the table; a
workload edit needs nothing else. A newer fabric cancels the running solve worker; a comparison
made for inputs that changed meanwhile is dropped and made again.
"""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from designer.core.analysis import (
    MAX_COLUMNS,
    Spec,
    build,
    compare,
    profile_variant,
    server_name,
    settings_of,
    specs,
)
from designer.core.errors import DesignerError
from designer.core.fileformat import load_project
from designer.core.solver import SolveCancelled, solve
from designer.gui.base.background import emit_from_worker, join_for

THREAD_PREFIX = "fd-compare"
DEBOUNCE_MS = 100
MAX_OTHERS = MAX_COLUMNS - 1  # beside "This design"


@dataclass(frozen=True, eq=False)
class Extra:
    """A design compared as it is, not from a file (a point of a sweep)."""

    label: str
    project: object = field(repr=False)


def server_label(catalog, server: str) -> str:
    """'on NVIDIA DGX B200': the column of the design rebuilt on ``server``."""
    return f"on {server_name(catalog, server)}"


@dataclass(frozen=True)
class AtBest:
    """A sweep's point laid out as it would be bought (cached apart from it as drawn)."""

    extra: Extra


class _Bridge(QObject):
    ended = Signal(str)  # "" or an error message
    compared = Signal(int, object, str)  # generation, Comparison or None, error message


class CompareService(QObject):
    comparisonReady = Signal(object)
    failed = Signal(str)

    def __init__(self, service, doc, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service, self.doc = service, doc
        self.profiles: list[str] = []
        self.ratios: list[str] = []  # other oversubscriptions of a generated fat tree
        self.servers: list[str] = []  # servers the design is rebuilt on (NVL72 vs 8-GPU)
        self.transports: list[str] = []  # the design under other transports, gear unchanged
        self.files: list[Path | Extra] = []
        self.as_drawn = False  # profiles and points as drawn, not each at its best
        self.routing = "transport"  # each transport's own routing, or one for every column
        self.skipped: list[str] = []  # columns asked for that there is no room for
        self.latest = None
        self._cache: dict[object, tuple] = {}  # (design key, profile) or path -> (project, result)
        self._key_of: tuple = (None, 0)  # the last fabric and its key
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._bridge = _Bridge(self)
        self._bridge.ended.connect(self._on_ended)
        self._bridge.compared.connect(self._on_compared)
        self._generation = 0  # of the inputs of the latest comparison asked for
        self._inputs: tuple = ()  # what that comparison was made from (to skip a repeat)
        self._comparing: threading.Thread | None = None
        self._compare_again = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._start)
        service.resultReady.connect(lambda *_: self._try_compare())
        doc.projectChanged.connect(lambda _r: self.schedule())
        doc.projectReplaced.connect(self.schedule)

    @property
    def active(self) -> bool:
        return bool(self.profiles or self.files or self.ratios or self.servers
                    or self.transports)

    def set_ratios(self, ratios: list[str]) -> None:
        self.ratios = list(ratios)
        self.schedule()

    def set_servers(self, servers: list[str]) -> None:
        self.servers = list(servers)
        self.schedule()

    def set_transports(self, transports: list[str]) -> None:
        self.transports = list(transports)
        self.schedule()

    def set_profiles(self, profiles: list[str]) -> None:
        self.profiles = list(profiles)
        self.schedule()

    def set_routing(self, mode: str) -> None:
        """How every column's traffic meets the network (``variants``' routing modes); the
        designs stay, only the estimates are made again."""
        self.routing = mode
        self.schedule()

    def set_as_drawn(self, as_drawn: bool) -> None:
        self.as_drawn = bool(as_drawn)
        self.schedule()

    def add_file(self, path: str | Path) -> None:
        if len(self.files) < MAX_OTHERS:
            self.files.append(Path(path))
        self.schedule()

    def add_project(self, label: str, project) -> None:
        """Compare ``project`` (built elsewhere, e.g. a sweep's point) beside the design."""
        if len(self.files) < MAX_OTHERS:
            self.files.append(Extra(label, project))
        self.schedule()

    def clear_files(self) -> None:
        self.files.clear()
        self.schedule()

    def schedule(self) -> None:
        if self.active:
            self._timer.start()

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _design_key(self, project) -> int:
        """What a variant depends on: the wiring, the gear, the generator, prices and the
        solver settings, not where devices sit on the canvas (a move rebuilds nothing)."""
        fabric = project.fabric
        if self._key_of[0] is not fabric:
            gear = hash(tuple((d.id, d.model, d.role, d.nic, d.nics, d.port_speed_gbps)
                              for d in fabric.devices))
            self._key_of = (fabric, hash((id(fabric.links), gear)))
        extra = (project.overrides.model_dump_json(), project.analysis.model_dump_json(),
                 project.generator.model_dump_json() if project.generator else "")
        return hash((self._key_of[1], extra))

    def _wanted(self) -> list[object]:
        """Cache keys of the columns beside this design: (design key, Spec, at its best) for
        each variant the core lists (every ticked profile before the optional own-profile
        best), then the files. What there is no room for is said, never dropped silently."""
        project = self.doc.project
        key = self._design_key(project)
        best = not self.as_drawn
        room = MAX_OTHERS - min(len(self.files), MAX_OTHERS)
        wanted, self.skipped = specs(
            project, profiles=[p for p in self.profiles if p != project.profile or self.servers],
            transports=self.transports, ratios=self.ratios, servers=self.servers,
            own_best=best and bool(self.profiles), room=room)
        keys: list[object] = [(key, s, best and s.kind == "profile") for s in wanted]
        files = [AtBest(f) if best and isinstance(f, Extra) else f for f in self.files]
        return keys + files[:MAX_OTHERS]

    def _start(self) -> None:
        wanted = self._wanted()
        missing = [k for k in wanted if k not in self._cache]
        if not missing:
            self._try_compare()
            return
        if self.busy:
            self._cancel.set()  # _on_ended starts again for the newest fabric
            return
        project, catalog = self.doc.project, self.doc.catalog
        cache, bridge = self._cache, self._bridge
        self._cancel = cancel = threading.Event()

        def solver(p):
            return solve(p, catalog=p.catalog(catalog), cancelled=cancel.is_set)

        # keep the cache to the current design and the opened files
        for k in [k for k in cache if k not in wanted]:
            del cache[k]

        def run() -> None:
            message = ""
            try:
                for key in missing:
                    if cancel.is_set():
                        break
                    if isinstance(key, tuple):
                        v = build(project, key[1], catalog, as_drawn=not key[2],
                                           solver=solver)
                        cache[key] = (v.project, v.result, v.layout or v.reason, v.replanned,
                                      v.label)
                        continue
                    if isinstance(key, AtBest):
                        base = key.extra.project
                        b = profile_variant(base, base.profile, catalog,
                                                     solver=solver)
                        cache[key] = (b.project, b.result, b.layout or b.reason, b.replanned,
                                      key.extra.label)
                        continue
                    p = key.project if isinstance(key, Extra) else load_project(key, catalog)
                    cache[key] = (p, solve(p, cancelled=cancel.is_set), "", False,
                                  key.label if isinstance(key, Extra)
                                  else Path(key).name.removesuffix(".fabric.json"))
            except SolveCancelled:
                pass
            except DesignerError as exc:
                message = str(exc)
            except Exception as exc:  # a bug must reach the user, not vanish with the thread
                traceback.print_exc()
                message = f"{type(exc).__name__}: {exc}"
            emit_from_worker(bridge.ended, message)

        self._thread = threading.Thread(target=run, name=THREAD_PREFIX, daemon=True)
        self._thread.start()

    def _on_ended(self, message: str) -> None:
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            self._thread = None
        if message:
            self.failed.emit(message)
            return
        if any(k not in self._cache for k in self._wanted()):
            self._timer.start()
        else:
            self._try_compare()

    def _try_compare(self) -> None:
        """Compare when the main result is of this fabric and every other design is ready;
        the estimates run in a worker, the GUI thread only gathers the inputs."""
        if not self.active:
            return
        project = self.doc.project
        result = self.service.latest
        if result is None or self.service.latest_project is None or \
                self.service.latest_project.fabric is not project.fabric:
            return
        if getattr(self.service, "state", "") == "computing" and \
                not getattr(self.service, "up_to_date", True):
            return  # the solve of this very edit is on its way: compare once, with it
        keys = self._wanted()
        if any(k not in self._cache for k in keys):
            return
        inputs = (id(result), project.decision, tuple(id(self._cache[k][1]) for k in keys),
                  tuple(str(k) for k in keys), self.routing)
        if inputs == self._inputs and self.latest is not None:
            return  # the same designs, results and workload: the comparison shown stands
        if self._comparing is not None and self._comparing.is_alive():
            self._compare_again = True  # after the running one, for the newest inputs
            return
        self._inputs = inputs
        self._generation += 1
        generation, bridge, catalog = self._generation, self._bridge, self.doc.catalog
        s = settings_of(project)
        raw = [(k, self._cache[k]) for k in keys]
        routing, skipped = self.routing, list(self.skipped)

        def run() -> None:
            items: list[tuple] = [("This design", project, result, "as drawn")]
            for k, (p, r, note, replanned, label) in raw:
                if isinstance(k, tuple) and isinstance(k[1], Spec):
                    spec = k[1]
                    if spec.kind == "profile" and spec.value == project.profile \
                            and not spec.server:
                        if not replanned:
                            continue  # this design is already its technology at its best
                        label += " (best)"
                    if p is None:
                        items.append((label, None, None, note))
                        continue
                    # the variant under this design's workload (a validated copy: ~10 ms at
                    # 16,384 GPUs, so here and not in the GUI thread)
                    keep = ({"transport": project.transport}
                            if spec.kind != "transport" and p.profile == project.profile
                            else {})
                    items.append((label, p.evolve(decision=project.decision, **keep), r, note))
                elif p is None:
                    items.append((label, None, None, note))
                else:
                    items.append((label, p, r, note))
            try:
                emit_from_worker(bridge.compared, generation,
                                 compare(items, s.workload, s.economics, catalog,
                                         routing=routing, notes=skipped), "")
            except DesignerError as exc:
                emit_from_worker(bridge.compared, generation, None, str(exc))
            except Exception as exc:  # a bug must reach the user, not vanish with the thread
                traceback.print_exc()
                emit_from_worker(bridge.compared, generation, None,
                                 f"{type(exc).__name__}: {exc}")

        self._compare_again = False
        self._comparing = threading.Thread(target=run, name=THREAD_PREFIX + "-estimates",
                                           daemon=True)
        self._comparing.start()

    def _on_compared(self, generation: int, comparison, message: str) -> None:
        if self._comparing is not None:
            self._comparing.join(timeout=1.0)
            self._comparing = None
        if self._compare_again or generation != self._generation:
            self._compare_again = False
            self._inputs = ()
            self._try_compare()
            return
        if message:
            self._inputs = ()
            self.failed.emit(message)
            return
        self.latest = comparison
        self.comparisonReady.emit(comparison)

    def shutdown(self, timeout: float = 5.0) -> None:
        self._timer.stop()
        self._cancel.set()
        join_for(self._thread, timeout)
        self._thread = None
        join_for(self._comparing, timeout)
        self._comparing = None
