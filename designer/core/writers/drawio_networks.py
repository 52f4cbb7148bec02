"""The draw.io pages of the cluster's other networks: one page per network.

Drawn like the back-end's Groups page, by groups rather than devices: the network's own
switches as boxes per tier and rack group (spine, leaf and access rows), and a bottom row of
what they serve, each in the box it has elsewhere (the back-end's servers and switches in their
Groups-page box, another network's devices in one box per network and tier, storage nodes in
one box), with a bundle per box pair labelled with its cable count and speed. When a network's
tier has more rack groups than ``MAX_ROW``, runs of consecutive groups share a box.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

import numpy as np

from designer.core.model import Project, Role
from designer.core.networks import NETWORK_LABELS
from designer.core.networks.drawing import COLOURS
from designer.core.networks.model import Network
from designer.core.writers.drawio_shapes import BOX_H, BOX_W, GAP_X, ROW_H, Box, box_style

MAX_ROW = 16  # boxes of a network's own tier in one row
ROW_OF_TIER = {"spine": 3, "leaf": 2, "access": 1, "storage-node": 0}
TIER_WORD = {"spine": "spines", "leaf": "leaves", "access": "access switches",
             "storage-node": "storage nodes"}

Cell = Callable[..., str]


def _style(fill: str, stroke: str) -> str:
    return (f"rounded=1;whiteSpace=wrap;html=0;fillColor={fill};strokeColor={stroke};"
            "fontSize=11;")


def network_boxes(project: Project, net: Network, backend_boxes: list[Box],
                  backend_of: np.ndarray) -> tuple[list[Box], dict[str, int], list[str]]:
    """The page's boxes, each link end's box index, and each box's style."""
    own = net.devices
    # each tier's rack groups, merged into runs of consecutive groups when a row would be
    # wider than MAX_ROW boxes
    run: dict[tuple[str, int], tuple[int, int]] = {}
    for tier in {d.tier for d in own}:
        groups = sorted({d.group for d in own if d.tier == tier})
        step = -(-len(groups) // MAX_ROW)
        for i, g in enumerate(groups):
            chunk = groups[i - i % step:i - i % step + step]
            run[(tier, g)] = (chunk[0], chunk[-1])
    index: dict[tuple, int] = {}
    members: dict[int, list[str]] = defaultdict(list)
    styles: list[str] = []
    boxes_meta: list[tuple[str, int, str]] = []  # role word, row, style
    of: dict[str, int] = {}

    def box(key: tuple, row: int, style: str) -> int:
        k = index.get(key)
        if k is None:
            k = index[key] = len(index)
            boxes_meta.append((key[0], row, style))
        return k

    fill, stroke = COLOURS[net.kind]
    models: dict[int, Counter] = defaultdict(Counter)
    for d in own:
        group = run[(d.tier, d.group)] if d.tier != "storage-node" else (-1, -1)
        k = box(("own", d.tier, group), ROW_OF_TIER[d.tier], _style(fill, stroke))
        of[d.id] = k
        members[k].append(d.id)
        models[k][d.model] += 1
    # the far ends that are not this network's own devices
    backend_ids = {d.id: i for i, d in enumerate(project.fabric.devices)}
    other_dev: dict[str, tuple[str, str, str]] = {}  # id -> (kind, tier, model)
    for kind, other in (project.networks or {}).items():
        if kind != net.kind:
            for d in other.devices:
                other_dev[d.id] = (kind, d.tier, d.model)
    for col in (net.links.a, net.links.b):
        for dev in col:
            if dev in of:
                continue
            if dev in backend_ids:
                b = int(backend_of[backend_ids[dev]])
                bb = backend_boxes[b]
                if bb.role == Role.GPU_SERVER.value:  # servers: their Groups-page box
                    k = box(("backend", b), 0, box_style(bb.role))
                else:  # a back-end switch (management ports): one box per role
                    k = box(("backend-role", bb.role), 0, box_style(bb.role))
                    models[k][project.fabric.devices[backend_ids[dev]].model] += 1
            elif dev in other_dev:
                kind, tier, model = other_dev[dev]
                f2, s2 = COLOURS[kind]
                k = box(("other", kind, tier), 0, _style(f2, s2))
                models[k][model] += 1
            else:  # a dangling end: the model refuses these, so never drawn
                continue
            of[dev] = k
            members[k].append(dev)
    out: list[Box] = []
    for key, k in index.items():
        n = len(set(members[k]))
        word, row, style = boxes_meta[k]
        styles.append(style)
        if word == "backend-role":
            gear = ", ".join(f"{c:,} x {m}" for m, c in models[k].most_common(3))
            word = Role(key[1]).label.lower()
            label = f"Back-end {word}{'s' if word == 'appliance' else ' switches'}\n{gear}"
        elif word == "backend":
            bb = backend_boxes[key[1]]
            label = f"{bb.label}\n({n:,} here)" if n != bb.count else bb.label
        else:
            tier = key[1] if word == "own" else key[2]
            gear = ", ".join(f"{c:,} x {m}" for m, c in models[k].most_common(3))
            where = NETWORK_LABELS[key[1]] + " " if word == "other" else ""
            grp = ""
            if word == "own" and key[2][0] >= 0:
                lo, hi = key[2][0] + 1, key[2][1] + 1
                grp = f" group {lo}" if lo == hi else f" groups {lo}-{hi}"
            if n == 1 and word == "own":
                label = f"{members[k][0]}\n{gear}"
            else:
                label = f"{where}{TIER_WORD[tier]}{grp}\n{gear}"
        out.append(Box(key, word, row, label, n))
    return out, of, styles


def _layout(boxes: list[Box]) -> dict[int, tuple[float, float]]:
    rows: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(boxes):
        rows[b.tier].append(i)
    width = max((len(r) for r in rows.values()), default=1) * (BOX_W + GAP_X)
    pos = {}
    for t_i, t in enumerate(sorted(rows, reverse=True)):
        row = rows[t]
        x0 = (width - len(row) * (BOX_W + GAP_X)) / 2
        for k, i in enumerate(row):
            pos[i] = (x0 + k * (BOX_W + GAP_X), 40 + t_i * ROW_H)
    return pos


def network_page(project: Project, net: Network, backend_boxes: list[Box],
                 backend_of: np.ndarray, vertex: Cell, edge: Cell, page: Cell,
                 bundle_label: Callable[[Counter], str]) -> tuple[str, int, int]:
    """The page's XML, its box count and bundle count."""
    boxes, of, styles = network_boxes(project, net, backend_boxes, backend_of)
    pos = _layout(boxes)
    bundles: dict[tuple[int, int], Counter] = defaultdict(Counter)
    lk = net.links
    for a, b, g in zip(lk.a, lk.b, lk.gbps, strict=True):
        if a in of and b in of:
            x, y = sorted((of[a], of[b]))
            bundles[(x, y)][g] += 1
    pre = f"n-{net.kind}-"
    stroke = COLOURS[net.kind][1]
    cells = [f'<mxCell id="{pre}1" value="Devices" parent="0"/>',
             f'<mxCell id="{pre}2" value="Links" parent="0"/>']
    cells += [vertex(f"{pre}b{i}", f"{pre}1", b.label, styles[i], *pos[i], BOX_W, BOX_H)
              for i, b in enumerate(boxes)]
    for k, ((x, y), speeds) in enumerate(sorted(bundles.items())):
        width = min(6, 1 + int(np.log2(max(sum(speeds.values()), 1))) // 2)
        style = (f"endArrow=none;html=0;strokeColor={stroke};strokeWidth={width};"
                 "fontSize=9;labelBackgroundColor=#FFFFFF;")
        if x == y:
            style += "edgeStyle=orthogonalEdgeStyle;loop=1;"
        cells.append(edge(f"{pre}e{k}", f"{pre}2", bundle_label(speeds), style,
                          f"{pre}b{x}", f"{pre}b{y}"))
    return page(NETWORK_LABELS[net.kind], cells, f"net-{net.kind}"), len(boxes), len(bundles)
