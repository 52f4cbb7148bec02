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


CLOSED = """
from designer.core.sweep.dask_hosts import Hosts
hosts = Hosts.fork(2, {})
assert hosts is not None and len(hosts.procs) == 2
assert all(p.is_alive() for p in hosts.procs)
hosts.close()
assert not any(p.is_alive() for p in hosts.procs)
print("ok")
"""


def fresh(code: str, *args: str) -> str:
    """``code`` run by a fresh interpreter, whose only thread is its own (this test process
    may run threads other tests left, and then nothing is forked)."""
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_workers_never_given_an_address_end_on_close():
    assert fresh(CLOSED).strip() == "ok"


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


ALL_DIE = """
import os, tempfile, time
from designer.core.sweep import run as sweep_run, spec_from_dict
from designer.core.sweep import worker as sweep_worker

MARKER = os.path.join(tempfile.gettempdir(), f"all-die-{os.getpid()}")


def dies_on_a_dask_worker(points, catalog=None, workloads=None):
    # kills the Dask worker running it (as the out-of-memory killer would); elsewhere (the
    # sweeping process's own fork) it runs as usual, once a worker has had a batch: on a
    # busy machine the fork would otherwise solve every point before the cluster is up
    from distributed import get_worker
    try:
        get_worker()
    except ValueError:
        end = time.monotonic() + 90
        while not os.path.exists(MARKER) and time.monotonic() < end:
            time.sleep(0.05)
        return [sweep_worker.run_point(p, catalog, workloads) for p in points]
    open(MARKER, "w").close()
    os._exit(1)


sweep_run.run_batch = sweep_worker.run_batch = dies_on_a_dask_worker
sweep_run.TARGET_BATCH_S = 1e-6  # one design a batch
spec = spec_from_dict({"generate": {"kind": "fat-tree",
                                    "gpus": {"min": 64, "max": 1024, "step": 64}}})
deadline = time.monotonic() + 120
run = sweep_run.run_sweep(spec, workers=2, engine="dask",
                          cancelled=lambda: time.monotonic() > deadline)
lost = [o for o in run.outcomes.values() if o.error == sweep_run.LOST]
if os.path.exists(MARKER):
    os.unlink(MARKER)
print(run.cancelled, len(run.outcomes) == len(run.points), len(lost),
      all(o.metrics is None for o in lost))
"""


def test_a_sweep_whose_workers_all_die_ends_with_its_points_failed():
    """Forked workers have no nanny to start them again: when every one has died, what is
    left is recorded as failed, with the reason, and the sweep ends rather than waiting for
    ever."""
    from designer.core.sweep.run import LOST

    cancelled, complete, lost, no_figures = fresh(ALL_DIE).split()
    assert cancelled == "False", "the sweep waited for workers that had died"
    assert complete == "True" and int(lost) > 0 and no_figures == "True"
    assert "died" in LOST


NONE_START = """
import os
from designer.core.errors import DesignerError
from designer.core.sweep import dask_hosts, run as sweep_run, spec_from_dict

dask_hosts._host = lambda *args: os._exit(3)  # as a worker killed before it joins would end
spec = spec_from_dict({"generate": {"kind": "fat-tree",
                                    "gpus": {"min": 2048, "max": 32768, "step": 2048}}})
try:
    sweep_run.run_sweep(spec, workers=2, engine="dask")
except DesignerError as exc:
    print(exc)
"""


def test_local_workers_that_never_join_are_named_with_the_engine_that_avoids_them():
    """Forked workers that die before joining end the wait at once, and the message is about
    them (with the way round), not the minute's timeout and its advice for a remote
    scheduler."""
    said = fresh(NONE_START)
    assert "the 2 local Dask worker(s) ended before joining the cluster" in said
    assert "exit codes: 3, 3" in said and "--engine processes" in said
    assert "dask worker ADDRESS" not in said
