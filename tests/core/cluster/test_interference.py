"""Interference against the flow model run by hand: the same placements' ring flows listed GPU
by GPU, routed by the traffic package (adaptive, max-min fair per flow), each job's slowest
flow; the cluster model (class rows, loads kept per job, fair shares per job) must agree."""

from __future__ import annotations

import numpy as np
import pytest

from designer.core.catalog import builtin_catalog
from designer.core.cluster.interference import LoadCache, all_to_all_rows, ring_rows, shared_rates
from designer.core.cluster.topology import topology
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from designer.core.traffic import run_load
from designer.core.traffic.network import build_network
from designer.core.traffic.patterns import Pattern


def _design(striping: str):
    p = generate(params_from_dict("fat-tree", {"gpus": 256, "tiers": 2,
                                               "oversubscription": "2:1",
                                               "striping": striping}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    return c, build_network(c), topology(c)


@pytest.fixture(scope="module")
def design():
    """Uniform striping (4 spines, 5 links from every leaf to each): every pair of leaves has
    a leaf's whole uplink capacity between them, which the closed forms below assume. The
    default, balanced striping, takes 3 spines (7/7/6 links a leaf), so two leaves can share
    only 19 of their 20 links' worth through the spines: ``test_balanced_striping_...``."""
    return _design("uniform")


def _ring_by_hand(topo, gpus):
    """Rank k of each of the job's servers to rank k of the next (whole servers)."""
    servers = np.unique(topo.server[gpus])
    per = [np.sort(gpus[topo.server[gpus] == s]) for s in servers]
    k = min(len(x) for x in per)
    src = np.concatenate([per[i][:k] for i in range(len(per))])
    dst = np.concatenate([per[(i + 1) % len(per)][:k] for i in range(len(per))])
    return src, dst


def _by_hand(c, topo, jobs):
    src, dst, owner = [], [], []
    for j, g in enumerate(jobs):
        s, d = _ring_by_hand(topo, g)
        src.append(s)
        dst.append(d)
        owner.append(np.full(s.size, j))
    src, dst, owner = (np.concatenate(x) for x in (src, dst, owner))
    p = Pattern("by hand", src, dst, np.ones(src.size), np.ones(src.size))
    r = run_load(c, p, routing="adaptive")
    return np.array([r.t[owner == j].min() for j in range(len(jobs))])


def _uplink_share(c, net, topo) -> float:
    """Leaf 0's uplink capacity over the line rate of the GPUs under it (1/2 at 2:1)."""
    leaf = int(net.att_switch[net.att_ptr[0]])
    up = net.port_cap[(net.port_src == leaf)].sum()
    gpus = (net.att_switch == leaf).sum()
    return float(up / (gpus * net.att_cap[0]))


def _servers(topo, which):
    return np.flatnonzero(np.isin(topo.server, which))


@pytest.mark.parametrize("layout", ["alternate leaves", "one spread, one packed",
                                    "three jobs"])
def test_rates_match_the_flow_model_on_the_same_placements(design, layout):
    c, net, topo = design
    n_srv = topo.server_device.size
    leaf_of = np.array([topo.leaf[topo.server == s][0] for s in range(n_srv)])
    if layout == "alternate leaves":  # each job one server on every leaf: every hop goes up
        jobs = [_servers(topo, np.flatnonzero(np.arange(n_srv) % 4 == k)) for k in (0, 1)]
    elif layout == "one spread, one packed":
        first = np.flatnonzero(np.r_[True, leaf_of[1:] != leaf_of[:-1]])
        jobs = [_servers(topo, first),
                _servers(topo, np.flatnonzero(leaf_of == leaf_of[1])[1:3])]
    else:
        jobs = [_servers(topo, np.flatnonzero(np.arange(n_srv) % 4 == k)) for k in (0, 1, 2)]
    cache = LoadCache(net)
    loads = [cache.load(ring_rows(c, topo.server, g)) for g in jobs]
    t, held = shared_rates(loads, net.link_cap[: net.n_ports])
    hand = _by_hand(c, topo, jobs)
    assert t == pytest.approx(hand, rel=1e-6)
    up = _uplink_share(c, net, topo)  # a leaf's uplink capacity over its GPUs' line rate
    if layout == "alternate leaves":  # two servers of each leaf send every flow up
        assert t == pytest.approx([min(1.0, up * topo.sizes()["leaf"] / 16)] * 2)
    if layout == "three jobs":  # three servers of each leaf do
        assert t == pytest.approx([min(1.0, up * topo.sizes()["leaf"] / 24)] * 3)
        assert (t < 1).all()
        assert (held >= 0).all() and "leaf" in net.layers[net.link_layer[held[0]]]


def test_balanced_striping_agrees_with_the_flow_model_and_costs_the_uneven_links():
    """The default layout of the same design: 3 spines, the fewest with the ports, where
    uniform striping needs 4 (116 of 256 spine ports idle). Each leaf sends 7, 7 and 6 links
    to the three spines, rotated leaf by leaf. The cluster model still agrees with the flow
    model run by hand. The three jobs' rings now run at 6/7 of the uniform layout's rate:
    a leaf's traffic reaches a spine on 7 links and leaves it on the 6 links of the next
    leaf, 0.833 x 6/7 = 0.714. That is the cost the plan's balanced striping line states."""
    c, net, topo = _design("balanced")
    p = generate(params_from_dict("fat-tree", {"gpus": 256, "tiers": 2,
                                               "oversubscription": "2:1"}))
    assert p.fabric.roles.tolist().count("spine") == 3  # the default is balanced
    n_srv = topo.server_device.size
    jobs = [_servers(topo, np.flatnonzero(np.arange(n_srv) % 4 == k)) for k in (0, 1, 2)]
    cache = LoadCache(net)
    t, _held = shared_rates([cache.load(ring_rows(c, topo.server, g)) for g in jobs],
                            net.link_cap[: net.n_ports])
    assert t == pytest.approx(_by_hand(c, topo, jobs), rel=1e-6)
    cu, netu, topou = _design("uniform")
    cache_u = LoadCache(netu)
    tu, _ = shared_rates([cache_u.load(ring_rows(cu, topou.server, g)) for g in jobs],
                         netu.link_cap[: netu.n_ports])
    assert t == pytest.approx(tu * 6 / 7)


def test_loads_are_the_sum_of_the_jobs_own(design):
    """Kept per class pair or sprayed whole, a job's loads are the same."""
    c, net, topo = design
    g = _servers(topo, np.arange(0, topo.server_device.size, 3))
    p = ring_rows(c, topo.server, g)
    whole = LoadCache(net)
    whole.PAIRS_ONE_BY_ONE = 0  # spray the job in one call
    by_pair = LoadCache(net)
    by_pair.PAIRS_ONE_BY_ONE = 10**9
    a, b = whole.load(p), by_pair.load(p)
    assert np.array_equal(a.links, b.links) and a.gbps == pytest.approx(b.gbps)


def test_all_to_all_rows_count_every_pair_once(design):
    c, _net, topo = design
    g = _servers(topo, [0, 1, 8])  # 3 servers of 8 GPUs
    p = all_to_all_rows(c, topo.server, g)
    cross = 24 * 24 - 3 * 64  # pairs on different servers
    same_class = 0
    cls = c.gpu_class[g]
    for a in np.unique(cls):  # pairs left out because one class stays on its leaf
        m = cls == a
        srv = topo.server[g][m]
        same_class += m.sum() ** 2 - sum((srv == s).sum() ** 2 for s in np.unique(srv))
    assert p.weight.sum() == pytest.approx(cross - same_class)
    # a GPU splits its line rate over the 16 GPUs on the other servers
    assert p.demand == pytest.approx(np.full(p.src.size, 1 / 16))


def _ring_rows_by_unique(c, server, gpus):
    """The ring rows as first written (a stable sort by server, np.unique, np.roll)."""
    order = np.argsort(server[gpus], kind="stable")
    g = gpus[order]
    _, first, cnt = np.unique(server[g], return_index=True, return_counts=True)
    if first.size < 2:
        return None
    k = int(cnt.min())
    nxt = np.roll(first, -1)
    src = g[(first[:, None] + np.arange(k)[None, :]).ravel()]
    dst = g[(nxt[:, None] + np.arange(k)[None, :]).ravel()]
    return src, dst


@pytest.mark.parametrize("seed", range(6))
def test_ring_rows_sorted_or_not_match_the_plain_definition(design, seed):
    """Sorted placements skip the sort; shuffled ones (a trace's wanted hosts) are sorted by
    server keeping their order: the rows are those of the plain definition either way."""
    c, _, topo = design
    rng = np.random.default_rng(seed)
    gpus = np.sort(rng.choice(c.n_gpus, int(rng.integers(2, 60)), replace=False))
    for g in (gpus, rng.permutation(gpus)):
        want = _ring_rows_by_unique(c, topo.server, g)
        got = ring_rows(c, topo.server, g)
        if want is None or got is None:
            assert got is None and (want is None or
                                    (c.gpu_class[want[0]] == c.gpu_class[want[1]]).all())
            continue
        a, b = c.gpu_class[want[0]], c.gpu_class[want[1]]
        ok = a != b
        n = c.classes.n
        key, w = np.unique(a[ok] * n + b[ok], return_counts=True)
        assert got.src.tolist() == (key // n).tolist()
        assert got.dst.tolist() == (key % n).tolist()
        assert got.demand.tolist() == w.tolist()


@pytest.mark.parametrize("budget", [256 << 20, 64 * 16 * 8, 0],
                         ids=["matrix", "matrix, then list past 16 jobs", "list"])
def test_shared_links_kept_across_changes_equal_a_solve_from_scratch(design, budget):
    """Jobs starting and ending in random order (some on the same links, some crossing
    overloaded ones, restarts too): after every change the kept rates, skipped solves
    included, are exactly ``shared_rates`` over the running jobs in start order, whether the
    overloaded links' entries are read from the matrix, the list, or the matrix until it
    passes its budget mid-run."""
    from designer.core.cluster.interference import SharedLinks

    c, net, topo = design
    cap = net.link_cap[: net.n_ports]
    cache = LoadCache(net)
    rng = np.random.default_rng(11)
    n_srv = topo.server_device.size
    loads = []
    for _ in range(24):
        servers = rng.choice(n_srv, int(rng.integers(2, 9)), replace=False)
        loads.append(cache.load(ring_rows(c, topo.server, _servers(topo, servers))))
    shared = SharedLinks(cap, len(loads), budget=budget)
    running: list[int] = []
    solved_slow = 0
    for _ in range(150):
        j = int(rng.integers(len(loads)))
        if j in running:
            running.remove(j)
            shared.remove(j, loads[j])
        else:
            running.append(j)
            shared.add(j, loads[j])
        idx = np.array(running, np.int64)
        shared.solve(idx)
        t, held = shared_rates([loads[k] for k in running], cap)
        assert shared.t[idx].tolist() == t.tolist()
        assert shared.held[idx].tolist() == held.tolist()
        solved_slow += int((t < 1).any())
    assert solved_slow > 10  # jobs were slowed, not only left alone
    assert shared.solves < 150  # and some changes needed no solve
    assert (shared._hot is None) == (budget < 1 << 20)
