"""The running jobs' progress held side by side: jobs keep their start order as others leave,
their figures go back to the per-job arrays when they stop, and nothing else is touched."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.cluster.running import FIGURES, Running

J = 40


def _per_job(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {f: rng.random(J) for f in FIGURES}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, J - 1), st.floats(0.0, 10.0)), max_size=120),
       st.integers(0, 1000))
def test_start_order_and_figures_kept(steps, seed):
    per_job = _per_job(seed)
    model = {f: a.copy() for f, a in per_job.items()}  # what each job's figures should be
    gpus = np.arange(1, J + 1)
    live = Running(per_job, gpus)
    order: list[int] = []
    for j, x in steps:
        if j in order:  # every running job moves on, then j stops
            for f in FIGURES:
                live.figure(f)[:] += x
                model[f][order] += x
            live.remove(j)
            order.remove(j)
        else:
            live.add(j)
            order.append(j)
        assert live.jobs.tolist() == order
        assert live.g.tolist() == gpus[order].astype(float).tolist()
        assert live.pos[order].tolist() == list(range(len(order)))
        for f in FIGURES:
            assert live.figure(f).tolist() == model[f][order].tolist()
            gone = np.setdiff1d(np.arange(J), order)
            assert per_job[f][gone].tolist() == model[f][gone].tolist()
    live.write_back()
    for f in FIGURES:
        assert per_job[f].tolist() == model[f].tolist()


def test_set_and_get_by_job():
    per_job = _per_job(1)
    live = Running(per_job, np.ones(J, np.int64))
    for j in (5, 3, 9):
        live.add(j)
    live.set("rate", np.array([9, 5]), np.array([0.25, 0.5]))
    live.set("tier", np.array([3]), np.array([2]))
    assert live.figure("rate").tolist() == [0.5, per_job["rate"][3], 0.25]
    assert live.tier.tolist() == [-1, 2, -1]
    assert live.get("rate", 9) == 0.25
    live.remove(5)
    assert per_job["rate"][5] == 0.5
    assert live.jobs.tolist() == [3, 9] and live.tier.tolist() == [2, -1]


def test_grows_past_its_first_size():
    per_job = {f: np.arange(200.0) for f in FIGURES}
    live = Running(per_job, np.ones(200, np.int64))
    for j in range(200):
        live.add(j)
    assert live.figure("done").tolist() == list(range(200))
