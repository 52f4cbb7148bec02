"""The worker processes a local Dask sweep forks from itself (Linux, one thread): they end
when closed, whatever state they are in, and when the sweeping process dies."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time

import psutil
import pytest

from designer.core.sweep.dask_hosts import Hosts
from tests._paths import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the workers are forked only on Linux")


def test_not_forked_beside_another_thread():
    stop = threading.Event()
    t = threading.Thread(target=stop.wait, daemon=True)
    t.start()
    try:
        assert Hosts.fork(2, {}) is None  # a fork would copy only this thread: not safe
    finally:
        stop.set()
        t.join()


def test_workers_never_given_an_address_end_on_close():
    if threading.active_count() > 1:
        pytest.skip("another thread runs in this test process")
    hosts = Hosts.fork(2, {})
    assert hosts is not None and len(hosts.procs) == 2
    assert all(p.is_alive() for p in hosts.procs)
    hosts.close()
    assert not any(p.is_alive() for p in hosts.procs)


ORPHAN = """
import os, sys
from designer.core.sweep.dask_hosts import Hosts
hosts = Hosts.fork(2, {})
hosts.serve(sys.argv[1])  # nothing listens there: the workers keep trying to connect
print(" ".join(str(p.pid) for p in hosts.procs), flush=True)
sys.stdin.readline()
os._exit(0)  # dies without closing them
"""


def test_workers_end_when_the_sweeping_process_dies():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    parent = subprocess.Popen([sys.executable, "-c", ORPHAN, address], cwd=ROOT, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert parent.stdin is not None and parent.stdout is not None
    pids = [int(x) for x in parent.stdout.readline().split()]
    assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
    time.sleep(1)  # they are in their event loops now, trying to reach the scheduler
    assert all(psutil.pid_exists(p) for p in pids)
    parent.stdin.write("\n")
    parent.stdin.flush()
    parent.wait(30)
    end = time.monotonic() + 15
    alive = pids
    try:
        while alive and time.monotonic() < end:
            alive = [p for p in pids if _running(p)]
            time.sleep(0.1)
        assert not alive, "a worker outlived the process that forked it"
    finally:
        for p in alive:  # ours: do not leave them behind if the test failed
            with contextlib.suppress(psutil.Error):
                psutil.Process(p).kill()


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
