"""The fast paths of building and editing large fabrics give what the plain ones give.

``Device.block`` builds most generated devices without validation, and ``remove_devices``
finds the removed by the id index and carries the index over; both must equal the slow,
obvious construction (field order, fields set, ids and links), or a saved file, an undo or a
lookup would differ between a design made one way and the other.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.fileformat import dumps_project
from designer.core.generators import generate, params_from_dict
from designer.core.links import COLUMNS
from designer.core.model import Device, Fabric, Role

# a GB300 NVL72 design (trays with a domain label, NICs named on the tray) and an 8-GPU one
_NVL = generate(params_from_dict("rail", {"gpus": 576, "gear": "gb300-ib-xdr"}))
_DGX = generate(params_from_dict("rail", {"sus": 2}))


@pytest.mark.parametrize("project", [_NVL, _DGX], ids=["nvl72", "8-gpu"])
def test_generated_devices_equal_validated_ones(project):
    for d in project.fabric.devices:
        v = Device.model_validate(d.model_dump(exclude_unset=True))
        assert d == v
        assert list(d.__dict__) == list(v.__dict__)  # the order a file is written in
        assert d.model_fields_set == v.model_fields_set
        assert type(d.role) is type(v.role)
        assert d.groups is not v.groups


def _rows(n: int, **fixed) -> list[dict]:
    return [{"id": f"n{k}", "name": f"n{k}", "model": "dgx-b300", "role": "gpu-server",
             "groups": {"su": k // 2 + 1}, "x": float(k), "y": 1.5 * k, **fixed}
            for k in range(n)]


@pytest.mark.parametrize("fixed", [{}, {"nics": 2}, {"nic": "cx8", "port_speed_gbps": 400}])
def test_block_equals_validation_row_by_row(fixed):
    rows = _rows(6, **fixed)
    out = Device.block([r["id"] for r in rows], [r["groups"] for r in rows],
                       np.array([r["x"] for r in rows]), np.array([r["y"] for r in rows]),
                       model="dgx-b300", role=Role.GPU_SERVER, **fixed)
    ref = [Device.model_validate(r) for r in rows]
    assert out == ref
    assert [list(d.__dict__) for d in out] == [list(r.__dict__) for r in ref]
    assert [d.model_fields_set for d in out] == [r.model_fields_set for r in ref]
    assert all(type(d.x) is float and type(d.y) is float for d in out)


def test_block_devices_share_nothing_a_copy_changes():
    """The block's devices share one fields-set and may share a groups dict; a copy that
    changes a field must leave the others as they were."""
    g = {"su": 1}
    a, b = Device.block(["a", "b"], [g, g], np.zeros(2), np.zeros(2), model="dgx-b300",
                        role=Role.GPU_SERVER)
    moved = b.model_copy(update={"x": 5.0, "groups": {"su": 2}})
    assert moved.model_fields_set >= {"x", "groups"}
    assert a.model_fields_set == b.model_fields_set
    assert (a.x, a.groups, b.x, b.groups) == (0.0, {"su": 1}, 0.0, {"su": 1})


@pytest.mark.parametrize("change, message", [
    (lambda c: c.update(ids=["bad id", "x"]), "String should match pattern"),
    (lambda c: c.update(model="Not A Gear!"), "String should match pattern"),
    (lambda c: c.update(groups=[{"su": 1}, {"Bad-Key": 1}]), "String should match pattern"),
    (lambda c: c.update(groups=[{"su": 1}, {"su": -1}]), "not a whole number from 0"),
    (lambda c: c.update(groups=[{"su": 1}, {"su": 1.5}]), "not a whole number from 0"),
    (lambda c: c.update(x=np.array([0.0, np.nan])), "finite coordinate"),
    (lambda c: c.update(y=np.array([0.0, 2e9])), "finite coordinate"),
    (lambda c: c.update(x=np.zeros(3)), "different lengths"),
    (lambda c: c.update(fixed={"name": "n"}), "not a per-block device field"),
    (lambda c: c.update(fixed={"nics": 0}), "greater than 0"),
])
def test_block_refuses_what_validation_refuses(change, message):
    """The first device of every set of group keys is validated in full and places are
    checked as columns, so a generator's mistake fails loudly, not in a saved file."""
    cols = {"ids": ["a", "b"], "groups": [{"su": 1}, {"su": 1}], "x": np.zeros(2),
            "y": np.zeros(2), "model": "dgx-b300", "fixed": {}}
    change(cols)
    with pytest.raises(ValueError, match=message):
        Device.block(cols["ids"], cols["groups"], cols["x"], cols["y"], model=cols["model"],
                     role=Role.GPU_SERVER, **cols["fixed"])


@pytest.mark.parametrize("project", [_NVL, _DGX], ids=["nvl72", "8-gpu"])
def test_group_labels_equal_the_plain_reading(project):
    fabric = project.fabric
    keys = {k for d in fabric.devices for k in d.groups}
    assert fabric.group_keys == keys
    for k in keys | {"absent"}:
        for missing in (0, -1):
            col = fabric.group_label(k, missing)
            assert col.tolist() == [d.groups.get(k, missing) for d in fabric.devices]
            assert col.dtype == np.int64 and not col.flags.writeable
            assert fabric.group_label(k, missing) is col  # made once per fabric


@pytest.mark.parametrize("project", [_NVL, _DGX], ids=["nvl72", "8-gpu"])
def test_gear_codes_equal_first_appearance_order(project):
    from designer.core.catalog import builtin_catalog
    from designer.core.problems import device_table

    t = device_table(project.fabric, builtin_catalog())
    code: dict = {}
    plain = [code.setdefault((d.model, d.port_speed_gbps, d.nic, d.nics), len(code))
             for d in project.fabric.devices]
    assert t.gear.tolist() == plain and t.choices == tuple(code)


def test_composed_ids_equal_format_strings():
    from designer.core.generators.plane import compose_ids

    u, k = np.repeat(np.arange(3), 36), np.tile(np.arange(36), 3)
    ids = compose_ids([f"su{a + 1}-rack{r + 1}-tray" for a in range(3) for r in range(2)],
                      [f"{t + 1:02d}" for t in range(18)], u * 2 + k // 18, k % 18)
    assert ids == [f"su{a + 1}-rack{b // 18 + 1}-tray{b % 18 + 1:02d}"
                   for a, b in zip(u.tolist(), k.tolist(), strict=True)]


def test_domain_labels_shared_by_a_domain():
    from designer.core.generators.plane import domain_groups

    su1, su2 = {"su": 1}, {"su": 2}
    out = domain_groups([su1] * 4 + [su2] * 4, 4)
    assert out == [{"su": 1, "domain": 1}] * 4 + [{"su": 2, "domain": 2}] * 4
    assert out[0] is out[3] and su1 == {"su": 1}  # one dict a domain; the input untouched
    # a domain across two units keeps each tray's own labels
    out = domain_groups([su1] * 3 + [su2] * 5, 4)
    assert out == ([{"su": 1, "domain": 1}] * 3 + [{"su": 2, "domain": 1}]
                   + [{"su": 2, "domain": 2}] * 4)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["rail", "fat-tree", "rail-only"]),
       st.sampled_from(["gb300-ib-xdr", "gb200-ib-ndr", "vr-ib-xdr", "gb300-spectrum-x"]),
       st.integers(1, 40))
def test_rack_scale_designs_label_every_tray_with_its_rack(kind, gear, racks):
    """Every tray carries its rack's domain label, the trays of a rack the same labels, at
    any size a generator accepts (NVIDIA's NVL72: 18 trays a rack, one NVLink domain)."""
    project = generate(params_from_dict(kind, {"gpus": 72 * racks, "gear": gear}))
    trays = [d for d in project.fabric.devices if d.role.value == "gpu-server"]
    assert len(trays) == 18 * racks
    for r in range(racks):
        rack = trays[18 * r:18 * r + 18]
        assert {d.groups["domain"] for d in rack} == {r + 1}
        assert all(d.groups == rack[0].groups for d in rack)


def _plain_remove(fabric: Fabric, ids: set[str]) -> Fabric:
    keep = [d.id not in ids for d in fabric.devices]
    new_index = np.where(keep, np.cumsum(keep) - 1, -1).astype(np.int32)
    a, b = new_index[fabric.links.a], new_index[fabric.links.b]
    rows = (a >= 0) & (b >= 0)
    return Fabric(devices=tuple(d for d, k in zip(fabric.devices, keep, strict=True) if k),
                  links=fabric.links.take(rows).remap_devices(new_index))


@settings(max_examples=25, deadline=None)
@given(st.sets(st.integers(0, len(_NVL.fabric.devices) - 1), max_size=30),
       st.booleans(), st.booleans())
def test_remove_devices_equals_plain_removal(picks, warm_index, unknown):
    fabric = _NVL.fabric.model_copy()
    if warm_index:
        _ = fabric.index
    ids = {fabric.devices[i].id for i in picks} | ({"no-such-device"} if unknown else set())
    got = fabric.remove_devices(ids)
    ref = _plain_remove(fabric, ids)
    assert got.devices == ref.devices
    assert got.index == {d.id: i for i, d in enumerate(ref.devices)}  # carried, not rebuilt
    for c in COLUMNS:
        np.testing.assert_array_equal(getattr(got.links, c), getattr(ref.links, c))
        assert getattr(got.links, c).dtype == getattr(ref.links, c).dtype
        assert not getattr(got.links, c).flags.writeable


def test_removal_carries_the_index_without_reading_each_device(monkeypatch):
    """The survivors' index comes from the old one's keys: no device's id is read again."""
    fabric = _NVL.fabric.model_copy()
    _ = fabric.index
    spine = next(d.id for d in fabric.devices if d.role.value == "spine")
    import designer.core.model as model

    reads = []
    monkeypatch.setattr(model, "_DEVICE_ID", lambda d: reads.append(d) or d.id)
    out = fabric.remove_devices({spine})
    assert "index" in out.__dict__ and spine not in out.index
    assert reads == []


def test_generated_file_bytes_unchanged_by_block_build():
    data = dumps_project(_NVL)
    from designer.core.fileformat import loads_project

    assert dumps_project(loads_project(data)) == data


def test_generate_checks_the_links_once(monkeypatch):
    """The generated fabric is validated as it is assembled, and not again by the project
    that holds it (pydantic runs a model validator on an instance passed to a field)."""
    import designer.core.model as model

    calls = []
    check = model.check_link_table

    def counted(links, *a, **k):
        calls.append(len(links))
        return check(links, *a, **k)

    monkeypatch.setattr(model, "check_link_table", counted)
    project = generate(params_from_dict("rail", {"gpus": 576, "gear": "gb300-ib-xdr"}))
    assert [n for n in calls if n] == [len(_NVL.fabric.links)]
    assert project == _NVL and project.model_fields_set == _NVL.model_fields_set


def test_fabrics_compare_by_fields_with_their_caches_warm():
    """A fabric keeps numpy columns it worked out (roles, group labels); comparing two
    fabrics, or two projects, compares devices and links, never those arrays (an array
    compared with another has no single truth value: the comparison raised)."""
    a = generate(params_from_dict("rail", {"sus": 1}))
    b = generate(params_from_dict("rail", {"sus": 1}))
    c = generate(params_from_dict("rail", {"sus": 2}))
    for p in (a, b, c):
        _ = p.fabric.roles, p.fabric.index, p.fabric.group_label("su")
    assert a == b and a.fabric == b.fabric
    assert a != c and a.fabric != c.fabric
    first = a.fabric.devices[0].model_copy(update={"x": 1.0})
    moved = a.fabric.with_devices((first, *a.fabric.devices[1:]))
    assert moved != a.fabric
