"""A broken design yields problems, not exceptions; progress and cancellation work."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.generators import generate, params_from_dict
from designer.core.links import LinkTable
from designer.core.model import Device, Fabric, Project, Role
from designer.core.solver import SolveCancelled, solve
from tests.core.solver_cases import base


def codes(r) -> set[str]:
    return {p.code for p in r.problems}


def test_empty_project():
    r = solve(Project())
    assert r.gpus == 0 and r.switches.total == 0 and r.links.total == 0
    assert r.bisection.gbps == 0 and r.hops.pairs == 0 and r.bom.total_usd == 0
    assert r.to_json()["hops"]["max"] is None


def test_servers_without_a_fabric():
    devices = tuple(Device(id=f"n{i}", name=f"n{i}", model="dgx-h100", role=Role.GPU_SERVER)
                    for i in range(3))
    r = solve(Project(fabric=Fabric(devices=devices)))
    assert r.gpus == 24 and r.unconnected_gpus == 24
    assert "gpu-unconnected" in codes(r)
    assert r.bisection.gbps == 0 and r.bisection.exact


def test_unknown_gear_and_bad_ports():
    p = generate(params_from_dict("rail", {"sus": 1}))
    devices = list(p.fabric.devices)
    leaf = p.fabric.index["su1-leaf-r1"]
    devices[leaf] = devices[leaf].model_copy(update={"model": "no-such-switch"})
    f = Fabric(devices=tuple(devices), links=p.fabric.links)
    # a link on port 500 of a 64-port switch, and one faster than the ports
    extra = LinkTable(a=[p.fabric.index["spine1"]], a_port=[500], b=[p.fabric.index["spine2"]],
                      b_port=[500], speed_gbps=800)
    f = f.with_links(LinkTable.concat([f.links, extra]))
    r = solve(p.with_fabric(f))
    assert {"unknown-gear", "ports-over-used", "speed-mismatch"} <= codes(r)


def test_technology_mismatch_is_a_problem():
    # an Ethernet leaf among InfiniBand spines
    ib = generate(params_from_dict("rail", {"sus": 1}))
    devices = list(ib.fabric.devices)
    leaf = ib.fabric.index["su1-leaf-r1"]
    devices[leaf] = devices[leaf].model_copy(update={"model": "sn5600", "port_speed_gbps": 400})
    r = solve(ib.with_fabric(ib.fabric.with_devices(tuple(devices))))
    assert "technology-mismatch" in codes(r)
    assert r.bom.total_usd > 0 and r.bisection.gbps > 0


@st.composite
def scrambled(draw):
    p = base(draw(st.integers(0, 7)))
    f = p.fabric
    n = len(f.devices)
    k = draw(st.integers(1, 6))
    a = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    b = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if not pairs:
        return p
    extra = LinkTable(
        a=[x for x, _ in pairs], a_port=[900 + i for i in range(len(pairs))],
        b=[y for _, y in pairs], b_port=[950 + i for i in range(len(pairs))],
        speed_gbps=draw(st.sampled_from([100, 400, 800])),
        medium=draw(st.integers(0, 4)),
        length_m=draw(st.sampled_from([np.nan, 0.0, 3.0, 60000.0])),
    )
    drop = draw(st.lists(st.integers(0, len(f.links) - 1), max_size=5, unique=True))
    keep = np.ones(len(f.links), bool)
    keep[drop] = False
    return p.with_fabric(Fabric(devices=f.devices,
                                links=LinkTable.concat([f.links.take(keep), extra])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scrambled())
def test_scrambled_wiring_gives_problems_not_exceptions(p):
    r = solve(p)
    data = r.to_json()
    assert data["gpus"] == r.gpus
    assert r.bisection.lower_gbps <= r.bisection.gbps + 1e-6
    assert r.bom.total_usd >= 0


def test_progress_is_monotone_and_reaches_one():
    seen: list[tuple[float, str]] = []
    solve(generate(params_from_dict("rail", {"sus": 4})), progress=lambda f, s: seen.append((f, s)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions)
    assert fractions[-1] == 1.0
    stages = {s for _, s in seen}
    assert {"compile", "bisection", "hops and latency", "bill of materials"} <= stages


@pytest.mark.parametrize("after", [0, 1, 3, 8, 20])
def test_cancellation_stops_the_solve(after):
    p = generate(params_from_dict("fat-tree", {"gpus": 16384, "tiers": 3}))
    calls = 0

    def cancelled() -> bool:
        nonlocal calls
        calls += 1
        return calls > after

    with pytest.raises(SolveCancelled):
        solve(p, cancelled=cancelled)


def test_cancel_checks_come_within_every_heavy_stage():
    """The window cancels a running solve: every stage checks, and the heavy ones (compile,
    bisection, hops) check several times as they go, not only at their start. Counted, not
    timed: bench/bench_solver.py measures the time from a cancel to the stop at 65,536 GPUs."""
    from collections import Counter

    p = generate(params_from_dict("fat-tree", {"gpus": 16384, "tiers": 3}))
    stage = ["start"]
    checks: Counter[str] = Counter()

    def cancelled() -> bool:
        checks[stage[0]] += 1
        return False

    solve(p, progress=lambda _f, name: stage.__setitem__(0, name), cancelled=cancelled)
    for name in ("oversubscription", "media", "bill of materials", "problems"):
        assert checks[name] >= 1, checks
    for name in ("compile", "bisection", "hops and latency"):
        assert checks[name] >= 3, checks


def test_a_gpu_on_the_wrong_rail_is_flagged():
    p = generate(params_from_dict("rail", {"sus": 1}))
    f = p.fabric
    links = f.links
    # swap the leaf ends of GPU 1 and GPU 2 of the first server
    s0 = f.index["su1-node01"]
    rows = np.flatnonzero(links.a == s0)[:2]
    b = links.b.copy()
    b_port = links.b_port.copy()
    b[rows] = b[rows[::-1]]
    b_port[rows] = b_port[rows[::-1]]
    swapped = links.replace(rows, b=b[rows], b_port=b_port[rows])
    r = solve(p.with_fabric(f.with_links(swapped)))
    problem = next(x for x in r.problems if x.code == "uneven-rails")
    assert set(problem.devices) == {"su1-leaf-r1", "su1-leaf-r2"}
    assert "uneven-rails" not in codes(solve(p))


def _reversed(links: LinkTable) -> LinkTable:
    return LinkTable(a=links.b, a_port=links.b_port, b=links.a, b_port=links.a_port,
                     count=links.count, speed_gbps=links.speed_gbps, medium=links.medium,
                     length_m=links.length_m)


@pytest.mark.parametrize("i", [0, 5, 6])
def test_layer_names_do_not_depend_on_which_end_is_a(i):
    p = base(i)
    f = p.fabric
    # and a first-tier switch (leaf or router) joined to a router: same tier, other role
    first = next(i for i, d in enumerate(f.devices) if d.role in (Role.LEAF, Role.ROUTER))
    role = Role.ROUTER if f.devices[first].role == Role.LEAF else Role.LEAF
    odd = Device(id="odd", name="odd", model=f.devices[first].model, role=role)
    g = Fabric(devices=(*f.devices, odd), links=LinkTable.concat([f.links, LinkTable(
        a=[first], a_port=[999], b=[len(f.devices)], b_port=[1])]))
    for fabric in (f, g):
        ab = solve(p.with_fabric(fabric)).links.by_layer
        ba = solve(p.with_fabric(fabric.with_links(_reversed(fabric.links)))).links.by_layer
        assert ab == ba
