"""Lossless egress arbitration (``traffic.arbitration``): fair among ingress ports, then among
flows, solved again as flows finish; and what htsim measures of a rate (``htsim_measure``)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.simulate.htsim_measure import measured
from designer.core.traffic.arbitration import (
    Incidence,
    Segments,
    completion_times,
    port_fair_rates,
    water_fill,
)
from designer.core.traffic.maxmin import max_min_fair


def test_water_fill_by_segment() -> None:
    seg = np.array([0, 0, 0, 1, 1])
    got, level = water_fill(seg, np.array([1.0, 5, 5, 3, 3]), np.array([7.0, 10]))
    assert got.tolist() == [1.0, 3.0, 3.0, 3.0, 3.0]  # 1 met, 6 left for two; 10 > 6
    assert level.tolist() == [3.0, np.inf]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31))
def test_water_fill_is_max_min(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    seg = rng.integers(0, 4, n)
    x = rng.uniform(0, 10, n)
    cap = rng.uniform(0, 40, 4)
    a, _ = water_fill(seg, x, cap)
    assert (a <= x + 1e-9).all() and (a >= 0).all()
    for s in range(4):
        on = seg == s
        assert a[on].sum() <= cap[s] + 1e-9
        short = on & (a < x - 1e-9)
        if short.any():  # the segment is full, and no one short gets less than anyone
            assert a[on].sum() == np.float64(cap[s]) or abs(a[on].sum() - cap[s]) < 1e-9
            assert a[short].min() >= a[on].max() - 1e-9


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 70_000))
def test_segments_filled_again_equal_a_fresh_fill(seed: int, n_seg: int) -> None:
    """The sweeps reuse one ``Segments`` with new asks (ties included, segment ids past the
    16-bit keys included): every fill is the fresh water fill of those asks, bit for bit,
    and the fresh fill is max-min per segment against a plain one-segment-at-a-time fill."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    ids = rng.choice(n_seg, size=min(n_seg, 5), replace=False)
    seg = ids[rng.integers(0, ids.size, n)]
    cap = rng.uniform(0, 40, n_seg)
    segs = Segments(seg, n_seg)
    for _ in range(3):
        x = rng.integers(0, 6, n).astype(float)  # few values: many ties
        got, level = segs.fill(x, cap)
        again, level_again = water_fill(seg, x, cap)
        assert np.array_equal(got, again) and np.array_equal(level, level_again)
        for s_id in ids:
            on = np.flatnonzero(seg == s_id)
            left, room = sorted(on, key=lambda i: x[i]), cap[s_id]
            for k, i in enumerate(left):  # the smallest ask first, the rest share what is left
                fair = room / (len(left) - k)
                want = min(x[i], fair)
                assert abs(got[i] - want) <= 1e-9 * max(1.0, cap[s_id])
                room -= want


def _toy() -> tuple[Incidence, np.ndarray]:
    # links 0, 1, 2: the NICs of hosts A, B, C; 3: an uplink B and C share into the switch;
    # 4: the sink's port. A alone on its ingress (its NIC), B and C behind the uplink.
    flow = np.array([0, 0, 1, 1, 1, 2, 2, 2])
    link = np.array([0, 4, 1, 3, 4, 2, 3, 4])
    return Incidence(flow, link, 3, 5), np.full(5, 100.0)


def test_the_port_alone_gets_the_ingress_share() -> None:
    inc, cap = _toy()
    demand = np.full(3, 100.0)
    rates = port_fair_rates(inc, np.ones(3, bool), demand, cap)
    assert np.allclose(rates, [50.0, 25.0, 25.0])  # two ingress ports at the sink: halves
    # the per-flow fair share of the same links gives a third each
    fair = max_min_fair(inc.flow, inc.link, np.ones(inc.flow.size), demand, cap)
    assert np.allclose(fair.t * 100, [100 / 3] * 3)
    # 100 Gb each: A ends at 2 s; B and C then get 50 each for their last 50 Gb: 3 s
    done, first = completion_times(inc, demand, cap, np.full(3, 100e9 / 8),
                                   np.ones(3, bool))
    assert np.allclose(done, [2.0, 3.0, 3.0]) and np.allclose(first, rates)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31))
def test_port_fair_rates_fit_the_links(seed: int) -> None:
    rng = np.random.default_rng(seed)
    F, L = 10, 8
    hops = 3
    flow = np.repeat(np.arange(F), hops)
    link = np.concatenate([rng.choice(L, hops, replace=False) for _ in range(F)])
    cap = rng.uniform(10, 100, L)
    demand = rng.uniform(1, 100, F)
    inc = Incidence(flow, link, F, L)
    r = port_fair_rates(inc, np.ones(F, bool), demand, cap)
    load = np.bincount(link, weights=r[flow], minlength=L)
    assert (load <= cap * (1 + 1e-6)).all() and (r <= demand + 1e-9).all() and (r > 0).all()
    # every flow is held by its demand or a full link it crosses
    full = load >= cap * (1 - 1e-6)
    held = np.zeros(F, bool)
    np.logical_or.at(held, flow, full[link])
    assert (held | (r >= demand - 1e-9)).all()


def test_htsim_measures_headers_pacing_and_the_last_ack() -> None:
    size = np.array([16 << 20] * 2, np.float64)
    demand = np.ones(2)
    dst = np.array([0, 1])
    rtt = np.array([0.0, 5.0])
    line = 400.0
    spray = measured(np.ones(2), size, demand, dst, line, rtt, "spray")
    # EQDS: 4086 of 4150 bytes payload, pulled at 0.99 of the line (htsim's defaults)
    assert spray[0] == np.float64(0.99 * 4086 / 4150) or abs(spray[0] - 0.99 * 4086 / 4150) < 1e-12
    ideal_us = 16 * 2**20 * 8 / (line * 1e3)
    assert spray[1] == np.float64(spray[0] * ideal_us / (ideal_us + 5.0 * spray[0])) or \
        abs(spray[1] - ideal_us / (ideal_us / spray[0] + 5.0)) < 1e-12
    roce = measured(np.ones(1), size[:1], demand[:1], dst[:1], line, rtt[:1], "ecmp")
    assert abs(roce[0] - 9000 / 9064) < 1e-12  # RoCE: 64 header bytes per 9000


def test_eqds_trims_fewer_the_more_path_ids(catalog) -> None:
    from designer.core.generators import generate, params_from_dict
    from designer.core.simulate.htsim_export import htsim_design
    from designer.core.simulate.htsim_spray import trimmed_share
    from designer.core.solver.compile import compile_project
    from designer.core.traffic.network import build_network
    from designer.core.traffic.patterns import permutation

    p = generate(params_from_dict("fat-tree", {"gpus": 128, "gear": "roce-400"}), catalog)
    proj, cat, _ = htsim_design(p, p.catalog(catalog))  # 64-port switches: 4 leaves
    c = compile_project(proj, cat)
    net = build_network(c)
    pm = permutation(c, 0)
    rate = net.line_rate[pm.src].astype(np.float64)
    share = {n: np.mean([trimmed_share(net, pm.src, pm.dst, rate, n, k).mean()
                         for k in range(4)]) for n in (1, 32, 1024)}
    # one id is ECMP: collisions overload links; more ids even the load out (the law of
    # large numbers), so fewer packets are trimmed; none at a trickle
    assert share[1] > share[32] > share[1024] >= 0
    assert share[1] > 0.1 and share[1024] < 0.05
    assert trimmed_share(net, pm.src, pm.dst, rate * 1e-3, 32, 0).max() == 0.0
