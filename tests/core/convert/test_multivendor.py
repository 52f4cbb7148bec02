"""Multi-vendor Ethernet: merchant-silicon switches from several vendors, non-NVIDIA NICs and
third-party optics at dated street prices, and the mv-roce-400 profile that buys them; the
InfiniBand premium against it is computed from those prices, each shown with its source."""

from __future__ import annotations

import json

import orjson
import pytest

from designer.cli.main import main
from designer.core.catalog import MediumSpec, ServerSpec, builtin_catalog
from designer.core.convert import convert_profile
from designer.core.fileformat import load_project
from designer.core.generators import generate, params_from_dict
from designer.core.paths import projects_dir, resources_dir
from designer.core.solver import solve

PROFILE = "mv-roce-400"
NDR = str(projects_dir() / "dgx-superpod-4su-ib-ndr.fabric.json")


@pytest.fixture(scope="module")
def catalog():
    return builtin_catalog()


def _new_items() -> list[dict]:
    return orjson.loads((resources_dir() / "catalog" / "multivendor.json").read_bytes())["items"]


def test_every_new_item_has_a_vendor_and_a_dated_price_source(catalog):
    items = _new_items()
    assert {"switch", "nic", "transceiver", "server"} <= {i["kind"] for i in items}
    vendors = {i["vendor"] for i in items if i["kind"] == "switch"}
    assert {"FS", "Arista", "Celestica", "Edgecore (Accton)", "Juniper (HPE)"} <= vendors
    for raw in items:
        item = catalog.get(raw["id"])
        assert item.vendor, item.id
        price = item.figure_for("price_usd")
        assert price is not None, f"{item.id}: no price figure"
        assert price.source and price.date and price.confidence in "HML", item.id
        # a price is either sourced or says it is an assumption, never silent
        assert price.assumption == price.source.startswith("assumption"), item.id


def test_the_profile_buys_street_priced_gear(catalog):
    p = catalog.profile(PROFILE)
    assert p.tech == "eth" and p.nic_in_servers and p.media_ecosystem == "third-party"
    for gear in (p.switch, p.nic):
        fig = catalog.get(gear).figure_for("price_usd")
        assert fig is not None and not fig.assumption, gear
    assert catalog.switch(p.switch).mode(400).ports == 128


def test_third_party_optics_only_on_a_profile_that_opens_them(catalog):
    third = {m.id for m in catalog.of_kind("transceiver") if isinstance(m, MediumSpec)
             and m.ecosystem == "third-party"}
    assert len(third) >= 4
    roce = load_project(projects_dir() / "dgx-superpod-4su-roce-400.fabric.json")
    assert not {x.catalog_id for x in solve(roce).bom.lines} & third
    mv = generate(params_from_dict("rail", {"gear": PROFILE, "gpus": 1024}), catalog)
    used = {x.catalog_id for x in solve(mv, catalog=catalog).bom.lines}
    assert used & third and not any(x.startswith("osfp-2x400g") for x in used)


@pytest.mark.parametrize("gpus", [1024, 8192])
def test_profile_generates_a_valid_design(catalog, gpus):
    mv = generate(params_from_dict("rail", {"gear": PROFILE, "gpus": gpus}), catalog)
    r = solve(mv, catalog=catalog)
    assert r.gpus == gpus
    assert r.oversubscription.worst == pytest.approx(1.0)
    assert r.bisection.per_gpu_rate_gbps == pytest.approx(400.0)
    nics = {x.catalog_id: x.qty for x in r.bom.lines if x.category == "nic"}
    assert nics == {"thor2-400": gpus}
    switches = {x.catalog_id for x in r.bom.lines if x.category == "switch"}
    assert switches == {"fs-n9600-64od"}


def test_any_server_gets_the_profile_nic_in_its_own_cage(catalog):
    """A DGX B200 or an H100 server under the profile carries Thor 2 cards, each with its
    own cage: single-port NIC optics, not the DGX's twin-port flat-top modules."""
    for server in ("dgx-b200", "dgx-h100", "hgx-b200-oem"):
        p = generate(params_from_dict("rail", {"gear": PROFILE, "gpus": 256,
                                               "server": server}), catalog)
        servers = [d for d in p.fabric.devices if isinstance(catalog.get(d.model), ServerSpec)]
        assert all((d.nic or catalog.server(d.model).nic) == "thor2-400" for d in servers)
        lines = {x.catalog_id for x in solve(p, catalog=catalog).bom.lines}
        assert "tp-qsfpdd-400g-dr4" in lines and "osfp-2x400g-sr8-flt" not in lines


def test_an_infiniband_design_converts_onto_thor2(catalog):
    p = convert_profile(load_project(NDR), PROFILE, catalog).project
    servers = [d for d in p.fabric.devices if d.role.value == "gpu-server"]
    assert servers and all((d.nic or catalog.server(d.model).nic) == "thor2-400"
                           for d in servers)


def test_premium_is_the_ratio_of_the_catalog_prices_with_each_source(capsys, catalog):
    assert main(["compare", NDR, "--profiles", f"ib-ndr,{PROFILE}", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    ib_label, mv_label = (c["label"] for c in d["designs"])
    sources = d["price_sources"]
    totals = {}
    for label in (ib_label, mv_label):
        lines = sources[label]["lines"]
        assert lines
        for x in lines:
            # every unit price says where it comes from; a catalog item's is the catalog's
            # (the example's racks, cords and spares carry no catalog id: estimates of the
            # project's BOM options, or the spared part's own price and origin)
            assert x["source"] and x["kind"] in ("catalog", "assumption")
            if x["catalog_id"]:
                assert x["unit_usd"] == pytest.approx(catalog.price(x["catalog_id"]))
                assert x["date"], x["catalog_id"]
            elif x["kind"] == "catalog":
                assert x["name"].startswith("Spare: ") and x["date"]
        totals[label] = sum(x["total_usd"] for x in lines)
    ratio = totals[ib_label] / totals[mv_label] - 1
    assert d["premium"]["total"] == pytest.approx(ratio, rel=1e-6)
    # the multi-vendor column rests mostly on sourced street prices
    assert sources[mv_label]["sourced_share"] > 0.8
    vendors = {x["vendor"] for x in sources[mv_label]["lines"]}
    assert {"FS", "Broadcom", "FS (third-party)"} <= vendors


def test_compare_text_and_report_show_the_premium_and_the_sources(capsys, tmp_path):
    page = tmp_path / "c.html"
    assert main(["compare", NDR, "--profiles", f"ib-ndr,{PROFILE}", "-o", str(page)]) == 0
    out = capsys.readouterr().out
    html = page.read_text()
    assert "Price sources" in html and "fs-n9600-64od" in html and "FS.com EU listing" in html
    assert "InfiniBand premium" in out and "Price sources" in out
    block = out[out.index("Price sources"):]
    assert "fs-n9600-64od" in block and "FS.com" in block and "[sourced: 2026-09, M]" in block
    assert "qm9700" in block


def test_catalog_lists_the_new_items_with_vendor_and_source(capsys):
    assert main(["catalog", "--kind", "switch", "--sources"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("fs-n9600-64od "))
    assert line.rstrip().endswith("FS") and "[2026-09]" in line
    assert "FS.com EU listing" in out and "Celestica" in out and "Juniper (HPE)" in out
