"""The other networks' IP and BGP plan: a loopback per switch, a /31 per switch-to-switch
link, ASNs by RFC 7938's rule in a band per network, a /31 per endpoint port; no address
shared with the back-end or another network; exhausted ranges refused naming them; the CSV
and YAML exports."""

from __future__ import annotations

import csv
import ipaddress
from collections import Counter

import pytest
import yaml

from designer.cli.main import main
from designer.core.address_ranges import AddressRanges
from designer.core.catalog import builtin_catalog
from designer.core.ethernet.addressing import HEADER, combined_plan
from designer.core.fileformat import load_project, save_project
from designer.core.generators import generate, params_from_dict
from designer.core.networks.addressing import NetworkRangeError, network_rows
from designer.core.networks.generate import with_networks

CAT = builtin_catalog()
ALL = ("frontend", "storage", "oob")
SWITCH_TIERS = {"leaf", "spine", "access"}


def _design(**extra):
    return with_networks(generate(params_from_dict("rail", {"sus": 4} | extra)), ALL)


@pytest.fixture(scope="module")
def roce():
    """4 SUs on RoCE: the back-end has an IP plan too."""
    return _design(gear="roce-400")


@pytest.fixture(scope="module")
def ib():
    """4 SUs of the default (InfiniBand) back-end."""
    return _design()


@pytest.mark.parametrize("which", ["roce", "ib"])
def test_no_address_is_given_twice_across_every_network(which, request):
    project = request.getfixturevalue(which)
    kind, rows, _, nets = combined_plan(project, project.catalog(CAT))
    assert set(nets) == set(ALL)
    every = [r[5] for r in rows] if kind == "ethernet" else []
    for net_rows, _ in nets.values():
        every += [r[5] for r in net_rows]
        for r in net_rows:  # each address inside the range named on its row
            assert ipaddress.ip_address(r[5]) in ipaddress.ip_network(r[10])
    assert every and len(every) == len(set(every))
    # the three networks' ranges do not overlap each other or the back-end's
    ranges = [ipaddress.ip_network(n) for n in AddressRanges().networks().values()]
    assert all(not a.overlaps(b) for i, a in enumerate(ranges) for b in ranges[i + 1:])


def test_every_switch_has_a_loopback_and_every_switch_link_a_31(roce):
    for kind, net in roce.networks.items():
        rows = network_rows(roce, net)
        switches = {d.id for d in net.devices if d.tier in SWITCH_TIERS}
        loops = [r for r in rows if r[0] == "loopback"]
        assert {r[1] for r in loops} == switches, kind
        assert all(r[6] == 32 for r in loops)
        between = sum(1 for a, b in zip(net.links.a, net.links.b, strict=True)
                      if a in switches and b in switches)
        p2p = [r for r in rows if r[0] == "p2p"]
        assert between > 0 and len(p2p) == 2 * between, kind
        for lo, hi in zip(p2p[::2], p2p[1::2], strict=True):
            net31 = ipaddress.ip_network(f"{lo[5]}/31")
            assert ipaddress.ip_address(hi[5]) in net31 and lo[5] != hi[5]
            assert (lo[1], lo[8], lo[9]) == (hi[7], hi[4], hi[5])  # each names the other
        # an endpoint port per link with one switch end: its host and its gateway
        endpoints = len(net.links) - between
        assert sum(1 for r in rows if r[0] == "host") == endpoints
        assert sum(1 for r in rows if r[0] == "host-gateway") == endpoints


def test_asns_follow_rfc7938_in_a_band_per_network(roce):
    _, rows, _, nets = combined_plan(roce, roce.catalog(CAT))
    seen: dict[int, str] = {int(r[3]): "backend" for r in rows if r[3] != ""}
    for name, (net_rows, _) in nets.items():
        by_tier: dict[str, set[int]] = {}
        count = Counter(r[2] for r in net_rows if r[0] == "loopback")
        for r in net_rows:
            if r[0] == "loopback":
                by_tier.setdefault(r[2], set()).add(int(r[3]))
        order = [t for t in ("access", "leaf", "spine") if t in by_tier]
        top, bottom = order[-1], order[0]
        assert len(by_tier[top]) == 1, name  # one plane: its top tier shares one ASN
        assert len(by_tier[bottom]) == count[bottom], name  # every leaf/access its own
        if len(order) == 3:  # the management network's aggregation leaves: one per pod
            assert len(by_tier["leaf"]) < count["leaf"]
        tiers = [by_tier[t] for t in order]
        assert all(not (x & y) for i, x in enumerate(tiers) for y in tiers[i + 1:]), name
        asns = set().union(*tiers)
        assert not (asns & set(seen)), f"{name} shares an ASN with {seen.get(min(asns))}"
        seen.update(dict.fromkeys(asns, name))
        assert all(4_200_000_000 <= a <= 4_294_967_294 for a in asns)  # RFC 6996


def test_an_exhausted_network_range_is_refused_naming_it(roce):
    tiny = (roce.addressing or AddressRanges()).model_copy(update={"oob": "10.200.0.0/28"})
    with pytest.raises(NetworkRangeError, match=r"out-of-band network: .*10\.200\.0\.0/30"):
        network_rows(roce, roce.networks["oob"], tiny)


def test_old_ranges_without_network_fields_still_load():
    rng = AddressRanges.model_validate({"loopbacks": "10.255.0.0/16", "p2p": "10.0.0.0/10",
                                        "hosts": "10.64.0.0/10"})
    assert rng.frontend == "10.128.0.0/12"
    with pytest.raises(ValueError, match="front-end network range"):
        AddressRanges.model_validate({"frontend": "10.0.0.0/12"})  # inside p2p


def test_cli_writes_a_network_column_and_a_section_per_network(roce, tmp_path, capsys):
    path = tmp_path / "d.fdesign"
    save_project(roce, path)
    out_csv, out_yaml = tmp_path / "plan.csv", tmp_path / "plan.yaml"
    assert main(["export", "addressing", str(path), "-o", str(out_csv)]) == 0
    assert "oob:" in capsys.readouterr().out
    with out_csv.open(newline="") as fh:
        table = list(csv.reader(fh))
    assert tuple(table[0]) == (*HEADER, "Network")
    networks = Counter(r[-1] for r in table[1:])
    assert set(networks) == {"backend", *ALL}
    addresses = [r[5] for r in table[1:]]
    assert len(addresses) == len(set(addresses))
    assert main(["export", "addressing", str(path), "-o", str(out_yaml)]) == 0
    doc = yaml.load(out_yaml.read_text(), Loader=yaml.CSafeLoader)
    assert set(doc["networks"]) == set(ALL)
    for name in ALL:
        assert len(doc["networks"][name]["entries"]) == networks[name]
        assert doc["networks"][name]["summary"]["addresses"] == networks[name]
    assert len(doc["entries"]) == networks["backend"]
    # ranges moved on the command line are saved and refused when they collide
    assert main(["export", "addressing", str(path), "-o", str(out_csv),
                 "--hosts", "10.128.0.0/10"]) == 2
    assert "overlap" in capsys.readouterr().err
    assert load_project(path).addressing is None
    # (the CSV: the YAML's sections were checked against it above, and it is written in a
    # fifth of the time)
    assert main(["export", "addressing", str(path), "-o", str(out_csv),
                 "--oob-range", "10.176.0.0/12"]) == 0
    assert load_project(path).addressing.oob == "10.176.0.0/12"
    with out_csv.open(newline="") as fh:
        oob = [r[5] for r in csv.reader(fh) if r[-1] == "oob"]
    assert len(oob) == networks["oob"]
    assert all(ipaddress.ip_address(a) in ipaddress.ip_network("10.176.0.0/12") for a in oob)
