"""The factored adaptive spray (spray.py) against the path-listing one (routing.route_spray).

Adaptive routing / packet spraying is the fluid model of DECISION.md section 4 (the max-
concurrent-flow bound): at every switch a flow splits over the next hops that bring it closer,
by capacity. The factored form sums the same splits per (switch, destination class) instead
of per flow, so on any design and any per-GPU pattern it must give the same incidence, the
same max-min rates and the same load figures as listing every path.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.catalog import builtin_catalog
from designer.core.solver.compile import compile_project
from designer.core.traffic import load as load_mod
from designer.core.traffic import run_load
from designer.core.traffic.network import build_network
from designer.core.traffic.patterns import make_pattern
from designer.core.traffic.spray import applies, spray_op
from tests.core.solver_cases import edited_small_fabrics
from tests.core.traffic.spray_checks import agrees, listed

PATTERNS = ("permutation", "ring", "incast", "bisection")


def _by_paths(monkeypatch, *args, **kw):
    with monkeypatch.context() as m:
        m.setattr(load_mod, "applies", lambda *_: False)
        return run_load(*args, **kw)


@settings(max_examples=65, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(project=edited_small_fabrics(), pattern=st.sampled_from(PATTERNS),
       seed=st.integers(0, 1000))
@pytest.mark.parametrize("split", [None, True], ids=["default", "split"])
def test_factored_spray_is_the_listed_spray(split, project, pattern, seed):
    """On any small design (fat trees, rails, dragonflies, with parts removed) the factored
    spray gives the listed spray's incidence, by default and split (split.py: where its
    conditions fail, states stay per class)."""
    c = compile_project(project, project.catalog(builtin_catalog()))
    if c.n_gpus < 2:
        return
    net = build_network(c)
    p = make_pattern(c, pattern, seed)
    if not applies(net, p.dst):
        return
    routed, a = listed(net, p.src, p.dst)
    agrees(spray_op(net, p.src, p.dst, split=split), routed, a, seed,
           net.link_cap.astype(np.float64))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(project=edited_small_fabrics(), pattern=st.sampled_from(PATTERNS),
       seed=st.integers(0, 1000))
def test_load_results_match_path_listing(monkeypatch, project, pattern, seed):
    c = compile_project(project, project.catalog(builtin_catalog()))
    if c.n_gpus < 2:
        return
    net = build_network(c)
    fast = run_load(c, pattern, "adaptive", seed=seed, net=net)
    slow = _by_paths(monkeypatch, c, pattern, "adaptive", seed=seed, net=net)
    np.testing.assert_allclose(fast.t, slow.t, rtol=1e-9, atol=1e-12)
    assert fast.unrouted == slow.unrouted
    for k in ("min", "p1", "p50", "mean"):
        assert fast.throughput[k] == pytest.approx(slow.throughput[k], rel=1e-9, abs=1e-12)
    assert fast.slowdown == pytest.approx(slow.slowdown, rel=1e-9)
    assert fast.max_utilisation == pytest.approx(slow.max_utilisation, rel=1e-9, abs=1e-12)
    assert fast.by_tier == pytest.approx(slow.by_tier, rel=1e-9, abs=1e-12)
    assert fast.tail.p99_us == pytest.approx(slow.tail.p99_us, rel=1e-9, abs=1e-12)
    assert fast.tail.mean_us == pytest.approx(slow.tail.mean_us, rel=1e-9, abs=1e-12)


def test_blocking_tree_needs_several_fill_rounds(monkeypatch):
    """A 3:1 tree under a ring and an incast together exercises more than one fill level; the
    factored rates still match the listed ones flow for flow."""
    from designer.core.generators import generate, params_from_dict
    from designer.core.traffic.patterns import Pattern

    p = generate(params_from_dict("fat-tree", {"gpus": 48, "gpus_per_server": 4, "radix": 16,
                                               "oversubscription": "3:1"}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    net = build_network(c)
    ring, inc = make_pattern(c, "ring"), make_pattern(c, "incast", fan_in=8)
    both = Pattern("mixed", np.r_[ring.src, inc.src], np.r_[ring.dst, inc.dst],
                   np.r_[ring.demand, inc.demand], np.r_[ring.weight, inc.weight])
    fast = run_load(c, both, "adaptive", net=net)
    slow = _by_paths(monkeypatch, c, both, "adaptive", net=net)
    assert np.unique(np.round(fast.t, 9)).size > 1  # rates on more than one level
    np.testing.assert_allclose(fast.t, slow.t, rtol=1e-9, atol=1e-12)


def test_incast_on_a_dragonfly_counts_every_hop():
    """An incast's sources sit 1 to 3 hops from the one destination; a start already met
    as another's next hop is not expanded twice, and the chain still runs its full length."""
    from designer.core.generators import generate, params_from_dict

    p = generate(params_from_dict("dragonfly", {"a": 3, "p": 2, "h": 1,
                                                "gpus_per_server": 2}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    net = build_network(c)
    pat = make_pattern(c, "incast", 0)
    _, a = listed(net, pat.src, pat.dst)
    op = spray_op(net, pat.src, pat.dst)
    v = np.random.default_rng(1).random(net.n_links)
    np.testing.assert_allclose(op.matvec(v), a @ v, rtol=1e-12)
    np.testing.assert_allclose(op.rmatvec(np.ones(pat.src.size)), a.T @ np.ones(pat.src.size),
                               rtol=1e-12)


def test_two_planes_arrive_in_the_plane_they_left_by(monkeypatch):
    """GPUs with a NIC in each of two planes: a flow leaves by both NICs and arrives over the
    destination's NIC in the same plane; the factored spray follows that arrival (its class
    has a switch in each plane) and matches the listed paths flow for flow."""
    from designer.core.generators import generate, params_from_dict

    p = generate(params_from_dict("rail", {"sus": 2, "servers_per_su": 4, "radix": 16,
                                           "gpus_per_server": 4, "planes": 2,
                                           "server": "gpu-server-8"}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    net = build_network(c)
    cl = c.classes
    assert (np.maximum.reduceat(cl.att_switch, cl.ptr[:-1])
            != np.minimum.reduceat(cl.att_switch, cl.ptr[:-1])).any()
    for pattern in PATTERNS:
        pat = make_pattern(c, pattern, 3)
        _, a = listed(net, pat.src, pat.dst)
        op = spray_op(net, pat.src, pat.dst)
        v = np.random.default_rng(2).random(net.n_links)
        np.testing.assert_allclose(op.matvec(v), a @ v, rtol=1e-12)
        fast = run_load(c, pattern, "adaptive", seed=3, net=net)
        slow = _by_paths(monkeypatch, c, pattern, "adaptive", seed=3, net=net)
        np.testing.assert_allclose(fast.t, slow.t, rtol=1e-9, atol=1e-12)


def test_sparse_rounds_give_the_listed_rates(monkeypatch):
    """A failed spine under adaptive routing splits the fair shares into many levels, each
    round freezing a few flows: the rounds run up and down the chain from those only, and
    give the rates of listing every path."""
    from designer.core.generators import generate, params_from_dict
    from designer.core.traffic import spray as spray_mod
    from designer.core.traffic.failures import failed_project, resolve

    p = generate(params_from_dict("fat-tree", {"gpus": 2048, "tiers": 3}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    _dev, lost = resolve(c, ["spine:1"], 0)
    after = compile_project(failed_project(c, lost), c.catalog)
    net = build_network(after)
    sparse_calls = []
    real = spray_mod.SprayOp.spread
    with monkeypatch.context() as m:
        m.setattr(spray_mod, "LISTED_MAX", 0)  # the factored form, not the written-out one
        m.setattr(spray_mod.SprayOp, "spread",
                  lambda self, *a: sparse_calls.append(1) or real(self, *a))
        fast = run_load(after, "permutation", "adaptive", net=net)
    slow = _by_paths(monkeypatch, after, "permutation", "adaptive", net=net)
    assert len(sparse_calls) > 3  # several levels, each freezing a few flows
    assert np.unique(np.round(fast.t, 9)).size > 3
    np.testing.assert_allclose(fast.t, slow.t, rtol=1e-9, atol=1e-12)
    assert fast.slowdown == pytest.approx(slow.slowdown, rel=1e-9)


def test_a_spray_past_the_memory_limit_is_refused_in_words(monkeypatch):
    """A design whose alike switches fold little (a 131,072-GPU fat tree with balanced
    striping: 951 million steps, about 20 GB) is refused with what to do instead, before
    any of the walk is held; under the limit the same design runs."""
    from designer.core.generators import generate, params_from_dict
    from designer.core.traffic import spray
    from designer.core.traffic.routing import RoutingError

    p = generate(params_from_dict("fat-tree", {"gpus": 512, "tiers": 3,
                                               "oversubscription": "2:1"}))
    c = compile_project(p, p.catalog(builtin_catalog()))
    net = build_network(c)
    assert run_load(c, "permutation", "adaptive", net=net).throughput["min"] > 0
    monkeypatch.setattr(spray, "SPRAY_STEPS_LIMIT", 10)
    with pytest.raises(RoutingError, match=r"million steps.*--routing ecmp"):
        run_load(c, "permutation", "adaptive", net=net)
