"""The replay gives the same figures as the event loop and job loads it was measured with
before they were sped up (skipping rate solves no change can alter, job loads kept per
placement shape): goodput, GPU-hours lost, and every job's start, end and slowdown, on a
1,024-GPU three-tier fat tree (4:1) with failures a hundred times the field's, for every placement
policy and both collectives. The reference file was written by ``figures`` below on the
earlier code (``python -m tests.core.cluster.test_replay_reference`` writes it again; written
again, on the code before the speed-ups, when the checkpoint interval became Young/Daly's).
Counts must be equal; times and hours equal to 1e-12 (machines differ in the last bits)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from designer.core.catalog import builtin_catalog
from designer.core.cluster import ClusterSettings, FailureSettings, synthetic
from designer.core.cluster.jobmix import JobKind
from designer.core.cluster.simulate import run_cluster
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from tests._paths import DATA

REFERENCE = DATA / "cluster" / "replay_reference.json"
CASES = [(pol, traffic) for pol in ("pack", "first-fit", "scattered")
         for traffic in ("ring", "all-to-all")]


def _design():
    # the layout the reference was written on (the divisor rule); the default, balanced
    # striping, takes fewer spines and cores, a different design to replay on
    p = generate(params_from_dict("fat-tree", {"gpus": 1024, "tiers": 3,
                                               "oversubscription": "4:1",
                                               "striping": "uniform"}))
    return compile_project(p, p.catalog(builtin_catalog()))


def _failing() -> FailureSettings:
    fs = FailureSettings()
    rates = {k: r.model_copy(update={"per_1000_days": r.per_1000_days * 100})
             for k, r in fs.rates.items()}
    return fs.model_copy(update={"rates": rates})


def _nan_none(a: np.ndarray) -> list:
    return [None if not np.isfinite(x) else float(x) for x in a.tolist()]


def figures(c, policy: str, traffic: str) -> dict:
    tr = synthetic(c.n_gpus, 10.0, jobs=400, seed=3)
    kinds = {"": JobKind(traffic, 0.4, traffic)}
    r = run_cluster(c, tr, ClusterSettings(policy=policy, days=10.0, failures=_failing(),
                                           seed=5), kinds)
    return {"goodput": r.goodput, "lost_network": r.gpu_hours_lost_network,
            "lost_failures": r.gpu_hours_lost_failures, "start_h": _nan_none(r.start_h),
            "end_h": _nan_none(r.end_h), "slowdown": _nan_none(r.slowdown),
            "interruptions": r.interruptions.tolist(), "by_tier": r.by_tier,
            "slowed": r.timeline.slowed.tolist(), "events": int(r.timeline.t_h.size)}


@pytest.fixture(scope="module")
def design():
    return _design()


@pytest.fixture(scope="module")
def reference():
    return json.loads(REFERENCE.read_text())


@pytest.mark.parametrize(("policy", "traffic"), CASES)
def test_replay_figures_unchanged(design, reference, policy, traffic):
    got = json.loads(json.dumps(figures(design, policy, traffic)))
    want = reference[f"{policy}/{traffic}"]
    assert got["events"] == want["events"]
    for k in ("interruptions", "slowed"):  # counts: exactly
        assert got[k] == want[k], k
    # times and hours to the last few bits: a sum's last bits move with the numpy build and
    # the CPU (numpy picks its vector kernels at run time), never with the replay's logic
    for k in ("goodput", "lost_network", "lost_failures", "start_h", "end_h", "slowdown"):
        _close(got[k], want[k], k)
    assert got["by_tier"].keys() == want["by_tier"].keys()
    for tier, hours in want["by_tier"].items():
        _close(got["by_tier"][tier], hours, tier)
    # failures hit every case
    assert sum(want["interruptions"]) > 0


def _close(got, want, what: str) -> None:
    """Equal to 1e-12, a missing figure (None: never started or ended) where the other has
    one too."""
    g = np.array(got if isinstance(got, list) else [got], dtype=float)  # None -> nan
    w = np.array(want if isinstance(want, list) else [want], dtype=float)
    np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=what)


def test_the_cases_exercise_the_network(reference):
    """Each policy has a case where the network slows jobs (first-fit's rings stay inside
    their leaves' uplinks at this load, its all-to-all does not)."""
    for policy in ("pack", "first-fit", "scattered"):
        assert max(reference[f"{policy}/{t}"]["lost_network"]
                   for t in ("ring", "all-to-all")) > 0, policy


if __name__ == "__main__":
    c = _design()
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    REFERENCE.write_text(json.dumps({f"{p}/{t}": figures(c, p, t) for p, t in CASES}) + "\n")
