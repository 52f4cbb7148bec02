"""GPUs of one scale-up domain (an NVL72 rack of trays) reach each other over it, never through
the scale-out fabric: hops, latency, bisection and traffic count it so; the domain reaches the
workload; the domains' problems are named."""

from __future__ import annotations

import itertools
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.analysis.estimates import estimate
from designer.core.analysis.workload import PRESETS, Workload, WorkloadError
from designer.core.catalog import ScaleUp, ServerSpec, builtin_catalog
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict, plan
from designer.core.links import LinkTable
from designer.core.model import Overrides
from designer.core.solver import solve
from designer.core.solver.compile import compile_project
from designer.core.traffic.patterns import all_to_all, ring
from tests.core.solver_reference import assert_paths_match

CAT = builtin_catalog()
# a small rack-scale system for the exact references: 3 trays of 2 GPUs, one 6-GPU domain
TINY = ServerSpec(id="tiny-rack", name="Tiny rack (test)", gpus=2, gpu_model="GB200",
                  nic="connectx-7", nics=2, power_w=1000, price_usd=1,
                  scale_up=ScaleUp(fabric="NVLink 5", servers=3, gbytes_s=900))


def tiny(**values):
    cat = CAT.with_items([TINY])
    p = generate(params_from_dict("rail", {"server": "tiny-rack", **values}), cat)
    return p.model_copy(update={"overrides": Overrides(gear=(TINY, *p.overrides.gear))})


def test_hops_and_latency_leave_out_pairs_of_one_rack():
    p = tiny(gpus=24, racks_per_su=2, radix=8)
    r = solve(p)
    assert r.domains.count == 4 and r.domains.gpus == 6
    assert r.hops.pairs == (24 * 24 - 4 * 36) // 2  # pairs in different racks
    assert_paths_match(r, p)  # pair by pair against a search on the graph


def _whole_domain_bisection(p) -> float:
    """Reference: every split of the domains into halves, each costed as a minimum cut between
    the two sets of GPUs on the graph of switches and GPU links (max-flow)."""
    c = compile_project(p, p.catalog(CAT))
    g = nx.Graph()
    for u, v, cap in zip(c.edge_u.tolist(), c.edge_v.tolist(), c.edge_cap.tolist(),
                         strict=True):
        g.add_edge(("s", u), ("s", v), capacity=cap)
    cl = c.classes
    for gpu in np.flatnonzero(c.gpu_class >= 0).tolist():
        k = c.gpu_class[gpu]
        for j in range(cl.ptr[k], cl.ptr[k + 1]):
            e = (("g", gpu), ("s", int(cl.att_switch[j])))
            cap = g.edges[e]["capacity"] if g.has_edge(*e) else 0.0
            g.add_edge(*e, capacity=cap + float(cl.att_cap[j]))
    doms = range(c.domains.count)
    best = np.inf
    for side in itertools.combinations(doms, c.domains.count // 2):
        h = g.copy()
        for gpu, d in enumerate(c.gpu_domain.tolist()):
            h.add_edge("A" if d in side else "B", ("g", gpu), capacity=np.inf)
        best = min(best, nx.minimum_cut_value(h, "A", "B"))
    return float(best)


@pytest.mark.parametrize("values", [
    {"gpus": 24, "racks_per_su": 2, "radix": 8},
    {"gpus": 36, "racks_per_su": 3, "radix": 12, "tiers": 3},
])
def test_bisection_cuts_whole_racks(values):
    p = tiny(**values)
    r = solve(p)
    assert r.bisection.gbps == pytest.approx(_whole_domain_bisection(p))


def test_bisection_keeps_racks_whole_on_an_oversubscribed_tree():
    """Racks of 8 trays under leaves of 4 trays at 3:1: cut GPU by GPU, half a rack could sit
    on each side for free; whole racks cost their leaves' uplinks."""
    p = generate(params_from_dict("fat-tree", {"gpus": 288, "server": "gb200-nvl72",
                                               "oversubscription": "3:1", "radix": 32}))
    r = solve(p)
    assert r.bisection.gbps == pytest.approx(_whole_domain_bisection(p))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(racks=st.sampled_from([1, 2, 4, 8]), sus=st.integers(1, 3),
       gear=st.sampled_from(["gb200-ib-ndr", "gb300-ib-xdr", "gb300-spectrum-x"]))
def test_rack_pairs_never_reach_the_fabric(racks, sus, gear):
    """Any rack-scale rail design: the hop statistics count exactly the pairs of GPUs in
    different racks, a same-rail pair of two racks of one SU is one switch apart, and the
    non-blocking fabric gives full bisection."""
    params = params_from_dict("rail", {"gear": gear, "racks_per_su": racks, "sus": sus})
    pl, p = plan(params), generate(params)
    r = solve(p)
    n, d = r.gpus, r.domains
    assert d.count == racks * sus and d.gpus == 72
    assert r.hops.pairs == (n * n - d.count * 72 * 72) // 2
    if racks > 1:  # two racks of one SU share rail leaves
        assert r.hops.min == 1
    if any(x.startswith("balanced striping") for x in pl.details):
        # uneven leaf-spine counts: a cut taking the leaves with one more link to a spine
        # crosses a few links less (GB300 Spectrum-X, 4 racks an SU, 2 SUs: 99.3%)
        assert 0.98 < r.bisection.fraction_of_full <= 1.0
    else:
        assert r.bisection.fraction_of_full == pytest.approx(1.0)
    assert not [x for x in r.problems if x.code.startswith("domain") or x.code == "uneven-rails"]


def test_traffic_patterns_stay_off_the_fabric_inside_a_rack():
    p = generate(params_from_dict("rail", {"gpus": 144, "gear": "gb200-ib-ndr",
                                           "racks_per_su": 2}))
    c = compile_project(p, CAT)
    rg = ring(c)
    assert (c.gpu_domain[rg.src] != c.gpu_domain[rg.dst]).all()
    a2a = all_to_all(c, explicit_limit=10**9)
    assert a2a.n_flows == 144 * 72  # each GPU to the 72 of the other rack


def test_solve_json_reports_domains_and_switch_trays(capsys, tmp_path):
    from designer.cli.main import main

    p = generate(params_from_dict("rail", {"gpus": 576, "server": "gb200-nvl72",
                                           "gear": "ib-xdr"}))
    f = tmp_path / "nvl.fabric.json"
    save_project(p, f)
    assert main(["solve", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["gpus"] == 576
    assert (d["domain"]["gpus"], d["domain"]["count"], d["domain"]["switch_trays"]) == (72, 8, 72)
    lines = {x["catalog_id"]: x for x in d["bom"]["compute_lines"]}
    assert lines["nvlink5-switch-tray"]["qty"] == 72
    assert main(["estimate", str(f), "--json"]) == 0
    e = json.loads(capsys.readouterr().out)
    assert e["workload"]["nvlink_domain"] == 72 and e["fabric"]["nvlink_domain"] == 72
    assert main(["solve", str(f)]) == 0
    text = capsys.readouterr().out
    assert "576 in 8 racks (144 trays)" in text and "8 x 72-GPU NVLink 5 domains" in text


def test_workload_takes_the_design_domain_and_refuses_tp_outside_it():
    p = generate(params_from_dict("rail", {"gpus": 576, "gear": "gb200-ib-ndr"}))
    r = solve(p)
    # the preset says 8 (DeepSeek's 8-GPU nodes); the design's 72-GPU racks decide
    w = PRESETS["deepseek-v3-like"].model_copy(update={"gpus": 512, "pp": 8, "microbatches": 8})
    est = estimate(p, r, w)
    assert est.workload.nvlink_domain == 72 and est.view.domain == 72
    with pytest.raises(WorkloadError, match=r"workload.tp: 144 is larger than the NVLink "
                                            r"domain \(72 GPUs\)"):
        estimate(p, r, Workload(tp=144))
    with pytest.raises(WorkloadError, match=r"workload\.tp: 16 does not divide"):
        estimate(p, r, Workload(tp=16))


def test_expert_all_to_all_moves_onto_nvlink():
    """EP 64 of an MoE job sits inside one NVL72 rack (NVLink) and spans 8 servers of an
    8-GPU design of the same GPU count (the network): its all-to-all runs at NVLink speed."""
    w = PRESETS["deepseek-v3-like"].model_copy(update={"gpus": 1152, "pp": 18})
    out = {}
    for server in ("gb200-nvl72", "dgx-b200"):
        p = generate(params_from_dict("rail", {"gpus": 1152, "server": server}))
        est = estimate(p, solve(p), w)
        ep = next(x for x in est.step.parts if x.kind == "ep")
        bus = next(x.busbw_gbytes_s for x in est.collectives if x.group == "ep")
        out[server] = (ep.time_s, bus)
    assert out["gb200-nvl72"][1] > 10 * out["dgx-b200"][1]
    assert out["gb200-nvl72"][0] < out["dgx-b200"][0] / 10


def _swap_two_trays(p):
    """Two trays of one rack trade their leaf cables: a rail leaf then takes other GPU
    positions of that rack than of the others."""
    f = p.fabric
    a = f.index["su1-rack1-tray01"]
    b = f.index["su1-rack1-tray02"]
    links = f.links
    col = links.a.copy()
    ia, ib = np.flatnonzero(col == a), np.flatnonzero(col == b)
    col[ia], col[ib] = b, a
    table = LinkTable(a=col, a_port=links.a_port, b=links.b, b_port=links.b_port,
                      count=links.count, speed_gbps=links.speed_gbps, length_m=links.length_m)
    return p.with_fabric(f.with_links(table))


def test_uneven_rails_and_domain_problems():
    p = generate(params_from_dict("rail", {"gpus": 576, "gear": "gb200-ib-ndr"}))
    assert "uneven-rails" in {x.code for x in solve(_swap_two_trays(p)).problems}
    f = p.fabric
    # a tray taken out: its rack is short, and says so
    short = p.with_fabric(f.remove_devices({"su1-rack2-tray05"}))
    probs = {x.code: x for x in solve(short).problems}
    assert "17 of 18 'gb200-nvl72' trays" in probs["domain-incomplete"].message
    # a tray of rack 2 labelled rack 1: rack 1 holds 19
    devs = list(f.devices)
    i = f.index["su1-rack2-tray01"]
    devs[i] = devs[i].model_copy(update={"groups": {"su": 1, "domain": 1}})
    over = solve(p.with_fabric(f.with_devices(tuple(devs))))
    assert "domain-overfull" in {x.code for x in over.problems}
    # a GB300 tray in a GB200 rack
    devs = list(f.devices)
    devs[i] = devs[i].model_copy(update={"model": "gb300-nvl72", "nic": None,
                                         "groups": {"su": 1, "domain": 1}})
    mixed = solve(p.with_fabric(f.with_devices(tuple(devs))))
    assert "domain-mixed" in {x.code for x in mixed.problems}
