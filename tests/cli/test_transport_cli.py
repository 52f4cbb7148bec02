"""Transports on the command line and in the figures: ``designer load --pattern incast --json``
names the transport model it ran, the estimates' expert all-to-all by transport, the switch
configs' QoS profile, and ``compare --profiles`` / ``--transports`` columns."""

from __future__ import annotations

import json

import pytest

from designer.cli.main import main
from designer.core.analysis.estimates import estimate
from designer.core.analysis.workload import PRESETS
from designer.core.catalog import builtin_catalog
from designer.core.ethernet.configs import write_configs
from designer.core.fileformat import save_project
from designer.core.generators import generate, params_from_dict
from designer.core.solver import solve


@pytest.fixture(scope="module")
def roce(tmp_path_factory):
    p = generate(params_from_dict("fat-tree", {"gpus": 1024, "gear": "roce-400"}))
    f = tmp_path_factory.mktemp("t") / "roce.fabric.json"
    save_project(p, f)
    return p, f


def _json(capsys, *args) -> dict:
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_load_incast_json_names_the_transport_model(roce, capsys):
    _, f = roce
    j = _json(capsys, "load", str(f), "--pattern", "incast", "--json")
    assert j["transport"]["id"] == "roce" and j["routing"] == "ecmp"
    assert "DCQCN" in j["transport"]["model"] and "PFC" in j["transport"]["model"]
    x = j["incast"]
    assert x["transport"] == "roce" and x["fan_in"] == 16 and x["message_bytes"] == 2**20
    for key in ("completion_us", "queue_peak_bytes", "paused_us", "victim_throughput",
                "retransmit_share", "held_links", "rtt_us", "assumptions", "sources"):
        assert key in x
    assert x["held_links"] > 0  # the links a PFC pause would hold, counted on the routes
    # under Ultra Ethernet: sprayed (adaptive) by default, trimming, nothing held back
    u = _json(capsys, "load", str(f), "--pattern", "incast", "--json", "--transport", "uec")
    assert u["routing"] == "spray" and u["incast"]["held_links"] == 0
    assert u["incast"]["queue_peak_bytes"] < x["queue_peak_bytes"]
    # a pattern other than incast still names its transport, without an incast block
    p = _json(capsys, "load", str(f), "--pattern", "permutation", "--json")
    assert p["transport"]["id"] == "roce" and "incast" not in p


def test_load_refuses_a_transport_of_other_gear(roce, capsys):
    _, f = roce
    assert main(["load", str(f), "--transport", "infiniband"]) != 0
    assert "does not run on Ethernet gear" in capsys.readouterr().err


def test_moe_all_to_all_pays_for_hashing_not_for_spraying(roce):
    p, _ = roce
    cat = builtin_catalog()
    r = solve(p, catalog=cat)
    # EP128 spans two 64-GPU leaves: its all-to-all crosses the hashed uplinks
    w = PRESETS["deepseek-v3-like"].model_copy(update={"gpus": 1024, "pp": 4, "ep": 128})
    e = {t: estimate(p.evolve(transport=t), r, w) for t in ("roce", "spectrum-x", "uec")}
    ep = {t: next(x.exposed_s for x in v.step.parts if x.kind == "ep") for t, v in e.items()}
    assert ep["roce"] > ep["spectrum-x"] == pytest.approx(ep["uec"])
    assert e["roce"].transport_json()["all_to_all_spread"] > 1.0
    assert e["uec"].transport_json()["all_to_all_spread"] == 1.0
    # the DP all-reduce (rings) does not change with the transport
    dp = {t: next(x.time_s for x in v.step.parts if x.kind == "dp") for t, v in e.items()}
    assert dp["roce"] == pytest.approx(dp["uec"])
    # TCO: the transport's tuning weeks when the project sets none (six for RoCE)
    assert e["roce"].tco.tuning_usd == 60_000 and e["spectrum-x"].tco.tuning_usd == 20_000


def test_switch_configs_follow_the_transport(roce, tmp_path):
    p, _ = roce
    cat = builtin_catalog()
    for t, lossless in ((None, True), ("uec", False)):
        out = tmp_path / str(t)
        write_configs(p.evolve(transport=t), cat, out)
        cfg = json.loads(next((out / "switches").glob("*/config_db.json")).read_text())
        port = next(iter(cfg["PORT_QOS_MAP"].values()))
        assert ("pfc_enable" in port) is lossless
        assert ("SWITCH_TRIMMING" in cfg) is not lossless
        if not lossless:  # SONiC packet trimming: trim to headers, send on the CNP queue
            assert cfg["SWITCH_TRIMMING"]["GLOBAL"] == {"size": "128", "dscp_value": "48",
                                                        "queue_index": "6"}
            assert cfg["BUFFER_PROFILE"]["q_lossy_trim_profile"][
                "packet_discard_action"] == "trim"
            assert not cfg["PFC_WD"]
            assert "PFC" in (out / "tuning.txt").read_text()


def test_compare_profiles_gives_one_column_each(roce, capsys):
    _, f = roce
    j = _json(capsys, "compare", str(f), "--profiles", "roce-400,spectrum-x-800,uec-800,ib-ndr",
              "--json")
    assert [d["profile"] for d in j["designs"]] == ["roce-400", "spectrum-x-800", "uec-800",
                                                    "ib-ndr"]
    assert [d["label"] for d in j["designs"]] == ["RoCE 400G", "Spectrum-X 800G", "UEC 800G",
                                                  "IB NDR"]
    t = _json(capsys, "compare", str(f), "--transports", "roce,spectrum-x,uec,mrc", "--json")
    assert [d["label"] for d in t["designs"]] == ["RoCE ECMP", "Spectrum-X", "Ultra Ethernet",
                                                  "MRC"]
    caps = {d["capex_usd"] for d in t["designs"]}
    assert len(caps) == 1  # the same gear: only what the transport changes moves


def test_catalog_lists_profiles_with_their_transport(capsys):
    j = _json(capsys, "catalog", "--json")
    by = {p["id"]: p["transport"] for p in j["profiles"]}
    assert by["uec-800"] == "uec" and by["spectrum-x-800"] == "spectrum-x"
    assert {t["id"] for t in j["transports"]} == {"infiniband", "roce", "spectrum-x", "uec",
                                                  "mrc"}
