"""PFC head-of-line blocking, first order (``traffic.pfc``): on hand-built paths whose answer
follows from the rule (one hop, several hops, the hot port's own contenders), and on a design
where it can only slow flows."""

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
    # B's NIC and downlink are full with B alone; the uplink has room for A and B
    demand, cap = np.ones(3), np.array([1.0, 1.0, 2.0, 1.0, 1.0, 1.0])
    got = pfc_victims(flow, link, t, demand, cap)
    # A throttled at link 3 pauses link 2, the link before it: B, bound elsewhere, stops
    # with it; C's link before 3 is its own NIC, which carries no one else
    assert got.tolist() == [0.5, 0.5, 0.5]
    # nothing saturated downstream of B's path: without A, B runs free
    assert pfc_victims(flow[3:6] - 1, link[3:6], t[1:2], demand[:1], cap).tolist() == [1.0]


def test_a_pause_spreads_upstream_hop_by_hop() -> None:
    # A: NIC 0 -> 7 (into the switch before) -> 1 -> 2 (hot: A and C at 0.5);
    # B: NIC 3 -> 1 -> 4; C: NIC 5 -> 6 -> 2; D: NIC 8 -> 7 -> 9 (shares only link 7 with A)
    flow = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
    link = np.array([0, 7, 1, 2, 3, 1, 4, 5, 6, 2, 8, 7, 9])
    t = np.array([0.5, 1.0, 0.5, 1.0])
    demand, cap = np.ones(4), np.full(10, 2.0)
    cap[2] = 1.0
    # one hop: link 1 (the hot link's ingress) pauses, B with it; D shares no link with it
    assert pfc_victims(flow, link, t, demand, cap, hops=1).tolist() == [0.5, 0.5, 0.5, 1.0]
    # link 1 paused is the upstream switch's egress: its ingress (link 7) pauses in turn
    assert pfc_victims(flow, link, t, demand, cap).tolist() == [0.5, 0.5, 0.5, 0.5]


def test_the_hot_ports_contenders_are_no_victims() -> None:
    # hot link 2 shared by two ingress ports: link 1 (A and B, 0.25 each) and link 4 (C,
    # 0.5); A and C come from one upstream switch through link 8, with V bound elsewhere
    flow = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3])
    link = np.array([0, 8, 1, 2, 10, 1, 2, 3, 8, 4, 2, 9, 8, 6])
    t = np.array([0.25, 0.25, 0.5, 1.0])
    demand, cap = np.ones(4), np.full(11, 2.0)
    cap[2] = 1.0
    got = pfc_victims(flow, link, t, demand, cap)
    # link 1 pauses at 0.25, and link 8 behind it: V slows to 0.25, but C, which crosses
    # the hot link itself, keeps what the hot port gives it (it serves whichever port has
    # packets)
    assert got.tolist() == [0.25, 0.25, 0.5, 0.25]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31))
def test_pfc_only_slows(seed: int) -> None:
    rng = np.random.default_rng(seed)
    F, L = 12, 10
    flow = np.repeat(np.arange(F), 3)
    link = rng.integers(0, L, size=flow.size)
    t = rng.uniform(0.1, 1.0, F)
    load = np.bincount(link, weights=t[flow], minlength=L)
    cap = load / rng.uniform(0.5, 1.0, L)
    full = rng.integers(0, L, 3)
    cap[full] = load[full]
    got = pfc_victims(flow, link, t, np.ones(F), np.maximum(cap, 1e-9))
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
