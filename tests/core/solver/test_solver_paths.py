"""Hops and latency against a pair-by-pair search on small fabrics, edited at random.

The solver searches once per class of alike GPUs; the reference runs Dijkstra from every
GPU over a graph of switches and GPUs and counts each pair of GPUs in different servers.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver import paths, solve
from designer.core.solver.compile import compile_project
from designer.core.solver.paths import path_stats
from tests.core.solver_cases import SMALL, base, edited_small_fabrics
from tests.core.solver_reference import assert_paths_match


def _compare(p):
    return assert_paths_match(solve(p), p)


@pytest.mark.parametrize("i", range(len(SMALL)))
def test_generated_small_fabrics(i):
    r = _compare(base(i))
    assert r.path_verified


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_small_fabrics())
def test_edited_fabrics(p):
    _compare(p)


@pytest.mark.parametrize("i", range(len(SMALL)))
def test_the_symmetry_shortcut_agrees_with_the_reference(i, monkeypatch):
    # force the colour-refinement path even on small fabrics; the absolute-arrangement
    # dragonfly has routers colour refinement cannot tell apart, which sampling must catch
    monkeypatch.setattr(paths, "SEARCH_ALL_WORK", 0)
    r = _compare(base(i))
    assert r.path_verified


def test_symmetry_needs_few_searches_on_a_large_tree():
    p = generate(params_from_dict("fat-tree", {"gpus": 16384, "tiers": 3}))
    c = compile_project(p, builtin_catalog())
    s = path_stats(c)
    assert s.colours == 1 and s.verified and s.searches <= 1 + paths.SAMPLES
    n = 16384
    assert s.hops.pairs == n * (n - 1) // 2 - 2048 * 28  # minus same-server pairs
    assert s.hops.max == 5


def test_latency_follows_the_gear_and_settings():
    ib = solve(generate(params_from_dict("rail", {"sus": 2})))
    # the NDR layout (SUs of 32) on RoCE gear, whose own SU would be 64
    roce = solve(generate(params_from_dict("rail", {"sus": 2, "gear": "roce-400",
                                                    "servers_per_su": 32})))
    # same topology and cables: RoCE NICs and Ethernet switches are slower per hop
    assert roce.hops.histogram == ib.hops.histogram
    assert roce.latency.min_us > ib.latency.min_us
    # a 3-switch path adds two switch hops and two 30 m leaf-spine cables to a 1-switch path
    p = generate(params_from_dict("rail", {"sus": 2}))
    small = p.model_copy(update={"analysis": p.analysis.model_copy(
        update={"message_bytes": 8})})
    r = solve(small)
    d = r.latency.by_hops_us[3] - r.latency.by_hops_us[1]
    assert d == pytest.approx((2 * 300 + 2 * 30 * 5) / 1000)
    # one 1-switch path: NIC 400 ns x 2 (ConnectX-7 on InfiniBand: half a back-to-back
    # ib_send_lat) + leaf 300 ns (DeepSeek ISCA 2025, see the catalog) + 2 x 10 m + 8 bytes
    # at 400G
    assert r.latency.min_us == pytest.approx((800 + 300 + 100 + 8 * 8 / 400) / 1000)
