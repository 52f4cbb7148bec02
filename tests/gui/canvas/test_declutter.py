"""The diagram at scale (issue 17): title tabs never overlap (a plane's title is not under
its first SU's), cable labels never overlap each other, a title, a box or a device, and wide
boxes (a core tier) never cover the titles of the groups below them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.core.paths import projects_dir
from designer.gui.canvas.declutter import place_labels, place_tabs

rect = st.tuples(st.floats(-500, 500), st.floats(-500, 500), st.floats(1, 120), st.floats(1, 30))


def _overlap(a, b, gap=0.0) -> bool:
    return (a[0] < b[0] + b[2] + gap and b[0] < a[0] + a[2] + gap
            and a[1] < b[1] + b[3] + gap and b[1] < a[1] + a[3] + gap)


@settings(max_examples=60, deadline=None)
@given(st.lists(rect, max_size=25))
def test_placed_tabs_never_overlap_and_stay_in_their_group(rects):
    r = np.array(rects, float).reshape(-1, 4)
    limits = r[:, 0] + r[:, 2] + 200.0
    shift, width, shown = place_tabs(r, limits, gap=2.0, least=10.0)
    placed = [(x + dx, y, w, h) for (x, y, _w, h), dx, w, ok
              in zip(r.tolist(), shift, width, shown, strict=True) if ok]
    for i in range(len(placed)):
        for j in range(i):
            assert not _overlap(placed[i], placed[j])
    assert (shift >= 0).all()
    assert all(p[0] + p[2] <= lim + 1e-6 for p, lim in
               zip(placed, limits[shown], strict=True))


def test_the_first_tab_keeps_its_place_and_the_next_slides_past_it():
    plane = [0, 0, 60, 18]
    su = [0, 0, 40, 18]
    shift, width, shown = place_tabs(np.array([plane, su], float), np.array([500.0, 300.0]),
                                     gap=4)
    assert shown.all() and shift[0] == 0 and shift[1] == 64 and width[1] == 40
    # no room in its group: hidden rather than drawn over
    _shift, _width, shown = place_tabs(np.array([plane, su], float), np.array([500.0, 80.0]),
                                       gap=4, least=30)
    assert shown.tolist() == [True, False]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(rect, min_size=3, max_size=3), max_size=20), st.lists(rect, max_size=8))
def test_placed_labels_never_overlap_each_other_or_an_obstacle(cands, obstacles):
    c = np.array(cands, float).reshape(-1, 3, 4)
    o = np.array(obstacles, float).reshape(-1, 4)
    choice = place_labels(c, o, gap=0.0)
    chosen = [c[i, k] for i, k in enumerate(choice) if k >= 0]
    for i in range(len(chosen)):
        assert not any(_overlap(chosen[i], ob) for ob in o)
        for j in range(i):
            assert not _overlap(chosen[i], chosen[j])


def _tabs(scene):
    items = [*scene.frame_items.values(), *scene.box_items.values()]
    return {i.key: i.tab_scene_rect() for i in items if i.tab_shown}


def _check_view(window):
    scene, view = window.scene, window.view
    tabs = list(_tabs(scene).values())
    for i in range(len(tabs)):
        for j in range(i):
            assert not tabs[i].intersects(tabs[j]), (tabs[i], tabs[j])
    t = view.viewportTransform()
    exposed = view.mapToScene(view.viewport().rect()).boundingRect()
    labels = scene.labels.placed(t, exposed)
    rects = [r for _text, r in labels]
    obstacles = scene.label_obstacles(exposed, t)
    for i, r in enumerate(rects):
        for o in obstacles:
            assert not _overlap((r.x(), r.y(), r.width(), r.height()), o)
        for j in range(i):
            assert not r.intersects(rects[j])
    return labels


@pytest.mark.parametrize("name", ["b300-2-plane-roce-800.fabric.json",
                                  "dgx-superpod-64su-ib-ndr.fabric.json",
                                  "dragonfly-1056-gpus.fabric.json",
                                  "dgx-superpod-4su-ib-ndr.fabric.json"])
def test_no_text_overlaps_at_any_zoom(window, name):
    window.open_path(projects_dir() / name, ask=False)
    _check_view(window)
    window.view.fit_all()
    _check_view(window)
    for _ in range(3):
        window.view.scale(1.6, 1.6)
        window.scene.set_view_scale(window.view.transform().m11())
        _check_view(window)


def test_plane_2_is_not_under_su_1(window):
    window.open_path(projects_dir() / "b300-2-plane-roce-800.fabric.json", ask=False)
    tabs = _tabs(window.scene)
    planes = [k for k in tabs if "plane" in k and "su" not in k]
    assert len(planes) == 2  # both plane titles are shown
    labels = _check_view(window)
    assert any("400G" in text for text, _r in labels)  # labels are drawn, just apart


def test_the_core_bar_is_under_the_pod_titles(window):
    window.open_path(projects_dir() / "dgx-superpod-64su-ib-ndr.fabric.json", ask=False)
    boxes = window.scene.box_items
    core = next(b for b in boxes.values() if "pod" not in b.key)
    pods = [b for b in boxes.values() if b is not core]
    assert len(pods) == 16
    assert all(core.zValue() < b.zValue() for b in pods)


def test_a_wide_generated_design_is_arranged_compactly_and_fit_fills_the_view(window):
    from designer.core.generators import params_from_dict

    window.apply_generated(params_from_dict("rail", {"sus": 64}))
    assert window.doc.undo_stack.count() == 1  # generate and arrange: one step
    rect = window.scene.content_rect()
    assert rect.width() / rect.height() < 4  # 64 SUs in a row were about 170:1
    window.view.fit_all()
    shown = window.view.mapFromScene(rect).boundingRect()
    vp = window.view.viewport().rect()
    # the design fills the view one way and a good share of it the other
    assert max(shown.width() / vp.width(), shown.height() / vp.height()) > 0.8
    assert min(shown.width() / vp.width(), shown.height() / vp.height()) > 0.3


def test_the_bundled_16k_example_is_stored_compact(catalog):
    from designer.core.editing import bounds
    from designer.core.fileformat import load_project

    p = load_project(projects_dir() / "dgx-superpod-64su-ib-ndr.fabric.json", catalog)
    x0, y0, x1, y1 = bounds(p.fabric)
    assert (x1 - x0) / (y1 - y0) < 4
