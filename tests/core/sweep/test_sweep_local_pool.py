"""Sweeps on local worker processes forked from the sweeping process (the default engine):
the same figures as in process, a dead worker recorded rather than a hang, and the fork
avoided when other threads could hold a lock across it. Every process started here ends here."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from designer.core.sweep import local_pool as lp
from designer.core.sweep import run_sweep, spec_from_dict
from designer.core.sweep import worker as sweep_worker
from designer.core.sweep.errors import SweepSpecError
from tests.core.sweep.test_sweep_dask import children, wait_gone

SPEC = {"generate": {"kind": "fat-tree", "gpus": {"min": 64, "max": 1024, "step": 192},
                     "gear": ["ib-ndr", "roce-400"]}}


def test_fork_only_when_no_other_thread_can_hold_a_lock():
    if not sys.platform.startswith("linux"):
        pytest.skip("workers are forked on Linux only")
    if threading.active_count() == 1:
        assert lp.start_method() == "fork"
    release = threading.Event()
    t = threading.Thread(target=release.wait)
    t.start()
    try:
        assert lp.start_method() == "forkserver"  # e.g. the window's solver thread
    finally:
        release.set()
        t.join()


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_local_workers_give_the_in_process_figures(monkeypatch, method):
    if method not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip(f"no {method} on this platform")
    monkeypatch.setattr(lp, "start_method", lambda: method)
    spec = spec_from_dict(SPEC)
    before = children()
    run = run_sweep(spec, workers=2)
    assert run.workers == 2 and run.scheduler == "local" and run.batches >= 2
    serial = run_sweep(spec, workers=0)
    assert run.failed == 0 and set(run.outcomes) == set(serial.outcomes)
    for i, o in run.outcomes.items():
        assert o.metrics == serial.outcomes[i].metrics
    assert not wait_gone(before), "a worker process outlived the sweep"


def test_a_worker_that_dies_is_recorded_not_waited_for(monkeypatch):
    """A worker killed mid-batch (the kernel's OOM killer, say) fails its batch's points with
    a message; the sweep ends instead of waiting for results that will never come."""
    if "fork" not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip("no fork on this platform")
    monkeypatch.setattr(lp, "start_method", lambda: "fork")
    real = sweep_worker.run_point
    parent = os.getpid()

    def dying(point, catalog, workloads):
        if os.getpid() != parent and point.gpus >= 1024:
            os._exit(9)  # as a process killed from outside would end
        return real(point, catalog, workloads)

    monkeypatch.setattr(sweep_worker, "run_point", dying)  # the forked workers inherit it
    before = children()
    run = run_sweep(spec_from_dict(SPEC), workers=2)
    assert not run.cancelled and len(run.outcomes) == len(run.points)
    failed = [o for o in run.outcomes.values() if o.error]
    assert failed and all("the batch failed on its worker" in o.error for o in failed)
    assert not wait_gone(before)


def test_cancel_ends_the_workers_at_once(monkeypatch):
    # the largest designs first, each a batch of its own: most of the work is left when the
    # first outcome arrives, however fast the workers
    spec = spec_from_dict({"generate": {"kind": "fat-tree", "gpus": {"min": 2048, "max": 32768,
                                                                      "step": 2048}}})
    before = children()
    seen: list[int] = []
    run = run_sweep(spec, workers=2, on_outcome=lambda o, d, n: seen.append(o.index),
                    cancelled=lambda: len(seen) >= 1)
    assert run.cancelled and 1 <= len(run.outcomes) < len(run.points)
    assert not wait_gone(before), "a worker process outlived the cancelled sweep"


def test_an_unknown_engine_is_refused_before_any_work():
    with pytest.raises(SweepSpecError, match="engine: give one of processes, dask"):
        run_sweep(spec_from_dict(SPEC), workers=2, engine="ray")


def test_the_report_says_where_the_designs_were_built():
    from designer.core.sweep.run import SweepRun

    spec = spec_from_dict(SPEC)
    assert SweepRun(spec, [], workers=0).ran_on() == "this process"
    assert SweepRun(spec, [], workers=2, scheduler="local").ran_on() == \
        "2 local worker process(es)"
    assert SweepRun(spec, [], workers=2, scheduler="local Dask").ran_on() == \
        "2 worker(s) of a local Dask cluster"
    assert SweepRun(spec, [], workers=5, scheduler="tcp://h:8786").ran_on() == \
        "5 Dask worker(s) at tcp://h:8786"


def test_a_worker_deaf_to_sigterm_is_killed_when_the_sweep_ends(monkeypatch, tmp_path):
    """However a worker came to ignore SIGTERM (a handler or mask inherited at the fork), the
    pool's end kills it rather than leave it running after the sweep."""
    if "fork" not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip("no fork on this platform")
    import signal
    import time

    monkeypatch.setattr(lp, "start_method", lambda: "fork")
    real = sweep_worker.run_point
    parent = os.getpid()
    deaf_now = tmp_path / "deaf"

    def deaf(point, catalog, workloads):
        if os.getpid() != parent and point.gpus >= 1024:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            deaf_now.touch()
            time.sleep(300)
        return real(point, catalog, workloads)

    monkeypatch.setattr(sweep_worker, "run_point", deaf)
    before = children()
    run = run_sweep(spec_from_dict(SPEC), workers=2, cancelled=deaf_now.exists)
    assert run.cancelled
    assert not wait_gone(before), "a worker deaf to SIGTERM outlived the sweep"
