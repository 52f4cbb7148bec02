"""Sweep specs: axes, sampling, determinism and the clear refusals before any work starts."""

from __future__ import annotations

import pytest

from designer.core.sweep import SweepSpecError, expand, loads_spec, run_sweep, spec_from_dict
from designer.core.sweep.points import point_seed

ISSUE_SPEC = ('{"generate": {"kind": "rail", "gear": ["ib-ndr", "roce-400"], '
              '"sus": [1, 2, 4, 8]}, "objectives": ["cost_per_gpu", "bisection_per_gpu"]}')


def test_the_issue_spec_gives_8_points_in_json_and_yaml():
    yaml_text = """
generate: {kind: rail, gear: [ib-ndr, roce-400], sus: [1, 2, 4, 8]}
objectives: [cost_per_gpu, bisection_per_gpu]
"""
    a, b = expand(loads_spec(ISSUE_SPEC)), expand(loads_spec(yaml_text))
    assert len(a) == 8 and a == b
    assert [(p.params["gear"], p.params["sus"]) for p in a[:4]] == [
        ("ib-ndr", 1), ("ib-ndr", 2), ("ib-ndr", 4), ("ib-ndr", 8)]
    # 256 GPUs per SU (32 DGX of 8 GPUs), DGX SuperPOD H100 reference architecture
    assert [p.gpus for p in a[:4]] == [256, 512, 1024, 2048]
    assert not any(p.error for p in a)


def test_ranges_blocks_and_prices_multiply():
    spec = spec_from_dict({
        "generate": [{"kind": "rail", "sus": {"min": 1, "max": 7, "step": 2}},
                     {"kind": "fat-tree", "gpus": [512, 1024], "oversubscription": ["1:1", "3:1"]}],
        "prices": {"qm9700": [30000, 40000]},
    })
    pts = expand(spec)
    assert len(pts) == 4 * 2 + 2 * 2 * 2
    assert sorted({p.params["sus"] for p in pts if p.kind == "rail"}) == [1, 3, 5, 7]
    assert {p.prices["qm9700"] for p in pts} == {30000.0, 40000.0}
    assert [p.index for p in pts] == list(range(len(pts)))


@pytest.mark.parametrize("sampling", ["random", "lhs"])
def test_sampling_is_seeded_and_stays_in_range(sampling):
    data = {"generate": {"kind": "fat-tree", "gpus": {"min": 64, "max": 4096, "step": 64},
                         "gear": ["ib-ndr", "roce-400"]},
            "sampling": sampling, "samples": 40, "seed": 7}
    a, b = expand(spec_from_dict(data)), expand(spec_from_dict(data))
    assert a == b
    c = expand(spec_from_dict(data | {"seed": 8}))
    assert [p.params for p in a] != [p.params for p in c]
    assert all(64 <= p.params["gpus"] <= 4096 for p in a)
    assert point_seed(7, 3) == point_seed(7, 3) != point_seed(7, 4)


def test_latin_hypercube_puts_one_sample_in_each_stratum():
    gpus = {"min": 104, "max": 1096, "step": 8}
    spec = spec_from_dict({"generate": {"kind": "fat-tree", "gpus": gpus},
                           "sampling": "lhs", "samples": 10, "seed": 1})
    strata = sorted((p.params["gpus"] - 104) // 100 for p in expand(spec))
    assert strata == list(range(10))


@pytest.mark.parametrize(("data", "words"), [
    ({"generate": {"kind": "rail", "susses": [1, 2]}}, ["generate.susses", "not a parameter"]),
    ({"generate": {"kind": "rail", "sus": []}}, ["generate.sus", "empty list"]),
    ({"generate": {"kind": "rail", "sus": {"min": 4, "max": 2}}}, ["generate.sus", "empty range"]),
    ({"generate": {"kind": "rail", "sus": [1, 0]}}, ["generate.sus = 0"]),
    ({"generate": {"kind": "rail", "gear": ["ib-ndr", "token-ring"]}},
     ["generate.gear = 'token-ring'", "unknown gear profile"]),
    ({"generate": {"kind": "torus"}}, ["generate.kind", "unknown generator"]),
    ({"generate": {"kind": "rail"}, "objectives": ["speed"]}, ["objectives[0]", "unknown figure"]),
    ({"generate": {"kind": "rail"}, "constraints": {"fast": 1}}, ["constraints.fast"]),
    ({"generate": {"kind": "rail"}, "prices": {"qm9999": 1}}, ["prices.qm9999"]),
    ({"generate": {"kind": "rail"}, "sampling": "sobol"}, ["sampling"]),
    ({"generate": {"kind": "rail"}, "workloads": [{"model": "gpt"}]}, ["workloads"]),
    ({"gen": {"kind": "rail"}}, ["gen"]),
])
def test_bad_specs_are_refused_with_the_field_named(data, words):
    with pytest.raises(SweepSpecError) as err:
        expand(spec_from_dict(data))
    for w in words:
        assert w in str(err.value)


def test_a_value_refused_in_every_combination_is_a_spec_error():
    # a 64-port switch builds at most 65,536 GPUs in three tiers (k^3/4 for k = 64)
    data = {"generate": {"kind": "fat-tree", "gpus": [1024, 10_000_000], "tiers": 3}}
    with pytest.raises(SweepSpecError, match="gpus"):
        expand(spec_from_dict(data))


def test_yaml_and_json_syntax_errors_name_the_source():
    with pytest.raises(SweepSpecError, match="not valid JSON"):
        loads_spec('{"generate": ', "x.json")
    with pytest.raises(SweepSpecError, match="not valid YAML"):
        loads_spec("generate: [unclosed", "x.yaml")


def test_in_process_run_records_every_figure_and_a_failed_point():
    spec = spec_from_dict({"generate": [{"kind": "rail", "sus": [1, 2]},
                                        {"kind": "fat-tree", "gpus": 512}]})
    seen = []
    run = run_sweep(spec, workers=0, on_outcome=lambda o, d, n: seen.append((o.index, d, n)))
    assert sorted(i for i, _, _ in seen) == [0, 1, 2] and seen[-1][1:] == (3, 3)
    for o in run.outcomes.values():
        assert o.error is None
        assert o.metrics["gpus"] in (256, 512)
        # the DGX SuperPOD NDR rail design is non-blocking: 400 Gb/s of bisection per GPU
        assert o.metrics["bisection_per_gpu"] == pytest.approx(400)


def test_workload_figures_come_from_the_decision_analysis():
    """step_time, comm_fraction, TCO ... of a point are the decision analysis' figures for the
    point's workload on the point's design (designer estimate), and workloads are an axis."""
    from designer.core.analysis.estimates import estimate
    from designer.core.analysis.workload import preset
    from designer.core.solver import solve
    from designer.core.sweep import build, sweep_table

    spec = spec_from_dict({"generate": {"kind": "rail", "gear": ["ib-ndr", "roce-400"],
                                        "sus": [4]},
                           "workloads": [{"preset": "dense-70b-dp"}],
                           "objectives": ["step_time", "cost_per_gpu"],
                           "constraints": {"max_step_time": 100}})
    run = run_sweep(spec, workers=0)
    assert len(run.points) == 2 and {p.workload for p in run.points} == {0}
    table = sweep_table(run)
    assert table.best["max_step_time"] is not None
    for point in run.points:
        o = run.outcomes[point.index]
        assert o.error is None
        project = build(point)
        est = estimate(project, solve(project), preset("dense-70b-dp"))
        assert o.metrics["step_time"] == pytest.approx(est.step.step_s)
        assert o.metrics["tco_usd"] == pytest.approx(est.tco.total_usd)
        assert 0 < o.metrics["comm_fraction"] < 1


def test_an_unknown_workload_is_refused_before_anything_runs():
    with pytest.raises(SweepSpecError, match=r"workloads\[1\].*unknown preset 'llama-9000'"):
        expand(spec_from_dict({"generate": {"kind": "rail", "sus": [1]},
                               "workloads": [{"preset": "dense-70b-dp"},
                                             {"preset": "llama-9000"}],
                               "objectives": ["step_time"]}))


def test_a_price_axis_changes_the_cost_by_the_switch_count():
    spec = spec_from_dict({"generate": {"kind": "rail", "sus": 1},
                           "prices": {"qm9700": {"min": 30000, "max": 40000, "step": 10000}}})
    run = run_sweep(spec, workers=0)
    cost = [run.outcomes[p.index].metrics["network_cost_usd"] for p in run.points]
    switches = run.outcomes[0].metrics["switches"]  # 1 SU: 8 leaves + 4 spines, all QM9700
    assert switches == 12
    assert cost[1] - cost[0] == pytest.approx(switches * 10000)
