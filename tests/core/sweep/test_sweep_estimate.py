"""The time estimate a sweep ranks its designs by (sweep/cost.py): it follows what the
solver does with a design, not its GPU count, so that the costliest designs start first.

Asserted from the rule and the plans, never from timings (bench/bench_sweep_estimate.py
measures how well it follows the real times)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.generators import params_from_dict, plan
from designer.core.solver import switch_pairs
from designer.core.sweep import load_spec, spec_from_dict
from designer.core.sweep.cost import MAX_A, RULES, estimate_s, family, table_entries
from designer.core.sweep.points import Point, expand
from designer.core.sweep.run import make_batches
from tests._paths import PROJECTS


def point(kind: str, **params) -> Point:
    pts = expand(spec_from_dict({"generate": {"kind": kind, "gear": "ib-ndr"} | params}))
    assert len(pts) == 1 and pts[0].error is None, pts[0].error
    return pts[0]


def test_a_point_carries_its_plans_sizes():
    p = point("dragonfly", p=10, a=20, h=10)
    pl = plan(params_from_dict("dragonfly", {"gear": "ib-ndr", "p": 10, "a": 20, "h": 10}))
    assert (p.gpus, p.switches, p.links, p.planes) == \
        (pl.gpus, pl.total_switches, pl.total_links, pl.planes)
    assert p.endpoint_links == pl.links["endpoint-router"] == 40_200
    assert p.switches == 201 * 20  # a*h + 1 groups of a routers


def test_the_table_is_routers_squared_times_a_routers_links():
    # a balanced dragonfly: a router has a - 1 local links and h global ones
    p = point("dragonfly", p=10, a=20, h=10)
    assert table_entries(p) == 4020 ** 2 * (19 + 10)
    # the same rule as the solver's own measure of the table (switch_pairs.work)
    assert MAX_A == switch_pairs.MAX_A


def test_no_table_where_the_solver_cannot_build_one():
    # more routers than the table takes: the solver searches per colour instead
    big = point("dragonfly", p=16, a=32, h=16)
    assert big.switches > MAX_A and table_entries(big) == 0
    # GPUs with a cable on each of several planes, and fat-trees: no router table
    assert table_entries(point("dragonfly", p=8, a=16, h=8, groups=33, planes=2,
                               server="gpu-server-8")) == 0
    assert table_entries(point("fat-tree", tiers=3, gpus=65536)) == 0


def test_a_costly_smaller_design_ranks_above_a_cheaper_larger_one():
    """The 40,200- and 20,200-GPU dragonflies build the router table (2.3 s and 0.85 s in
    bench_sweep_estimate.py); the 65,536-GPU fat-tree has more GPUs but no table (0.4 s).
    The old estimate (GPUs only) ranked the fat-tree first."""
    ft = point("fat-tree", tiers=3, gpus=65536)
    for df in (point("dragonfly", p=10, a=20, h=10),
               point("dragonfly", p=10, a=20, h=10, groups=101)):
        assert df.gpus < ft.gpus
        assert estimate_s(df) > estimate_s(ft)
    # eight planes cost more a cable than one: 2,048 GPUs on 8 planes above 4,096 on one
    mp = point("fat-tree", tiers=2, gpus=2048, gpus_per_server=1, planes=8)
    one = point("fat-tree", tiers=3, gpus=4096)
    assert family(mp) == "planes" and family(one) == "fat-tree"
    assert mp.gpus < one.gpus and estimate_s(mp) > estimate_s(one)


def test_the_estimate_is_its_familys_rule():
    p = point("rail", sus=4)
    r = RULES["rail"]
    assert estimate_s(p) == r.fixed_s + r.per_cable_s * p.links
    df = point("dragonfly", p=6, a=12, h=6)
    r = RULES["dragonfly"]
    assert estimate_s(df) == r.fixed_s + r.per_cable_s * df.links \
        + r.per_table_entry_s * table_entries(df)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 64), st.integers(1, 64), st.sampled_from(["fat-tree", "rail"]))
def test_more_cables_more_time_within_a_family(n1, n2, kind):
    """Fat-trees of n x 1,024 GPUs, rail designs of n SUs."""
    def sized(n: int) -> Point:
        return point(kind, gpus=1024 * n) if kind == "fat-tree" else point(kind, sus=n)

    a, b = sized(n1), sized(n2)
    assert family(a) == family(b) == kind
    assert (a.links <= b.links) == (estimate_s(a) <= estimate_s(b))


def test_the_deepseek_sweep_starts_with_its_dragonflies():
    """The bundled DeepSeek sweep: the 40,200-GPU dragonfly (the router table) first, then
    the 262,656-GPU one; the first batch on 2 workers holds the costliest design."""
    pts = [p for p in expand(load_spec(PROJECTS / "deepseek-isca2025-cost-per-endpoint"
                                       ".sweep.yaml")) if not p.error]
    order = sorted(pts, key=estimate_s, reverse=True)
    assert [(p.kind, p.gpus) for p in order[:2]] == [("dragonfly", 40200),
                                                      ("dragonfly", 262656)]
    batches = make_batches(pts, 2)
    assert batches[0][0] is order[0]
    firsts = [max(estimate_s(p) for p in b) for b in batches]
    assert firsts == sorted(firsts, reverse=True)
