"""Lines that pass over a collapsed box they do not end at are drawn above the boxes and cut
at the edges of the boxes they end at (a core tier's links to a second row of pods used to
vanish behind the first row)."""

from __future__ import annotations

import numpy as np
import pytest

from designer.core.fileformat import load_project
from designer.gui.canvas.crossing import over_boxes
from tests._paths import PROJECTS
from tests.gui.helpers import load

# two boxes side by side at y 0..10 and a third below the first at y 40..50
RECTS = np.array([[0.0, 0.0, 10.0, 10.0], [20.0, 0.0, 10.0, 10.0], [0.0, 40.0, 10.0, 10.0]])


def test_a_line_through_a_third_box_is_over_and_cut_at_its_own_boxes():
    # from box 1's centre (25, 5) to box 2's centre (5, 45): crosses box 0? no; to a point
    # below box 0 through it: from (5, -20) (a device) to box 2's centre, through box 0
    seg = np.array([[5.0, -20.0, 5.0, 45.0], [25.0, 5.0, 5.0, 45.0]])
    mask, cut = over_boxes(seg, RECTS, np.array([-1, 1]), np.array([2, 2]))
    assert mask.tolist() == [True, False]
    # the first keeps its device end and stops at box 2's top edge
    assert cut[0].tolist() == pytest.approx([5.0, -20.0, 5.0, 40.0])


def test_a_line_between_neighbours_is_not_over():
    seg = np.array([[5.0, 5.0, 25.0, 5.0]])
    mask, _ = over_boxes(seg, RECTS, np.array([0]), np.array([1]))
    assert not mask.any()


def test_vertical_and_horizontal_lines_outside_every_box_are_not_over():
    seg = np.array([[15.0, -5.0, 15.0, 60.0], [-5.0, 25.0, 40.0, 25.0]])
    mask, cut = over_boxes(seg, RECTS, np.array([-1, -1]), np.array([-1, -1]))
    assert not mask.any() and np.array_equal(cut, seg)


def test_gb200_core_links_to_the_second_row_are_drawn_over_the_first(window, qtbot):
    project = load_project(PROJECTS / "gb200-nvl72-superpod-4su-ib-ndr.fabric.json")
    load(window, qtbot, project)
    scene = window.scene
    qtbot.waitUntil(lambda: bool(scene.box_items), timeout=10_000)
    over = [layer for key, layer in scene.edge_layers.items() if key[2]]
    assert over, "no line passes over a box in the 2 x 2 pod layout"
    boxes = [b.scene_rect() for b in scene.box_items.values()]
    z_boxes = max(b.zValue() for b in scene.box_items.values())
    for layer in over:
        assert layer.zValue() > z_boxes
        for x0, y0, x1, y1 in layer._seg:
            # both ends lie on or outside every box: nothing is drawn inside the box it ends at
            for r in boxes:
                for x, y in ((x0, y0), (x1, y1)):
                    inside = r.left() + 1e-6 < x < r.right() - 1e-6 and \
                        r.top() + 1e-6 < y < r.bottom() - 1e-6
                    assert not inside
