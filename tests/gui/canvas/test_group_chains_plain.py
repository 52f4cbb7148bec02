"""The canvas reads each device's group chain, role codes and gear with C-level maps over
distinct (labels, role) pairs and distinct gear; both must give what a plain loop over every
device gives, whether devices share their label dicts (generated racks) or each has its own
(a file read back), whatever order a dict lists its labels in."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.fileformat import dumps_project, loads_project
from designer.core.generators import generate, params_from_dict
from designer.core.model import Device, Role
from designer.gui.canvas.groups import GroupIndex, device_chain

_ROLE_CODE = {"gpu-server": 0, "appliance": 0, "leaf": 1, "spine": 2, "core": 3, "router": 4}


def _plain(devices) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    key_id: dict = {}
    chains = [tuple(key_id.setdefault(k, len(key_id)) for k in device_chain(d))
              for d in devices]
    depth = max((len(c) for c in chains), default=0)
    table = np.full((depth, len(chains)), -1, np.int32)
    for i, c in enumerate(chains):
        table[: len(c), i] = c
    role_code = np.array([_ROLE_CODE.get(d.role.value, 5) for d in devices], np.int8)
    glabel = np.array([d.groups.get("group", -1) for d in devices], np.int64)
    role_id = np.array([list(Role).index(d.role) for d in devices], np.int8)
    return key_id, table, role_code, glabel, role_id


def _check(devices) -> None:
    gi = GroupIndex.build(tuple(devices))
    key_id, table, role_code, glabel, role_id = _plain(devices)
    assert gi.key_id == key_id and gi.keys == list(key_id)
    np.testing.assert_array_equal(gi.depth_gid, table)
    np.testing.assert_array_equal(gi.role_code, role_code)
    np.testing.assert_array_equal(gi.group_label, glabel)
    np.testing.assert_array_equal(gi.role_id, role_id)


@pytest.mark.parametrize("kind, values", [
    ("rail", {"gpus": 1152, "gear": "gb300-ib-xdr"}),
    ("rail", {"sus": 4}),
    ("dragonfly", {"groups": 9}),
    ("rail", {"gpus": 2304, "gear": "gb300-spectrum-x", "planes": 2}),
])
def test_generated_and_read_back_designs_group_as_a_plain_loop(kind, values):
    project = generate(params_from_dict(kind, values))
    _check(project.fabric.devices)
    _check(loads_project(dumps_project(project)).fabric.devices)  # a dict per device


_LABELS = st.lists(st.tuples(st.sampled_from(["plane", "pod", "su", "group", "domain"]),
                             st.integers(0, 3)), max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_LABELS, st.sampled_from(list(Role))), min_size=1, max_size=30))
def test_any_labels_in_any_order_group_as_a_plain_loop(rows):
    devices = [Device.model_validate({"id": f"d{i}", "name": f"d{i}", "model": "qm9700",
                                      "role": role, "groups": dict(labels)})
               for i, (labels, role) in enumerate(rows)]
    _check(devices)


@pytest.mark.parametrize("kind, values", [
    ("rail", {"gpus": 1152, "gear": "gb300-ib-xdr"}),
    ("rail", {"sus": 2, "gear": "roce-400"}),
    ("rail", {"gpus": 2304, "gear": "gb300-spectrum-x", "planes": 2}),
])
def test_canvas_gear_columns_equal_a_plain_loop(window, qtbot, kind, values):
    """Each device's technology and GPUs on the canvas, worked out once per distinct gear,
    equal a port layout read device by device."""
    from designer.core.ports import port_layout
    from tests.gui.helpers import load

    project = generate(params_from_dict(kind, values))
    load(window, qtbot, project)
    scene = window.scene
    scene.flush()
    cat = window.doc.catalog
    tech = cat.profile(project.profile).tech
    for i, d in enumerate(project.fabric.devices):
        lay = port_layout(d, cat)
        want = tech if tech in lay.techs else (lay.techs[0] if lay.techs else None)
        assert (scene.tech[i], int(scene.gpus[i])) == (want, lay.gpus)
        assert scene.tech_names[scene.tech_code[i]] == want
