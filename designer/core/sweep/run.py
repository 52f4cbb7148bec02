"""Run a sweep through the standard ``concurrent.futures`` executor interface.

By default local worker processes, one thread each (METIS holds the GIL, so threads would not
scale), forked from this process so that they start warm (``local_pool``); with a scheduler
address (or ``DASK_SCHEDULER_ADDRESS``) the same sweep runs on an existing Dask cluster, and
``engine="dask"`` starts a local Dask cluster instead of the plain processes. ``workers=0``
runs in this process (the baseline the benchmark compares against).

Points go out in batches of about ``TARGET_BATCH_S`` of estimated work (``cost.estimate_s``,
from each design's plan; the largest first, so the costliest designs start at once and the
last batches are small and the workers finish together); while a Dask cluster starts,
this process solves the largest batches itself; outcomes stream back as batches finish;
cancelling stops submitting, cancels what has not started and ends the local workers.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import multiprocessing
import os
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field, replace

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import DesignerError
from designer.core.sweep.cost import estimate_s
from designer.core.sweep.dask_hosts import Hosts
from designer.core.sweep.errors import SweepSpecError
from designer.core.sweep.local_pool import local_pool, start_method, warm
from designer.core.sweep.points import Point, expand
from designer.core.sweep.spec import SweepSpec
from designer.core.sweep.worker import Outcome, run_batch, run_point, warm_up
from designer.core.text import shown

TARGET_BATCH_S = 0.15  # a task should be worth shipping: Dask costs a few ms per task
POOL_BATCH_S = 0.02  # a local process takes a task for about 0.2 ms: small sweeps spread too
MAX_BATCH_S = 0.5  # ... but small enough to stream results and to balance the workers
POLL_S = 0.05  # how often a running sweep looks at its cancel flag
CONNECT_TIMEOUT = "10s"  # reaching an existing scheduler
WORKER_WAIT_S = 60  # for a first worker to join it
HOST_POLL_S = 0.5  # between looks at forked Dask workers that have not joined yet

ENGINES = ("processes", "dask")
LOST = ("not run: every worker process of the local Dask cluster died (out of memory, or "
        "killed)")
OnOutcome = Callable[[Outcome, int, int], None]  # outcome, done so far, total


@dataclass
class SweepRun:
    spec: SweepSpec
    points: list[Point]
    outcomes: dict[int, Outcome] = field(default_factory=dict)  # by point index
    seconds: float = 0.0
    workers: int = 0
    scheduler: str = "in-process"
    cancelled: bool = False
    batches: int = 0
    # wall clock (epoch seconds) at the start and end of the run and when each point's
    # outcome reached this process: with the workers' own stamps, where the time went
    wall_start: float = 0.0
    wall_end: float = 0.0
    received: dict[int, float] = field(default_factory=dict)
    workers_up: float = 0.0  # when a Dask cluster's workers were ready (0: not on Dask)

    def ran_on(self) -> str:
        """Where the designs were built, for a report: this process, local worker processes,
        a local Dask cluster or a Dask scheduler's workers."""
        if self.workers == 0:
            return "this process"
        if self.scheduler == "local":
            return f"{self.workers} local worker process(es)"
        if self.scheduler == "local Dask":
            return f"{self.workers} worker(s) of a local Dask cluster"
        return f"{self.workers} Dask worker(s) at {self.scheduler}"

    @property
    def failed(self) -> int:
        return sum(1 for o in self.outcomes.values() if o.error)


def make_batches(points: list[Point], workers: int,
                 min_batch_s: float = TARGET_BATCH_S) -> list[list[Point]]:
    todo = sorted((p for p in points if not p.error), key=estimate_s, reverse=True)
    total = sum(estimate_s(p) for p in todo)
    target = min(MAX_BATCH_S, max(min_batch_s, total / max(1, workers) / 16))
    batches: list[list[Point]] = []
    current: list[Point] = []
    acc = 0.0
    for p in todo:
        current.append(p)
        acc += estimate_s(p)
        if acc >= target:
            batches.append(current)
            current, acc = [], 0.0
    if current:
        batches.append(current)
    return batches


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


_ADDRESS = re.compile(
    r"(?:(?P<scheme>tcp|tls|ucx|ws|wss)://)?"
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?)"
    r":(?P<port>[0-9]{1,5})/?")


def scheduler_address(text: str) -> str:
    """``text`` when it is a Dask scheduler address (``tcp://HOST:PORT``, ``HOST:PORT``,
    ``tls://[::1]:8786``), else a one-line refusal: Dask's own parser fails deep inside its
    event loop and leaves a client that cannot close."""
    m = _ADDRESS.fullmatch(text.strip())
    if m is None or not 0 < int(m["port"]) < 65536:
        raise DesignerError(f"'{shown(text, 80)}' is not a Dask scheduler address (e.g. "
                            "tcp://HOST:8786)")
    return text.strip()


# What a local worker process imports before its first task: the generators and the solver.
# Started from a fork server that has imported them once, every worker begins warm (spawned,
# each imported Dask and the designer afresh: 1-1.5 s of CPU per worker before any work, the
# most of a 200-design sweep's cost on 2 cores).
WORKER_PRELOAD = ("distributed", "numpy", "scipy.sparse", "pydantic", "pymetis",
                  "designer.core.sweep.worker", "designer.core.generators",
                  "designer.core.solver")


def _local_config() -> dict:
    """Dask settings for the local cluster, each a measured cost of Dask's defaults here:
    - workers forked from a warm fork server where the platform has one (``_preload_workers``);
    - no ``MALLOC_TRIM_THRESHOLD_`` (Dask sets 64 kB so that memory goes back to the system
      at once; the solver allocates and frees arrays of a few MB per design, and every
      free then hands them back and the next allocation faults them in again);
    - a quiet event loop. A worker runs its task on one thread and its event loop on another;
      every time the loop wakes it takes the GIL from the task (Python hands the GIL over
      after 5 ms when another thread asks). Dask's loop wakes every 20 ms (a tick that
      watches for a blocked loop), every 100 ms (the memory monitor), every 500 ms (system
      statistics) and every 10 ms (a statistical profiler for the dashboard, which is off
      here): 1,000-1,400 handovers in a batch of 60 designs, each a wait for the other
      thread to be given a core, long on a busy machine. With the profiler off and the
      others at 1-5 s: 60-180 handovers;
    - no work stealing: its balancing pass runs on the scheduler every 100 ms, and there is
      nothing for it to move (the batches wait on the scheduler until a worker is free, as
      Dask queues tasks without dependencies, and go out in the order they were given).
    """
    cfg: dict = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                 "distributed.scheduler.work-stealing": False,
                 "distributed.worker.profile.enabled": False,
                 "distributed.admin.tick.interval": "1s",
                 "distributed.worker.memory.monitor-interval": "1s",
                 "distributed.admin.system-monitor.interval": "5s"}
    if "forkserver" in multiprocessing.get_all_start_methods():
        cfg["distributed.worker.multiprocessing-method"] = "forkserver"
    return cfg


def _preload_workers() -> None:
    """The fork server imports ``WORKER_PRELOAD`` once (it serves every later cluster of this
    process: a second sweep starts in a fraction of a second). Only what is importable is
    listed: a missing optional module would stop it."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    from distributed.utils import get_mp_context

    ctx = get_mp_context()  # Dask's own preload set first; ours replaces it (a superset)
    ctx.set_forkserver_preload(_worker_modules())


def _worker_modules() -> list[str]:
    return [m for m in WORKER_PRELOAD if importlib.util.find_spec(m.split(".")[0])]


def start_engine(engine: str = "processes", scheduler: str | None = None) -> None:
    """For a local Dask cluster, start now what its workers fork from: Python's fork server,
    a process of its own importing Dask and the designer (``WORKER_PRELOAD``); it does not
    wait for the imports. Nothing for the other engines, nor where there is no fork server.

    Called as the first step of a sweep, the server's imports (about 1.2 s of one core on a
    quiet machine) run beside this process importing Dask and starting the scheduler; started
    by the cluster's first nanny instead, they came after both (1.3 s into the sweep). The
    workers are still forked from that clean single-threaded server, never from this process:
    by the time a nanny starts a worker, this process runs the cluster's event loop and other
    threads, and Dask advises against forking a process with threads or an
    event loop. A server already running (started by ``warm`` for local workers) is kept:
    its workers then import Dask themselves.

    Nothing either where this process can fork its workers itself (``dask_hosts``: one
    thread, on Linux): they import nothing then."""
    if scheduler or engine != "dask" or start_method() == "fork" or \
            "forkserver" not in multiprocessing.get_all_start_methods():
        return
    warm(_worker_modules())


def check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise SweepSpecError(f"engine: give one of {', '.join(ENGINES)}, not "
                             f"'{shown(str(engine), 40)}'")


def sweep_executor(workers: int, scheduler: str | None, engine: str = "processes"
                   ) -> contextlib.AbstractContextManager[tuple[Executor, int, str]]:
    """The executor a sweep of many independent tasks runs on: Dask at ``scheduler`` or with
    ``engine="dask"``, else ``workers`` local processes forked warm."""
    check_engine(engine)
    if scheduler or engine == "dask":
        return dask_executor(workers, scheduler)
    return local_pool(workers)


def _wait_for_workers(client, workers: int, where: str, hosts: Hosts | None) -> None:
    """A local cluster's own workers are all up once it is made; forked ones (``hosts``) are
    waited for, all of them, but only while any is alive: a host that dies before it joins
    (out of memory, say) ends the wait at once with the local cause, not after a minute with
    advice meant for a remote scheduler."""
    if hosts is None:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_S)
        except TimeoutError:
            raise DesignerError(f"no Dask worker joined the scheduler at {where} within "
                                f"{WORKER_WAIT_S} s; start one with 'dask worker ADDRESS'"
                                ) from None
        return
    end = time.monotonic() + WORKER_WAIT_S
    while True:
        alive = sum(p.is_alive() for p in hosts.procs)
        joined = len(client.nthreads())
        if joined >= workers or (joined and joined >= alive):
            return
        if not alive:
            raise DesignerError(
                f"the {workers} local Dask worker(s) ended before joining the cluster "
                f"(their exit codes: {', '.join(str(p.exitcode) for p in hosts.procs)}); "
                "run the sweep on local processes instead (--engine processes)")
        if time.monotonic() > end:
            raise DesignerError(
                f"the local Dask workers did not join the cluster within {WORKER_WAIT_S} s "
                f"({joined} of {workers}); run the sweep on local processes instead "
                "(--engine processes)")
        with contextlib.suppress(TimeoutError):
            client.wait_for_workers(joined + 1, timeout=HOST_POLL_S)


@contextlib.contextmanager
def dask_executor(workers: int, scheduler: str | None, hosts: Hosts | None = None
                  ) -> Iterator[tuple[Executor, int, str]]:
    """A ``concurrent.futures.Executor`` on Dask: a local cluster of ``workers`` processes
    with one thread each, or the cluster at ``scheduler``. ``hosts``: processes forked
    from this one to be the local cluster's workers (else its nannies start them).
    Everything started here is closed on the way out, whatever happened."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise DesignerError("the sweep engine needs Dask: pip install 'dask[distributed]' "
                            "(or run with --workers 0 in this process)") from None
    cluster = None
    client = None
    try:
        if scheduler:
            scheduler = scheduler_address(scheduler)
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise DesignerError(f"cannot reach the Dask scheduler at {scheduler}: "
                                    f"{shown(str(exc), 200)}") from None
            where = scheduler
        else:
            with warnings.catch_warnings(), dask.config.set(_local_config()):
                # the scheduler's small HTTP server falls back to a free port when 8787 is
                # taken (another cluster): nothing for the user to act on
                warnings.filterwarnings("ignore", message="Port .* is already in use")
                if hosts is None:
                    _preload_workers()
                cluster = LocalCluster(n_workers=0 if hosts else workers,
                                       threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
            if hosts is not None:
                hosts.serve(cluster.scheduler_address)
            client = Client(cluster, set_as_default=False)
            where = "local Dask"
        _wait_for_workers(client, workers, where, hosts)
        try:
            client.run(warm_up)
        except Exception as exc:  # e.g. the designer is not installed where a worker runs
            raise DesignerError(f"the Dask workers cannot run the designer ({type(exc).__name__}"
                                f": {exc}); install it on every worker") from None
        n = len(client.nthreads())  # scheduler_info() lists only a few workers
        ex = client.get_executor(pure=False)
        try:
            yield ex, n, where
        finally:
            ex.shutdown(wait=False)
    finally:
        if client is not None:
            with contextlib.suppress(Exception):
                client.close(timeout=10)
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close(timeout=10)


def run_sweep(
    spec: SweepSpec,
    *,
    catalog: Catalog | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    on_outcome: OnOutcome | None = None,
    cancelled: Callable[[], bool] | None = None,
    points: list[Point] | None = None,
    engine: str = "processes",
) -> SweepRun:
    """Build and solve every point of ``spec``. ``on_outcome`` is called (in this thread) as
    each point finishes; when ``cancelled()`` turns true the run stops early and returns
    what finished with ``cancelled`` set. A spec that cannot run raises before any work.
    ``engine``: ``processes`` (local workers forked from this process) or ``dask`` (a local
    Dask cluster); a scheduler address always means Dask."""
    scheduler = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if scheduler:
        scheduler = scheduler_address(scheduler)  # refused before any work
    n_workers = default_workers() if workers is None else workers
    if n_workers < 0:
        raise SweepSpecError("workers: give 0 (this process) or more")
    check_engine(engine)
    if n_workers > 0:
        start_engine(engine, scheduler)  # its imports run beside the cluster's start
    pts = points if points is not None else expand(spec, catalog)
    if not pts:
        raise SweepSpecError("the spec gives no point")
    stop = cancelled or (lambda: False)
    run = SweepRun(spec, pts)
    t0 = time.perf_counter()
    run.wall_start = time.time()

    def record(o: Outcome) -> None:
        run.outcomes[o.index] = o
        run.received[o.index] = time.time()
        if on_outcome is not None:
            on_outcome(o, len(run.outcomes), len(pts))

    for p in pts:  # refused by the generator at planning: nothing to ship
        if p.error:
            record(Outcome(p.index, None, p.error, 0.0))
    workloads = spec.workloads
    if catalog is builtin_catalog():
        catalog = None  # workers load their own copy: do not ship 20 kB with every batch
    if n_workers == 0 and not scheduler:
        try:
            for p in pts:
                if stop():
                    run.cancelled = True
                    break
                if not p.error:
                    record(run_point(p, catalog, workloads))
        except KeyboardInterrupt:
            run.cancelled = True
        run.seconds = time.perf_counter() - t0
        run.wall_end = time.time()
        return run

    on_dask = bool(scheduler) or engine == "dask"
    batches = make_batches(pts, max(1, n_workers), TARGET_BATCH_S if on_dask else POOL_BATCH_S)
    if on_dask:
        _run_on_dask(run, batches, n_workers, scheduler, catalog, workloads, record, stop)
    else:
        with local_pool(n_workers) as (ex, run.workers, run.scheduler):
            _run_batches(run, ex, batches, catalog, workloads, record, stop)
    run.seconds = time.perf_counter() - t0
    run.wall_end = time.time()
    return run


def _run_on_dask(run: SweepRun, batches: list[list[Point]], n_workers: int,
                 scheduler: str | None, catalog: Catalog | None, workloads: list | None,
                 record: Callable[[Outcome], None], stop: Callable[[], bool]) -> None:
    """The cluster starts in the background (a fork server importing the designer, or the
    workers joining a remote scheduler: seconds) while this process solves batches, the
    largest first, one at a time; what is left goes to the workers once they are up.

    Largest first, because this process is the one worker ready now: on a quiet 2-core
    machine a local cluster took 5.5 s to come up, and a sweep whose two largest designs
    are 70% of its work (the bundled DeepSeek sweep) ran 1.2x slower than in process when
    this process took the smallest batches and left the large ones to workers not yet up.

    This process solves them in a fork of itself (``local_pool``, made before the cluster's
    threads exist), not on its own thread: the cluster's start (importing Dask, the
    scheduler, the nannies' handshakes) runs on threads of this process, and every step of
    it waited for the interpreter lock while a design was solved beside it (the graph
    partitioner holds the lock for the whole of a call). Solved here, the workers of the
    DeepSeek sweep took their first batch 4.2-6.6 s into the sweep; in the fork, 2.6-4.5 s
    (alternating runs, load 2-5).
    Only one batch at a time, and none once the workers are up: ``--workers N`` keeps to N
    cores (the batch in flight then finishes beside them).

    A local cluster's workers are forked first, where they can be (``dask_hosts``)."""
    hosts = None if scheduler else Hosts.fork(n_workers, _local_config())
    try:
        _start_and_run(run, batches, n_workers, scheduler, hosts, catalog, workloads, record,
                       stop)
    finally:
        if hosts is not None:
            hosts.close()


def _start_and_run(run: SweepRun, batches: list[list[Point]], n_workers: int,
                   scheduler: str | None, hosts: Hosts | None, catalog: Catalog | None,
                   workloads: list | None, record: Callable[[Outcome], None],
                   stop: Callable[[], bool]) -> None:
    with local_pool(1) as (here, _, _):
        inflight: dict[Future, list[Point]] = {}
        if batches and not stop():  # submitted first: a forked pool forks at its first task
            b = batches.pop(0)
            inflight[here.submit(run_batch, b, catalog, workloads)] = b
        starting = _Starting(n_workers, scheduler, hosts)
        try:
            try:
                while (batches or inflight) and not starting.ready.is_set():
                    if stop():
                        run.cancelled = True
                        break
                    if not inflight:
                        b = batches.pop(0)
                        inflight[here.submit(run_batch, b, catalog, workloads)] = b
                    done, _ = wait(inflight, timeout=POLL_S)
                    for f in done:
                        for o in _outcomes(f, inflight.pop(f)):
                            record(replace(o, worker=""))  # this process's own work
                if not run.cancelled:
                    starting.ready.wait()
            except KeyboardInterrupt:
                run.cancelled = True
            if starting.error is not None:
                raise starting.error
            run.workers, run.scheduler = starting.n, starting.where
            run.workers_up = starting.up
            if run.cancelled or not (batches or inflight):
                return
            assert starting.ex is not None
            _run_batches(run, starting.ex, batches, catalog, workloads, record, stop,
                         here=inflight, lost=None if hosts is None else hosts.lost)
        finally:
            starting.close()


def _run_batches(run: SweepRun, ex: Executor, batches: list[list[Point]],
                 catalog: Catalog | None, workloads: list | None,
                 record: Callable[[Outcome], None], stop: Callable[[], bool],
                 here: dict[Future, list[Point]] | None = None,
                 lost: Callable[[], bool] | None = None) -> None:
    """``batches`` on ``ex``, recorded as they come back; ``here``: batches already running
    in this process's fork, waited for with them (their outcomes are this process's).
    ``lost()`` true: no worker is left to run what remains (forked Dask workers have no
    nanny to start them again), whose points are then recorded as failed."""
    run.batches = len(batches)
    futures: dict[Future, list[Point]] = {
        ex.submit(run_batch, b, catalog, workloads): b for b in batches}
    mine = dict(here or {})
    pending = set(futures) | set(mine)
    try:
        while pending:
            if stop():
                run.cancelled = True
                break
            done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
            if not done and lost is not None and lost():
                for f in pending - set(mine):
                    f.cancel()
                    for p in futures[f]:
                        record(Outcome(p.index, None, LOST, 0.0))
                pending &= set(mine)
                lost = None
            for f in done:
                if f in mine:
                    for o in _outcomes(f, mine[f]):
                        record(replace(o, worker=""))
                else:
                    for o in _outcomes(f, futures[f]):
                        record(o)
    except KeyboardInterrupt:  # Ctrl+C: keep what finished, as a cancel would
        run.cancelled = True
    if run.cancelled:
        for f in pending:
            f.cancel()


class _Starting:
    """``dask_executor`` entered on a thread of its own: ``ready`` is set once the executor
    is up (``ex``, ``n``, ``where``) or failed (``error``); ``close`` leaves it, closing the
    cluster, whenever it is called."""

    def __init__(self, workers: int, scheduler: str | None, hosts: Hosts | None) -> None:
        self.ready = threading.Event()
        self._leave = threading.Event()
        self.ex: Executor | None = None
        self.n, self.where = 0, "in-process"
        self.up = 0.0
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(workers, scheduler, hosts),
                                        name="sweep cluster", daemon=True)
        self._thread.start()

    def _run(self, workers: int, scheduler: str | None, hosts: Hosts | None) -> None:
        try:
            with dask_executor(workers, scheduler, hosts) as (ex, n, where):
                self.ex, self.n, self.where = ex, n, where
                self.up = time.time()
                self.ready.set()
                self._leave.wait()
        except BaseException as exc:  # handed to the sweep's thread, which raises it
            self.error = exc
        finally:
            self.ready.set()

    def close(self) -> None:
        self._leave.set()
        self._thread.join()


def _outcomes(f: Future, batch: list[Point]) -> list[Outcome]:
    try:
        return f.result()
    except Exception as exc:  # the worker died or the task could not be shipped
        msg = f"the batch failed on its worker: {type(exc).__name__}: {exc}"
        return [Outcome(p.index, None, msg, 0.0) for p in batch]

