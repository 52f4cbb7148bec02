"""Generating rack-scale clusters and servers of any GPU:NIC ratio: the published counts (the
source beside each), the derived ones (said so in the plan), and one-line refusals."""

from __future__ import annotations

import pytest

from designer.core.errors import GeneratorError
from designer.core.generators import generate, params_from_dict, plan
from designer.core.solver import solve
from tests.core.fabric_checks import assert_wiring_invariants, links_by_layer, switches_by_role


def rail(**values):
    return params_from_dict("rail", values)


def test_gb200_superpod_su_is_8_racks_of_576_gpus(catalog):
    """DGX SuperPOD GB200 RA: an SU is 8 DGX GB200 racks (576 GPUs); each rack 18 compute
    trays and 9 NVLink switch trays; the SuperPOD scales to 128 racks, 9,216 GPUs (16 SUs)."""
    pl = plan(rail(gpus=576, gear="gb200-ib-ndr"))
    assert (pl.gpus, pl.racks, pl.servers) == (576, 8, 144)
    big = plan(rail(gpus=9216, gear="gb200-ib-ndr"))
    assert (big.racks, big.servers) == (128, 2304)
    assert "core" in big.switches  # past 2,048 GPUs QM9700 needs three tiers
    p = generate(rail(gpus=576, gear="gb200-ib-ndr"))
    r = solve(p)
    assert r.domains.count == 8 and r.domains.gpus == 72
    trays = {x.catalog_id: x.qty for x in r.bom.compute_lines}
    assert trays == {"gb200-nvl72": 144, "nvlink5-switch-tray": 72, "cdu-inrow-1350": 2}
    assert_wiring_invariants(p, catalog)


def test_rails_over_the_rack_and_what_is_derived():
    """The GB200 RA gives 4 ConnectX-7 per tray (one per GPU) but not the leaf counts: on
    64-port QM9700 a leaf takes 4 GPU positions of each of 8 racks (32 ports), 18 leaves an SU
    (576 / 32); the plan says the count is derived."""
    pl = plan(rail(gpus=576, gear="gb200-ib-ndr"))
    assert pl.switches["leaf"] == 18
    assert any("derived" in d and "18 rail leaves" in d for d in pl.details)
    # 576 uplinks fill 9 spines of 64 ports: balanced striping takes 9 (3-4 links from each
    # leaf to each); the divisor rule took 16 and idled 448 spine ports
    assert pl.switches["spine"] == 9
    assert not any("ports idle" in d for d in pl.details)
    # 3 SUs (1,728 GPUs) are the most two tiers of 64-port switches hold; 4 need a core
    assert "core" not in plan(rail(gpus=1728, gear="gb200-ib-ndr")).switches
    assert "core" in plan(rail(gpus=2304, gear="gb200-ib-ndr")).switches


def test_nvl72_on_xdr_matches_the_b300_xdr_su():
    """DGX SuperPOD B300 XDR RA, Table 3: 1 SU = 576 GPUs on Q3400, 8 leaves, 4 spines, 576 +
    576 cables. An SU of 8 NVL72 racks on the same switches has the same counts (each leaf
    takes 9 GPU positions of every rack)."""
    for values in ({"gpus": 576, "server": "gb200-nvl72", "gear": "ib-xdr"},
                   {"gpus": 576, "gear": "gb300-ib-xdr"}):
        pl = plan(rail(**values))
        assert pl.switches == {"leaf": 8, "spine": 4}
        assert pl.links == {"endpoint-leaf": 576, "leaf-spine": 576}


@pytest.mark.parametrize(("sus", "leaf", "spine"), [(1, 8, 4), (2, 16, 8), (4, 32, 18),
                                                     (8, 64, 36)])
def test_b300_xdr_table_3(sus, leaf, spine):
    """DGX SuperPOD B300 XDR RA, Table 3 (72 nodes an SU): 1/2/4/8 SUs."""
    pl = plan(rail(sus=sus, gear="ib-xdr", servers_per_su=72))
    assert (pl.switches["leaf"], pl.switches["spine"]) == (leaf, spine)
    assert pl.links["endpoint-leaf"] == pl.links["leaf-spine"] == sus * 576


def test_amd_mi3xx_reference_limits():
    """AMD Instinct MI3XX reference design: clusters 'up to 8192 GPUs' on two tiers. With one
    400G NIC per GPU on 64 x 800G switches split as 128 x 400G, 8,192 is the two-tier limit
    (2 x 64^2): 128 leaves, 64 spines; one SU more needs a third tier (derived)."""
    pl = plan(rail(gpus=8192, gear="amd-roce-400", servers_per_su=64))
    assert pl.switches == {"leaf": 128, "spine": 64}
    with pytest.raises(GeneratorError, match="at most 8,192 GPUs"):
        plan(rail(gpus=8704, gear="amd-roce-400", servers_per_su=64, tiers=2,
                  spine_switch="th5-64x800"))
    # the guide's 'full 128 node cluster with 64 port switches' (1,024 GPUs, 64-port leaves):
    # 32 rail leaves of 32 servers, 16 spines (derived)
    pl = plan(rail(gpus=1024, server="mi300x-8", gear="roce-400", radix=64))
    assert pl.switches == {"leaf": 32, "spine": 16}


def test_rubin_gets_a_plane_per_nic_port():
    """Vera Rubin NVL72: two 800G NIC ports per GPU, one plane each (said in the plan)."""
    pl = plan(rail(gpus=576, server="vr-nvl72", gear="ib-xdr"))
    assert pl.planes == 2 and pl.links["endpoint-leaf"] == 1152
    assert any(d.startswith("planes: 2") for d in pl.details)


def test_gpus_sharing_nics():
    """8 GPUs on 4 NICs: GPUs 2k and 2k+1 share NIC k (NCCL's affinity), 4 rails, and each GPU
    gets half a NIC's 400G in the solve."""
    p = generate(rail(sus=1, server="gpu-server-8", nics=4, servers_per_su=16))
    pl = plan(rail(sus=1, server="gpu-server-8", nics=4, servers_per_su=16))
    assert pl.switches["leaf"] == 4 and pl.links["endpoint-leaf"] == 64
    r = solve(p)
    assert r.gpus == 128 and r.unconnected_gpus == 0
    assert r.bisection.per_gpu_rate_gbps == pytest.approx(200.0)


def test_fat_tree_of_racks():
    p = generate(params_from_dict("fat-tree", {"gpus": 576, "server": "gb200-nvl72"}))
    # balanced striping: 18 leaves x 32 uplinks = 576 = 9 spines x 64, none idle (the divisor
    # rule, --striping uniform, takes 16 spines: 16 divide the 32 uplinks)
    assert switches_by_role(p) == {"leaf": 18, "spine": 9}
    u = generate(params_from_dict("fat-tree", {"gpus": 576, "server": "gb200-nvl72",
                                               "striping": "uniform"}))
    assert switches_by_role(u) == {"leaf": 18, "spine": 16}
    assert links_by_layer(p)["endpoint-leaf"] == 576
    r = solve(p)
    assert r.domains.count == 8 and r.hops.pairs == 576 * (576 - 72) // 2


@pytest.mark.parametrize(("kind", "values", "message"), [
    ("rail", {"gpus": 600, "server": "gb200-nvl72"},
     "not a whole number of 18-tray 'gb200-nvl72' racks .* use a multiple of 72"),
    ("fat-tree", {"gpus": 100, "server": "gb200-nvl72"}, "use a multiple of 72"),
    ("rail", {"server": "gb200-nvl72", "nics": 3}, "do not fit the 4 cages"),
    ("rail", {"server": "gb200-nvl72", "servers_per_su": 32}, "use --racks-per-su"),
    ("rail", {"racks_per_su": 4}, "is for rack-scale systems"),
    ("rail", {"server": "gb200-nvl72", "sus": 4, "gpus": 576}, "fill 1 SU"),
    ("rail", {"servers": 20, "server": "gb200-nvl72"}, "use a multiple of 18"),
])
def test_refusals_are_one_line(kind, values, message):
    with pytest.raises(GeneratorError, match=message) as exc:
        plan(params_from_dict(kind, values))
    assert "\n" not in str(exc.value)


def test_cli_builds_the_issue_command(tmp_path, capsys):
    from designer.cli.main import main

    f = tmp_path / "nvl.fabric.json"
    assert main(["generate", "rail", "--server", "gb200-nvl72", "--gpus", "576", "--gear",
                 "ib-xdr", "-o", str(f)]) == 0
    out = capsys.readouterr().out
    assert "576 GPUs in 8 racks (144 trays)" in out and "ConnectX-8" in out
    assert main(["generate", "rail", "--server", "gb200-nvl72", "--units", "2", "--plan"]) == 0
    assert "1,152 GPUs in 16 racks" in capsys.readouterr().out
    assert main(["generate", "fat-tree", "--server", "gb200-nvl72", "--gpus", "576",
                 "--plan"]) == 0
    # a prefix of an option is never taken for another (--gpu is not --gpus-per-server)
    with pytest.raises(SystemExit) as stop:
        main(["generate", "rail", "--server", "gb200-nvl72", "--gpu", "576", "--plan"])
    assert stop.value.code == 2 and "unrecognized arguments: --gpu" in capsys.readouterr().err
