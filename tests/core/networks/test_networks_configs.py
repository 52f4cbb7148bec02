"""``export configs`` writes the other networks' switches too, from the addressing plan."""

from __future__ import annotations

import json
import re

import pytest

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.ethernet import write_configs
from designer.core.generators import generate, params_from_dict
from designer.core.networks.addressing import networks_plan
from designer.core.networks.configs import sonic_name, switch_plans
from designer.core.networks.generate import with_networks

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def roce():
    p = generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}))
    return with_networks(p, ("frontend", "storage", "oob"))


def _conf_addresses(text: str) -> set[str]:
    return set(re.findall(r" ip address (\d+\.\d+\.\d+\.\d+)/3[12]", text))


def test_every_network_switch_gets_configs_matching_the_plan(roce, tmp_path):
    n = write_configs(roce, roce.catalog(CAT), tmp_path)
    plans = networks_plan(roce)
    switches = {kind: [r for r in rows if r[0] == "loopback"] for kind, (rows, _s) in
                plans.items()}
    assert n["network_switches"] == sum(len(v) for v in switches.values())
    for kind, (rows, _summary) in plans.items():
        for lo in switches[kind]:
            dev = lo[1]
            folder = tmp_path / "networks" / kind / dev
            frr = (folder / "frr.conf").read_text()
            # the switch's addresses in the plan are exactly the ones its frr.conf sets
            want = {r[5] for r in rows if r[1] == dev and r[0] in
                    ("loopback", "p2p", "host-gateway")}
            assert _conf_addresses(frr) == want, dev
            assert f"router bgp {lo[3]}" in frr
            # one eBGP session per switch-to-switch /31, to the peer's ASN in the plan
            asn = {r[1]: r[3] for r in switches[kind]}
            for r in rows:
                if r[0] == "p2p" and r[1] == dev:
                    assert f"neighbor {r[9]} remote-as {asn[r[7]]}" in frr
            db = json.loads((folder / "config_db.json").read_text())
            assert db["DEVICE_METADATA"]["localhost"]["bgp_asn"] == str(lo[3])
            assert f"Loopback0|{lo[5]}/32" in db["LOOPBACK_INTERFACE"]
            routed = {k.split("|")[1].split("/")[0] for k in db["INTERFACE"] if "|" in k}
            assert routed | {lo[5]} == want
            up = {k for k, v in db["PORT"].items() if v["admin_status"] == "up"}
            assert up == set(db["DEVICE_NEIGHBOR"])


def test_sessions_are_symmetric_and_the_aggregate_holds_every_host_port(roce):
    plans = switch_plans(roce)
    peers = {(p.device, x[2]) for p in plans for x in p.peers}
    assert peers and all((b, a) in peers for a, b in peers)
    import ipaddress

    for p in plans:
        if not p.hosts:
            assert p.aggregate() is None
            continue
        agg = ipaddress.ip_network(p.aggregate())
        assert all(ipaddress.ip_address(h[1]) in agg for h in p.hosts)
        assert all(ipaddress.ip_address(h[1]) + 1 in agg for h in p.hosts)
    assert sonic_name("1") == "Ethernet0" and sonic_name("3") == "Ethernet8"


def test_infiniband_back_end_writes_the_networks_alone(tmp_path, capsys):
    p = with_networks(generate(params_from_dict("rail", {"sus": 1})), ("frontend", "oob"))
    from designer.core.fileformat import save_project

    path = tmp_path / "ib.fabric.json"
    save_project(p, path)
    assert main(["export", "configs", str(path), "-o", str(tmp_path / "cfg")]) == 0
    out = capsys.readouterr().out
    assert "back-end is InfiniBand" in out and "other networks" in out
    assert not (tmp_path / "cfg" / "switches").exists()
    assert (tmp_path / "cfg" / "networks" / "frontend").is_dir()
    assert (tmp_path / "cfg" / "networks" / "oob").is_dir()


def test_back_end_alone_is_written_as_before(tmp_path):
    p = generate(params_from_dict("rail", {"sus": 1, "gear": "roce-400"}))
    n = write_configs(p, CAT, tmp_path)
    assert "network_switches" not in n
    assert not (tmp_path / "networks").exists()
