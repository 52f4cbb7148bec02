"""The inspector's rules, in the core: what a device may become and whom it is joined to."""

from __future__ import annotations

import numpy as np

from designer.core.device_choices import device_choices, neighbours
from designer.core.generators import generate, params_from_dict
from designer.core.model import Role


def _su2():
    return generate(params_from_dict("rail", {"sus": 2})).fabric  # DGX SuperPOD, 512 GPUs


def test_a_leaf_may_become_any_switch_and_runs_its_ports_at_400g(catalog):
    f = _su2()
    i = f.index["su1-leaf-r1"]
    ch = device_choices(f, i, catalog)
    switches = {g.id for g in catalog.of_kind("switch")}
    assert {m for m, _ in ch.models} == switches and ch.model in switches
    assert ch.mode == 400 and any(s == 400 and label.startswith("64 x 400G")
                                  for label, s in ch.modes)
    assert Role.LEAF in ch.roles


def test_a_gpu_server_is_offered_only_gpu_servers_and_its_nic_modes_per_server(catalog):
    f = _su2()
    i = next(k for k, d in enumerate(f.devices) if d.role == Role.GPU_SERVER)
    ch = device_choices(f, i, catalog)
    for gid, _ in ch.models:
        assert catalog.get(gid).gpus  # no appliance without GPUs
    assert any(label.startswith("8 x 400G") for label, _ in ch.modes)  # 8 NICs x 1 port


def test_neighbours_count_cables_per_device_and_cap_the_list(catalog):
    f = _su2()
    i = f.index["spine1"]
    near, total = neighbours(f, i)
    links = f.links
    rows = (links.a == i) | (links.b == i)
    other = np.where(links.a[rows] == i, links.b[rows], links.a[rows])
    assert total == np.unique(other).size == 16  # every leaf of 2 SUs
    assert sum(n.cables for n in near) == int(links.count[rows].sum())
    assert {n.speed_gbps for n in near} == {400}
    few, total2 = neighbours(f, i, limit=3)
    assert len(few) == 3 and total2 == 16 and few == near[:3]
