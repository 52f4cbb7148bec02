"""PFC head-of-line blocking, first order (``traffic.pfc``): on hand-built paths whose answer
follows from the rule, and on a design where it can only slow flows."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.fileformat import load_project
from designer.core.solver.compile import compile_project
from designer.core.traffic.load import run_load
from designer.core.traffic.pfc import pfc_victims
from tests._paths import PROJECTS


def test_a_victim_behind_a_paused_ingress() -> None:
    # links: 0 = A's NIC, 1 = B's NIC, 2 = a shared uplink (the ingress), 3 = a hot downlink
    # (A and C collide there at 0.5 each), 4 = B's own downlink, 5 = C's NIC
    flow = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    link = np.array([0, 2, 3, 1, 2, 4, 5, 3])
    t = np.array([0.5, 1.0, 0.5])
    util = np.array([0.5, 1.0, 0.75, 1.0, 1.0, 0.5])  # the uplink has room for both
    got = pfc_victims(flow, link, t, util)
    # A throttled at link 3 pauses link 2, the link before it: B, bound elsewhere, stops
    # with it; C's link before 3 is its own NIC, which carries no one else
    assert got.tolist() == [0.5, 0.5, 0.5]
    # nothing saturated downstream of B's path: without A, B runs free
    assert pfc_victims(flow[3:6] - 1, link[3:6], t[1:2], util).tolist() == [1.0]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31))
def test_pfc_only_slows(seed: int) -> None:
    rng = np.random.default_rng(seed)
    F, L = 12, 10
    flow = np.repeat(np.arange(F), 3)
    link = rng.integers(0, L, size=flow.size)
    t = rng.uniform(0.1, 1.0, F)
    util = rng.uniform(0.5, 1.0, L)
    util[rng.integers(0, L, 3)] = 1.0
    got = pfc_victims(flow, link, t, util)
    assert (got <= t + 1e-12).all() and (got >= t.min() - 1e-12).all()


def test_ecmp_with_pfc_on_a_roce_pod(catalog) -> None:
    p = load_project(PROJECTS / "dgx-superpod-4su-roce-400.fabric.json", catalog)
    c = compile_project(p, p.catalog(catalog))
    fluid = run_load(c, "permutation", "ecmp", seed=3)
    pfc = run_load(c, "permutation", "ecmp", seed=3, pfc=True)
    assert pfc.throughput["mean"] <= fluid.throughput["mean"] + 1e-12
    assert "PFC" in pfc.to_json()["model"]
    # spraying leaves no port to pause: the option changes nothing there
    assert run_load(c, "ring", "adaptive", pfc=True).throughput == \
        run_load(c, "ring", "adaptive").throughput
