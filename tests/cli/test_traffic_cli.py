"""``designer load`` and ``designer whatif``: the JSON keys the issue names, and clear errors."""

from __future__ import annotations

import json

import pytest

from designer.cli.main import main
from designer.core.paths import projects_dir

SU4 = str(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json")


def run_json(capsys, *args) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_load_json_keys(capsys):
    j = run_json(capsys, "load", SU4, "--pattern", "permutation", "--routing", "ecmp",
                 "--flows-per-pair", "4", "--trials", "2")
    assert {"pattern", "routing", "throughput", "completion", "links", "hot_links"} <= set(j)
    assert set(j["throughput"]) == {"min", "p1", "p50", "mean"}
    assert "slowdown" in j["completion"]
    assert {"max_utilisation", "by_tier"} <= set(j["links"])
    assert j["routing"] == "ecmp" and j["flows_per_pair"] == 4 and j["trials"] == 2
    assert j["hot_links"] and {"from", "to", "layer", "utilisation"} <= set(j["hot_links"][0])


def test_load_defaults_to_static_routing_on_infiniband(capsys):
    j = run_json(capsys, "load", SU4, "--pattern", "ring")
    assert j["routing"] == "static" and j["throughput"]["min"] == pytest.approx(1.0)


def test_whatif_json_keys(capsys):
    j = run_json(capsys, "whatif", SU4, "--fail", "spine:3", "--routing", "adaptive")
    assert {"failed", "bisection_retained", "oversubscription", "stranded_gpus", "throughput",
            "slowdown"} <= set(j)
    assert j["failed"] == ["spine:3"] and j["bisection_retained"] == pytest.approx(15 / 16)
    j = run_json(capsys, "whatif", SU4, "--n-1", "spine", "--routing", "adaptive")
    assert j["tier"] == "spine" and j["rows"][0]["members"] == 16


@pytest.mark.parametrize("args, message", [
    (["whatif", SU4, "--fail", "spine:99"], "numbered 1..16"),
    (["whatif", SU4, "--fail", "nosuch"], "expected a device id"),
    (["whatif", SU4, "--n-1", "racks"], "choose a switch tier"),
    (["load", SU4, "--pattern", "nosuch"], "unknown pattern"),
])
def test_bad_input_exits_2_with_a_message(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("designer: ") and message in err and "Traceback" not in err


def test_zero_trials_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        main(["load", SU4, "--trials", "0"])
    assert e.value.code == 2
    assert "--trials: 0 is outside 1 to 10,000" in capsys.readouterr().err


@pytest.mark.parametrize("routing", ["static", "ecmp", "valiant", "spray", "adaptive"])
def test_all_to_all_answers_under_every_routing_at_1024_gpus(capsys, routing):
    """1,040,384 connections are too many to route one by one: every routing is solved by GPU
    class, and the output says how."""
    j = run_json(capsys, "load", SU4, "--pattern", "all-to-all", "--routing", routing)
    # 'adaptive' is spraying's former name: accepted, answered as spray
    assert j["routing"] == {"adaptive": "spray"}.get(routing, routing)
    assert j["connections"] == 1024 * 1016
    assert "by GPU class" in j["model"]
    assert 0 < j["throughput"]["min"] <= j["throughput"]["p50"] <= 1.0


def test_all_to_all_uses_the_technology_default_routing(capsys):
    j = run_json(capsys, "load", SU4, "--pattern", "all-to-all")
    assert j["routing"] == "static" and j["throughput"]["min"] == pytest.approx(1.0)


def test_hot_links_name_each_device_pair_once(capsys):
    j = run_json(capsys, "load", str(projects_dir() / "dgx-superpod-4su-roce-400.fabric.json"),
                 "--pattern", "permutation")
    pairs = [frozenset((h["from"], h["to"])) for h in j["hot_links"]]
    assert len(pairs) == len(set(pairs)) == 10
    assert all(h["cables"] >= 1 for h in j["hot_links"])


ROCE = str(projects_dir() / "dgx-superpod-4su-roce-400.fabric.json")


def test_load_on_lossless_roce_runs_pfc_blocking_by_default_and_says_so(capsys):
    pfc = run_json(capsys, "load", ROCE, "--pattern", "permutation")
    assert pfc["routing"] == "ecmp" and pfc["lossless"]["model"] == "pfc"
    assert "PFC" in pfc["model"] and "upstream" in pfc["lossless"]["text"]
    fluid = run_json(capsys, "load", ROCE, "--pattern", "permutation", "--lossless", "off")
    assert fluid["lossless"]["model"] == "off" and "PFC" not in fluid["model"]
    # the same hash draw: PFC's pauses only slow flows, and slow some here
    assert pfc["throughput"]["mean"] < fluid["throughput"]["mean"]
    assert pfc["throughput"]["min"] <= fluid["throughput"]["min"]
    ports = run_json(capsys, "load", ROCE, "--pattern", "permutation", "--lossless", "ports")
    assert ports["lossless"]["model"] == "ports" and "ingress ports" in ports["model"]
    # InfiniBand (credits) and spraying: the fluid model, by default
    assert run_json(capsys, "load", SU4, "--pattern", "ring")["lossless"]["model"] == "off"
    sprayed = run_json(capsys, "load", ROCE, "--pattern", "ring", "--routing", "spray")
    assert sprayed["lossless"]["model"] == "off"
    # a class-level all-to-all has no flow to pause: it says the fluid model ran
    a2a = run_json(capsys, "load", ROCE, "--pattern", "all-to-all", "--lossless", "pfc")
    assert a2a["lossless"]["model"] == "off"


@pytest.mark.parametrize("args, message", [
    (["--lossless", "pfc", "--routing", "spray"], "no hashed hot port"),
    (["--lossless", "ports", "--transport", "uec"], "has no PFC"),
    (["--lossless", "sometimes"], "invalid choice"),
])
def test_a_lossless_model_where_it_does_not_apply_is_refused(capsys, args, message):
    try:
        code = main(["load", ROCE, *args])
    except SystemExit as e:  # argparse's own refusal
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
