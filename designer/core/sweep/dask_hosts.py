"""Worker processes of a local Dask cluster, forked from the sweeping process.

A local Dask cluster's nannies start their workers from Python's fork server, a process
that imports Dask and the designer afresh (1.7-1.9 s of CPU on the 1,024-design grid, on a
machine of two cores the same time taken from the workers), and stay in the sweeping
process for the whole run, watching the workers. The sweeping process has all of that
imported already but Dask itself (0.5 s): once it has imported Dask, too, processes forked
from it need import nothing. So when this process has one thread (a fork copies only the
calling thread: a lock held by another thread at that instant would stay held for ever in
the child), the workers are forked here, before the cluster's threads start, and wait for
the scheduler's address; each then runs a plain Dask worker, without a nanny (it would
restart a worker that died; a batch on a worker that dies is recorded as failed instead).
Elsewhere (the window runs threads of its own) the nannies and the fork server remain.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
import multiprocessing
import os
import signal
from multiprocessing.connection import Connection

from designer.core.sweep.local_pool import start_method

CLOSE_WAIT_S = 5.0  # for a worker to leave the cluster cleanly, then it is ended
HEARTBEAT_S = 5.0  # Dask's scheduler asks 0.5 s of clusters of up to 10 workers


class Hosts:
    """``n`` forked processes, each to run one Dask worker once given the scheduler's
    address (``serve``); ``close`` ends them, whatever state they are in."""

    def __init__(self, procs: list, conns: list[Connection]) -> None:
        self.procs = procs
        self._conns = conns

    @classmethod
    def fork(cls, n: int, config: dict) -> Hosts | None:
        """The processes, or None where they cannot be forked safely (not Linux, other
        threads running, Dask not installed): the cluster then starts its own."""
        if n < 1 or start_method() != "fork":
            return None
        try:
            import distributed  # noqa: F401  (imported once here, inherited by every fork)
        except ImportError:
            return None
        if start_method() != "fork":  # importing started a thread: not safe any more
            return None
        ctx = multiprocessing.get_context("fork")
        procs, conns = [], []
        for i in range(n):
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=_host, args=(theirs, os.getpid(), f"sweep-{i}", config),
                            name=f"sweep worker {i}", daemon=True)
            p.start()
            theirs.close()
            procs.append(p)
            conns.append(mine)
        return cls(procs, conns)

    def serve(self, address: str) -> None:
        for c in self._conns:
            with contextlib.suppress(OSError):
                c.send(address)

    def lost(self) -> bool:
        """Every worker process has ended (nothing would run what is left)."""
        return not any(p.is_alive() for p in self.procs)

    def close(self) -> None:
        for c in self._conns:  # a worker still waiting for an address is told to end
            with contextlib.suppress(OSError):
                c.send(None)
            c.close()
        for p in self.procs:
            p.join(CLOSE_WAIT_S)
        for p in self.procs:
            if p.is_alive():
                p.terminate()
                p.join(CLOSE_WAIT_S)


def _end_with_parent(parent: int) -> None:
    """Have the kernel end this process when the sweeping process dies (Linux's
    ``PR_SET_PDEATHSIG``, which is where these processes are forked): an event loop that
    looked for it would wake every second, and every wake takes the interpreter lock from
    the design being solved."""
    with contextlib.suppress(OSError, AttributeError, TypeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before the call
        os._exit(0)


def _host(conn: Connection, parent: int, name: str, config: dict) -> None:
    _end_with_parent(parent)
    try:
        address = conn.recv()
    except (EOFError, OSError):
        return
    if address is None:
        return
    import dask

    # what the local cluster does for its own workers: Dask's log is not the sweep's
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    with dask.config.set(config):
        asyncio.run(_serve(address, name))


async def _serve(address: str, name: str) -> None:
    from distributed import Worker

    class SweepWorker(Worker):
        """A worker that reports to the scheduler every ``HEARTBEAT_S``: each report
        (its metrics, over a connection of its own) wakes the worker's event loop, which
        takes the interpreter lock from the design being solved; on an idle worker, the
        reports were most of its 4 ms of CPU a second. The scheduler counts a worker lost
        only after minutes without one; nothing in a sweep waits for them. (Dask also
        ties its look for missing data to this interval: a sweep's tasks need none.)"""

        async def heartbeat(self) -> None:
            await super().heartbeat()
            pc = self.periodic_callbacks.get("heartbeat")
            if pc is not None:
                pc.callback_time = max(pc.callback_time, HEARTBEAT_S * 1000)

    # memory_limit=0: no memory monitor. A task holds a design only while it runs and
    # returns a few figures; there is nothing to spill, and no nanny to restart the worker.
    async with SweepWorker(address, nthreads=1, name=name, memory_limit=0,
                           dashboard=False) as worker:
        await worker.finished()
