"""Edit operations: ports and speeds are checked, ids stay unique, edits are pure."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from designer.core import editing as E
from designer.core.errors import FabricError, PortsExhausted, SpeedMismatch
from designer.core.model import Fabric, Project, Role
from designer.core.ports import check_ports_exist, used_port_counts


def _pair(catalog, server="dgx-h100", switch="qm9700"):
    p = Project()
    p, s = E.add_device(p, catalog, server, 0, 0)
    p, sw = E.add_device(p, catalog, switch, 0, -260)
    return p, s, sw


def test_add_device_ids_roles_and_profile_mode(catalog):
    p = Project(profile="roce-400")
    p, a = E.add_device(p, catalog, "sn5600", 10, -260)
    p, b = E.add_device(p, catalog, "sn5600", 200, -520)
    p, c = E.add_device(p, catalog, "sn5600", 300, -510)  # dropped on the row of b
    p, n = E.add_device(p, catalog, "dgx-h100", 0, 0)
    p, u = E.add_device(p, catalog, "ufm-appliance", 80, 0)
    f = p.fabric
    assert [a, b, c, n, u] == ["leaf1", "leaf2", "leaf3", "node1", "appliance1"]
    assert f.device(c).role == Role.LEAF  # infer_role: the row of leaf2 is a leaf row
    assert f.device(u).role == Role.APPLIANCE
    # roce-400 runs the SN5600 as 128 x 400G, not its first mode (64 x 800G)
    assert f.device(a).port_speed_gbps == 400


def test_infer_role_takes_the_row(catalog):
    p = Project()
    p, _s = E.add_device(p, catalog, "qm9700", 0, -520, role=Role.SPINE)
    p, t = E.add_device(p, catalog, "qm9700", 500, -500)
    assert p.fabric.device(t).role == Role.SPINE


def test_connect_defaults_take_every_free_server_port(catalog):
    p, s, sw = _pair(catalog)
    p2 = E.connect(p, catalog, sw, s)  # order given does not matter: the server is side a
    links = p2.fabric.links
    assert len(links) == 1 and int(links.count[0]) == 8
    assert p2.fabric.devices[int(links.a[0])].id == s
    assert int(links.speed_gbps[0]) == 400
    info = E.bundle_info(p2, catalog, sw, s)
    assert info.count == 8 and info.a_ports == "1/1-4/2"  # QM9700 twin-port cage names
    assert p.fabric.links.n_cables == 0  # the original is untouched


def test_connect_refuses_what_ports_cannot_carry(catalog):
    p, s, sw = _pair(catalog)
    p = E.connect(p, catalog, s, sw)
    with pytest.raises(PortsExhausted, match="no free port"):
        E.connect(p, catalog, s, sw, count=1)
    p, eth = E.add_device(p, catalog, "sn5600", 400, -260)
    p, s2 = E.add_device(p, catalog, "dgx-b300", 400, 0)
    with pytest.raises(SpeedMismatch, match="no technology in common"):
        E.connect(p, catalog, sw, eth)
    p, s4 = E.add_device(p, catalog, "dgx-h100", 500, 0)
    with pytest.raises(SpeedMismatch, match="faster"):
        E.connect(p, catalog, sw, s4, speed_gbps=800)
    with pytest.raises(FabricError, match="itself"):
        E.connect(p, catalog, sw, sw)
    with pytest.raises(FabricError, match="both endpoints"):
        E.connect(p, catalog, s, s2)
    with pytest.raises(PortsExhausted, match="65"):
        p3, sw2 = E.add_device(p, catalog, "qm9700", 800, -260)
        E.connect(p3, catalog, sw2, sw, count=65)


def test_connect_splits_over_fragmented_ports(catalog):
    p, s, sw = _pair(catalog)
    p, s2 = E.add_device(p, catalog, "dgx-h100", 100, 0)
    p, s3 = E.add_device(p, catalog, "dgx-h100", 200, 0)
    p = E.connect(p, catalog, s, sw, count=4)
    p = E.connect(p, catalog, s2, sw, count=4)
    p = E.delete(p, pairs=[(s, sw)])  # frees switch ports 1-4, 5-8 stay used
    p = E.connect(p, catalog, s3, sw, count=8)
    rows = E.pair_rows(p.fabric, s3, sw)
    assert sorted(p.fabric.links.count[rows].tolist()) == [4, 4]
    check_ports_exist(p.fabric, catalog)
    Fabric(devices=p.fabric.devices, links=p.fabric.links)  # revalidate: no port used twice


def test_update_bundle_grow_shrink_and_fields(catalog):
    p, s, sw = _pair(catalog)
    p = E.connect(p, catalog, s, sw, count=2)
    p = E.update_bundle(p, catalog, s, sw, count=6, medium="acc", length_m=4.5)
    info = E.bundle_info(p, catalog, s, sw)
    assert (info.count, info.medium, info.length_m) == (6, "acc", 4.5)
    assert len(info.rows) == 1  # grown in place: next ports were free on both ends
    p = E.update_bundle(p, catalog, s, sw, count=3, length_m=None)
    info = E.bundle_info(p, catalog, s, sw)
    assert info.count == 3 and info.length_m is None
    with pytest.raises(SpeedMismatch):
        E.update_bundle(p, catalog, s, sw, speed_gbps=800)
    with pytest.raises(PortsExhausted):
        E.update_bundle(p, catalog, s, sw, count=9)
    with pytest.raises(FabricError):
        E.update_bundle(p, catalog, s, sw, count=0)


def test_update_device_checks_links(catalog):
    p, s, sw = _pair(catalog, switch="sn5600")
    p = E.update_device(p, catalog, sw, port_speed_gbps=400)
    p = E.connect(p, catalog, s, sw)
    p = E.update_device(p, catalog, sw, name="ToR 1", role=Role.SPINE, groups={"su": 2})
    d = p.fabric.device(sw)
    assert (d.name, d.role, d.groups) == ("ToR 1", Role.SPINE, {"su": 2})
    with pytest.raises(SpeedMismatch, match="InfiniBand"):
        E.update_device(p, catalog, s, model="dgx-b300")  # CX-8 XDR would not meet Ethernet
    with pytest.raises(FabricError, match="server"):
        E.update_device(p, catalog, sw, role=Role.GPU_SERVER)
    with pytest.raises(FabricError, match="groups"):
        E.update_device(p, catalog, sw, groups={"Bad Key": 1})
    # the switch at 800G has 64 ports: the server's cables on ports 1-8 still fit, at 400G
    p2 = E.update_device(p, catalog, sw, port_speed_gbps=800)
    assert p2.fabric.device(sw).port_speed_gbps == 800


def test_move_delete_extract_merge(catalog):
    p, s, sw = _pair(catalog)
    p = E.connect(p, catalog, s, sw)
    moved = E.move_devices(p, {s: (100.0, 40.0)})
    assert (moved.fabric.device(s).x, moved.fabric.device(s).y) == (100.0, 40.0)
    assert moved.fabric.device(sw) is p.fabric.device(sw)
    with pytest.raises(FabricError):
        E.move_devices(p, {s: (math.inf, 0)})
    clip = E.extract(p, [s, sw])
    merged, ids = E.merge(p, clip, dx=50, dy=0)
    assert ids == ["node1-2", "leaf1-2"]
    assert len(merged.fabric.devices) == 4 and merged.fabric.links.n_cables == 16
    assert merged.fabric.device("node1-2").x == 50.0
    gone = E.delete(merged, device_ids=[sw])
    assert sw not in gone.fabric.index and gone.fabric.links.n_cables == 8


def test_unique_and_clean_ids():
    assert E.unique_id({"a", "a-2"}, "a") == "a-3"
    assert E.unique_id(set(), "my switch #1") == "my-switch-1"
    assert E.numbered_id({"leaf1", "leaf2"}, "leaf") == "leaf3"


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2), st.integers(1, 12)), max_size=25))
def test_random_connects_never_reuse_a_port(catalog, ops):
    """Whatever is connected or resized, every port holds at most one cable."""
    p = Project()
    servers, switches = [], []
    for k in range(6):
        p, s = E.add_device(p, catalog, "dgx-h100", k * 60, 0)
        servers.append(s)
    for k in range(3):
        p, sw = E.add_device(p, catalog, "qm9700", k * 110, -260)
        switches.append(sw)
    for si, wi, n in ops:
        a, b = servers[si], switches[wi]
        try:
            if E.pair_rows(p.fabric, a, b).size:
                p = E.update_bundle(p, catalog, a, b, count=min(n, 8))
            else:
                p = E.connect(p, catalog, a, b, count=min(n, 8))
        except PortsExhausted:
            continue
    Fabric(devices=p.fabric.devices, links=p.fabric.links)
    check_ports_exist(p.fabric, catalog)
    assert (used_port_counts(p.fabric)[: len(servers)] <= 8).all()
    assert np.all(p.fabric.links.count >= 1)
