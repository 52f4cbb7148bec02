"""The NetBox import tables and the installable cabling plan carry the other networks
(front-end, storage, out-of-band): their devices in the racks the floor plan gave them, every
cable with both ends; a design with the back-end alone exports byte for byte as before."""

from __future__ import annotations

import csv
import hashlib
from collections import Counter

import pytest

from designer.cli.main import main
from designer.core.catalog import builtin_catalog
from designer.core.fileformat import load_project
from designer.core.physical.install import NOT_PLACED, install_plan
from designer.core.physical.netbox import netbox_tables
from designer.core.physical.netbox_networks import cable_type, interface_type, role_name
from designer.core.writers import export_install_plan, export_netbox
from designer.core.writers.cabling import unique_names
from tests._paths import DATA

CAT = builtin_catalog()
# a rail 2 SU design placed on the floor, saved before the other networks reached these
# exports; the digests are of the files every build before wrote for it
PLACED = DATA / "placed_rail_2su.fabric.json"
NETBOX_SHA256 = {
    "01_sites.csv": "372be60fbd71b37d4f2d7777b74706fec16be4cb8ec0b88269f3fa541dacebf3",
    "02_manufacturers.csv": "277f5afe9128cdd772217f0bc42346c87fd20c688b67641133bfa10dfc59959d",
    "03_device_roles.csv": "ddf58872fd316d001382ceca61e4d3b28540480541d087b7aa495651ee7164fe",
    "04_device_types.csv": "4e03dcd2e5298ca77f55999bec4cb095270ed4ee510a2d51303b68663fc39c2a",
    "05_racks.csv": "3d985d7322afaae4583964d1587e614a5055bf24773149f204a8d25707a7078f",
    "06_devices.csv": "230de567ba603b97e9b0055a08243ea799ba87ffb3ad32d57f4ed65d358364a8",
    "07_interfaces.csv": "ecccee13cfab98694e0a8e8bbd8c7da4aa0211e416e3502db43d6e0e271360cf",
    "08_cables.csv": "b1823459b9c6142e5922fac6e3f9f975e19a7b545d238db9a6ac3b13009b9d71",
}
INSTALL_CSV_SHA256 = "55e0c6b51c50b19a90fbff6b903380cec046687c7825ef3de75e2e99d97cfc6f"


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_backend_only_design_exports_as_before(tmp_path) -> None:
    project = load_project(PLACED, CAT)
    assert not project.networks
    cat = project.catalog(CAT)
    export_netbox(project, cat, tmp_path / "nb")
    assert {p.name: _sha(p) for p in (tmp_path / "nb").iterdir()} == NETBOX_SHA256
    export_install_plan(project, cat, tmp_path / "plan.csv")
    assert _sha(tmp_path / "plan.csv") == INSTALL_CSV_SHA256


@pytest.fixture(scope="module")
def placed(tmp_path_factory):
    path = tmp_path_factory.mktemp("nets") / "f.fabric.json"
    assert main(["generate", "rail", "--sus", "2", "--networks",
                 "backend,frontend,storage,oob", "-o", str(path)]) == 0
    assert main(["floor", str(path), "--place"]) == 0
    project = load_project(path, CAT)
    assert set(project.networks) == {"frontend", "storage", "oob"}
    return project


def _net_devices(p):
    return [(k, d) for k, n in p.networks.items() for d in n.devices]


def _net_links(p) -> int:
    return sum(len(n.links) for n in p.networks.values())


def test_netbox_holds_every_network_device_in_its_rack(placed) -> None:
    t = netbox_tables(placed, placed.catalog(CAT)).tables
    floor = placed.physical.floor
    devices = {row[0]: row for row in t["devices"]}
    assert len(devices) == len(t["devices"])  # names unique
    assert len(t["devices"]) == len(placed.fabric.devices) + len(_net_devices(placed))
    racks = {row[1] for row in t["racks"]}
    roles = {row[0] for row in t["device_roles"]}
    types = {row[1] for row in t["device_types"]}
    makers = {row[0] for row in t["manufacturers"]}
    for kind, d in _net_devices(placed):
        row = devices[d.id]
        s = floor.placement[d.id]
        assert (row[6], row[7], row[8]) == (s.rack, s.u, "front")
        assert row[6] in racks
        assert row[1] == role_name(kind, d.tier) and row[1] in roles
        assert row[3] in types and row[2] in makers
    # the networks' racks came with the floor plan (rows FE, STOR, OOB)
    assert {"FE-N01", "STOR-N01", "OOB-N01"} <= racks
    assert [r[0] for r in t["manufacturers"]] == sorted(r[0] for r in t["manufacturers"])


def test_netbox_cables_every_network_link_between_existing_interfaces(placed) -> None:
    t = netbox_tables(placed, placed.catalog(CAT)).tables
    backend = len(placed.fabric.links.expand()["a"])
    assert len(t["cables"]) == backend + _net_links(placed)
    interfaces = Counter((row[0], row[1]) for row in t["interfaces"])
    assert max(interfaces.values()) == 1
    devices = {row[0] for row in t["devices"]}
    assert {d for d, _ in interfaces} <= devices
    ends = Counter()
    for row in t["cables"]:
        for dev, port in ((row[0], row[2]), (row[3], row[5])):
            assert (dev, port) in interfaces
            ends[(dev, port)] += 1
    assert max(ends.values()) == 1  # no interface holds two cables
    labels = [row[8] for row in t["cables"][backend:]]
    assert Counter(x.split("-")[0] for x in labels) == {
        "FE": len(placed.networks["frontend"].links), "ST": len(placed.networks["storage"].links),
        "OOB": len(placed.networks["oob"].links)}
    # a server's front-end port: the server's own name, port FE1, a 400G-class optic type
    names = unique_names(placed).tolist()
    fe = placed.networks["frontend"].links
    i = placed.fabric.index[fe.a[0]]
    row = next(r for r in t["cables"][backend:] if r[8] == "FE-00001")
    assert (row[0], row[2], row[6]) == (names[i], "FE1", "mmf")


def test_interface_and_cable_types() -> None:
    assert interface_type(1, "", "cat6a-rj45") == "1000base-t"
    assert interface_type(400, "qsfp112-400g-sr4", "mmf-mpo12") == "400gbase-x-qsfp112"
    assert interface_type(100, "qsfp28-100g-sr4", "mmf-mpo12") == "100gbase-x-qsfp28"
    assert interface_type(200, "qsfp112-400g-sr4", "mmf-mpo12") == "200gbase-x-qsfp56"
    assert (cable_type("cat6a-rj45"), cable_type("mmf-mpo12"), cable_type("x")) == (
        "cat6a", "mmf", "")


def test_install_plan_lists_network_cables_rack_by_rack(placed, tmp_path) -> None:
    plan = install_plan(placed, placed.catalog(CAT))
    floor = placed.physical.floor
    backend = len(placed.fabric.links.expand()["a"])
    assert plan.n == backend + _net_links(placed)
    assert (plan.rack_a[1:] >= plan.rack_a[:-1]).all()  # floor order, rack by rack
    racks = plan.racks
    assert racks[-1] == NOT_PLACED
    rows = {r[13]: r for r in plan.rows()}
    rack_of = {d.id: floor.placement[d.id] for _, d in _net_devices(placed)}
    # a storage node's cable: both ends in the racks and U the plan gave them
    st = placed.networks["storage"].links
    node, leaf = st.a[0], st.b[0]
    row = rows["ST-00001"]
    ends = {(row[0], row[1], row[2]), (row[4], row[5], row[6])}
    assert ends == {(rack_of[node].rack, rack_of[node].u, node),
                    (rack_of[leaf].rack, rack_of[leaf].u, leaf)}
    assert row[8] == "" and row[9] == "Multimode optics"
    # a management cable starts at the server (the earlier rack) and runs on RJ45 copper
    oob = rows["OOB-00001"]
    assert oob[9] == "RJ45 copper" and racks.index(oob[0]) <= racks.index(oob[4])
    # the label sheet: both ends of every cable
    labels = Counter(r[0] for _, rng in plan.label_sections() for r in plan.label_rows(rng))
    assert labels["FE-00001"] == 2 and sum(labels.values()) == 2 * plan.n
    export_install_plan(placed, placed.catalog(CAT), tmp_path / "p.csv")
    with open(tmp_path / "p.csv", newline="") as fh:
        body = list(csv.reader(fh))
    assert len(body) == plan.n + 1
    export_install_plan(placed, placed.catalog(CAT), tmp_path / "p.xlsx")
    assert (tmp_path / "p.xlsx").stat().st_size > 0
