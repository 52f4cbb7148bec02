"""The command line of a fair verdict: compare --profiles at each technology's best (and
--as-drawn), ports unused in text and JSON, the premium line, estimate's NCCL settings and
constants, --under ecmp with --qps."""

from __future__ import annotations

import json

from designer.cli.main import main
from designer.core.paths import projects_dir

NDR = str(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json")
ROCE = str(projects_dir() / "dgx-superpod-4su-roce-400.fabric.json")


def run(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_compare_profiles_at_their_best(capsys):
    d = json.loads(run(capsys, "compare", NDR, "--profiles", "ib-ndr,roce-400", "--json"))
    ib, roce = d["designs"]
    assert roce["switches"] == 24 and roce["ports_unused"] == 0
    assert "servers under their leaf (ToR)" in roce["layout"] and "$940,800" in roce["layout"]
    assert ib["ports_unused"] == 0 and ib["ports_unused_usd"] == 0
    assert d["premium"]["total"] > 0 and d["premium"]["published_range"] == [0.15, 0.30]
    drawn = json.loads(run(capsys, "compare", NDR, "--profiles", "ib-ndr,roce-400",
                           "--as-drawn", "--json"))
    assert drawn["designs"][1]["ports_unused"] == 2048
    assert drawn["designs"][1]["ports_unused_usd"] == 940800


def test_compare_text_is_symmetric(capsys):
    a = run(capsys, "compare", NDR, "--profiles", "ib-ndr,roce-400")
    b = run(capsys, "compare", ROCE, "--profiles", "roce-400,ib-ndr")
    ra = next(x for x in a.splitlines() if x.startswith("Recommendation"))
    rb = next(x for x in b.splitlines() if x.startswith("Recommendation"))
    assert ra == rb and "cost per step (network and servers) decides" in ra
    assert "n/a" not in next(x for x in a.splitlines() if x.startswith("Switch ports unused"))
    assert "InfiniBand premium" in a


def test_estimate_names_nccl_settings_and_constants(capsys):
    out = run(capsys, "estimate", NDR)
    assert "IB SHARP off" in out and "NCCL_COLLNET_ENABLE=1" in out
    assert "compute_efficiency" in out and "assumption" in out
    d = json.loads(run(capsys, "estimate", NDR, "--json"))
    assert d["fabric"]["nccl"] == {"channels_per_nic": 2, "qps_per_connection": 1,
                                   "collnet_enable": 0}
    assert {c["field"] for c in d["constants"]} >= {"compute_efficiency", "overlap_dp"}


def test_estimate_under_ecmp_takes_queue_pairs(capsys):
    d = json.loads(run(capsys, "estimate", ROCE, "--under", "ecmp", "--qps", "4", "--trials",
                       "1", "--json"))
    assert "4 queue pair(s)" in d["fabric"]["routing"]
    assert d["fabric"]["nccl"]["qps_per_connection"] == 4


def test_whatif_n1_leaf_costs_the_stranded_gpus(capsys):
    out = run(capsys, "whatif", NDR, "--n-1", "leaf")
    assert "stranded GPUs 32" in out and "$1,536/day" in out
