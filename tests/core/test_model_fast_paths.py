"""The fast paths of building and editing large fabrics give what the plain ones give.

``Device.trusted`` builds most generated devices without validation, and ``remove_devices``
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
from designer.core.model import Device, Fabric

# a GB300 NVL72 design (trays with a domain label, NICs named on the tray) and an 8-GPU one
_NVL = generate(params_from_dict("rail", {"gpus": 576, "gear": "gb300-ib-xdr"}))
_DGX = generate(params_from_dict("rail", {"sus": 2}))


@pytest.mark.parametrize("project", [_NVL, _DGX], ids=["nvl72", "8-gpu"])
def test_trusted_devices_equal_validated_ones(project):
    for d in project.fabric.devices:
        v = Device.model_validate(d.model_dump(exclude_unset=True))
        assert d == v
        assert list(d.__dict__) == list(v.__dict__)  # the order a file is written in
        assert d.model_fields_set == v.model_fields_set
        assert type(d.role) is type(v.role)
        assert d.groups is not v.groups


def test_trusted_rows_with_keys_in_any_order():
    """Rows of one shape may list their keys in any order: the fields come out in the
    model's order, and a later row's values, not the first's."""
    rows = [{"nics": 2, "groups": {"su": k}, "y": 1.0, "x": float(k), "role": "gpu-server",
             "model": "dgx-b300", "name": f"n{k}", "id": f"n{k}"} for k in range(1, 5)]
    out = Device.trusted(rows)
    ref = [Device.model_validate(r) for r in rows]
    assert out == tuple(ref)
    assert [list(d.__dict__) for d in out] == [list(r.__dict__) for r in ref]
    assert [d.model_fields_set for d in out] == [r.model_fields_set for r in ref]


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


def test_generated_file_bytes_unchanged_by_trusted_build():
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
