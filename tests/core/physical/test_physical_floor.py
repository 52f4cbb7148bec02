"""The floor plan: default placement per the published designs, rack checks, saving, and
lengths that follow positions (property tests)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.catalog import builtin_catalog
from designer.core.fileformat import dumps_project, load_project, loads_project
from designer.core.generators import generate, params_from_dict
from designer.core.links import MEDIA, LinkTable
from designer.core.model import Device, Fabric, Project, Role
from designer.core.physical.floor import FloorPlan, Geometry, Physical, Rack, Row, Slot
from designer.core.physical.lengths import (
    cable_lengths,
    positions,
    raw_lengths,
    round_to_sold,
    straight_distance,
)
from designer.core.physical.placement import default_floor
from designer.core.physical.racks import floor_problems
from designer.core.physical.summary import with_floor
from designer.core.solver import solve
from tests._paths import ROOT

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def su4() -> Project:
    p = load_project(ROOT / "projects" / "dgx-superpod-4su-ib-ndr.fabric.json", CAT)
    return with_floor(p, CAT)


def test_superpod_su_is_a_row_of_eight_racks_of_four(su4):
    # DGX SuperPOD H100 reference architecture: 32 DGX H100 per SU in 8 racks of 4, the SU's
    # leaves in network racks, the spines apart
    floor = su4.physical.floor
    fabric = su4.fabric
    assert [r.name for r in floor.rows] == ["SU1", "SU2", "SU3", "SU4", "NET"]
    by_rack: dict[str, list[Device]] = {}
    for d in fabric.devices:
        by_rack.setdefault(floor.placement[d.id].rack, []).append(d)
    for row in floor.rows[:4]:
        compute = [r for r in row.racks if r.kind == "compute"]
        assert len(compute) == 8
        for r in compute:
            assert [d.role for d in by_rack[r.name]] == [Role.GPU_SERVER] * 4
        net = [r for r in row.racks if r.kind == "network"]
        leaves = [d for r in net for d in by_rack[r.name]]
        assert len(leaves) == 8 and all(d.role is Role.LEAF for d in leaves)
    spines = by_rack[floor.rows[4].racks[0].name]
    assert len(spines) == 16 and all(d.role is Role.SPINE for d in spines)
    assert floor_problems(su4, CAT) == []


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "projects").glob("*.json")))
def test_every_example_places_within_its_racks(name):
    p = with_floor(load_project(ROOT / "projects" / name, CAT), CAT)
    floor = p.physical.floor
    assert set(floor.placement) == {d.id for d in p.fabric.devices}
    assert [x for x in floor_problems(p, CAT) if x.code.startswith("rack")] == []


def test_tor_leaf_sits_in_its_servers_rack():
    # k-ary fat tree: leaves are ToR switches (no rail label): each one shares a rack with
    # every server it serves
    p = with_floor(load_project(ROOT / "projects" / "k-ary-fat-tree-k8.fabric.json", CAT), CAT)
    f, place = p.fabric, p.physical.floor.placement
    e = f.links.expand()
    for a, b in zip(e["a"].tolist(), e["b"].tolist(), strict=True):
        da, db = f.devices[a], f.devices[b]
        if {da.role, db.role} == {Role.GPU_SERVER, Role.LEAF}:
            assert place[da.id].rack == place[db.id].rack


def test_saved_and_loaded_unchanged(su4):
    back = loads_project(dumps_project(su4))
    assert back.physical == su4.physical


def test_bad_rack_reference_is_refused():
    with pytest.raises(ValueError, match="rack 'nowhere'"):
        FloorPlan(rows=(Row(name="A", racks=(Rack(name="A1"),)),),
                  placement={"x": Slot(rack="nowhere", u=1)})


def _moved(p: Project, device: str, rack: str, u: int) -> Project:
    floor = p.physical.floor.moved(device, Slot(rack=rack, u=u))
    return p.evolve(physical=p.physical.model_copy(update={"floor": floor}))


def test_over_power_and_overlap_are_problems(su4):
    # a fifth 10.2 kW DGX in a 44 kW rack, in the U of another server
    crowded = _moved(su4, "su1-node05", "SU1-01", 1)
    codes = {x.code for x in floor_problems(crowded, CAT)}
    assert {"rack-power", "rack-overlap"} <= codes
    past = _moved(su4, "su1-node05", "SU1-01", 44)
    assert "rack-top" in {x.code for x in floor_problems(past, CAT)}


@pytest.fixture(scope="module")
def su4_generic() -> Project:
    # single-port NICs (a generic server): each NIC link picks its own medium by length; a DGX's
    # twin-port cage reaches two rails' leaves and takes optics whatever the distance
    p = generate(params_from_dict("rail", {"sus": 4, "server": "gpu-server-8"}), CAT)
    return with_floor(p, CAT)


def test_media_change_when_a_rack_moves(su4_generic):
    # the top server of the rack next to the SU's network rack reaches its leaves with
    # active copper (5 m); moved to the far end of the row it needs optics
    su4 = su4_generic
    r0 = solve(su4)
    f = su4.fabric
    place = su4.physical.floor.placement
    node = max((d.id for d in f.devices if place[d.id].rack == "SU1-08"),
               key=lambda x: place[x].u)
    i = f.index[node]
    e = f.links.expand()
    mine = np.flatnonzero((e["a"] == i) | (e["b"] == i))
    assert set(r0.media.medium_class[mine].tolist()) == {MEDIA.index("acc")}
    moved = _moved(su4, node, "SU1-01", 33)  # free U above the rack's four servers
    r1 = solve(moved)
    assert (r1.media.length_m[mine] > r0.media.length_m[mine]).all()
    assert set(r1.media.medium_class[mine].tolist()) == {MEDIA.index("mmf")}
    assert r1.bom.total_usd != r0.bom.total_usd


def test_lengths_feed_latency(su4):
    bare = su4.evolve(physical=None)
    # floor lengths (5-20 m) are shorter than the 10 m / 30 m layer defaults on the whole
    assert solve(su4).latency.mean_us < solve(bare).latency.mean_us


def test_link_length_of_its_own_wins(su4):
    links = su4.fabric.links.replace(np.arange(len(su4.fabric.links)), length_m=42.0)
    p = su4.with_fabric(su4.fabric.with_links(links))
    assert set(solve(p).media.length_m.tolist()) == {42.0}


# property tests ------------------------------------------------------------------------------

@st.composite
def floors(draw):
    g = Geometry(
        rack_width_m=draw(st.floats(0.4, 1.0)), rack_depth_m=draw(st.floats(0.6, 1.5)),
        rack_u=draw(st.integers(10, 52)), aisle_m=draw(st.floats(0.0, 3.0)),
        tray_above_rack_m=draw(st.floats(0.0, 1.0)),
        in_rack_slack_m=draw(st.floats(0.0, 2.0)),
        between_rack_slack_m=draw(st.floats(0.0, 5.0)),
    )
    rows = draw(st.integers(1, 4))
    per_row = draw(st.integers(1, 6))
    racks = [[Rack(name=f"R{i}-{j}") for j in range(per_row)] for i in range(rows)]
    n = draw(st.integers(2, 24))
    devices = tuple(Device(id=f"d{k}", name=f"d{k}", model="qm9700", role=Role.LEAF)
                    for k in range(n))
    flat = [r.name for row in racks for r in row]
    place = {d.id: Slot(rack=draw(st.sampled_from(flat)), u=draw(st.integers(1, g.rack_u)))
             for d in devices}
    floor = FloorPlan(geometry=g, rows=tuple(Row(name=f"R{i}", racks=tuple(r))
                                             for i, r in enumerate(racks)), placement=place)
    return floor, Fabric(devices=devices)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(floors())
def test_lengths_never_shorter_than_straight_symmetric_deterministic(case):
    floor, fabric = case
    n = len(fabric.devices)
    a, b = np.triu_indices(n, 1)
    pos = positions(floor, fabric, CAT)
    raw = raw_lengths(floor.geometry, pos, a, b)
    assert (raw >= straight_distance(pos, a, b) - 1e-9).all()
    sold = cable_lengths(floor, fabric, CAT, a, b)
    assert (sold >= raw - 1e-9).all()
    assert np.array_equal(sold, cable_lengths(floor, fabric, CAT, b, a))
    assert np.array_equal(sold, cable_lengths(floor, fabric, CAT, a, b))
    ladder = floor.geometry.sold_lengths_m
    inside = sold <= max(ladder)
    assert np.isin(sold[inside], ladder).all()
    assert (sold[~inside] % 10 == 0).all()


@given(st.floats(0.0, 1000.0))
def test_rounding_to_sold_lengths(x):
    g = Geometry()
    out = float(round_to_sold(g, np.array([x]))[0])
    assert out >= x - 1e-9
    if x <= max(g.sold_lengths_m):
        assert out in g.sold_lengths_m
        smaller = [s for s in g.sold_lengths_m if s < out]
        assert not smaller or max(smaller) < x
    else:
        assert out % 10 == 0 and out - x < 10


def test_unplaced_device_keeps_the_default_and_is_reported(su4):
    floor = su4.physical.floor.moved("su1-node01", None)
    p = su4.evolve(physical=su4.physical.model_copy(update={"floor": floor}))
    r = solve(p)
    i = p.fabric.index["su1-node01"]
    e = p.fabric.links.expand()
    mine = np.flatnonzero((e["a"] == i) | (e["b"] == i))
    assert set(r.media.length_m[mine].tolist()) == {p.analysis.length_for("endpoint-leaf")}
    assert "not-on-floor" in {x.code for x in r.problems}


def test_place_missing_adds_new_devices_in_new_racks(su4):
    extra = Device(id="late", name="late", model="dgx-h100", role=Role.GPU_SERVER)
    p = su4.with_fabric(su4.fabric.add((extra,), LinkTable.empty()))
    placed = with_floor(p, CAT)
    assert placed.physical.floor.placement["late"].rack.startswith("NEW")
    assert placed.physical.floor.placement["su1-node01"] == su4.physical.floor.placement[
        "su1-node01"]


def test_default_floor_of_an_empty_project():
    assert default_floor(Project(), CAT).rows == ()
    assert Physical().floor is None


def test_move_device_checks_room(su4):
    from designer.core.physical.edit import move_device
    from designer.core.physical.errors import PlacementError

    moved = move_device(su4, CAT, "su1-node01", "SU1-02", 33)
    assert moved.physical.floor.placement["su1-node01"] == Slot(rack="SU1-02", u=33)
    auto = move_device(su4, CAT, "su1-leaf-r1", "SU1-03")
    assert auto.physical.floor.placement["su1-leaf-r1"].u == 46  # top free U, as switches go
    with pytest.raises(PlacementError, match="taken"):
        move_device(su4, CAT, "su1-node01", "SU1-02", 1)
    with pytest.raises(PlacementError, match="does not fit"):
        move_device(su4, CAT, "su1-node01", "SU1-02", 45)
    with pytest.raises(PlacementError, match="no rack"):
        move_device(su4, CAT, "su1-node01", "nowhere", 1)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["floor", "extras", "rows", "racks", "placement", "geometry", "name",
                         "rack", "u", "kind", "rack_u", "spares_pct", "x"]), inner, max_size=4),
    max_leaves=16,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json)
def test_hostile_physical_sections_raise_only_the_typed_error(value):
    import contextlib
    import json

    from designer.core.errors import ProjectFileError

    raw = json.loads(dumps_project(Project()))
    raw["physical"] = value
    with contextlib.suppress(ProjectFileError):
        loads_project(json.dumps(raw).encode())


def test_bad_placement_in_a_file_names_the_field(su4):
    import json

    from designer.core.errors import ProjectFileError

    raw = json.loads(dumps_project(su4))
    raw["physical"]["floor"]["placement"]["su1-node01"] = {"rack": "ZZ-99", "u": 1}
    with pytest.raises(ProjectFileError, match=r"physical.*ZZ-99"):
        loads_project(json.dumps(raw).encode())


def test_hand_drawn_design_without_labels_gets_a_plan():
    # no su / pod / group labels (as drawn by hand): one compute row, ToRs with their
    # servers, everything else in network rows
    p = load_project(ROOT / "projects" / "k-ary-fat-tree-k8.fabric.json", CAT)
    bare = p.with_fabric(p.fabric.with_devices(tuple(
        d.model_copy(update={"groups": {}}) for d in p.fabric.devices)))
    floor = default_floor(bare, CAT)
    assert set(floor.placement) == {d.id for d in bare.fabric.devices}
    assert floor.rows[0].name == "ROW1" and floor.rows[-1].name.startswith("NET")
    kinds = {r.name: r.kind for _, _, r in floor.racks()}
    for d in bare.fabric.devices:
        rack = kinds[floor.placement[d.id].rack]
        assert rack == ("compute" if d.role in (Role.GPU_SERVER, Role.LEAF) else "network")
