"""Bill of materials, media choice, power and rack units, counted from the actual links."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.generators import generate, params_from_dict
from designer.core.links import MEDIA
from designer.core.model import Overrides, Project
from designer.core.solver import choose_media, solve


def lines(r) -> dict[str, int]:
    return {x.catalog_id: x.qty for x in r.bom.lines}


def with_lengths(p: Project, metres: float, medium: str = "auto") -> Project:
    links = p.fabric.links
    idx = np.arange(len(links))
    links = links.replace(idx, length_m=metres, medium=MEDIA.index(medium))
    return p.with_fabric(p.fabric.with_links(links))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([
    ("rail", {"sus": 1}), ("rail", {"sus": 3}), ("rail", {"sus": 6, "gear": "roce-400"}),
    ("rail", {"sus": 2, "gear": "ib-xdr"}), ("rail", {"sus": 2, "gear": "roce-800"}),
    ("rail", {"sus": 2, "reserve_leaf_ports": 4}), ("fat-tree", {"gpus": 512}),
    ("fat-tree", {"gpus": 1280, "oversubscription": "2:1"}), ("fat-tree", {"k_ary": 6}),
    ("dragonfly", {"a": 4, "p": 2, "h": 2}),
    ("dragonfly", {"a": 6, "p": 3, "h": 3, "gpus_per_server": 2}),
]), st.sampled_from([1.0, 2.5, 4.0, None, 80.0]))
def test_lines_add_up(design, metres):
    kind, values = design
    p = generate(params_from_dict(kind, values))
    if metres is not None:
        p = with_lengths(p, metres)
    r = solve(p)
    bom = r.bom
    for x in bom.lines:
        assert x.qty > 0
        assert x.total_usd == pytest.approx(x.qty * x.unit_usd)
        assert x.power_w == pytest.approx(x.qty * x.unit_power_w)
    assert bom.total_usd == pytest.approx(sum(x.total_usd for x in bom.lines))
    assert bom.per_gpu_usd == pytest.approx(bom.total_usd / r.gpus)
    assert r.power_w == pytest.approx(sum(x.power_w for x in bom.lines))
    # every link has a medium: cables and optics cover all of them
    m = r.media
    assert (m.medium_class > 0).all()
    optical = m.fibre >= 0
    copper = m.cable >= 0
    assert (optical ^ copper).all()
    q = lines(r)
    fibres = sum(v for k, v in q.items() if k.startswith("fiber"))
    assert fibres == int(optical.sum())  # one fibre per optical link
    # servers are compute: listed apart, not in the total
    assert all(x.category != "server" for x in bom.lines)
    assert sum(x.qty for x in bom.compute_lines) == r.servers


def test_dgx_superpod_4su_counts():
    r = solve(generate(params_from_dict("rail", {"sus": 4})))
    q = lines(r)
    assert q["qm9700"] == 48
    assert q["connectx-7"] == 1024
    # default lengths (10 m to the leaf, 30 m up) need multimode optics: twin-port modules
    # serve two ports of a cage: 48 switches x 64 ports / 2
    assert q["osfp-2x400g-sr8"] == 48 * 64 // 2
    # node side: a DGX H100 reaches its 8 ConnectX-7 ports through 4 twin-port OSFP cages,
    # "a two-port transceiver to access all eight GPUs" (DGX SuperPOD H100 RA, network
    # fabrics page): 128 nodes x 4 twin-port modules, no single-port module
    assert q["osfp-2x400g-sr8-flt"] == 128 * 4
    assert "osfp-400g-sr4" not in q
    assert q["fiber-mmf-mpo"] == 2048  # one per link
    assert r.rack_units == 48  # QM9700 is 1U
    assert r.power_by_category["switch"] == 48 * 750


def test_short_links_use_copper_twin_and_splitter_cables():
    # a generic server has single-port NIC cages, which a splitter cable reaches
    p = with_lengths(generate(params_from_dict("rail", {"sus": 4, "server": "gpu-server-8"})),
                     1.0)
    q = lines(solve(p))
    # one splitter per leaf cage (two NIC ports), one twin cable per leaf-spine cage pair
    assert q["dac-800g-to-2x400g"] == 1024 // 2
    assert q["dac-2x400g"] == 1024 // 2
    assert not any(k.startswith(("osfp", "fiber")) for k in q)


def test_active_copper_then_single_mode_by_reach():
    base = generate(params_from_dict("rail", {"sus": 2}))
    assert "acc-2x400g" in lines(solve(with_lengths(base, 4.0)))
    q = lines(solve(with_lengths(base, 80.0)))
    assert "osfp-2x400g-dr8" in q and "fiber-smf-mpo" in q and "osfp-2x400g-sr8" not in q


def test_xdr_has_no_dac_and_no_multimode():
    base = generate(params_from_dict("rail", {"sus": 2, "gear": "ib-xdr"}))
    short = solve(with_lengths(base, 1.0))
    assert set(np.unique(short.media.medium_class).tolist()) == {MEDIA.index("acc")}
    mid = solve(with_lengths(base, 20.0))
    assert set(np.unique(mid.media.medium_class).tolist()) == {MEDIA.index("smf")}
    forced = solve(with_lengths(base, 1.0, medium="dac"))
    assert any(x.code == "medium-unavailable" for x in forced.problems)
    assert (forced.media.medium_class == MEDIA.index("acc")).all()  # still costed


def test_a_forced_medium_wins_over_the_cheapest():
    base = generate(params_from_dict("rail", {"sus": 2}))
    r = solve(with_lengths(base, 1.0, medium="smf"))
    assert (r.media.medium_class == MEDIA.index("smf")).all()
    assert not any(x.code.startswith("medium") for x in r.problems)


def test_too_long_is_flagged_and_costed_with_the_longest_reach():
    base = generate(params_from_dict("rail", {"sus": 2}))
    r = solve(with_lengths(base, 5000.0))
    assert any(x.code == "medium-reach" for x in r.problems)
    assert not r.media.reach_ok.any()
    assert "osfp-2x400g-2xfr4" in lines(r)  # 2 km reach, the farthest switch-switch optic


def test_price_overrides_change_the_bill():
    p = generate(params_from_dict("rail", {"sus": 2}))
    cheap = p.model_copy(update={"overrides": Overrides(prices={"qm9700": 1000.0},
                                                        gear=p.overrides.gear)})
    a, b = solve(p), solve(cheap)
    assert a.bom.total_usd - b.bom.total_usd == pytest.approx(24 * (36000 - 1000))


def test_nic_overrides_on_a_server_are_counted():
    p = generate(params_from_dict("rail", {"sus": 1}))
    devices = list(p.fabric.devices)
    devices[0] = devices[0].model_copy(update={"nic": "bluefield-3"})
    r = solve(p.with_fabric(p.fabric.with_devices(tuple(devices))))
    q = lines(r)
    assert q["bluefield-3"] == 8
    assert q["connectx-7"] == 31 * 8


def test_choose_media_follows_the_expanded_link_order():
    p = generate(params_from_dict("fat-tree", {"gpus": 512}))
    m = choose_media(p)
    e = p.fabric.links.expand()
    assert len(m) == e["a"].shape[0]
    row = m.row(0)
    assert row["layer"] == "endpoint-leaf" and row["medium"] == "mmf"
    # the server end gets the module its cage takes (a DGX H100's twin-port OSFP cage: the
    # flat-top twin-port module, DGX SuperPOD H100 RA, network fabrics page), the leaf end
    # the switch's twin-port one
    a_is_server = p.fabric.devices[int(e["a"][0])].role.value == "gpu-server"
    nic_end = row["a_module"] if a_is_server else row["b_module"]
    assert nic_end == "osfp-2x400g-sr8-flt"
