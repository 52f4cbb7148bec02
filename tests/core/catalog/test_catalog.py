"""The gear catalog: required gear present, figures sourced, user and project additions."""

from __future__ import annotations

import json

import pytest

from designer.core.catalog import Catalog, MediumSpec, SwitchSpec, load_catalog, read_catalog_file
from designer.core.errors import CatalogError, UnknownGear

REQUIRED = {
    # DOMAIN.md section 2
    "qm9700": (64, 400), "qm9790": (64, 400), "q3400": (144, 800), "sn5600": (64, 800),
    "th5-64x800": (64, 800), "th6-102t": (64, 1600), "j3ai-chassis": (576, 800),
}


@pytest.mark.parametrize(("gear_id", "ports_speed"), REQUIRED.items())
def test_switches_have_published_ports(catalog, gear_id, ports_speed):
    sw = catalog.switch(gear_id)
    assert (sw.modes[0].ports, sw.modes[0].speed_gbps) == ports_speed


def test_twin_port_and_breakout_modes(catalog):
    # QM9700: 32 twin-port OSFP cages = 64 NDR ports; SN5600: 64 x 800G or 128 x 400G
    assert catalog.switch("qm9700").cages == 32
    assert catalog.switch("qm9700").ports_per_cage(400) == 2
    assert catalog.switch("sn5600").mode(400).ports == 128
    assert catalog.switch("sn5600").ports_per_cage(400) == 2
    assert catalog.switch("q3400").ports_per_cage(800) == 2


def test_nics_and_servers(catalog):
    # ConnectX-8: 800G XDR or 2 x 400GbE, no single 800GbE port (DOMAIN.md section 2)
    cx8 = catalog.nic("connectx-8")
    assert cx8.mode_for(800, "ib-xdr").ports == 1
    assert cx8.mode_for(400, "eth").ports == 2
    assert cx8.mode_for(800, "eth") is None
    for server in ("dgx-h100", "dgx-b200", "dgx-b300", "gpu-server-8"):
        s = catalog.server(server)
        assert s.gpus == 8 and s.nics == 8
    assert catalog.nic("bluefield-3").modes[0].speed_gbps == 400


def test_xdr_has_no_dac_and_no_multimode(catalog):
    xdr = [m for m in catalog.of_kind("transceiver", "cable", "fiber") if "ib-xdr" in m.techs]
    assert xdr, "the catalog must carry XDR media"
    assert all(m.medium_class in {"acc", "smf"} for m in xdr)


def test_every_item_states_source_and_confidence(catalog):
    for item in catalog:
        if item.id.startswith("generic"):
            continue
        assert item.figures, f"{item.id} has no sourced figures"
        assert all(f.source and f.confidence in "HML" for f in item.figures)
        # prices are estimates: a price figure is flagged as such with low confidence
        assert item.price_usd >= 0


def test_profiles_resolve(catalog):
    assert set(catalog.profiles) == {
        "ib-ndr", "ib-xdr", "roce-400", "roce-800",
        # rack-scale systems on InfiniBand and Spectrum-X, and AMD on RoCE (issue 22)
        "gb200-ib-ndr", "gb300-ib-xdr", "gb300-spectrum-x", "vr-ib-xdr", "vr-spectrum-x",
        "amd-roce-400",
        # the transports' profiles (issue 23)
        "spectrum-x-800", "uec-800",
        # RoCE on merchant silicon from several vendors, third-party optics
        "mv-roce-400",
    }
    assert catalog.profile("roce-800").planes == 2
    with pytest.raises(CatalogError, match="unknown gear profile"):
        catalog.profile("ib-hdr")


def test_unknown_gear_suggests_close_ids(catalog):
    with pytest.raises(UnknownGear, match=r"did you mean .*qm9700"):
        catalog.get("qm970")


def test_user_catalog_adds_gear(tmp_path):
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"schema_version": 1, "items": [{
        "kind": "switch", "id": "my-switch", "name": "My 32-port switch", "cages": 32,
        "modes": [{"ports": 32, "speed_gbps": 400, "techs": ["eth"]}],
        "latency_ns": 700, "power_w": 500, "price_usd": 9000,
        "figures": [{"what": "quote", "source": "vendor quote", "confidence": "H"}],
    }]}))
    cat = load_catalog(f)
    assert isinstance(cat.get("my-switch"), SwitchSpec)
    assert "qm9700" in cat


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ('{"schema_version": 1, "items": [{"kind": "switch", "id": "x"}]}', "items"),
    ('{"schema_version": 1, "items": [{"kind": "robot", "id": "x"}]}', "items"),
])
def test_bad_user_catalog_is_a_catalog_error(tmp_path, text, message):
    f = tmp_path / "bad.json"
    f.write_text(text)
    with pytest.raises(CatalogError, match=message):
        read_catalog_file(f)


def test_price_override_makes_a_new_catalog(catalog):
    cheaper = catalog.with_prices({"qm9700": 1000.0})
    assert cheaper.price("qm9700") == 1000.0
    assert catalog.price("qm9700") != 1000.0
    with pytest.raises(UnknownGear):
        catalog.with_prices({"nope": 1.0})


def test_media_declare_what_they_join(catalog):
    for m in catalog.of_kind("transceiver", "cable", "fiber"):
        assert isinstance(m, MediumSpec)
        if m.kind == "cable":
            assert m.joins in {"switch-switch", "switch-nic"}
        if m.kind == "transceiver":
            assert m.reach_m > 2


def test_catalog_requires_known_references():
    from designer.core.catalog import ServerSpec

    with pytest.raises(UnknownGear):
        Catalog([ServerSpec(id="s", name="s", gpus=8, nic="missing-nic", nics=8,
                            price_usd=0, power_w=0)])
