"""Where the canvas draws the other networks: each a band under the back-end, its switches in
rows by tier (storage nodes, access, leaf, spine), spread evenly across the servers' width,
with a line per link to the server or switch at its other end. Plain numbers, no Qt."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.model import Project, Role
from designer.core.networks.names import NETWORK_LABELS

ROWS = ("storage-node", "access", "leaf", "spine")
BOX_W, BOX_H = 70.0, 26.0
MIN_PITCH = 84.0  # box width and a gap
ROW_GAP = 90.0
BAND_GAP = 220.0
TITLE_ROOM = 120.0  # above a band's first row: its title, kept at screen size
COLOURS = {"frontend": ("#E2F4EC", "#2B7A57"), "storage": ("#FBEFDD", "#B06A00"),
           "oob": ("#EEF0F3", "#6B7787")}


@dataclass(frozen=True)
class Band:
    kind: str
    label: str
    boxes: tuple[tuple[str, str, float, float], ...]  # id, tier, centre x, centre y
    segments: np.ndarray  # (n, 4): x1, y1, x2, y2 of every link
    rect: tuple[float, float, float, float]  # x0, y0, x1, y1 of the band's boxes and title
    top: float = 0.0  # the centre line of its first row

    @property
    def fill(self) -> str:
        return COLOURS[self.kind][0]

    @property
    def outline(self) -> str:
        return COLOURS[self.kind][1]


def bands(project: Project) -> list[Band]:
    """One band per extra network, stacked under the back-end's devices."""
    if not project.networks:
        return []
    devs = project.fabric.devices
    pos = {d.id: (d.x, d.y) for d in devs}
    xs = [d.x for d in devs if d.role is Role.GPU_SERVER] or [d.x for d in devs] or [0.0]
    x0, x1 = min(xs), max(xs)
    y = (max((d.y for d in devs), default=0.0)) + BAND_GAP + 60.0
    out = []
    for kind, net in project.networks.items():
        rows = [[d for d in net.devices if d.tier == t] for t in ROWS]
        rows = [r for r in rows if r]
        top = y
        boxes = []
        left, right = x0, x1
        for r in rows:
            width = max(x1 - x0, MIN_PITCH * len(r))
            start = (x0 + x1) / 2 - width / 2
            step = width / len(r)
            for i, d in enumerate(r):
                bx = start + (i + 0.5) * step
                boxes.append((d.id, d.tier, bx, y))
                pos[d.id] = (bx, y)
            left, right = min(left, start), max(right, start + width)
            y += ROW_GAP
        lk = net.links
        seg = np.array([(*pos[a], *pos[b]) for a, b in zip(lk.a, lk.b, strict=True)
                        if a in pos and b in pos], dtype=np.float64).reshape(-1, 4)
        out.append(Band(kind, NETWORK_LABELS[kind], tuple(boxes), seg,
                        (left - BOX_W, top - BOX_H - TITLE_ROOM, right + BOX_W,
                         y - ROW_GAP + BOX_H), top))
        y += BAND_GAP - ROW_GAP
    return out
