"""An edit regroups only what it touched: the index it derives equals a full rebuild."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.core.generators import generate, params_from_dict
from designer.core.model import Device, Role
from designer.gui.canvas.groups import GroupIndex


def _same(a: GroupIndex, b: GroupIndex) -> None:
    assert a.keys == b.keys
    assert a.key_id == b.key_id
    assert a.depth_gid.shape == b.depth_gid.shape or (
        # a rebuild is as deep as the deepest chain left; a derived index may keep an
        # all-empty row below it, which no lookup can tell apart
        (a.depth_gid[b.depth_gid.shape[0]:] == -1).all()
    )
    d = min(a.depth_gid.shape[0], b.depth_gid.shape[0])
    np.testing.assert_array_equal(a.depth_gid[:d], b.depth_gid[:d])
    assert len(a.members) == len(b.members)
    for x, y in zip(a.members, b.members, strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.is_tier, b.is_tier)
    np.testing.assert_array_equal(a.depth, b.depth)
    np.testing.assert_array_equal(a.role_code, b.role_code)
    np.testing.assert_array_equal(a.group_label, b.group_label)
    np.testing.assert_array_equal(a.role_id, b.role_id)
    assert a.racks_under == b.racks_under


# a 3-tier design with pods, SUs and an unlabelled core tier (DGX SuperPOD, 4 SUs)
_BASE = generate(params_from_dict("rail", {"sus": 4})).fabric.devices
_LABELS = st.dictionaries(st.sampled_from(["plane", "pod", "su", "group"]),
                          st.integers(0, 3), max_size=3)


@st.composite
def _edits(draw):
    """Random deletions, insertions of new or relabelled devices and reorderings."""
    devices = list(_BASE)
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["delete", "insert", "relabel", "move"]))
        if kind == "delete" and devices:
            lo = draw(st.integers(0, len(devices) - 1))
            del devices[lo : lo + draw(st.integers(1, 40))]
        elif kind == "insert":
            at = draw(st.integers(0, len(devices)))
            role = draw(st.sampled_from(list(Role)))
            d = Device(id=f"new{draw(st.integers(0, 10**6))}-{at}", name="n", model="x",
                       role=role, groups=draw(_LABELS))
            devices.insert(at, d)
        elif kind == "relabel" and devices:
            i = draw(st.integers(0, len(devices) - 1))
            devices[i] = devices[i].model_copy(update={"groups": draw(_LABELS)})
        elif kind == "move" and len(devices) > 1:
            i, j = draw(st.integers(0, len(devices) - 1)), draw(st.integers(0, len(devices) - 1))
            devices.insert(j, devices.pop(i))
    return tuple(devices)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_edits())
def test_regroup_after_edits_equals_rebuild(new):
    old_index = GroupIndex.build(_BASE)
    where = {id(d): i for i, d in enumerate(_BASE)}
    source = np.array([where.get(id(d), -1) for d in new], dtype=np.int64)
    _same(old_index.rebuilt(new, source), GroupIndex.build(new))


def test_regroup_of_every_device_changed_and_of_nothing():
    index = GroupIndex.build(_BASE)
    _same(index.rebuilt(_BASE, np.full(len(_BASE), -1)), index)
    _same(index.rebuilt((), np.empty(0, np.int64)), GroupIndex.build(()))
    _same(GroupIndex.build(()).rebuilt(_BASE, np.full(len(_BASE), -1)), index)


def test_edit_at_65536_gpus_regroups_without_a_rebuild(window, qapp, qtbot, monkeypatch):
    """Deleting a core switch of the 65,536-GPU fat-tree (13,312 devices), and undoing it,
    updates the canvas from what changed, never by rebuilding the group index (the time it
    takes is measured against the 50 ms rule in bench/bench_live.py)."""

    from designer.gui.canvas import groups
    from designer.gui.project import commands

    doc, scene = window.doc, window.scene
    doc.replace(generate(params_from_dict("fat-tree", {"gpus": 65536, "tiers": 3})))
    qapp.processEvents()
    boxes_before = set(scene.box_items)
    cores = [d.id for d in doc.project.fabric.devices if d.role.value == "core"]

    def no_rebuild(*_a, **_k):
        raise AssertionError("an edit rebuilt the whole group index")

    rebuild = GroupIndex.build
    with monkeypatch.context() as m:
        m.setattr(groups.GroupIndex, "build", classmethod(no_rebuild))
        for k in range(6):
            if k % 2 == 0:
                doc.push(commands.delete(doc, [cores[k]]))
            else:
                doc.undo_stack.undo()
            # a design this large is redrawn in the next event-loop turn, by itself
            assert scene.pending
            qtbot.waitUntil(lambda: not scene.pending)
            devices = doc.project.fabric.devices
            assert len(devices) == 13312 - (k % 2 == 0)
            _same(scene.index, rebuild(devices))
            assert set(scene.box_items) == boxes_before


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("dimr"), st.integers(0, 60), st.integers(0, 60)),
                max_size=4))
def test_same_devices_matches_every_object_after_any_edits(edits):
    """The canvas finds unchanged devices from the stretch an edit changed; the answer must
    equal matching every object of the new list against the whole old one."""
    from designer.gui.canvas.sync import same_devices

    old = [object() for _ in range(40)]
    new = list(old)
    for kind, i, j in edits:
        if kind == "d" and new:
            del new[i % len(new): i % len(new) + 1 + j % 5]
        elif kind == "i":
            new.insert(i % (len(new) + 1), object())
        elif kind == "m" and len(new) > 1:
            new.insert(j % len(new), new.pop(i % len(new)))
        elif kind == "r" and new:
            new[i % len(new)] = object()
    where = {id(d): k for k, d in enumerate(old)}
    want = [where.get(id(d), -1) for d in new]
    assert same_devices(tuple(old), tuple(new)).tolist() == want
    assert same_devices((), tuple(new)).tolist() == [-1] * len(new)
