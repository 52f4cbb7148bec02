"""Switch configs of RoCE designs: the RFC 7938 plan, FRR syntax, SONiC config DB tables."""

from __future__ import annotations

import ipaddress
import json
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.cli.main import main
from designer.core.ethernet.configs import write_configs
from designer.core.ethernet.frr import frr_config
from designer.core.ethernet.plan import (
    ASN_LEAF,
    ASN_POD,
    ASN_TOP,
    NotEthernet,
    build_underlay,
    interface_name,
)
from designer.core.ethernet.qos import DEFAULT_QOS
from designer.core.ethernet.sonic import config_db
from tests.core.ethernet_helpers import design, fat_tree_k4, rail_2su

VTYSH = shutil.which("vtysh")

# Tables and the fields SONiC reads from them (sonic-buildimage, src/sonic-yang-models and
# doc/Configuration.md of sonic-swss / sonic-utilities).
SONIC_FIELDS = {
    "DEVICE_METADATA": {"hostname", "bgp_asn", "type", "hwsku", "docker_routing_config_mode"},
    "LOOPBACK_INTERFACE": set(),
    "PORT": {"admin_status", "alias", "lanes", "speed", "mtu", "fec", "index"},
    "BREAKOUT_CFG": {"brkout_mode"},
    "INTERFACE": set(),
    "BGP_NEIGHBOR": {"asn", "name", "local_addr", "admin_status", "holdtime", "keepalive"},
    "DEVICE_NEIGHBOR": {"name", "port"},
    "DSCP_TO_TC_MAP": set(),
    "TC_TO_QUEUE_MAP": set(),
    "TC_TO_PRIORITY_GROUP_MAP": set(),
    "MAP_PFC_PRIORITY_TO_QUEUE": set(),
    "PORT_QOS_MAP": {"dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map",
                     "pfc_enable"},
    "SCHEDULER": {"type"},
    "WRED_PROFILE": {"ecn", "green_min_threshold", "green_max_threshold",
                     "green_drop_probability", "wred_green_enable"},
    "QUEUE": {"scheduler"},
    "BUFFER_POOL": {"type", "mode", "size"},
    "BUFFER_PROFILE": {"pool", "size"},
    "BUFFER_PG": {"profile"},
    "BUFFER_QUEUE": {"profile"},
    "CABLE_LENGTH": set(),
    "PFC_WD": set(),
}


def test_asn_plan_two_tiers_rfc7938():
    """RFC 7938 5.2.1: spines of a two-tier fabric share one ASN, every leaf has its own,
    all from the private 4-byte range of RFC 6996."""
    project, cat = rail_2su()
    u = build_underlay(project, cat)
    leaves, spines = u.asn[u.tier == 1], u.asn[u.tier == 2]
    assert leaves.size == 16 and spines.size == 4
    assert np.unique(leaves).size == leaves.size and (leaves >= ASN_LEAF).all()
    assert set(spines.tolist()) == {ASN_TOP}
    assert ((u.asn >= 4_200_000_000) & (u.asn <= 4_294_967_294)).all()


def test_asn_plan_pods_share_an_asn():
    """Three tiers: cores share one ASN, the spines of each pod one per pod (4 pods)."""
    project, cat = fat_tree_k4()
    u = build_underlay(project, cat)
    assert set(u.asn[u.tier == 3].tolist()) == {ASN_TOP}
    pods = u.asn[u.tier == 2]
    assert np.unique(pods).size == 4 and (pods >= ASN_POD).all() and (pods < ASN_LEAF).all()
    # the spines above one leaf are one pod: one ASN
    for leaf in np.flatnonzero(u.tier == 1).tolist():
        above = u.b[u.a == leaf]
        assert above.size == 2 and np.unique(u.asn[above]).size == 1


@given(sus=st.integers(1, 3), per_su=st.sampled_from([4, 8, 16, 32]))
def test_addresses_are_unique_and_paired(sus, per_su):
    """Every cable is one /31 (even address at one end, odd at the other), loopbacks and
    host blocks never overlap, every server port's address lies in its leaf's block."""
    project, cat = design("rail", sus=sus, servers_per_su=per_su)
    u = build_underlay(project, cat)
    assert np.unique(u.p2p).size == u.p2p.size and (u.p2p % 2 == 0).all()
    assert np.unique(u.loopback).size == u.n
    blocks = [ipaddress.ip_network(f"{ipaddress.IPv4Address(int(b))}/{u.block_prefix}")
              for b in u.block[u.leaves()]]
    assert all(not x.overlaps(y) for i, x in enumerate(blocks) for y in blocks[i + 1:])
    leaf_side, srv_side = u.host_addresses()
    assert (srv_side == leaf_side + 1).all()
    assert ((leaf_side >> u.block_bits) == (u.block[u.h_leaf] >> u.block_bits)).all()
    assert np.unique(srv_side).size == srv_side.size


def test_interface_names_follow_sonic_lanes():
    """Eight lanes to an OSFP cage: 1 x 800G ports step by 8, 2 x 400G breakouts by 4."""
    assert [interface_name(p, 1) for p in (1, 2, 64)] == ["Ethernet0", "Ethernet8", "Ethernet504"]
    assert [interface_name(p, 2) for p in (1, 2, 3, 128)] == [
        "Ethernet0", "Ethernet4", "Ethernet8", "Ethernet508"]


def test_headroom_follows_802_1qbb():
    """xoff = line rate x (cable round trip + reaction) + two jumbo frames: 400G, 30 m:
    50 B/ns x (300 + 1000) ns + 2 x 9100 B."""
    assert DEFAULT_QOS.headroom(400, 30) == 50 * 1300 + 2 * 9100
    assert DEFAULT_QOS.headroom(800, 30) > DEFAULT_QOS.headroom(400, 30)
    assert DEFAULT_QOS.kmin(100) == 100_000 and DEFAULT_QOS.kmax(100) == 400_000  # HPCC's 100G


def test_sonic_config_db_tables_and_references():
    project, cat = rail_2su()
    u = build_underlay(project, cat)
    for s in (0, u.n - 1):  # a leaf and a spine
        db = config_db(u, s)
        assert set(db) == set(SONIC_FIELDS)
        for table, fields in SONIC_FIELDS.items():
            for key, row in db[table].items():
                keyed = table in ("QUEUE", "BUFFER_PG", "BUFFER_QUEUE")
                if fields and ("|" not in key or keyed):
                    assert fields <= set(row), (table, key)
        ports = db["PORT"]
        assert len(ports) == 128 and {p["speed"] for p in ports.values()} == {"400000"}
        assert set(db["BREAKOUT_CFG"]) == {f"Ethernet{8 * c}" for c in range(64)}
        assert {b["brkout_mode"] for b in db["BREAKOUT_CFG"].values()} == {"2x400G"}
        for key in db["INTERFACE"]:
            assert key.split("|")[0] in ports
        for key, row in db["BUFFER_PG"].items():
            assert row["profile"] in db["BUFFER_PROFILE"]
            assert key.split("|")[0] in ports
        # the RoCE DSCP lands on the PFC-enabled class, and WRED marks ECN there
        tc = db["DSCP_TO_TC_MAP"]["ROCE"][str(DEFAULT_QOS.roce_dscp)]
        qos_rows = list(db["PORT_QOS_MAP"].values())
        assert qos_rows and all(r["pfc_enable"] == tc for r in qos_rows)
        assert db["WRED_PROFILE"]["ROCE_ECN"]["ecn"] == "ecn_all"
        assert all(q.get("wred_profile") == "ROCE_ECN"
                   for k, q in db["QUEUE"].items() if k.endswith(f"|{tc}"))
        # one BGP neighbour per fabric cable of this switch
        cables = int((u.a == s).sum() + (u.b == s).sum())
        assert len(db["BGP_NEIGHBOR"]) == cables
        assert json.loads(json.dumps(db)) == db


@pytest.mark.skipif(VTYSH is None, reason="vtysh (Debian package frr) is not installed")
def test_frr_configs_pass_vtysh_dryrun(tmp_path):
    """Every generated frr.conf parses (vtysh --dryrun), and a broken one does not."""
    project, cat = fat_tree_k4()
    write_configs(project, cat, tmp_path)
    confs = sorted(tmp_path.glob("switches/*/frr.conf"))
    assert len(confs) == 20
    for conf in confs:
        p = subprocess.run([VTYSH, "--dryrun", "-f", str(conf)], capture_output=True, text=True)
        assert p.returncode == 0, (conf, p.stdout[-400:], p.stderr[-400:])
    bad = tmp_path / "bad.conf"
    bad.write_text(confs[0].read_text().replace("maximum-paths", "maximum-pathz"))
    p = subprocess.run([VTYSH, "--dryrun", "-f", str(bad)], capture_output=True, text=True)
    assert p.returncode != 0


def test_frr_config_has_the_underlay():
    project, cat = rail_2su()
    u = build_underlay(project, cat)
    leaf = frr_config(u, 0)
    assert f"router bgp {int(u.asn[0])}" in leaf
    assert leaf.count(" ip address 10.0.") == 32  # one /31 per uplink cable
    assert "aggregate-address 10.64.0.0/24 summary-only" in leaf
    assert f"maximum-paths {DEFAULT_QOS.maximum_paths}" in leaf
    assert "bfd" in leaf and "multipath-relax" in leaf


def test_export_configs_cli(tmp_path, capsys):
    project, _cat = fat_tree_k4()
    from designer.core.fileformat import save_project

    src = tmp_path / "ft.fabric.json"
    save_project(project, src, keep_backup=False)
    out = tmp_path / "cfg"
    assert main(["export", "configs", str(src), "-o", str(out)]) == 0
    assert "20 switches" in capsys.readouterr().out
    assert len(list(out.glob("servers/*.txt"))) == 16
    clab = (out / "topology.clab.yml").read_text()
    assert clab.count("- endpoints:") == 32 + 16  # switch cables + server cables
    plan = json.loads((out / "plan.json").read_text())
    assert len(plan["switches"]) == 20
    assert "ECN" in (out / "tuning.txt").read_text()


def test_infiniband_design_is_refused(catalog, tmp_path, capsys):
    with pytest.raises(NotEthernet, match="not an Ethernet design"):
        project = design("rail", sus=1, gear="ib-ndr")[0]
        build_underlay(project, project.catalog(catalog))
    rc = main(["export", "configs", "projects/dgx-superpod-4su-ib-ndr.fabric.json", "-o",
               str(tmp_path / "x")])
    assert rc == 2 and "not an Ethernet design" in capsys.readouterr().err


def test_slice_and_thinned_bundles_keep_the_shape():
    """Pure parts of the live check: a slice takes leaves from alternating pods with every
    switch above them; narrowed bundles keep every switch pair and the expected ECMP widths
    follow (2-SU rail: 8 cables per leaf-spine pair, 32 uplinks; 1 per pair: 4)."""
    from designer.core.ethernet.slicing import (
        choose_slice,
        expected_routes,
        restrict,
        thin_cables,
    )

    project, cat = fat_tree_k4()
    u = build_underlay(project, cat)
    keep, note = choose_slice(u, 12)
    s = restrict(u, keep)
    assert s.n == 10 and "2 of 8 leaves" in note
    exp = expected_routes(s)
    assert exp.switch_hops.tolist() == [[1, 5], [5, 1]]  # leaves in two pods
    project, cat = rail_2su()
    u = build_underlay(project, cat)
    assert expected_routes(u).ecmp[0, 1] == 32
    cables, note = thin_cables(u, 100)
    t = restrict(u, np.ones(u.n, bool), cables)
    assert t.a.size == 64 and "at most 1 of the up to 8" in note
    assert set(expected_routes(t).ecmp[~np.eye(16, dtype=bool)].tolist()) == {4}
    assert thin_cables(u, 512) == (None, None)


def test_check_roce_says_what_is_missing(tmp_path, capsys, monkeypatch):
    """Without root or the packages the check names what is missing and exits 2."""
    from designer.core.ethernet import lab

    monkeypatch.setattr(lab.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(lab, "_find", lambda name: None if name == "vtysh" else "/bin/true")
    reason = lab.missing_reason()
    assert "vtysh (Debian package frr)" in reason and "root privileges" in reason
    project, _cat = fat_tree_k4()
    from designer.core.fileformat import save_project

    src = tmp_path / "ft.fabric.json"
    save_project(project, src, keep_backup=False)
    assert main(["check-roce", str(src)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("designer: The routed-fabric check needs") and "frr" in err
