"""The addressing plan: IP and BGP plan of an Ethernet design as CSV and YAML, the same plan
the FRR and SONiC configs use; InfiniBand node descriptions; collisions and exhausted ranges
refused naming the range."""

from __future__ import annotations

import csv
import ipaddress
import json

import pytest
import yaml
from pydantic import ValidationError

from designer.cli.main import main
from designer.core.address_ranges import AddressRanges
from designer.core.catalog import builtin_catalog
from designer.core.ethernet.addressing import addressing_plan
from designer.core.ethernet.plan import NotEthernet, build_underlay
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from tests._paths import DATA

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def roce():
    return generate(params_from_dict("rail", {"sus": 2, "gear": "roce-400"}))


def test_every_address_is_unique_and_inside_its_range(roce):
    kind, rows, summary = addressing_plan(roce, roce.catalog(CAT))
    assert kind == "ethernet"
    addresses = [r[5] for r in rows]
    assert len(addresses) == len(set(addresses))
    for r in rows:
        assert ipaddress.ip_address(r[5]) in ipaddress.ip_network(r[10])
    # both ends of a /31 are its two addresses, and each names the other as its peer
    p2p = [r for r in rows if r[0] == "p2p"]
    for r in p2p:
        net = ipaddress.ip_network(f"{r[5]}/31", strict=False)
        assert ipaddress.ip_address(r[9]) in net and r[9] != r[5]
    switches = sum(d.role.is_switch for d in roce.fabric.devices)
    assert sum(r[0] == "loopback" for r in rows) == switches == summary["switches"]


def test_asns_follow_rfc7938(roce):
    _, rows, _ = addressing_plan(roce, roce.catalog(CAT))
    asn = {r[1]: r[3] for r in rows if r[0] == "loopback"}
    role = {r[1]: r[2] for r in rows if r[0] == "loopback"}
    spines = {asn[n] for n in asn if role[n] == "spine"}
    leaves = [asn[n] for n in asn if role[n] == "leaf"]
    assert len(spines) == 1  # the top tier of a plane shares one ASN
    assert len(leaves) == len(set(leaves))  # every leaf its own
    assert all(4_200_000_000 <= a <= 4_294_967_294 for a in asn.values())  # RFC 6996


def test_the_configs_use_the_same_plan(roce, tmp_path):
    path = tmp_path / "d.fabric.json"
    save_project(roce, path)
    assert main(["export", "addressing", str(path), "-o", str(tmp_path / "a.csv"),
                 "--p2p", "10.1.0.0/16", "--asn-base", "4200001000"]) == 0
    assert load_project(path).addressing.p2p == "10.1.0.0/16"
    assert main(["export", "configs", str(path), "-o", str(tmp_path / "cfg")]) == 0
    rows = list(csv.DictReader((tmp_path / "a.csv").open(encoding="utf-8")))
    plan = json.loads((tmp_path / "cfg" / "plan.json").read_text())
    by_name = {s["hostname"]: s for s in plan["switches"]}
    for r in rows:
        if r["Kind"] == "loopback":
            s = by_name[r["Device"]]
            assert (s["loopback"], s["asn"]) == (r["Address"], int(r["ASN"]))
    leaf = next(r for r in rows if r["Kind"] == "p2p" and r["Role"] == "leaf")
    frr = (tmp_path / "cfg" / "switches" / leaf["Device"] / "frr.conf").read_text()
    assert leaf["Address"] in frr and leaf["Peer address"] in frr
    assert leaf["Address"].startswith("10.1.")
    assert all(int(r["ASN"]) >= 4_200_001_000 for r in rows if r["ASN"])


def test_yaml_holds_the_same_entries(roce, tmp_path):
    path = tmp_path / "d.fabric.json"
    save_project(roce, path)
    assert main(["export", "addressing", str(path), "-o", str(tmp_path / "a.yaml")]) == 0
    doc = yaml.load((tmp_path / "a.yaml").read_text(), Loader=yaml.CSafeLoader)
    _, rows, _ = addressing_plan(roce, roce.catalog(CAT))
    assert doc["fabric"] == "ethernet" and len(doc["entries"]) == len(rows)
    assert doc["entries"][0]["address"] == rows[0][5]


def test_overlapping_ranges_are_refused_naming_both():
    with pytest.raises(ValidationError, match=r"10\.255\.0\.0/16.*overlap"):
        AddressRanges(loopbacks="10.255.0.0/16", hosts="10.255.128.0/17")
    with pytest.raises(ValidationError, match="not an IPv4 network"):
        AddressRanges(p2p="10.0.0.1/10")  # host bits set


def test_exhausted_ranges_are_refused_naming_the_range(roce, tmp_path, capsys):
    small = roce.evolve(addressing=AddressRanges(loopbacks="10.200.0.0/29"))
    with pytest.raises(NotEthernet, match=r"loopback range 10\.200\.0\.0/29"):
        build_underlay(small, small.catalog(CAT))
    small = roce.evolve(addressing=AddressRanges(p2p="10.1.0.0/24"))
    with pytest.raises(NotEthernet, match=r"point-to-point range 10\.1\.0\.0/24"):
        build_underlay(small, small.catalog(CAT))
    path = tmp_path / "d.fabric.json"
    save_project(roce, path)
    before = path.read_bytes()
    assert main(["export", "addressing", str(path), "-o", str(tmp_path / "a.csv"),
                 "--hosts", "10.64.0.0/28"]) == 2
    assert "10.64.0.0/28" in capsys.readouterr().err
    assert path.read_bytes() == before  # a plan that does not fit is not saved
    assert main(["export", "addressing", str(path), "-o", str(tmp_path / "a.csv"),
                 "--loopbacks", "10.0.0.0/16"]) == 2  # inside the p2p range
    assert "overlap" in capsys.readouterr().err


def test_infiniband_gets_node_descriptions(tmp_path):
    p = generate(params_from_dict("rail", {"sus": 1}))
    kind, rows, _ = addressing_plan(p, p.catalog(CAT))
    assert kind == "infiniband"
    hca = [r for r in rows if r[4]]
    assert len(hca) == 256 and hca[0][4] == "su1-node01 mlx5_0"
    # the names the as-built check reads back as NIC port k + 1 of the server
    from designer.core.infiniband.topology import node_descriptions

    names, _ = node_descriptions(p.fabric)
    assert {r[2] for r in rows} <= set(names)


def test_old_files_have_no_addressing_and_use_the_defaults(roce):
    golden = load_project(DATA / "golden_v1.fabric.json")
    assert golden.addressing is None
    u = build_underlay(roce, roce.catalog(CAT))
    assert int(u.loopback[0]) == int(ipaddress.ip_address("10.255.0.1"))
