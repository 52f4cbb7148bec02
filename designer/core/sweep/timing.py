"""Where a sweep's time went, per worker: start-up (until its first batch began), build,
solve and estimate (the designs' own work), transfer (shipping tasks and results, between
batches and back to this process) and idle (done, waiting for the others), which add up to
the run's wall time; how long the run waited for its workers (a local Dask cluster takes
seconds to start); and the largest design's share of the run, the floor no number of workers
lowers, with what the estimate the batches were ranked by said of it and where it ranked it
(a costly design ranked late starts late and can end the run alone).

The workers stamp their batches with the wall clock; on one machine the clocks agree. A
remote worker's clock may not: its start-up and transfer are then rough (never negative).
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.sweep.cost import estimate_s
from designer.core.sweep.run import SweepRun
from designer.core.sweep.worker import Outcome

HERE = "this process"
STAGES = ("startup", "build", "solve", "estimate", "transfer", "idle")


@dataclass(frozen=True)
class WorkerTime:
    worker: str
    points: int
    startup: float
    build: float
    solve: float
    estimate: float
    transfer: float
    idle: float

    def as_dict(self) -> dict[str, object]:
        return {"worker": self.worker, "points": self.points,
                **{k: round(getattr(self, k), 4) for k in STAGES}}


@dataclass(frozen=True)
class Largest:
    point: int
    gpus: int
    seconds: float
    share: float  # of the run's wall time
    estimated: float  # seconds, the estimate the batches were ranked by
    rank: int | None  # its place by that estimate, 1 = started first; None: run in order
    ranked: int  # designs ranked (those the generator did not refuse)

    def as_dict(self) -> dict[str, object]:
        return {"point": self.point, "gpus": self.gpus, "seconds": round(self.seconds, 4),
                "share": round(self.share, 4), "estimated_s": round(self.estimated, 4),
                "rank": self.rank, "ranked": self.ranked}


def by_worker(run: SweepRun) -> list[WorkerTime]:
    """One row per worker that ran points (this process first when it ran some)."""
    wall = max(run.wall_end - run.wall_start, 0.0)
    groups: dict[str, list[Outcome]] = {}
    for o in run.outcomes.values():
        if o.seconds > 0 or o.worker:
            groups.setdefault(o.worker or HERE, []).append(o)
    rows = []
    for name in sorted(groups, key=lambda w: (w != HERE, w)):
        os_ = groups[name]
        build = sum(o.build_s for o in os_)
        solve = sum(o.solve_s for o in os_)
        est = sum(o.estimate_s for o in os_)
        work = build + solve + est
        if name == HERE:
            startup = transfer = 0.0
        else:
            batches = sorted({(o.batch_start, o.batch_end) for o in os_})
            startup = max(batches[0][0] - run.wall_start, 0.0)
            last_back = max(run.received.get(o.index, batches[-1][1]) for o in os_)
            span = max(last_back - batches[0][0], 0.0)
            transfer = max(span - work, 0.0)  # between batches, results back, batch overhead
        idle = max(wall - startup - work - transfer, 0.0)
        rows.append(WorkerTime(name, len(os_), startup, build, solve, est, transfer, idle))
    return rows


def largest(run: SweepRun) -> Largest | None:
    """The point that took longest to build and solve, and its share of the run."""
    done = [o for o in run.outcomes.values() if o.seconds > 0]
    if not done:
        return None
    o = max(done, key=lambda x: x.seconds)
    wall = max(run.wall_end - run.wall_start, 1e-9)
    p = run.points[o.index]
    est = estimate_s(p)
    ranked = [q for q in run.points if not q.error]
    # in this process the designs run in the spec's order; batched, by the estimate
    rank = None if run.workers == 0 else 1 + sum(1 for q in ranked if estimate_s(q) > est)
    return Largest(o.index, int(p.gpus), o.seconds, o.seconds / wall, est, rank, len(ranked))


@dataclass(frozen=True)
class Startup:
    """How long the run waited for its workers: the first batch a worker began, from the
    start of the run, its share of the run, and the designs this process solved meanwhile
    (while a Dask cluster starts, this process solves the largest batches)."""
    seconds: float
    share: float
    here: int
    workers_ran: bool  # False: this process solved every design before the workers were up

    def as_dict(self) -> dict[str, object]:
        return {"seconds": round(self.seconds, 4), "share": round(self.share, 4),
                "here": self.here, "workers_ran": self.workers_ran}


def startup(run: SweepRun) -> Startup | None:
    """Until a worker began its first batch; when no worker ran a point (this process solved
    them all while a Dask cluster started), until the cluster was ready. None in process."""
    rows = by_worker(run)
    workers = [r for r in rows if r.worker != HERE]
    if workers:
        first = min(r.startup for r in workers)
    elif run.workers_up > 0:
        first = max(run.workers_up - run.wall_start, 0.0)
    else:
        return None
    wall = max(run.wall_end - run.wall_start, 1e-9)
    here = sum(r.points for r in rows if r.worker == HERE)
    return Startup(first, first / wall, here, bool(workers))


def timing_json(run: SweepRun) -> dict[str, object]:
    big = largest(run)
    up = startup(run)
    return {"workers": [w.as_dict() for w in by_worker(run)],
            "largest": None if big is None else big.as_dict(),
            "startup": None if up is None else up.as_dict()}


def timing_lines(run: SweepRun) -> list[str]:
    """The report's lines: a row per worker, then the largest design."""
    rows = by_worker(run)
    if not rows:
        return []
    name_w = max(len("worker"), *(len(r.worker) for r in rows))
    out = ["Time per worker (s)",
           "  " + "worker".ljust(name_w) + "  points" + "".join(f"{k:>10}" for k in STAGES)]
    for r in rows:
        out.append("  " + r.worker.ljust(name_w) + f"  {r.points:6d}"
                   + "".join(f"{getattr(r, k):10.3f}" for k in STAGES))
    up = startup(run)
    if up is not None:
        share = f"{up.seconds:.3f} s into the run, {100 * up.share:.0f}% of it"
        if not up.workers_ran:
            out.append(f"  Workers' start-up: ready {share}; this process solved all "
                       f"{up.here:,} design(s) meanwhile, the workers none")
        else:
            out.append(f"  Workers' start-up: their first batch began {share}"
                       + (f" (this process solved {up.here:,} design(s) meanwhile)"
                          if up.here else ""))
    big = largest(run)
    if big is not None:
        ranked = "" if big.rank is None else f", ranked {big.rank} of {big.ranked} to start"
        out.append(f"  Largest design: point {big.point} ({big.gpus:,} GPUs), "
                   f"{big.seconds:.3f} s, {100 * big.share:.0f}% of the run; estimated "
                   f"{big.estimated:.3f} s{ranked}")
    return out


def time_summary(run: SweepRun) -> str:
    """Where the time went, in one phrase for a status line: the workers' start-up and the
    largest design's share of the run ("" in process with nothing to say)."""
    parts = []
    up = startup(run)
    if up is not None:
        parts.append(f"workers up after {up.seconds:.1f} s ({100 * up.share:.0f}% of the run"
                     + ("" if up.workers_ran else "; this process solved every design") + ")")
    big = largest(run)
    if big is not None:
        parts.append(f"largest design {big.seconds:.1f} s ({100 * big.share:.0f}%)")
    return ", ".join(parts)
