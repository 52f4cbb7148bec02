"""Traffic under load: patterns, routings, max-min fair rates, queueing, failures.

Figures are derived from the model and the sources cited at each test: DECISION.md section 4
(ECMP: with m flows hashed onto m links the expected share of links used is 1 - (1 - 1/m)^m;
adaptive routing reaches the fluid bound), section 5 (one of S spines lost leaves (S-1)/S of
the bisection and multiplies leaf oversubscription by S/(S-1)), and the route balance the
``check-ib`` tests read from OpenSM's ftree tables (tests/core/ibcheck/test_ibcheck.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from designer.core.traffic import PatternError, run_load
from designer.core.traffic.failures import FailureError, n_minus_1, what_if
from designer.core.traffic.load import LoadOptionError, _one_trial
from designer.core.traffic.maxmin import max_min_fair
from designer.core.traffic.network import build_network
from designer.core.traffic.patterns import all_to_all, bisection, make_pattern
from designer.core.traffic.routing import dmodk_balance
from tests.core.solver_cases import edited_small_fabrics


def compiled(kind: str, **params):
    p = generate(params_from_dict(kind, params))
    return compile_project(p, p.catalog(builtin_catalog()))


@pytest.fixture(scope="module")
def su4():
    """DGX SuperPOD 4 SU: 1,024 GPUs, 32 rail leaves, 16 spines, 2 cables leaf to spine."""
    return compiled("rail", sus=4)


@pytest.fixture(scope="module")
def su4_net(su4):
    return build_network(su4)


@pytest.fixture(scope="module")
def k8():
    """k-ary fat tree, k = 8: 128 hosts, 3 tiers."""
    return compiled("fat-tree", k_ary=8)


# --- max-min fair rates ----------------------------------------------------------------------


def test_max_min_textbook_example():
    # links A (cap 1) and B (cap 2); f0 on A, f1 on A and B, f2 on B: A splits 1/2, 1/2 and
    # f2 takes what B has left, 1.5 (demands 10 so that only links limit)
    flow = np.array([0, 1, 1, 2])
    link = np.array([0, 0, 1, 1])
    fair = max_min_fair(flow, link, np.ones(4), np.full(3, 10.0), np.array([1.0, 2.0]))
    assert fair.t * 10 == pytest.approx([0.5, 0.5, 1.5])
    assert fair.load == pytest.approx([1.0, 2.0])


def _random_incidence(rng, F: int, L: int, per_flow: int):
    """Every flow on at least one link, up to ``per_flow`` on average, no repeated pair."""
    k = int(rng.integers(F, per_flow * F))
    flow = np.r_[np.arange(F), rng.integers(0, F, k - F)]
    link = rng.integers(0, L, k)
    pair = np.unique(flow * L + link)
    return pair // L, pair % L


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_max_min_is_feasible_and_every_flow_is_bottlenecked(seed):
    rng = np.random.default_rng(seed)
    F, L = int(rng.integers(1, 40)), int(rng.integers(1, 12))
    flow, link = _random_incidence(rng, F, L, 4)
    demand = rng.uniform(0.1, 3.0, F)
    cap = rng.uniform(0.5, 4.0, L)
    fair = max_min_fair(flow, link, np.ones(flow.size), demand, cap)
    assert (fair.load <= cap * (1 + 1e-6)).all()
    assert ((fair.t >= 0) & (fair.t <= 1 + 1e-12)).all()
    # max-min, weighted by demand: a flow short of its demand crosses a full link where no
    # flow gets a larger share of its own demand
    full = fair.load >= cap * (1 - 1e-6)
    for f in np.flatnonzero(fair.t < 1 - 1e-9):
        ls = link[flow == f]
        assert any(full[x] and fair.t[flow[link == x]].max() <= fair.t[f] * (1 + 1e-6)
                   for x in ls)


def _reference_max_min(flow, link, w, demand, cap):
    """Progressive filling as written in the textbook: every round scans every link."""
    F, L = demand.size, cap.size
    a = np.zeros((F, L))
    np.add.at(a, (flow, link), w * demand[flow])
    t = np.zeros(F)
    live = np.bincount(flow, minlength=F) > 0  # a flow asking nothing ends at t = 1
    level = 0.0
    while live.any():
        grow = a[live].sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            fill = np.where(grow > 1e-12, (cap - a[~live].T @ t[~live]) / grow, np.inf)
        nxt = max(min(fill.min(), 1.0), level)
        if nxt >= 1.0:
            t[live] = 1.0
            break
        full = fill <= nxt * (1 + 1e-9) + 1e-15
        newly = live & ((a[:, full] > 0).any(axis=1))
        t[newly] = nxt
        live &= ~newly
        level = nxt
    return t


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.sampled_from([1, 2, 5, 1024]))
def test_max_min_short_list_gives_the_textbook_rates(monkeypatch, seed, short_list):
    """The short list of lowest fill levels (redrawn as levels rise, ties at its bound, a
    full scan when the next level reaches it) gives the rates of scanning every link every
    round, on random incidences with fractional shares, equal capacities (ties) and flows
    of zero demand."""
    from designer.core.traffic import maxmin

    rng = np.random.default_rng(seed)
    F, L = int(rng.integers(1, 60)), int(rng.integers(1, 40))
    flow, link = _random_incidence(rng, F, L, 5)
    w = np.where(rng.random(flow.size) < 0.5, 1.0, rng.choice([0.25, 0.5, 1 / 3], flow.size))
    demand = np.where(rng.random(F) < 0.1, 0.0, rng.choice([1.0, 2.0, 0.7], F))
    cap = rng.choice([1.0, 2.0, 4.0, 2.5], L)
    with monkeypatch.context() as m:
        m.setattr(maxmin, "CANDIDATES_MIN", short_list)
        fair = max_min_fair(flow, link, w, demand, cap)
    ref = _reference_max_min(flow, link, w, demand, cap)
    np.testing.assert_allclose(fair.t, ref, rtol=1e-9, atol=1e-12)
    assert (fair.load <= cap * (1 + 1e-9)).all()


# --- routings --------------------------------------------------------------------------------


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 1000))
def test_adaptive_routing_carries_any_permutation_at_line_rate(su4, su4_net, seed):
    # non-blocking fabric + the fluid (max-concurrent-flow) model: every permutation fits
    r = run_load(su4, "permutation", "adaptive", seed=seed, net=su4_net)
    assert r.throughput["min"] == pytest.approx(1.0)
    assert r.slowdown == pytest.approx(1.0)
    assert r.max_utilisation <= 1 + 1e-9


def test_adaptive_on_three_tiers_and_a_blocking_tree():
    r = run_load(compiled("fat-tree", k_ary=8), "permutation", "adaptive")
    assert r.throughput["min"] == pytest.approx(1.0)
    # 3:1 at the leaves: a half-to-half exchange gets a third of line rate at most
    c = compiled("fat-tree", gpus=48, gpus_per_server=4, radix=16, oversubscription="3:1")
    r = run_load(c, "bisection", "adaptive")
    assert r.throughput["min"] == pytest.approx(1 / 3, rel=1e-6)


def test_ecmp_one_flow_per_link_uses_one_minus_one_over_e_of_the_links(su4, su4_net):
    # the bisection pattern sends every GPU's flow off its leaf: 32 flows hashed onto 32
    # up ports per leaf; DECISION.md 4: expected share used 1 - (1 - 1/m)^m
    m = 32
    expected = 1 - (1 - 1 / m) ** m
    p = bisection(su4)
    used = []
    for seed in range(8):
        tr = _one_trial(su4_net, p, "ecmp", 1, seed, False)
        port = tr.routed.link[tr.routed.link < su4_net.n_ports]
        up = su4.switch_tier[su4_net.port_src[port]] == 1
        used.append(np.unique(port[up]).size / (32 * m))
    assert np.mean(used) == pytest.approx(expected, abs=0.02)
    r = run_load(su4, p, "ecmp", trials=4, net=su4_net)
    assert r.throughput["min"] < 0.5  # hash collisions: some flows share a port 3+ ways
    assert r.slowdown > 2


def test_more_flows_per_connection_close_most_of_the_gap(su4, su4_net):
    one = run_load(su4, "permutation", "ecmp", 1, trials=2, net=su4_net)
    many = run_load(su4, "permutation", "ecmp", 16, trials=2, net=su4_net)
    gap1 = 1 - one.throughput["mean"]
    gap16 = 1 - many.throughput["mean"]
    assert gap16 < 0.5 * gap1  # Meta (2024): more queue pairs, up to 40% better
    assert many.throughput["min"] > one.throughput["min"]
    assert many.slowdown < one.slowdown


def test_polarised_hash_uses_a_quarter_of_the_core_ports(k8):
    # k = 8: 4 up ports per edge and per aggregation switch; with one hash function the
    # aggregation switch repeats the edge's choice (key mod 4), so of its 4 core ports only
    # the one matching its own index is used
    net = build_network(k8)
    p = make_pattern(k8, "permutation", seed=3)
    up2 = []
    for polarised in (True, False):
        tr = _one_trial(net, p, "ecmp", 1, 0, polarised)
        port = tr.routed.link[tr.routed.link < net.n_ports]
        at2 = k8.switch_tier[net.port_src[port]] == 2
        up = at2 & (k8.switch_tier[net.port_dst[port]] == 3)
        used = np.unique(port[up])
        per_agg = np.bincount(net.port_src[used], minlength=k8.n_switches)
        up2.append(per_agg[k8.switch_tier == 2].max())
    assert up2[0] == 1 and up2[1] > 1


def test_static_routing_balance_matches_check_ib():
    # tests/core/ibcheck/test_ibcheck.py, OpenSM ftree: rail 2 SU -> 15 destinations per leaf up
    # port; k-ary 8 -> 31 per leaf up port and 28 per spine up port
    b = dmodk_balance(build_network(compiled("rail", sus=2)))
    assert b == {"leaf -> spine": (512, 15, 15.0, 15)}
    b = dmodk_balance(build_network(compiled("fat-tree", k_ary=8)))
    assert b == {"leaf -> spine": (128, 31, 31.0, 31), "spine -> core": (128, 28, 28.0, 28)}


def test_static_ring_on_rails_is_at_line_rate_and_incast_is_limited_by_the_receiver(su4):
    r = run_load(su4, "ring", "static")
    assert r.throughput["min"] == pytest.approx(1.0)
    r = run_load(su4, "incast", "static", fan_in=8)
    # eight senders share one 400G NIC: 1/8 each on any fabric, so no slowdown from it
    assert r.throughput["min"] == pytest.approx(1 / 8)
    assert r.slowdown == pytest.approx(1.0)


def test_all_to_all_by_class_equals_flow_by_flow(monkeypatch):
    c = compiled("rail", sus=2, servers_per_su=4, radix=16, gpus_per_server=4)
    net = build_network(c)
    explicit = run_load(c, all_to_all(c), "adaptive", net=net)
    by_class = run_load(c, all_to_all(c, explicit_limit=0), "adaptive", net=net)
    assert all_to_all(c, explicit_limit=0).level == "class"
    assert by_class.throughput["min"] == pytest.approx(explicit.throughput["min"], rel=1e-6)
    assert by_class.max_utilisation == pytest.approx(explicit.max_utilisation, rel=1e-6)


def test_dragonfly_minimal_and_valiant():
    c = compiled("dragonfly", a=4, p=2, h=2)
    mini = run_load(c, "permutation", "ecmp", trials=2)
    val = run_load(c, "permutation", "valiant", trials=2)
    assert mini.unrouted == 0 and val.unrouted == 0
    # Valiant crosses about twice the global links: it loads the fabric more
    assert val.throughput["mean"] <= mini.throughput["mean"] + 1e-9


def test_queueing_tail_grows_with_load(su4, su4_net):
    low = run_load(su4, "ring", "adaptive", net=su4_net)
    high = run_load(su4, "permutation", "ecmp", net=su4_net)
    assert 0 < low.tail.p99_us <= high.tail.p99_us
    assert "M/M/1" in high.tail.model


# --- failures --------------------------------------------------------------------------------


def test_one_spine_of_sixteen_failed(su4):
    # DECISION.md 5: bisection retained (S-1)/S, leaf oversubscription x S/(S-1)
    w = what_if(su4, ["spine:3"], routing="adaptive", pattern="bisection")
    assert w.bisection_retained == pytest.approx(15 / 16)
    assert w.oversubscription["leaf"]["factor"] == pytest.approx(16 / 15)
    assert w.stranded_gpus == 0 and w.cables == 64
    assert w.slowdown == pytest.approx(16 / 15)
    assert w.money_per_day_usd == pytest.approx((1 - 15 / 16) * 1024 * 24 * 2.0)


def test_n_minus_1_by_symmetry_class(su4):
    rows = n_minus_1(su4, "spine", routing="adaptive", pattern="bisection")
    assert [(r.members, round(r.result.bisection_retained, 6)) for r in rows] == [(16, 0.9375)]
    leaves = n_minus_1(su4, "leaf", with_load=False)
    # a rail leaf takes one NIC from each of the 32 servers of its SU: 32 GPUs stranded
    assert sum(r.members for r in leaves) == 32
    assert {r.result.stranded_gpus for r in leaves} == {32}


def test_plane_failure_takes_half_of_every_gpu():
    c = compiled("rail", sus=2, servers_per_su=4, radix=16, gpus_per_server=4, planes=2,
                 server="gpu-server-8")
    w = what_if(c, ["plane:1"], routing="adaptive", with_load=False)
    assert w.stranded_gpus == 0 and w.nic_links_lost > 0


def test_bad_input_gets_a_clear_message(su4, tmp_path):
    with pytest.raises(FailureError, match="16 spine device"):
        what_if(su4, ["spine:17"])
    with pytest.raises(FailureError, match="no device 'nope'"):
        what_if(su4, ["bundle:nope/spine1"])
    with pytest.raises(LoadOptionError, match="trials must be 1 to 10,000"):
        run_load(su4, "permutation", trials=0)
    f = tmp_path / "p.csv"
    f.write_text("src,dst,bytes\n0,1,100\n5,99999,100\n")
    with pytest.raises(PatternError, match=r"flow 2, destination: GPU 99,999 does not exist"):
        run_load(su4, str(f))
    with pytest.raises(PatternError, match="unknown pattern"):
        run_load(su4, "shuffle")


def test_csv_pattern_with_server_names(su4, tmp_path):
    f = tmp_path / "p.csv"
    f.write_text("su1-node01:0,su3-node01:0,1000\nsu1-node02:0,su3-node01:0,1000\n")
    r = run_load(su4, str(f), "adaptive")
    assert r.connections == 2 and r.throughput["min"] == pytest.approx(0.5)


@settings(max_examples=25, deadline=None)
@given(edited_small_fabrics())
def test_shared_neighbour_search_gives_the_plain_distances(project):
    # one search per neighbour set (network.class_distances) equals one BFS per switch
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    from designer.core.traffic.network import UNREACHABLE, class_distances

    c = compile_project(project, project.catalog(builtin_catalog()))
    cl, S = c.classes, c.n_switches
    if cl.n == 0 or S == 0:
        return
    g = csr_matrix((np.ones(c.indices.size), c.indices, c.indptr), shape=(S, S))
    d = shortest_path(g, unweighted=True, directed=False)
    d = np.where(np.isfinite(d), d, UNREACHABLE)
    ref = np.stack([d[:, cl.att_switch[cl.ptr[i]:cl.ptr[i + 1]]].min(axis=1)
                    for i in range(cl.n)], axis=1)
    assert (ref == class_distances(c).T).all()


@pytest.mark.parametrize("per_pass, per_call", [(64, 7), (70, 100_000), (4096, 50)])
def test_searches_side_by_side_give_one_bfs_each(monkeypatch, per_pass, per_call):
    """A dragonfly (every router its own neighbour set: one search per router) searched 64
    to a word, over several passes and a part-filled last word, against scipy's BFS."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    from designer.core.traffic import network
    from designer.core.traffic.network import UNREACHABLE, class_distances

    c = compiled("dragonfly", p=2, a=8, h=4, arrangement="circulant")
    cl, S = c.classes, c.n_switches
    assert per_pass < S or per_pass == 4096
    monkeypatch.setattr(network, "SOURCES_PER_PASS", per_pass)
    monkeypatch.setattr(network, "EDGES_PER_CALL", per_call)  # the cables in a few calls
    g = csr_matrix((np.ones(c.indices.size), c.indices, c.indptr), shape=(S, S))
    d = shortest_path(g, unweighted=True, directed=False)
    d = np.where(np.isfinite(d), d, UNREACHABLE)
    ref = np.stack([d[:, cl.att_switch[cl.ptr[i]:cl.ptr[i + 1]]].min(axis=1)
                    for i in range(cl.n)], axis=1)
    got = class_distances(c).T
    assert (got == ref).all() and got.max() == 3  # local, global, local


@pytest.mark.parametrize("kind, params", [("rail", {"sus": 4}), ("fat-tree", {"k_ary": 8}),
                                          ("fat-tree", {"gpus": 64, "gpus_per_server": 2,
                                                        "radix": 8, "tiers": 3})])
def test_all_to_all_by_symmetry_equals_destination_by_destination(monkeypatch, kind, params):
    from designer.core.traffic import aggregate

    c = compiled(kind, **params)
    net = build_network(c)
    p = all_to_all(c, explicit_limit=0)
    sym = aggregate.class_spray_loads(net, p)
    monkeypatch.setattr(aggregate, "SYMMETRY_MIN", 10**9)
    full = aggregate.class_spray_loads(net, p)
    assert sym == pytest.approx(full, rel=1e-9, abs=1e-6)


TWO_PLANES = {"gear": "roce-400", "nic": "thor-ultra", "plane_split": 2,
              "switch": "th5-64x800", "tiers": 2, "gpus": 512}  # a class on two switches


@pytest.mark.parametrize("kind, params", [("rail", {"sus": 4}), ("fat-tree", {"k_ary": 8}),
                                          ("fat-tree", TWO_PLANES)])
def test_class_pairs_sprayed_together_equal_one_by_one(monkeypatch, kind, params):
    """The cluster replay's unit loads: pairs pushed down together (in batches too) give each
    pair's own spray, and the port-only spray is the first ``n_ports`` links of the full one."""
    from designer.core.traffic import aggregate
    from designer.core.traffic.patterns import Pattern

    c = compiled(kind, **params)
    net = build_network(c)
    rng = np.random.default_rng(7)
    n = c.classes.n
    src = rng.integers(0, n, 12)
    dst = (src + rng.integers(1, n, 12)) % n
    one = np.ones(1)
    alone = np.stack([aggregate.class_spray_loads(
        net, Pattern("pair", src[k:k + 1], dst[k:k + 1], one, one, None, "class"))
        [: net.n_ports] for k in range(src.size)], axis=1)
    assert (alone.sum(axis=0) > 0).all()
    together = aggregate.class_pair_port_loads(net, src, dst)
    np.testing.assert_allclose(together, alone, rtol=1e-12, atol=1e-12)
    # kept sparse (what a job's load holds): each pair's loaded ports, ascending, no others
    for k, (ports, gbps) in enumerate(aggregate.class_pair_port_entries(net, src, dst)):
        assert ports.tolist() == np.flatnonzero(alone[:, k] > 0).tolist()
        np.testing.assert_allclose(gbps, alone[ports, k], rtol=1e-12)
    # next-hop tables kept across calls (fresh, then reused, in batches too): the same
    # ports and the same figures, to the last bit
    plain = aggregate.class_pair_port_entries(net, src, dst)
    hops = aggregate.NextHops(net)
    for _ in range(2):
        for (p0, g0), (p1, g1) in zip(plain, aggregate.class_pair_port_entries(
                net, src, dst, hops=hops), strict=True):
            assert p1.tolist() == p0.tolist() and g1.tolist() == g0.tolist()
        # a pair at a time, as the replay asks (a class on one switch starts there), the
        # ways down kept or not
        for h in (hops, aggregate.NextHops(net, rest_limit=0)):
            for k, (p0, g0) in enumerate(plain):
                p1, g1 = h.pair(int(src[k]), int(dst[k]))
                assert p1.tolist() == p0.tolist() and g1.tolist() == g0.tolist()
    monkeypatch.setattr(aggregate, "BATCH_CELLS", 5 * max(net.n_ports, c.n_switches))
    np.testing.assert_allclose(aggregate.class_pair_port_loads(net, src, dst), alone,
                               rtol=1e-12, atol=1e-12)
    for (p0, g0), (p1, g1) in zip(plain, aggregate.class_pair_port_entries(
            net, src, dst, hops=aggregate.NextHops(net, limit=0)), strict=True):
        assert p1.tolist() == p0.tolist() and g1.tolist() == g0.tolist()
    p = Pattern("pairs", src, dst, rng.random(src.size), np.ones(src.size), None, "class")
    np.testing.assert_allclose(aggregate.class_spray_port_loads(net, p),
                               aggregate.class_spray_loads(net, p)[: net.n_ports],
                               rtol=1e-12, atol=1e-12)


@pytest.mark.ibstack
@pytest.mark.skipif(__import__("designer.core.ibcheck", fromlist=["missing_reason"])
                    .missing_reason() is not None, reason="InfiniBand tools not installed")
@pytest.mark.parametrize("kind, params", [("fat-tree", {"k_ary": 8}), ("rail", {"sus": 2})])
def test_opensm_tables_route_like_the_internal_ftree_equivalent(kind, params):
    # under OpenSM's ftree every flow takes a shortest path, and a permutation gets the same
    # throughput distribution as under the internal d-mod-k routing
    from designer.core.traffic.lft import opensm_tables, route_lft

    p = generate(params_from_dict(kind, params))
    cat = p.catalog(builtin_catalog())
    c = compile_project(p, cat)
    net = build_network(c)
    t = opensm_tables(p, cat, net)
    assert t.engine == "ftree" and (t.gpu_lid > 0).all()
    pt = make_pattern(c, "permutation", seed=0)
    r = route_lft(net, t, pt.src, pt.dst)
    assert r.reached.all()
    per_flow = np.bincount(r.flow)
    assert set(per_flow.tolist()) <= {2, 4, 6}  # NIC up + 0/2/4 switch hops + NIC down
    a = run_load(c, pt, "static", net=net, tables=t)
    b = run_load(c, pt, "static", net=net)
    assert a.throughput == pytest.approx(b.throughput) and a.slowdown == pytest.approx(b.slowdown)


def test_tree_pattern_on_rails(su4, su4_net):
    # binary tree per rail over 128 servers: 127 edges x 8 rails, a flow each way; a node
    # with a parent and two children splits its line rate three ways
    p = make_pattern(su4, "tree")
    assert p.src.size == 2 * 127 * 8
    assert np.bincount(p.src, weights=p.demand, minlength=su4.n_gpus).max() == pytest.approx(1)
    r = run_load(su4, p, "adaptive", net=su4_net)
    # a server above two leaf servers receives 1 + 1 + 1/3 of a line rate: 3/7 each, on any
    # fabric (the NIC limits), so the fabric adds no slowdown
    assert r.throughput["min"] == pytest.approx(3 / 7)
    assert r.slowdown == pytest.approx(1.0)


def test_a_cancel_stops_the_distance_search():
    """The window's cancel reaches the search level by level (a large dragonfly's takes
    seconds before any flow is routed)."""
    from designer.core.solver.control import Control, SolveCancelled

    c = compiled("dragonfly", p=2, a=8, h=4)
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 1

    with pytest.raises(SolveCancelled):
        run_load(c, "permutation", "ecmp", control=Control(None, cancelled))
    assert len(asked) == 2


@pytest.mark.parametrize("kind, params", [("fat-tree", {"gpus": 256, "tiers": 2}),
                                          ("rail", {"sus": 1})])
def test_class_level_all_to_all_agrees_with_flow_by_flow(catalog, kind, params):
    """The class-level all-to-all (what designs past 316 GPUs get) against routing every one of
    the 65,280 or 61,504 flows: static and adaptive are the fluid split exactly; ECMP's worst
    flow is the fluid split plus the balls-into-bins spread (Raab and Steger 1998), within the
    spread of the hash draws."""
    p = generate(params_from_dict(kind, params), catalog)
    c = compile_project(p, catalog)
    net = build_network(c)
    explicit, by_class = all_to_all(c, explicit_limit=10**9), all_to_all(c, explicit_limit=0)
    assert explicit.level == "gpu" and by_class.level == "class"
    for routing in ("static", "adaptive"):
        a = run_load(c, explicit, routing, net=net).throughput
        b = run_load(c, by_class, routing, net=net).throughput
        assert b["min"] == pytest.approx(a["min"], abs=1e-6)
    for q in (1, 4):
        draws = [run_load(c, explicit, "ecmp", q, seed=s, net=net).throughput["min"]
                 for s in range(3)]
        b = run_load(c, by_class, "ecmp", q, net=net).throughput
        assert min(draws) - 0.05 <= b["min"] <= max(draws) + 0.05, (draws, b["min"])
        assert b["p50"] == pytest.approx(1.0)
