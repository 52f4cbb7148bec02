"""Local worker processes for a sweep: forked from this process, so they start warm.

A local Dask cluster costs seconds before its first task on two cores (importing Dask, a
fork server importing the designer again, a scheduler, nannies and workers shaking hands:
2.6-4.5 s into a sweep on a busy machine), and its scheduler and event loops take CPU from
the workers while they run: on a sweep of 200 small designs that start was a third of the
work and two workers were only 1.26x faster than one. Workers forked from this process
inherit the designer, numpy and scipy already imported, so they start in milliseconds and
nothing but the workers runs.

Forking copies only the calling thread. When this process runs other threads (the window:
its solver, its background tasks), a thread holding a lock at the instant of the fork would
leave that lock held for ever in the child; then the workers come from Python's fork server
instead, a clean process that imports the designer once (``warm``: the window starts it when
the sweep dialog opens, so the user does not wait for it).

A Dask cluster (a scheduler address, or ``engine="dask"``) remains the way to use other
machines; both give a standard ``concurrent.futures.Executor``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor

# What a fork-server worker imports before its first task (a forked one has them already).
PRELOAD = ("numpy", "scipy.sparse", "pydantic", "designer.core.sweep.worker",
           "designer.core.generators", "designer.core.solver")

_warm_lock = threading.Lock()
_GRACE_S = 2.0  # for a worker to end after SIGTERM, before SIGKILL


def start_method() -> str:
    """``fork`` on Linux when this is the only thread (nothing can hold a lock across the
    fork; macOS's system libraries are not safe to fork at all, which is why Python spawns
    there), else ``forkserver``; ``spawn`` where neither exists (Windows)."""
    methods = multiprocessing.get_all_start_methods()
    if sys.platform.startswith("linux") and "fork" in methods \
            and threading.active_count() == 1:
        return "fork"
    if "forkserver" in methods:
        return "forkserver"
    return "spawn"


def warm(modules: Sequence[str] = PRELOAD) -> None:
    """Start the fork server with the designer imported (about a second of one core, in its
    own process), so that a later sweep from a busy process starts at once. Safe to call
    from any thread, any number of times: the first call's ``modules`` are the ones the
    server imports (one server per process, for as long as it lives)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    from multiprocessing import forkserver

    with _warm_lock:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(list(modules))
        forkserver.ensure_running()


@contextlib.contextmanager
def local_pool(workers: int) -> Iterator[tuple[Executor, int, str]]:
    """``workers`` processes with one thread each, as ``(executor, workers, "local")``.
    On the way out, work not started is cancelled and the processes end (those still in a
    task are stopped: a cancelled sweep does not wait for its batches)."""
    if workers < 1:
        raise ValueError("a local pool needs at least one worker")
    method = start_method()
    if method == "forkserver":
        warm()
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method))
    try:
        yield ex, workers, "local"
    finally:
        _stop_workers(ex)


def _stop_workers(ex: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the pool's processes now, even mid-task.
    The pool's own table of processes (a CPython attribute, emptied by ``shutdown``: read
    first) is the handle; Python 3.14's ``terminate_workers`` sends SIGTERM only."""
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    _end(procs)


def _end(procs: list) -> None:
    """SIGTERM, a grace of ``_GRACE_S``, then SIGKILL for any that is still there: a worker
    that ignores or blocks SIGTERM is killed, because a sweep must never leave a process
    behind (one was seen living on after a pool broke, when its sibling was killed
    mid-batch)."""
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
    end = time.monotonic() + _GRACE_S
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(max(0.0, end - time.monotonic()))
    for p in procs:
        with contextlib.suppress(Exception):
            if p.is_alive():
                p.kill()
                p.join(_GRACE_S)

