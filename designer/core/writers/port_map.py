"""The port map: every port of every switch in front-panel order, with the device and port at
its far end, the cable's label (the cabling plan's), layer, speed and the optic to plug.

Port numbers run as the front panel does (cage 1 lane 1, cage 1 lane 2, cage 2 ...; a
twin-port cage's ports are ``cage/lane``), and a port no link uses is listed as free, so an
installer walks a switch's panel down the sheet. Built with numpy over all links: both ends of
every link, kept where the end is a switch, sorted by switch and port.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.ports import per_cage_of, port_labels
from designer.core.problems import device_table
from designer.core.solver.media import MediaPlan, choose_media
from designer.core.writers.cabling import CablingPlan, cabling_plan, link_cable_ids, unique_names

HEADER = ("Switch", "Port", "Far device", "Far port", "Cable label", "Layer", "Speed (Gb/s)",
          "Optic at this port")
FREE = "(free)"


@dataclass(frozen=True)
class PortMap:
    switch: np.ndarray  # device index per row
    port: np.ndarray  # port number (1-based, front-panel order)
    columns: dict[str, np.ndarray]  # HEADER -> values
    names: np.ndarray  # device names (unique)

    @property
    def n(self) -> int:
        return int(self.switch.size)

    def rows(self) -> Iterator[tuple]:
        return zip(*(self.columns[h] for h in HEADER), strict=True)

    def of_switch(self, index: int) -> list[tuple]:
        sel = np.flatnonzero(self.switch == index)
        return [tuple(self.columns[h][i] for h in HEADER) for i in sel.tolist()]

    def switches(self) -> list[int]:
        """Device indices of the switches, in the map's order."""
        _, first = np.unique(self.switch, return_index=True)
        return self.switch[np.sort(first)].tolist()


def port_map(project: Project, catalog: Catalog, media: MediaPlan | None = None,
             cable_id: np.ndarray | None = None, plan: CablingPlan | None = None,
             free: bool = True) -> PortMap:
    """The map of every switch port; ``free``: list unused ports too."""
    m = media if media is not None else choose_media(project, catalog)
    fabric = project.fabric
    e = fabric.links.expand()
    n_links = int(e["a"].shape[0])
    cid = cable_id if cable_id is not None and len(cable_id) == n_links else \
        link_cable_ids(project, catalog, m)
    plan = plan if plan is not None else cabling_plan(project, catalog, m, cid)
    names = unique_names(project)
    t = device_table(fabric, catalog)
    is_switch = np.array([d.role.is_switch for d in fabric.devices], bool)
    per_cage = per_cage_of(fabric, catalog)
    # the cabling plan's label of each link's cable: cables are numbered by their first link
    label = np.full(n_links, "", dtype=object)
    if n_links:
        n_cab = int(cid.max()) + 1
        first = np.full(n_cab, n_links, np.int64)
        np.minimum.at(first, cid, np.arange(n_links))
        rank = np.empty(n_cab, np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(n_cab)
        label = plan.label[rank[cid]]
    layers = np.array(m.layers or ("",), dtype=object)
    layer = layers[m.layer.astype(np.int64)] if len(m) == n_links else \
        np.full(n_links, "", dtype=object)
    items = np.array([*m.items, ""], dtype=object)

    def optic(codes: np.ndarray) -> np.ndarray:
        return items[np.where(codes >= 0, codes, len(m.items))]

    a, b = e["a"].astype(np.int64), e["b"].astype(np.int64)
    ap, bp = e["a_port"].astype(np.int64), e["b_port"].astype(np.int64)
    dev = np.r_[a, b]
    port = np.r_[ap, bp]
    far = np.r_[b, a]
    far_port = np.r_[bp, ap]
    cols = {
        "Far device": names[far],
        "Far port": port_labels(far_port, per_cage[far]),
        "Cable label": np.r_[label, label],
        "Layer": np.r_[layer, layer],
        "Speed (Gb/s)": np.r_[e["speed_gbps"], e["speed_gbps"]].astype(np.int64),
        "Optic at this port": np.r_[optic(m.a_module), optic(m.b_module)] if len(m) == n_links
        else np.full(2 * n_links, "", dtype=object),
    }
    keep = is_switch[dev]
    dev, port = dev[keep], port[keep]
    cols = {k: v[keep] for k, v in cols.items()}
    if free:
        sw = np.flatnonzero(is_switch)
        total = t.ports[sw].astype(np.int64)
        all_dev = np.repeat(sw, total)
        starts = np.cumsum(total) - total
        all_port = np.arange(int(total.sum())) - np.repeat(starts, total) + 1
        used = np.zeros(int(total.sum()), bool)
        if dev.size:
            slot = np.zeros(len(fabric.devices), np.int64)
            slot[sw] = starts
            ok = (port >= 1) & (port <= t.ports[dev])
            used[(slot[dev] + port - 1)[ok]] = True
        fd, fp = all_dev[~used], all_port[~used]
        dev, port = np.r_[dev, fd], np.r_[port, fp]
        blank = np.full(fd.size, "", dtype=object)
        cols = {k: np.r_[v, t.speed[fd].astype(np.int64) if k == "Speed (Gb/s)" else
                         (np.full(fd.size, FREE, dtype=object) if k == "Far device" else blank)]
                for k, v in cols.items()}
    order = np.lexsort((port, dev))
    dev, port = dev[order], port[order]
    cols = {k: v[order] for k, v in cols.items()}
    cols["Switch"] = names[dev]
    cols["Port"] = port_labels(port, per_cage[dev])
    return PortMap(dev, port, cols, names)
