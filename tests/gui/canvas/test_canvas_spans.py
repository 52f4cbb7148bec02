"""Boxes and frames measured in one pass over their members equal a box-by-box measure."""

from __future__ import annotations

import numpy as np
import pytest

from designer.core.generators import generate, params_from_dict
from designer.gui.canvas.groups import ROLES, GroupIndex
from designer.gui.canvas.items import device_size, half_widths
from designer.gui.canvas.spans import group_spans

_DESIGNS = {
    "nvl72": generate(params_from_dict("rail", {"gpus": 576, "gear": "gb300-ib-xdr"})),
    "8-gpu": generate(params_from_dict("rail", {"sus": 2})),
}


def _reference(members, xs, ys, roles, gpus, tech):
    """One group the plain way: masks per role, numpy's unique for the technology."""
    hw = half_widths(roles[members])
    out = {"x0": (xs[members] - hw).min(), "x1": (xs[members] + hw).max(),
           "y0": ys[members].min(), "y1": ys[members].max(), "gpus": int(gpus[members].sum())}
    for r in ROLES:
        sel = members[roles[members] == r.value]
        out[r.value] = (sel.size, xs[sel].min(), xs[sel].max(), ys[sel].min(),
                        ys[sel].max()) if sel.size else (0,)
    known = tech[members][tech[members] != None]  # noqa: E711
    if known.size:
        vals, counts = np.unique(known.astype(str), return_counts=True)
        out["tech"] = str(vals[int(np.argmax(counts))])
    else:
        out["tech"] = None
    return out


@pytest.mark.parametrize("name", list(_DESIGNS))
def test_spans_of_every_group_equal_a_box_by_box_measure(name):
    devices = _DESIGNS[name].fabric.devices
    index = GroupIndex.build(devices)
    rng = np.random.default_rng(7)
    n = len(devices)
    xs, ys = rng.normal(0, 500, n), rng.normal(0, 300, n)
    roles = np.array([d.role.value for d in devices], dtype=object)
    gpus = rng.integers(0, 9, n)
    # technologies with ties and gaps: the most common wins, a tie goes to the first name
    names: list[str | None] = [None, "roce-800", "ib-xdr", "ib-ndr"]
    code = rng.integers(0, len(names), n)
    tech = np.array([names[c] for c in code], dtype=object)
    sp = group_spans(index.members, xs, ys, index.role_id, gpus, code, names)
    assert len(sp.tech) == len(index)
    for j, members in enumerate(index.members):
        ref = _reference(members, xs, ys, roles, gpus, tech)
        assert (sp.x0[j], sp.x1[j], sp.y0[j], sp.y1[j]) == (
            ref["x0"], ref["x1"], ref["y0"], ref["y1"])
        assert sp.gpus[j] == ref["gpus"] and sp.tech[j] == ref["tech"]
        for k, r in enumerate(ROLES):
            got = int(sp.count[j, k])
            want = ref[r.value]
            assert got == want[0]
            if got:
                assert (sp.rx0[j, k], sp.rx1[j, k], sp.ry0[j, k], sp.ry1[j, k]) == want[1:]


def test_role_sizes_follow_the_items():
    from designer.gui.canvas.spans import ROLE_H, ROLE_W

    for k, r in enumerate(ROLES):
        assert (ROLE_W[k], ROLE_H[k]) == device_size(r.value)


def test_an_edit_measures_all_boxes_in_one_pass(window, qapp, monkeypatch):
    """Deleting a spine of a 4,608-GPU NVL72 design and undoing it measures every box and
    frame shown in one call, not one per box (the time is in bench/bench_rackscale.py)."""
    from designer.gui.canvas import drawing
    from designer.gui.project import commands

    doc, scene = window.doc, window.scene
    doc.replace(generate(params_from_dict("rail", {"gpus": 4608, "gear": "gb300-ib-xdr"})))
    qapp.processEvents()
    looks_before = {k: (i.look.summary, i.look.tech) for k, i in scene.box_items.items()}
    assert len(looks_before) > 1
    calls = []
    spans = drawing.group_spans
    monkeypatch.setattr(drawing, "group_spans",
                        lambda members, *a: calls.append(len(members)) or spans(members, *a))
    spine = next(d.id for d in doc.project.fabric.devices if d.role.value == "spine")
    doc.push(commands.delete(doc, [spine]))
    qapp.processEvents()
    assert calls == [len(scene.vg.boxes) + len(scene.vg.frames)]
    doc.undo_stack.undo()
    qapp.processEvents()
    assert {k: (i.look.summary, i.look.tech) for k, i in scene.box_items.items()} == looks_before
