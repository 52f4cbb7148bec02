"""The design as a draw.io (diagrams.net) file a colleague can edit.

Pages: *Groups* (the design's device groups as boxes in tier rows, the cable bundles between
them, each link layer a draw.io layer of its own to show or hide), one page per link layer
(its bundles alone), and *Racks* when the floor plan places devices (each rack a container,
its devices stacked by U). Groups, not devices: a box stands for the devices of one role that
share their group labels (an SU's GPU servers, one rail's leaf), a bundle for every cable
between two boxes, labelled with its count and speed, so 1,024 GPUs draw as a few dozen boxes
rather than a thousand nodes and four thousand lines. When even that would be more than
``MAX_BOXES`` boxes, the labels are dropped from the last (finest) one on until it is not.

A design with other networks (front-end, storage, out-of-band) has a page per network: the
Groups page is then named for the back-end, and each other network's page (drawio_networks)
draws its switches and what they serve.

Uncompressed mxfile XML (draw.io opens it as is); labels are plain text (``html=0``), so a
name holding markup is shown, never run.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from xml.sax.saxutils import quoteattr

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import GROUP_KEYS, TIER_OF_ROLE, Project, Role
from designer.core.networks import BACKEND, NETWORK_LABELS
from designer.core.solver.media import MediaPlan, choose_media
from designer.core.writers.drawio_shapes import BOX_H, BOX_W, GAP_X, ROW_H, Box, box_style
from designer.core.writers.output import write_bytes
from designer.core.writers.safety import xml_text

MAX_BOXES = 400
LAYER_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")
RU_PX = 9  # one rack unit on the racks page
RACK_W, RACK_GAP = 170, 40


def _q(value: object) -> str:
    return quoteattr(xml_text(str(value)))


def _tier(role: Role) -> int:
    return TIER_OF_ROLE.get(role, 0)


def _group_text(groups: tuple[tuple[str, int], ...]) -> str:
    return " ".join(f"{k.upper() if k in ('su',) else k} {v}" for k, v in groups)


def boxes_of(project: Project) -> tuple[list[Box], np.ndarray]:
    """The boxes and each device's box index, at the finest grouping under ``MAX_BOXES``."""
    devices = project.fabric.devices
    present = [k for k in GROUP_KEYS if any(k in d.groups for d in devices)]
    for depth in range(len(present), -1, -1):
        keys = present[:depth]
        index: dict[tuple, int] = {}
        first: list[int] = []
        of = np.empty(len(devices), np.int64)
        for i, d in enumerate(devices):
            g = tuple((k, d.groups[k]) for k in keys if k in d.groups)
            key = (_tier(d.role), d.role.value, g)
            k = index.setdefault(key, len(index))
            if k == len(first):
                first.append(i)
            of[i] = k
        if len(index) <= MAX_BOXES or depth == 0:
            break
    count = np.bincount(of, minlength=len(index))
    models: dict[int, Counter] = defaultdict(Counter)
    for i, d in enumerate(devices):
        models[int(of[i])][d.model] += 1
    out = []
    for key, k in index.items():
        tier, role, g = key
        n = int(count[k])
        gear = ", ".join(f"{c} x {m}" if n > 1 else m for m, c in models[k].most_common(3))
        if n == 1:  # one device: its own name
            label = f"{devices[first[k]].name}\n{gear}"
        else:
            plural = Role(role).label + "s"
            label = f"{plural} {_group_text(g)}".strip() + f"\n{gear}"
        out.append(Box(key, role, tier, label, n))
    return out, of


def _layout(boxes: list[Box]) -> dict[int, tuple[float, float]]:
    """Tier rows, the top tier first; boxes in each row in group order, rows centred."""
    rows: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(boxes):
        rows[b.tier].append(i)
    for row in rows.values():
        row.sort(key=lambda i: (boxes[i].key[2], boxes[i].role))
    width = max((len(r) for r in rows.values()), default=1) * (BOX_W + GAP_X)
    tiers = sorted(rows, reverse=True)
    pos = {}
    for t_i, t in enumerate(tiers):
        row = rows[t]
        x0 = (width - len(row) * (BOX_W + GAP_X)) / 2
        for k, i in enumerate(row):
            pos[i] = (x0 + k * (BOX_W + GAP_X), 40 + t_i * ROW_H)
    return pos


def _bundles(project: Project, of: np.ndarray, media: MediaPlan):
    """(layer, box a, box b) -> (cables, speeds) over every link."""
    links = project.fabric.links
    e = links.expand()
    a = of[e["a"].astype(np.int64)]
    b = of[e["b"].astype(np.int64)]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    layer = media.layer.astype(np.int64) if len(media) == len(lo) else np.zeros(len(lo), int)
    speed = e["speed_gbps"].astype(np.int64)
    out: dict[tuple[int, int, int], Counter] = defaultdict(Counter)
    if lo.size:
        keys = np.stack([layer, lo, hi, speed], axis=1)
        uniq, n = np.unique(keys, axis=0, return_counts=True)
        for (ly, x, y, s), c in zip(uniq.tolist(), n.tolist(), strict=True):
            out[(ly, x, y)][s] += c
    return out


def _vertex(cid: str, parent: str, label: str, style: str, x: float, y: float, w: float,
            h: float) -> str:
    return (f'<mxCell id={_q(cid)} value={_q(label)} style={_q(style)} vertex="1" '
            f'parent={_q(parent)}><mxGeometry x="{x:.0f}" y="{y:.0f}" width="{w:.0f}" '
            f'height="{h:.0f}" as="geometry"/></mxCell>')


def _edge(cid: str, parent: str, label: str, style: str, src: str, dst: str) -> str:
    return (f'<mxCell id={_q(cid)} value={_q(label)} style={_q(style)} edge="1" '
            f'parent={_q(parent)} source={_q(src)} target={_q(dst)}>'
            f'<mxGeometry relative="1" as="geometry"/></mxCell>')


def _bundle_label(speeds: Counter) -> str:
    return ", ".join(f"{n:,} x {s}G" for s, n in sorted(speeds.items()))


def _page(name: str, cells: list[str], pid: str) -> str:
    return (f'<diagram id={_q(pid)} name={_q(name)}><mxGraphModel grid="1" gridSize="10" '
            'guides="1" tooltips="1" connect="1" arrows="0" fold="1" page="0" pageScale="1" '
            'math="0" shadow="0"><root><mxCell id="0"/>' + "".join(cells)
            + "</root></mxGraphModel></diagram>")


def drawio_xml(project: Project, catalog: Catalog, media: MediaPlan | None = None) -> tuple[
        str, dict[str, int]]:
    """The file's text and counts (pages, boxes, bundles)."""
    if media is None:
        media = choose_media(project, catalog)
    boxes, of = boxes_of(project)
    pos = _layout(boxes)
    bundles = _bundles(project, of, media)
    layers = list(media.layers) or ["links"]
    pages: list[str] = []

    def box_cells(prefix: str, parent: str) -> list[str]:
        return [_vertex(f"{prefix}b{i}", parent, b.label, box_style(b.role), *pos[i], BOX_W,
                        BOX_H) for i, b in enumerate(boxes)]

    def bundle_cells(prefix: str, parent_of, only: int | None = None) -> list[str]:
        out = []
        for k, ((ly, x, y), speeds) in enumerate(sorted(bundles.items())):
            if only is not None and ly != only:
                continue
            color = LAYER_COLORS[ly % len(LAYER_COLORS)]
            width = min(6, 1 + int(np.log2(max(sum(speeds.values()), 1))) // 2)
            style = (f"endArrow=none;html=0;strokeColor={color};strokeWidth={width};"
                     "fontSize=9;labelBackgroundColor=#FFFFFF;")
            src, dst = f"{prefix}b{x}", f"{prefix}b{y}"
            if x == y:  # cables inside one box (between its devices): a loop
                style += "edgeStyle=orthogonalEdgeStyle;loop=1;"
            out.append(_edge(f"{prefix}e{k}", parent_of(ly), _bundle_label(speeds), style,
                             src, dst))
        return out

    # Groups: boxes on the base layer, each link layer's bundles on a draw.io layer
    cells = ['<mxCell id="g-dev" value="Devices" parent="0"/>']
    cells += [f'<mxCell id="g-l{i}" value={_q(name)} parent="0"/>'
              for i, name in enumerate(layers)]
    cells += box_cells("g-", "g-dev")
    cells += bundle_cells("g-", lambda ly: f"g-l{ly}")
    # with other networks present, the pages read one per network: this is the back-end's
    pages.append(_page(NETWORK_LABELS[BACKEND] if project.networks else "Groups", cells,
                       "groups"))
    for i, name in enumerate(layers):
        used = {x for (ly, a, b) in bundles if ly == i for x in (a, b)}
        if not used:
            continue
        pre = f"l{i}-"
        cells = [f'<mxCell id="{pre}1" parent="0"/>']
        cells += [c for j, c in enumerate(box_cells(pre, f"{pre}1")) if j in used]
        cells += bundle_cells(pre, lambda _ly, p=pre: f"{p}1", only=i)
        pages.append(_page(f"Layer {name}", cells, f"layer{i}"))
    net_boxes = net_bundles = 0
    if project.networks:
        from designer.core.writers.drawio_networks import network_page

        for net in project.networks.values():
            xml_page, nb, ne = network_page(project, net, boxes, of, _vertex, _edge, _page,
                                            _bundle_label)
            pages.append(xml_page)
            net_boxes += nb
            net_bundles += ne
    racks = _racks_page(project, catalog)
    if racks:
        pages.append(racks)
    xml = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           f'<mxfile host="Fabric Designer" type="device" pages="{len(pages)}">'
           + "".join(pages) + "</mxfile>\n")
    return xml, {"pages": len(pages), "boxes": len(boxes) + net_boxes,
                 "bundles": len(bundles) + net_bundles}


def _racks_page(project: Project, catalog: Catalog) -> str | None:
    """Each rack a container, its devices at their U (the floor plan's rows left to right)."""
    phys = project.physical
    floor = phys.floor if phys is not None else None
    if floor is None or not floor.placement:
        return None
    from designer.core.physical.lengths import positions

    pos = positions(floor, project.fabric, catalog)
    racks = floor.racks()
    cells = ['<mxCell id="r-1" parent="0"/>']
    heights: list[int] = []
    for k, (_row_i, _rack_i, rack) in enumerate(racks):
        u = floor.rack_u(rack)
        heights.append(int(u))
        x = k * (RACK_W + RACK_GAP)
        cells.append(_vertex(f"r-k{k}", "r-1", rack.name,
                             "swimlane;html=0;startSize=22;fillColor=#F4F6F8;", x, 0,
                             RACK_W, 22 + u * RU_PX))
    ru = pos.sizes.ru
    for i, d in enumerate(project.fabric.devices):
        r = int(pos.rack[i])
        if r < 0:
            continue
        size = max(1, round(float(ru[i])))
        top_u = int(pos.u[i]) + size - 1
        y = 22 + (heights[r] - top_u) * RU_PX
        cells.append(_vertex(f"r-d{i}", f"r-k{r}", f"{d.name} ({d.model})",
                             box_style(d.role.value) + "fontSize=7;", 4, y, RACK_W - 8,
                             size * RU_PX))
    if project.networks:  # the other networks' placed switches and storage nodes
        from designer.core.physical.network_racks import placed_network_devices

        index = {rack.name: k for k, (_, _, rack) in enumerate(racks)}
        j = 0
        for d, s, r, sz in placed_network_devices(project, catalog, floor, index):
            if r < 0:
                continue
            y = 22 + (heights[r] - (s.u + sz.ru - 1)) * RU_PX
            style = box_style("leaf" if d.tier != "storage-node" else "appliance")
            cells.append(_vertex(f"r-n{j}", f"r-k{r}", f"{d.id} ({d.model})",
                                 style + "fontSize=7;", 4, y, RACK_W - 8, sz.ru * RU_PX))
            j += 1
    return _page("Racks", cells, "racks")


def write_drawio(project: Project, catalog: Catalog, path: str | os.PathLike[str],
                 media: MediaPlan | None = None) -> dict[str, int]:
    xml, counts = drawio_xml(project, catalog, media)
    write_bytes(path, xml.encode("utf-8"))
    return counts
