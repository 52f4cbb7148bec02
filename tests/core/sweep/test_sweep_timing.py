"""Where a sweep's time went: per worker, start-up, build, solve, estimate, transfer and idle
add up to the run's wall time; the designs' own work is what the points report; the largest
design is named with its share; the batches go out largest first."""

from __future__ import annotations

import pytest

from designer.core.sweep import run_sweep, spec_from_dict
from designer.core.sweep.results import summary_json, sweep_table
from designer.core.sweep.run import estimate_s, make_batches
from designer.core.sweep.timing import (
    STAGES,
    by_worker,
    largest,
    startup,
    time_summary,
    timing_lines,
)
from tests.core.sweep.test_sweep_dask import children, wait_gone

SPEC = {"generate": {"kind": "fat-tree", "gpus": {"min": 64, "max": 1024, "step": 192},
                     "gear": ["ib-ndr", "roce-400"]}}


@pytest.mark.parametrize("workers", [0, 2])
def test_stages_add_up_to_the_run_per_worker(workers):
    before = children()
    run = run_sweep(spec_from_dict(SPEC), workers=workers)
    wait_gone(before)
    wall = run.wall_end - run.wall_start
    rows = by_worker(run)
    assert sum(r.points for r in rows) == len(run.outcomes) == len(run.points)
    if workers == 0:
        assert [r.worker for r in rows] == ["this process"]
    else:
        assert all(r.worker != "this process" for r in rows) and 1 <= len(rows) <= 2
    for r in rows:
        assert all(getattr(r, k) >= 0 for k in STAGES)
        assert sum(getattr(r, k) for k in STAGES) == pytest.approx(wall, rel=1e-6, abs=1e-6)
    # the designs' own work is what the points report, stage by stage
    work = sum(r.build + r.solve + r.estimate for r in rows)
    assert work == pytest.approx(sum(o.seconds for o in run.outcomes.values()), rel=1e-9)
    for o in run.outcomes.values():
        assert o.build_s > 0 and o.solve_s > 0
        assert o.build_s + o.solve_s + o.estimate_s == pytest.approx(o.seconds, rel=1e-9)
    big = largest(run)
    slowest = max(run.outcomes.values(), key=lambda o: o.seconds)
    assert big is not None and big.point == slowest.index
    assert big.share == pytest.approx(slowest.seconds / wall)
    # what the estimate said of it, and where it put it among the designs it ranked
    assert big.estimated == estimate_s(run.points[slowest.index])
    ests = sorted((estimate_s(p) for p in run.points if not p.error), reverse=True)
    assert big.ranked == len(ests)
    if workers == 0:  # in this process the designs run in the spec's order: no rank
        assert big.rank is None
    else:
        assert ests[big.rank - 1] == big.estimated
        assert big.rank == 1 or ests[big.rank - 2] > big.estimated
    timing = summary_json(run, sweep_table(run))["timing"]
    assert timing["largest"]["point"] == slowest.index
    assert timing["largest"]["rank"] == big.rank
    assert timing["largest"]["estimated_s"] == round(big.estimated, 4)
    assert {w["worker"] for w in timing["workers"]} == {r.worker for r in rows}
    line = next(x for x in timing_lines(run) if x.startswith("  Largest design"))
    assert f"estimated {big.estimated:.3f} s" in line
    assert ("ranked" in line) == (workers > 0)
    if workers:
        assert f"ranked {big.rank} of {big.ranked} to start" in line
    # the status line's phrase: the largest design's share, and the workers' start-up
    said = time_summary(run)
    assert f"largest design {big.seconds:.1f} s ({100 * big.share:.0f}%)" in said
    up = startup(run)
    assert (up is not None) == (workers > 0) == ("workers up" in said)
    if up is not None:
        assert f"workers up after {up.seconds:.1f} s ({100 * up.share:.0f}% of the run)" in said


def test_a_failed_point_counts_its_time_in_the_stage_it_reached():
    from designer.core.sweep.worker import Outcome, _timed

    o = Outcome(3, None, "refused", 1.5)
    in_build = _timed(o, [10.0])
    assert (in_build.build_s, in_build.solve_s, in_build.estimate_s) == (1.5, 0.0, 0.0)
    in_solve = _timed(o, [10.0, 10.25])
    assert (in_solve.build_s, in_solve.solve_s, in_solve.estimate_s) == (0.25, 1.25, 0.0)
    done = _timed(o, [10.0, 10.25, 11.0])
    assert (done.build_s, done.solve_s, done.estimate_s) == (0.25, 0.75, 0.5)


def test_batches_go_out_largest_first():
    from designer.core.sweep.points import expand

    run_points = expand(spec_from_dict(SPEC), None)
    batches = make_batches(run_points, 2)
    sizes = [max(estimate_s(p) for p in b) for b in batches]
    assert sizes == sorted(sizes, reverse=True)
    assert max(p.gpus for p in batches[0]) == max(p.gpus for p in run_points)


def test_while_a_cluster_starts_this_process_takes_the_largest_designs(monkeypatch):
    """This process is the one worker ready while a Dask cluster comes up: it must start on
    the largest batch (a sweep dominated by a few large designs ran slower than in process
    when it took the smallest and left the large ones to workers still starting)."""
    import contextlib
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from designer.core.sweep import run as sweep_run

    first_local = threading.Event()

    @contextlib.contextmanager
    def slow_cluster(workers, scheduler, hosts=None):
        first_local.wait(60)  # up only once this process has finished a batch
        with ThreadPoolExecutor(1) as ex:
            yield ex, 1, "local Dask"

    monkeypatch.setattr(sweep_run, "dask_executor", slow_cluster)
    monkeypatch.setattr(sweep_run, "TARGET_BATCH_S", 1e-6)  # small batches: several of them
    order: list[int] = []

    def seen(o, done, total):
        order.append(o.index)
        first_local.set()

    spec = spec_from_dict(SPEC)
    run = run_sweep(spec, workers=1, engine="dask", on_outcome=seen)
    assert len(run.outcomes) == len(run.points) and not run.failed
    biggest = max((p for p in run.points if not p.error), key=estimate_s)
    assert len(make_batches(run.points, 1, 1e-6)) > 2
    assert order[0] == biggest.index
    assert run.scheduler == "local Dask"


def _fake_cluster(monkeypatch, up_when):
    """A Dask executor that is up only once ``up_when()`` says so (threads stand in for its
    workers), recording what was running when it was entered."""
    import contextlib
    import multiprocessing
    import time
    from concurrent.futures import ThreadPoolExecutor

    from designer.core.sweep import run as sweep_run

    entered: dict[str, object] = {}

    @contextlib.contextmanager
    def slow_cluster(workers, scheduler, hosts=None):
        entered["children"] = len(multiprocessing.active_children())
        end = time.monotonic() + 60
        while not up_when() and time.monotonic() < end:
            time.sleep(0.01)
        with ThreadPoolExecutor(1) as ex:
            yield ex, 1, "local Dask"

    monkeypatch.setattr(sweep_run, "dask_executor", slow_cluster)
    return entered


def test_while_a_cluster_starts_the_designs_are_solved_in_a_fork_not_on_this_thread(
        monkeypatch):
    """The cluster's start runs on threads of this process; a design solved on its main
    thread would hold the interpreter lock against it. So the designs solved meanwhile are
    solved in a process forked before the cluster starts, and counted as this process's."""
    from designer.core.sweep import run as sweep_run

    def not_here(*a, **k):
        raise AssertionError("a design was solved on the sweeping thread")

    monkeypatch.setattr(sweep_run, "run_point", not_here)
    monkeypatch.setattr(sweep_run, "TARGET_BATCH_S", 1e-6)
    seen: list[int] = []
    entered = _fake_cluster(monkeypatch, lambda: len(seen) >= 2)
    before = children()
    run = run_sweep(spec_from_dict(SPEC), workers=1, engine="dask",
                    on_outcome=lambda o, d, n: seen.append(o.index))
    wait_gone(before)
    assert len(run.outcomes) == len(run.points) and not run.failed
    assert entered["children"] >= 1  # the solving process existed before the cluster began
    mine = [o for o in run.outcomes.values() if not o.worker]
    assert len(mine) >= 2  # what finished while the cluster started is this process's
    rows = {r.worker: r for r in by_worker(run)}
    assert rows["this process"].points == len(mine)
    up = summary_json(run, sweep_table(run))["timing"]["startup"]
    assert up["here"] == len(mine) and up["workers_ran"] is True
    assert 0 < up["share"] <= 1
    assert any(line.startswith("  Workers' start-up: their first batch began")
               for line in timing_lines(run))


def test_a_sweep_done_before_its_cluster_is_up_says_so(monkeypatch):
    """A small sweep can be over before a local Dask cluster's workers are up: the report
    says that this process solved every design and the workers none (the run still waits
    for the cluster: --engine dask is never silently in process)."""
    spec = spec_from_dict(SPEC)
    total = len(run_sweep(spec, workers=0).points)
    seen: list[int] = []
    _fake_cluster(monkeypatch, lambda: len(seen) >= total)
    run = run_sweep(spec, workers=1, engine="dask",
                    on_outcome=lambda o, d, n: seen.append(o.index))
    assert run.scheduler == "local Dask" and run.workers == 1 and run.workers_up > 0
    up = summary_json(run, sweep_table(run))["timing"]["startup"]
    assert up["workers_ran"] is False and up["here"] == len(run.points)
    line = [x for x in timing_lines(run) if "start-up" in x]
    assert line and f"solved all {len(run.points)} design(s)" in line[0]
    assert "the workers none" in line[0]
    assert "this process solved every design" in time_summary(run)


def test_in_process_has_no_start_up_line():
    run = run_sweep(spec_from_dict(SPEC), workers=0)
    assert summary_json(run, sweep_table(run))["timing"]["startup"] is None
    assert not any("start-up" in x for x in timing_lines(run))


def test_the_fork_server_is_started_before_the_spec_is_expanded(monkeypatch):
    """A local Dask sweep starts its workers' fork server as its first step (its imports
    then run beside everything else); in process, nothing is started."""
    from designer.core.sweep import run as sweep_run

    calls: list[str] = []
    real_expand = sweep_run.expand
    monkeypatch.setattr(sweep_run, "start_engine",
                        lambda engine, scheduler: calls.append(f"start {engine}"))
    monkeypatch.setattr(sweep_run, "expand",
                        lambda *a: calls.append("expand") or real_expand(*a))
    _fake_cluster(monkeypatch, lambda: True)
    run_sweep(spec_from_dict(SPEC), workers=1, engine="dask")
    assert calls == ["start dask", "expand"]
    calls.clear()
    run_sweep(spec_from_dict(SPEC), workers=0)
    assert calls == ["expand"]
