"""The running jobs' progress, held side by side in start order.

At every event of a replay each running job's clock, overhead, remaining work and totals
move. Held per job (arrays over every job of the trace), each move read and wrote the running
jobs' entries through their ids, a gather and a scatter per figure: most of an event's cost.
Here the running jobs' figures sit contiguous, in the order the jobs started, and an event
moves them in place. A job's figures are copied in when it starts and back when it ends, so
the per-job arrays hold every job that is not running; the order is kept because sums over
the running jobs (the time lost per fabric layer) add in it.
"""

from __future__ import annotations

import numpy as np

FIGURES = ("t_last", "overhead", "remaining", "done", "work", "run_wall", "held", "lost_net",
           "rate")
_DONE_AND_WORK = slice(FIGURES.index("done"), FIGURES.index("work") + 1)


class Running:
    """``per_job``: the trace's per-job arrays of ``FIGURES`` (written back as jobs leave);
    ``gpus``: GPUs per job. ``tier`` (layer of the link holding a slowed job, -1 none) lives
    here only: it means nothing once a job stops."""

    def __init__(self, per_job: dict[str, np.ndarray], gpus: np.ndarray) -> None:
        self.per_job = per_job
        self._per_job = [per_job[f] for f in FIGURES]
        self._row = {f: i for i, f in enumerate(FIGURES)}
        self.gpus = gpus
        self.n = 0
        # a row per figure and one for the GPUs (as floats), a column per running job: a
        # job leaving moves the later columns up in one copy
        self._m = np.empty((len(FIGURES) + 1, 64))
        self._tier = np.empty(64, np.int64)
        self._jobs = np.empty(64, np.int64)
        self.pos = np.full(gpus.size, -1, np.int64)  # per job: its place, -1 not running
        self.n_held = 0  # running jobs with a tier (held by a link)

    def figure(self, name: str) -> np.ndarray:
        """Figure ``name`` of the running jobs, in start order (a view: moved in place)."""
        return self._m[self._row[name], : self.n]

    def figures(self) -> np.ndarray:
        """Every figure of the running jobs, a row each in ``FIGURES`` order, then their GPUs
        (as floats): views, moved in place."""
        return self._m[:, : self.n]

    @property
    def jobs(self) -> np.ndarray:
        return self._jobs[: self.n]

    @property
    def g(self) -> np.ndarray:
        """GPUs of each running job, as floats."""
        return self._m[-1, : self.n]

    @property
    def tier(self) -> np.ndarray:
        return self._tier[: self.n]

    @property
    def done_and_work(self) -> np.ndarray:
        """The rows of ``done`` and ``work`` (next to each other in ``FIGURES``): both move
        by the same progress."""
        return self._m[_DONE_AND_WORK, : self.n]

    def add(self, j: int) -> None:
        k = self.n
        if k == self._jobs.size:
            self._grow()
        self._m[:, k] = [a[j] for a in self._per_job] + [self.gpus[j]]
        self._tier[k] = -1
        self._jobs[k] = j
        self.pos[j] = k
        self.n = k + 1

    def remove(self, j: int) -> None:
        """Job ``j`` stops: its figures back to the per-job arrays, the later jobs moved up."""
        k = int(self.pos[j])
        n = self.n
        if self._tier[k] >= 0:
            self.n_held -= 1
        for a, x in zip(self._per_job, self._m[:-1, k].tolist(), strict=True):
            a[j] = x
        self._m[:, k:n - 1] = self._m[:, k + 1:n]
        self._tier[k:n - 1] = self._tier[k + 1:n]
        self._jobs[k:n - 1] = self._jobs[k + 1:n]
        self.pos[j] = -1
        self.n = n - 1
        self.pos[self._jobs[k:n - 1]] = np.arange(k, n - 1)

    def write_back(self) -> None:
        """Every running job's figures to the per-job arrays (the replay's end)."""
        for a, row in zip(self._per_job, self._m[:-1, : self.n], strict=True):
            a[self.jobs] = row

    def set(self, name: str, jobs: np.ndarray, values: np.ndarray) -> None:
        """Figure ``name`` (one of ``FIGURES`` or ``tier``) of running ``jobs``."""
        if name == "tier":
            self._tier[self.pos[jobs]] = values
            self.n_held = int(np.count_nonzero(self.tier >= 0))
        else:
            self._m[self._row[name], self.pos[jobs]] = values

    def get(self, name: str, j: int) -> float:
        return float(self._m[self._row[name], self.pos[j]])

    def _grow(self) -> None:
        size = 2 * self._jobs.size
        m = np.empty((self._m.shape[0], size))
        m[:, : self.n] = self._m[:, : self.n]
        self._m = m
        self._tier = np.concatenate([self._tier, np.empty(size - self._tier.size, np.int64)])
        self._jobs = np.concatenate([self._jobs, np.empty(size - self._jobs.size, np.int64)])
