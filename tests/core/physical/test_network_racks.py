"""``floor --place`` places the other networks' devices too: a management switch in the rack
it serves, front-end/storage switches and storage nodes in network racks of their own rows,
their power and U in the rack totals, the PDUs and the BOM."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.networks.generate import with_networks
from designer.core.networks.solve import solve_networks
from designer.core.physical.edit import move_device
from designer.core.physical.errors import PlacementError
from designer.core.physical.network_racks import net_size
from designer.core.physical.racks import floor_problems, project_usage
from designer.core.physical.sections import for_new_design
from designer.core.physical.summary import with_floor
from designer.core.solver import solve

CAT = builtin_catalog()


@pytest.fixture(scope="module")
def design():
    p = generate(params_from_dict("rail", {"sus": 2}))
    return for_new_design(with_networks(p, ("frontend", "storage", "oob")))


@pytest.fixture(scope="module")
def placed(design):
    return with_floor(design, design.catalog(CAT))


def _net_devices(p):
    return [(k, d) for k, n in p.networks.items() for d in n.devices]


def test_every_network_device_gets_a_slot_in_a_rack(placed):
    floor = placed.physical.floor
    racks = {r.name: r for _, _, r in floor.racks()}
    rows = {r.name: row.name for row in floor.rows for r in row.racks}
    for kind, d in _net_devices(placed):
        s = floor.placement[d.id]
        assert s.rack in racks
        if d.tier != "access":
            assert rows[s.rack] == {"frontend": "FE", "storage": "STOR", "oob": "OOB"}[kind]
            assert racks[s.rack].kind == "network"


def test_a_management_switch_stands_in_the_rack_it_serves(placed):
    floor = placed.physical.floor
    oob = placed.networks["oob"]
    access = {d.id for d in oob.devices if d.tier == "access"}
    where = {k: s.rack for k, s in floor.placement.items()}
    reach: dict[str, Counter] = {}
    for a, b in zip(oob.links.a, oob.links.b, strict=True):
        for sw, far in ((a, b), (b, a)):
            if sw in access and far in where and far not in access:
                reach.setdefault(sw, Counter())[where[far]] += 1
    assert reach
    g = floor.geometry
    for sw, racks in reach.items():
        most = max(racks.values())
        assert racks[where[sw]] == most, sw  # in the rack most of its cables reach
        # in the U kept free at the top for it (the compute racks' tops are free)
        assert floor.placement[sw].u > g.rack_u - g.reserved_u


def test_no_two_devices_share_a_u_and_power_is_in_the_rack_totals(design, placed):
    cat = placed.catalog(CAT)
    floor = placed.physical.floor
    assert not [p for p in floor_problems(placed, cat) if p.code in ("rack-overlap",
                                                                   "rack-top")]
    ru = {d.id: net_size(d.model, cat, {}).ru for _k, d in _net_devices(placed)}
    from designer.core.physical.placement import device_sizes

    sizes = device_sizes(placed.fabric, cat).ru
    ru |= {d.id: int(sizes[i]) for i, d in enumerate(placed.fabric.devices)}
    taken: dict[str, set[int]] = {}
    for dev, s in floor.placement.items():
        us = set(range(s.u, s.u + ru[dev]))
        assert not taken.setdefault(s.rack, set()) & us, dev
        taken[s.rack] |= us
    _pos, use = project_usage(placed, cat)
    backend_only = with_floor(design.model_copy(update={"networks": None}), cat)
    _pos0, use0 = project_usage(backend_only, cat)
    net_kw = sum(net_size(d.model, cat, {}).kw for _k, d in _net_devices(placed))
    assert net_kw > 0
    assert use.used_kw.sum() == pytest.approx(use0.used_kw.sum() + net_kw)
    assert int(use.devices.sum()) == len(placed.fabric.devices) + len(_net_devices(placed))


def test_placing_again_changes_nothing(placed):
    again = with_floor(placed, placed.catalog(CAT))
    assert again.physical.floor == placed.physical.floor


def test_bom_counts_their_pdus_and_drops_the_unplaced_note(design, placed):
    cat = placed.catalog(CAT)
    # back-end placed, the networks added after: the note names what the PDUs leave out
    early = with_floor(design.model_copy(update={"networks": None}), cat)
    early = early.evolve(networks=design.networks)
    before = solve(early, catalog=cat).bom
    notes = [x for r in solve_networks(early, cat).values() for x in r.lines
             if x.item.startswith("Note:")]
    assert len(notes) == 3 and all(x.qty == 0 and "not placed" in x.item for x in notes)
    after = solve(placed, catalog=cat).bom
    assert not [x for r in solve_networks(placed, cat).values() for x in r.lines
                if x.item.startswith("Note:")]
    assert not [x for x in after.lines if x.item.startswith("Note:")]

    def count(bom, word):
        return sum(x.qty for x in bom.lines if word in x.item)

    assert count(after, "Rack PDU") > count(before, "Rack PDU")
    assert count(after, "Rack, 48U") > count(before, "Rack, 48U")
    assert count(after, "Horizontal cable manager") > count(before, "Horizontal cable manager")


def test_moving_onto_a_management_switch_is_refused(placed):
    cat = placed.catalog(CAT)
    floor = placed.physical.floor
    sw = next(d.id for d in placed.networks["oob"].devices if d.tier == "access")
    slot = floor.placement[sw]
    server = next(d.id for d in placed.fabric.devices if not d.role.is_switch)
    with pytest.raises(PlacementError):
        move_device(placed, cat, server, slot.rack, slot.u - 7)  # an 8U DGX over it


def test_drawio_racks_page_draws_them(placed):
    from designer.core.writers.drawio import drawio_xml

    xml, _counts = drawio_xml(placed, placed.catalog(CAT))
    racks_page = xml[xml.index('name="Racks"'):]
    assert racks_page.count('id="r-n') == len(_net_devices(placed))
    assert np.all([f'{d.id} ({d.model})' in racks_page for _k, d in _net_devices(placed)])
