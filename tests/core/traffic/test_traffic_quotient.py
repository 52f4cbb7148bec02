"""Cells of switches the adaptive spray cannot tell apart (traffic/quotient.py).

The factored spray walks (cell, destination class) states; it is exact when the partition is
equitable (every member of a cell has the same capacity into and from every other cell),
switches with GPUs stand alone and members share their distances to every class. These
tests check those conditions on every small fabric and its edits, and that a k-ary fat tree
(Al-Fares et al., SIGCOMM 2008: k pods of k/2 aggregation switches, (k/2)^2 core switches
each joined to one aggregation switch per pod) collapses as its symmetry says.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings

from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from designer.core.traffic.network import build_network
from designer.core.traffic.quotient import cells_of
from tests.core.solver_cases import edited_small_fabrics


def _net(project):
    return build_network(compile_project(project, project.catalog(builtin_catalog())))


def _into(net, cell, src, dst):
    """Capacity from each switch into each cell: dense (switches x cells)."""
    out = np.zeros((net.c.n_switches, int(cell.max()) + 1))
    np.add.at(out, (src, cell[dst]), net.port_cap)
    return out


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(project=edited_small_fabrics())
def test_cells_are_equitable_and_keep_gpu_switches_alone(project):
    net = _net(project)
    if net.c.n_switches == 0:
        return
    cells = cells_of(net)
    cell = cells.cell
    assert (cell[cells.rep] == np.arange(cells.n)).all()
    assert (np.bincount(cell, minlength=cells.n) == cells.size).all()
    # a switch with GPUs is a cell of its own
    assert (cells.size[cell[np.unique(net.att_switch)]] == 1).all()
    # equitable, both ways: each member has its cell's first member's capacities
    for into in (_into(net, cell, net.port_src, net.port_dst),
                 _into(net, cell, net.port_dst, net.port_src)):
        np.testing.assert_allclose(into, into[cells.rep[cell]])
    # members share their distances to every class
    d = net.dist_by_class
    assert (d == d[:, cells.rep[cell]]).all()
    # cell-level hops: a member's capacity into the next cell; port shares sum to 1 per pair
    a = np.repeat(np.arange(cells.n), np.diff(cells.ptr))
    np.testing.assert_allclose(cells.cap, _into(net, cell, net.port_src, net.port_dst)[
        cells.rep[a], cells.nxt])
    np.testing.assert_allclose(np.bincount(cells.port_pair, weights=cells.port_share), 1.0)


def test_a_k_ary_fat_tree_collapses_to_its_symmetry():
    k = 8
    net = _net(generate(params_from_dict("fat-tree", {"k_ary": k})))
    cells = cells_of(net)
    edge, agg, core = k * k // 2, k * k // 2, (k // 2) ** 2
    assert net.c.n_switches == edge + agg + core
    # every edge switch alone (GPUs), one cell of aggregation switches per pod, one of cores
    assert cells.n == edge + k + 1
    assert sorted(cells.size.tolist()) == [1] * edge + [k // 2] * k + [core]


def test_a_removed_cable_splits_the_cells_it_touches():
    project = generate(params_from_dict("fat-tree", {"k_ary": 8}))
    whole = cells_of(_net(project)).n
    f = project.fabric
    keep = np.ones(len(f.links), bool)
    keep[-1] = False
    cut = cells_of(_net(project.with_fabric(f.with_links(f.links.take(keep)))))
    assert cut.n > whole


def test_a_switchs_signature_is_its_capacity_into_each_colour():
    """Two links of 400 into one colour count as one of 800 (the cells compare capacity
    between cells, not cables); 800 into another colour, or 400 less, is another
    signature; the order of the links does not matter."""
    from designer.core.traffic.quotient import SEED_OUT, signature

    colour = np.array([0, 0, 0, 0, 1, 1, 2])
    # switch 0: 2 x 400 into colour 1; switch 1: 800 into colour 1; switch 2: 800 into
    # colour 2; switch 3: 400 into colour 1
    src = np.array([0, 0, 1, 2, 3])
    dst = np.array([4, 5, 4, 6, 5])
    w = np.array([400_000, 400_000, 800_000, 800_000, 400_000])
    sig = signature(colour, src, dst, w, SEED_OUT)
    assert sig[0] == sig[1]
    assert len({int(sig[0]), int(sig[2]), int(sig[3])}) == 3
    back = signature(colour, src[::-1], dst[::-1], w[::-1], SEED_OUT)
    assert np.array_equal(sig, back)


def test_labels_are_numbered_by_first_appearance():
    from designer.core.traffic.quotient import relabel

    keys = np.array([7, 3, 7, 9, 3, 1], np.uint64)
    assert relabel(keys).tolist() == [0, 1, 0, 2, 1, 3]
    assert relabel(keys, np.array([0, 0, 1, 0, 0, 0])).tolist() == [0, 1, 2, 3, 1, 4]
