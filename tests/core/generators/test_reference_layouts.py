"""The rail defaults build the reference design each gear profile names.

Sources (each row of ``designer.core.generators.reference.REFERENCES``):
* NVIDIA DGX SuperPOD B200 RA, 'Larger DGX SuperPOD component counts' (QM9700, SU of 32
  DGX): 2 SU 16 leaf / 8 spine ... 16 SU 128 / 128 / 64 core ... 64 SU 512 / 512 / 256.
* NVIDIA DGX SuperPOD B300 XDR RA, Table 3 (Q3400, SU of 72 DGX B300): 1 SU 8 leaf / 4 spine,
  2 SU 16 / 8, 4 SU 32 / 18, 8 SU 64 / 36, 18 SU 144 / 72, two tiers throughout.
* NVIDIA DGX SuperPOD B300 (Spectrum-X) RA, Table 3 (SN5610 as 128 x 400G, two planes, SU of
  64 DGX B300): 1 SU 16 leaf / 8 spine ... 16 SU (8,192 GPUs) 256 / 128, two tiers.
* NVIDIA DGX SuperPOD GB200 RA: an SU is 8 DGX GB200 NVL72 racks (576 GPUs).
"""

from __future__ import annotations

import pytest

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict, plan
from designer.core.generators.reference import REFERENCES

CAT = builtin_catalog()
EIGHT_GPU_PROFILES = ("ib-ndr", "ib-xdr", "roce-400", "roce-800", "spectrum-x-800",
                      "amd-roce-400", "uec-800")


def _plan(**values):
    return plan(params_from_dict("rail", values), CAT)


CASES = [(pid, row) for pid, ref in REFERENCES.items() for row in ref.rows]


@pytest.mark.parametrize(("profile", "row"), CASES, ids=[f"{p}-{r.sus}su" for p, r in CASES])
def test_published_rows_come_out_by_default(profile, row):
    pl = _plan(gear=profile, sus=row.sus)
    got = (pl.switches.get("leaf", 0), pl.switches.get("spine", 0), pl.switches.get("core", 0))
    assert got == (row.leaves, row.spines, row.cores)
    assert pl.links["endpoint-leaf"] == pl.gpus * pl.planes
    assert "layout: published" in pl.details[0]


def test_b300_xdr_one_su_is_72_systems_on_8_leaves_4_spines():
    pl = _plan(gear="ib-xdr", gpus=576)  # B300 XDR RA Table 3, 1 SU
    assert (pl.servers, pl.switches) == (72, {"leaf": 8, "spine": 4})
    assert pl.links == {"endpoint-leaf": 576, "leaf-spine": 576}


def test_b300_xdr_18_sus_stay_on_two_tiers():
    pl = _plan(gear="ib-xdr", sus=18)  # B300 XDR RA Table 3: 144 leaf, 72 spine, no core
    assert "core" not in pl.switches or pl.switches["core"] == 0
    assert pl.gpus == 10_368


def test_spectrum_x_8192_gpus_two_tiers_not_doubled():
    pl = _plan(gear="spectrum-x-800", gpus=8192)  # B300 Spectrum-X RA Table 3, 16 SU
    assert pl.switches == {"leaf": 256, "spine": 128}


def test_xdr_2048_gpus_idles_only_the_last_su():
    """Was 5,376 idle ports ($4.48M) with SUs of 32 on 144-port leaves, then 544 with 18
    spines by the divisor rule; the balanced layout takes the 16 spines that have the ports
    (2,304 uplinks = 16 x 144), so only the last SU's empty slots idle."""
    pl = _plan(gear="ib-xdr", gpus=2048)
    K = 144
    assert pl.switches == {"leaf": 32, "spine": 16}
    ports = sum(pl.switches.values()) * K
    used = pl.links["endpoint-leaf"] + 2 * pl.links["leaf-spine"]
    last_su_idle = (4 * 72 - 256) * 8  # 32 empty slots of the 4th SU, 8 rails each
    assert ports - used == last_su_idle == 256


def test_published_row_keeps_its_uniform_striping():
    """B300 XDR RA Table 3, 4 SU: 18 spines where 16 have the ports, every leaf 4 links to
    each; built as published (its 288 idle spine ports are the reference's own)."""
    pl = _plan(gear="ib-xdr", sus=4)
    assert pl.switches == {"leaf": 32, "spine": 18}
    fab = generate(params_from_dict("rail", {"gear": "ib-xdr", "sus": 4}), CAT).fabric
    roles = [d.role.value for d in fab.devices]
    leaf_spine = [roles[a] == "leaf" and roles[b] == "spine"
                  for a, b in zip(fab.links.a.tolist(), fab.links.b.tolist(), strict=True)]
    assert set(fab.links.count[leaf_spine].tolist()) == {4}


@pytest.mark.parametrize("profile", EIGHT_GPU_PROFILES)
@pytest.mark.parametrize("servers", [1, 31, 64, 72, 100, 256, 577])
def test_no_leaf_port_idle_beyond_the_last_su(profile, servers):
    """Every rail leaf's ports are all used but the empty slots of a partial last SU."""
    pl = _plan(gear=profile, servers=servers)
    g = pl.gear
    S = g.leaf.radix // 2
    sus = -(-servers // S)
    leaf_ports = pl.switches["leaf"] * g.leaf.radix
    used = pl.links["endpoint-leaf"] + pl.links["leaf-spine"]
    assert leaf_ports - used == (sus * S - servers) * g.endpoints_per_server * pl.planes


def test_servers_per_su_given_is_kept_and_said():
    pl = _plan(gear="ib-xdr", sus=1, servers_per_su=32)
    assert pl.servers == 32 and "as given" in pl.details[0]


def test_gb200_su_is_eight_racks_and_the_plan_says_derived_and_what_idles():
    pl = _plan(gear="gb200-ib-ndr", sus=1)
    assert pl.gpus == 576 and pl.racks == 8  # DGX SuperPOD GB200 RA: SU = 8 racks
    assert pl.details[0].startswith("layout: derived")
    four = _plan(gear="gb200-ib-ndr", sus=4)
    # 2,304 NDR ports exceed the 2,048 a two-tier 1:1 fabric of 64-port switches holds
    # balanced: 72 spines x 32 uplinks = 2,304 = 36 cores x 64. Was 72/72/64 (1,792 core
    # ports idle: a spine position's core group had to divide the 32 uplinks), before that
    # 72/128/64 (pods of whole SUs, 5,376 idle)
    assert four.switches == {"leaf": 72, "spine": 72, "core": 36}
    ports = (72 + 36) * 64
    used = four.links["leaf-spine"] + 2 * four.links["spine-core"]
    assert ports - used == 0
    assert not any("ports idle" in d for d in four.details)
    assert any(d.startswith("balanced striping (derived)") for d in four.details)


def test_unpublished_profile_is_derived():
    pl = _plan(gear="uec-800", sus=1)
    assert pl.servers == 64 and "no published table" in pl.details[0]
