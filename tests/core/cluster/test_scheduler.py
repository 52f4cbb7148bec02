"""The scheduler on the design: whatever the trace, policy and failures, no GPU is given to two
jobs at once and no job is placed on a failed part; packing keeps jobs in as few leaf groups
as the design allows; EASY backfilling never delays the head of the queue past its
reservation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.catalog import builtin_catalog
from designer.core.cluster import ClusterSettings, FailureSettings
from designer.core.cluster import simulate as sim_mod
from designer.core.cluster.jobmix import JobKind
from designer.core.cluster.placement import place
from designer.core.cluster.simulate import run_cluster
from designer.core.cluster.trace import make_trace
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project

KINDS = {"": JobKind("ring", 0.3, "ring")}


@pytest.fixture(scope="module")
def small():
    p = generate(params_from_dict("fat-tree", {"gpus": 128, "tiers": 2,
                                               "oversubscription": "2:1"}))
    return compile_project(p, p.catalog(builtin_catalog()))


def _often_failing() -> FailureSettings:
    """Rates a thousand times the field's, so a few days see many failures of every kind."""
    fs = FailureSettings()
    rates = {k: r.model_copy(update={"per_1000_days": r.per_1000_days * 1000})
             for k, r in fs.rates.items()}
    return fs.model_copy(update={"rates": rates})


jobs_st = st.lists(st.tuples(st.floats(0, 48), st.sampled_from([1, 2, 4, 8, 16, 24, 64, 128]),
                             st.floats(0.1, 12)), min_size=1, max_size=40)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jobs=jobs_st, policy=st.sampled_from(["pack", "first-fit", "scattered"]),
       seed=st.integers(0, 1000))
def test_no_gpu_twice_and_never_on_a_failed_part(small, monkeypatch, jobs, policy, seed):
    starts: list[tuple[float, np.ndarray]] = []  # (with parts failing this often, a job as
    # large as the design may never find every GPU up: no start is a right answer too)
    real = sim_mod._Sim._start

    def checked(self, j, gp):
        assert np.unique(gp).size == gp.size == self.gpus[j]
        assert (self.owner[gp] == -1).all(), "a GPU given to two jobs"
        assert (self.down_until[gp] <= self.now).all(), "a job placed on a failed part"
        assert self.topo.connected[gp].all()
        starts.append((self.now, gp))
        real(self, j, gp)

    monkeypatch.setattr(sim_mod._Sim, "_start", checked)
    tr = make_trace("h", [f"j{i}" for i in range(len(jobs))], [a for a, _, _ in jobs],
                    [g for _, g, _ in jobs], [d for _, _, d in jobs], shift=False)
    s = ClusterSettings(policy=policy, days=4, failures=_often_failing(), seed=seed)
    r = run_cluster(small, tr, s, KINDS)
    # held GPU-hours split exactly into useful, network and failures
    assert r.useful_gpu_h >= -1e-6
    assert r.goodput <= 1 + 1e-9
    # a finished job did its work: held >= its GPUs x duration
    done = np.isfinite(r.end_h)
    assert (r.held_gpu_h[done] >= r.gpus[done] * tr.duration_h[done] - 1e-6).all()


def test_pack_keeps_jobs_in_fewest_leaf_groups(small):
    tr = make_trace("p", ["a", "b", "c"], [0, 0, 0], [16, 32, 8], [5, 5, 5], shift=False)
    r = run_cluster(small, tr, ClusterSettings(policy="pack", failures=FailureSettings(
        enabled=False)), KINDS)
    from designer.core.cluster.topology import topology

    per_leaf = topology(small).sizes()["leaf"]
    assert (r.spans == np.ceil(r.gpus / per_leaf)).all()
    assert r.goodput == pytest.approx(1.0)


def test_queue_waits_then_backfills_without_delaying_the_head(small):
    # a 128-GPU job waits behind a 100-GPU job; a short 16-GPU job may backfill, a long may not
    tr = make_trace("q", ["big1", "head", "short", "long"], [0, 1, 2, 2], [100, 128, 16, 16],
                    [10, 5, 5, 50], shift=False)
    r = run_cluster(small, tr, ClusterSettings(policy="first-fit", failures=FailureSettings(
        enabled=False)), {"": JobKind("none", 0.0, "none")})
    start = dict(zip(r.job, r.start_h.tolist(), strict=True))
    assert start["big1"] == 0 and start["head"] == pytest.approx(10)
    assert start["short"] == pytest.approx(2)  # ends at 7, before the head's reservation
    assert start["long"] >= 15 - 1e-9  # would have held GPUs the head needs at 10


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(jobs=jobs_st, policy=st.sampled_from(["pack", "first-fit", "scattered"]),
       seed=st.integers(0, 1000))
def test_timeline_kept_as_jobs_move_equals_counting_every_gpu(small, monkeypatch, jobs, policy,
                                                              seed):
    """The timeline's counts are kept as jobs start and end and parts fail and come back;
    at every event they equal a count over every GPU."""
    real = sim_mod._Sim._record
    checked = []

    def counted(self):
        real(self)
        busy = self.owner >= 0
        down = self.down_until > self.now
        free = ~busy & ~down & self.topo.connected
        fs = np.bincount(self.topo.server[free], minlength=self.per_srv.size)
        part = (fs > 0) & (fs < self.per_srv)
        slowed = sum(1 for j in self.placed if self.rate[j] < 1 - 1e-9)
        want = (int(busy.sum()), int(down.sum()), slowed, float(fs[part].sum()) / self.n_conn)
        got = self.tl[-1]
        assert (got[1], got[2], got[5], got[6]) == want
        checked.append(got[0])

    monkeypatch.setattr(sim_mod._Sim, "_record", counted)
    tr = make_trace("t", [f"j{i}" for i in range(len(jobs))], [a for a, _, _ in jobs],
                    [g for _, g, _ in jobs], [d for _, _, d in jobs], shift=False)
    run_cluster(small, tr, ClusterSettings(policy=policy, days=4, failures=_often_failing(),
                                           seed=seed), KINDS)
    assert checked


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 5000), density=st.floats(0.002, 1.0), need=st.integers(1, 1200),
       busy_first=st.integers(0, 5000), seed=st.integers(0, 2**16))
def test_first_fit_takes_the_lowest_free_gpus(n, density, need, busy_first, seed):
    """First-fit looks in a widening window from the first free GPU: the same GPUs as the
    lowest ``need`` of every free one, or None when fewer are free (sparse free GPUs, after
    a long run of busy ones)."""
    mask = np.random.default_rng(seed).random(n) < density
    mask[:busy_first] = False
    idx = np.flatnonzero(mask)
    got = place("first-fit", None, mask, need, np.random.default_rng(0))
    if idx.size < need:
        assert got is None
    else:
        assert got is not None and got.tolist() == idx[:need].tolist()
