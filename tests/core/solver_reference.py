"""Slow, independent references for the solver tests (small fabrics only).

* ``exact_bisection``: the minimum balanced cut as a mixed-integer program (HiGHS through
  scipy), GPUs of a class as one integer variable;
* ``brute_paths``: hops and latency by a shortest-path search from every GPU on a networkx
  graph of switches and GPUs, pair by pair.
"""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from designer.core.catalog import builtin_catalog
from designer.core.model import Project
from designer.core.solver.compile import HOP_WEIGHT, compile_project


def exact_bisection(project: Project, time_limit: float = 60.0) -> float:
    c = compile_project(project, project.catalog(builtin_catalog()))
    cl = c.classes
    S, C = c.n_switches, cl.n
    app_t, app_sw, app_cap = c.appliance_att
    _, app_i = np.unique(app_t, return_inverse=True)
    n_app = int(app_i.max()) + 1 if app_t.size else 0
    E, A, P = c.edge_u.size, cl.att_switch.size, app_t.size
    # variables: x (S switches, binary), y (C classes, integer), a (appliances, binary),
    # cut of each switch edge (E), of each class attachment (A), of each appliance link (P)
    nx_, ny, na = S, C, n_app
    off_e = nx_ + ny + na
    off_a = off_e + E
    off_p = off_a + A
    nvar = off_p + P
    cost = np.zeros(nvar)
    cost[off_e:off_a] = c.edge_cap
    cost[off_a:off_p] = cl.att_cap
    cost[off_p:] = app_cap
    rows, cols, vals, lo, hi = [], [], [], [], []
    r = 0

    def add(entries, lb):
        nonlocal r
        for col, val in entries:
            rows.append(r)
            cols.append(col)
            vals.append(val)
        lo.append(lb)
        hi.append(np.inf)
        r += 1

    for i in range(E):
        u, v = int(c.edge_u[i]), int(c.edge_v[i])
        add([(off_e + i, 1), (u, -1), (v, 1)], 0)
        add([(off_e + i, 1), (u, 1), (v, -1)], 0)
    owner = cl.owner
    for j in range(A):
        k, s, n = int(owner[j]), int(cl.att_switch[j]), float(cl.count[owner[j]])
        add([(off_a + j, 1), (nx_ + k, -1), (s, n)], 0)
        add([(off_a + j, 1), (nx_ + k, 1), (s, -n)], 0)
    for j in range(P):
        t, s = int(app_i[j]), int(app_sw[j])
        add([(off_p + j, 1), (nx_ + ny + t, -1), (s, 1)], 0)
        add([(off_p + j, 1), (nx_ + ny + t, 1), (s, -1)], 0)
    unconnected = c.n_gpus - int(cl.count.sum())
    k = c.n_gpus // 2
    for i in range(C):
        rows.append(r)
        cols.append(nx_ + i)
        vals.append(1)
    lo.append(max(0, k - unconnected))
    hi.append(k)
    r += 1
    a_mat = coo_matrix((vals, (rows, cols)), shape=(r, nvar))
    integrality = np.r_[np.ones(nx_ + ny + na), np.zeros(E + A + P)]
    upper = np.r_[np.ones(nx_), cl.count.astype(float), np.ones(na), np.full(E + A + P, np.inf)]
    res = milp(cost, constraints=LinearConstraint(a_mat, lo, hi), integrality=integrality,
               bounds=Bounds(np.zeros(nvar), upper), options={"time_limit": time_limit})
    assert res.status == 0, res.message
    exact_bisection.last_sides = res.x[:S] > 0.5
    return float(res.fun)


def brute_paths(project: Project) -> tuple[Counter, Counter]:
    """(hops histogram, latency histogram in 0.001 ns) over unordered GPU pairs in
    different scale-up domains (servers, or racks of trays), from one Dijkstra per GPU.
    GPUs do not forward: a search starts at one GPU's switches and ends at the other GPU's
    switches."""
    c = compile_project(project, project.catalog(builtin_catalog()))
    st = project.analysis
    cl = c.classes
    g = nx.DiGraph()
    sw_ns = c.switch_ns[c.sw]
    g.add_nodes_from(range(c.n_switches))
    for u, v, prop in zip(c.edge_u.tolist(), c.edge_v.tolist(), c.edge_prop_ns.tolist(),
                          strict=True):
        g.add_edge(u, v, w=HOP_WEIGHT + prop + sw_ns[v])
        g.add_edge(v, u, w=HOP_WEIGHT + prop + sw_ns[u])
    gpus = np.flatnonzero(c.gpu_class >= 0)
    # a GPU's scale-up domain, from the labels: a rack-scale tray's (model, domain label),
    # else its own server (the reference does not use the solver's domain table)
    cat = project.catalog(builtin_catalog())
    key = []
    for i, d in enumerate(c.fabric.devices):
        spec = cat.get(d.model) if d.model in cat else None
        rack = getattr(spec, "domain_servers", 1) > 1 and d.groups.get("domain")
        key.append((d.model, d.groups["domain"]) if rack else i)
    ids = {k: n for n, k in enumerate(dict.fromkeys(key))}
    server_of = np.repeat(np.array([ids[k] for k in key], np.int64),
                          np.where(c.is_server, c.table.gpus, 0))

    def ports(gpu: int):
        k = int(c.gpu_class[gpu])
        return [(int(cl.att_switch[j]), float(cl.att_prop_ns[j]), float(cl.att_cap[j]))
                for j in range(cl.ptr[k], cl.ptr[k + 1])]

    hops: Counter = Counter()
    lat: Counter = Counter()
    bits = st.message_bytes * 8.0
    for src in gpus.tolist():
        best_from: dict[int, tuple[float, float]] = {}  # switch -> (distance, first speed)
        for s, prop, speed in ports(src):
            dist = nx.single_source_dijkstra_path_length(g, s, weight="w")
            for node, d in dist.items():
                total = d + HOP_WEIGHT + prop + sw_ns[s]
                old = best_from.get(node)
                if old is None or total < old[0] - 1e-6 or (abs(total - old[0]) <= 1e-6
                                                            and speed > old[1]):
                    best_from[node] = (total, speed)
        for dst in gpus.tolist():
            if dst <= src or server_of[dst] == server_of[src]:
                continue
            best = None
            for s, prop, speed in ports(dst):
                if s not in best_from:
                    continue
                d, sp = best_from[s]
                cand = (d + prop, min(sp, speed))
                if best is None or cand[0] < best[0] - 1e-6 or (abs(cand[0] - best[0]) <= 1e-6
                                                                and cand[1] > best[1]):
                    best = cand
            if best is None:
                hops["unreachable"] += 1
                continue
            d, speed = best
            h = int(np.floor(d / HOP_WEIGHT + 1e-9))
            ns = (d - h * HOP_WEIGHT) + cl.nic_ns[c.gpu_class[src]] + cl.nic_ns[c.gpu_class[dst]]
            ns += bits / speed
            hops[h] += 1
            lat[round(ns * 1000)] += 1
    return hops, lat


def pair_quantile(lat: Counter, q: float) -> float:
    """The q-quantile over GPU pairs of a {latency ns: pairs} count, in µs."""
    keys = sorted(lat)
    cum = np.cumsum([lat[k] for k in keys])
    return keys[int(np.searchsorted(cum, q * cum[-1], side="left"))] / 1e6


def assert_paths_match(r, project: Project):
    """The solver's hop and latency figures ``r`` equal a pair-by-pair search of
    ``project``: histogram, unreachable pairs, min, max, mean, p50, p99."""
    import pytest

    hops, lat = brute_paths(project)
    unreachable = hops.pop("unreachable", 0)
    assert r.hops.histogram == dict(hops)
    assert r.hops.unreachable_pairs == unreachable
    assert r.hops.pairs == sum(hops.values())
    if not hops:
        return r
    assert r.hops.max == max(hops) and r.hops.min == min(hops)
    assert r.hops.p50 == pair_quantile(Counter({k * 1e6: v for k, v in hops.items()}), 0.5)
    lat_us = {k / 1e6: v for k, v in lat.items()}
    total = sum(lat_us.values())
    assert r.latency.min_us == pytest.approx(min(lat_us), abs=1e-5)
    assert r.latency.max_us == pytest.approx(max(lat_us), abs=1e-5)
    mean = sum(k * v for k, v in lat_us.items()) / total
    assert r.latency.mean_us == pytest.approx(mean, rel=1e-9, abs=1e-5)
    assert r.latency.p50_us == pytest.approx(pair_quantile(lat, 0.5), abs=1e-5)
    assert r.latency.p99_us == pytest.approx(pair_quantile(lat, 0.99), abs=1e-5)
    assert sum(r.latency.counts) == pytest.approx(total, abs=len(r.latency.counts))
    for h, m in r.latency.by_hops_us.items():
        assert h in hops and m > 0
    return r
