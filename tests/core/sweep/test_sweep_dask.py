"""Sweeps on real Dask: a local cluster of 2 worker processes, and a scheduler and a worker
started as separate processes on localhost. Every process started here is ended here."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import psutil
import pytest

from designer.core.sweep import loads_spec, run_sweep, spec_from_dict, sweep_table
from designer.core.sweep.dask_hosts import Hosts
from tests._paths import ROOT

ISSUE_SPEC = ('{"generate": {"kind": "rail", "gear": ["ib-ndr", "roce-400"], '
              '"sus": [1, 2, 4, 8]}, "objectives": ["cost_per_gpu", "bisection_per_gpu"]}')

FORKS_HERE = sys.platform.startswith("linux")  # where a one-thread process forks its workers


def children() -> set[int]:
    """Our live child processes (workers forked by the fork server included), but Python's
    own multiprocessing helpers, started once and living as long as this interpreter: the
    resource tracker and the fork server (kept warm so that a second sweep starts at once)."""
    out = set()
    for p in psutil.Process().children(recursive=True):
        try:
            cmd = " ".join(p.cmdline())
            if p.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in cmd and \
                    "forkserver import main" not in cmd:
                out.add(p.pid)
        except psutil.NoSuchProcess:
            pass
    return out


def wait_gone(before: set[int], timeout: float = 15.0) -> set[int]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        left = children() - before
        if not left:
            return left
        time.sleep(0.2)
    return children() - before


def test_local_cluster_of_two_workers_matches_the_in_process_run(monkeypatch):
    spec = loads_spec(ISSUE_SPEC)
    before = children()
    streamed: list[int] = []
    parents: dict[str, int] = {}  # worker -> its parent process, while it runs
    forks_here = FORKS_HERE and threading.active_count() == 1

    def seen(o, done, n):
        streamed.append(done)
        if o.worker and o.worker not in parents:
            with contextlib.suppress(psutil.NoSuchProcess):
                parents[o.worker] = psutil.Process(int(o.worker.rsplit(":", 1)[1])).ppid()

    forked: list[object] = []
    real_fork = Hosts.fork

    def fork(n, config):
        forked.append(real_fork(n, config))
        return forked[-1]

    monkeypatch.setattr(Hosts, "fork", staticmethod(fork))
    run = run_sweep(spec, workers=2, on_outcome=seen, engine="dask")
    assert run.workers == 2 and run.scheduler == "local Dask"
    assert streamed == list(range(1, 9))  # one call per point as it arrives
    if forks_here:  # the workers were forked from this process, not from a fork server
        assert len(forked) == 1 and forked[0] is not None
        # (this process's own fork may have solved every design while they started)
        assert set(parents.values()) <= {os.getpid()}
    assert run.failed == 0 and len(run.outcomes) == 8
    serial = run_sweep(spec, workers=0)
    for i, o in run.outcomes.items():  # the same figures whatever process built the design
        assert o.metrics == serial.outcomes[i].metrics
    table = sweep_table(run)
    assert table.pareto.any() and table.best["all constraints"] is not None
    assert not wait_gone(before), "a worker process outlived the sweep"


def test_cancel_stops_the_sweep_and_leaves_no_worker_behind():
    spec = spec_from_dict({"generate": {"kind": "fat-tree", "gpus": {"min": 1024, "max": 8192,
                                                                      "step": 512}}})
    before = children()
    seen: list[int] = []
    run = run_sweep(spec, workers=2, on_outcome=lambda o, d, n: seen.append(o.index),
                    cancelled=lambda: len(seen) >= 1, engine="dask")
    assert run.cancelled
    assert 1 <= len(run.outcomes) < len(run.points)
    table = sweep_table(run)  # the unfinished points are listed as not run
    assert "not run (cancelled)" in table.column("error")
    assert not wait_gone(before), "a worker process outlived the cancelled sweep"


def test_a_combination_the_generator_refuses_is_recorded_not_fatal():
    # 64-port switches hold at most k^2/2 = 2,048 GPUs in two tiers at 1:1
    spec = spec_from_dict({"generate": {"kind": "fat-tree", "gpus": [512, 4096],
                                        "tiers": [2, 3]}})
    run = run_sweep(spec, workers=0)
    errors = [run.outcomes[p.index].error for p in run.points]
    assert errors[0] is None and errors[1] is None and errors[3] is None
    assert "2,048 GPUs" in errors[2]
    assert run.failed == 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """End a process we started, by its pid (and its own process group: the worker's nanny
    runs the worker in a child)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def test_existing_cluster_from_a_scheduler_and_a_worker_process(tmp_path):
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    dask = [sys.executable, "-m", "dask"]
    procs: list[subprocess.Popen] = []
    log = tmp_path / "dask.log"
    try:
        with log.open("w") as out:
            procs.append(subprocess.Popen(
                [*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                 "--no-dashboard"], env=env, stdout=out, stderr=out, start_new_session=True))
            procs.append(subprocess.Popen(
                [*dask, "worker", addr, "--nthreads", "1", "--nworkers", "1",
                 "--no-dashboard"], env=env, stdout=out, stderr=out, start_new_session=True))
        run = run_sweep(loads_spec(ISSUE_SPEC), scheduler=addr)
        assert run.scheduler == addr and run.workers == 1
        assert run.failed == 0 and len(run.outcomes) == 8
    finally:
        for p in reversed(procs):
            _stop(p)
    assert all(p.poll() is not None for p in procs)


def test_unreachable_scheduler_is_a_clear_error(monkeypatch):
    from designer.core.errors import DesignerError
    from designer.core.sweep import run as run_module

    monkeypatch.setattr(run_module, "CONNECT_TIMEOUT", "2s")
    addr = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(DesignerError, match="cannot reach the Dask scheduler"):
        run_sweep(loads_spec(ISSUE_SPEC), scheduler=addr)


START = """
import sys, threading, time
import psutil
from designer.core.sweep import start_engine
if sys.argv[3]:  # as in the window: another thread runs
    threading.Thread(target=threading.Event().wait, daemon=True).start()
start_engine(sys.argv[1], sys.argv[2] or None)
end = time.monotonic() + 5  # a child shows our command line until its exec is done
while True:
    servers = [p for p in psutil.Process().children()
               if "forkserver import main" in " ".join(p.cmdline())]
    if servers or not psutil.Process().children() or time.monotonic() > end:
        break
    time.sleep(0.05)
print(len(servers), " ".join(servers[0].cmdline()) if servers else "")
"""


@pytest.mark.skipif("forkserver" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="no fork server on this platform")
@pytest.mark.parametrize(("engine", "scheduler", "threads", "started"), [
    ("dask", "", "yes", True), ("dask", "", "", not FORKS_HERE), ("processes", "", "", False),
    ("processes", "", "yes", False), ("dask", "tcp://127.0.0.1:8786", "yes", False)])
def test_a_local_dask_sweep_starts_its_fork_server_first(engine, scheduler, threads, started):
    """For a local Dask cluster whose workers cannot be forked from this process (other
    threads run, as in the window) the fork server they come from is started at once,
    importing Dask and the designer, rather than by the cluster's first nanny; where they
    can (one thread, Linux), nothing is; the other engines (and a remote scheduler) start
    nothing. A fresh interpreter: one fork server per process, and this one's may be
    running already."""
    out = subprocess.run([sys.executable, "-c", START, engine, scheduler, threads], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    count, _, cmd = out.stdout.strip().partition(" ")
    assert int(count) == int(started)
    if started:
        assert "'distributed'" in cmd and "'designer.core.sweep.worker'" in cmd
