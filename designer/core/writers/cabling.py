"""The cabling plan: one row per physical cable, as installers and cable checkers read it.

Columns follow the point-to-point ("P2P") layout that InfiniBand cable-validation tools take:
the A side (node name, host or switch, port) and the Z side, then what to pull: speed, medium,
the cable or optics to use, length, and a label to print on both ends. Ports are named as the
gear labels them: ``cage/lane`` on twin-port cages (``1/2``), the NIC number on servers.

One row is one physical cable. Where a cable carries two links (a twin copper cable from cage
to cage, a splitter from a switch cage to two NIC ports) its row names both lanes: ``9/1 +
9/2`` (and both devices of a splitter's split end). Optical links have a fibre each, so a row
each. Rows follow ``LinkTable.expand()`` by a cable's first link, the order of the solver's
medium choice (``designer.core.solver.media.MediaPlan``, which the BOM counts too), and are
built with numpy over all cables (port names per distinct port layout, never a catalog lookup
per cable).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import NOT_KNOWN, Catalog, MediumSpec
from designer.core.links import MEDIA
from designer.core.model import Project
from designer.core.ports import per_cage_of, port_labels
from designer.core.problems import device_table
from designer.core.solver.cables import cable_ids
from designer.core.solver.media import MediaPlan, choose_media

HEADER: tuple[str, ...] = (
    "Cable label",
    "A-Node Name",
    "A-Type",
    "A-Port",
    "Z-Node Name",
    "Z-Type",
    "Z-Port",
    "Speed (Gb/s)",
    "Medium",
    "A-side optic",
    "Cable / fibre",
    "Z-side optic",
    "Length (m)",
    "Layer",
    "Links",
    "Note",
    # the manufacturer's part numbers of the three parts ("not known" when the catalog has
    # none), after the columns cable checkers read so their layout stays as it was
    "A-side optic part",
    "Cable / fibre part",
    "Z-side optic part",
)

LAYER_PREFIX = {
    "endpoint-leaf": "EL",
    "endpoint-router": "ER",
    "leaf-spine": "LS",
    "spine-core": "SC",
    "local": "LC",
    "global": "GL",
}
MEDIUM_LABELS = {
    "dac": "DAC (passive copper)",
    "acc": "ACC (active copper)",
    "mmf": "Multimode optics",
    "smf": "Single-mode optics",
    "auto": "none fits",  # class code 0: the solver found no medium
}


@dataclass(frozen=True)
class CablingPlan:
    project_name: str
    n: int
    label: np.ndarray
    a_name: np.ndarray
    a_type: np.ndarray
    a_port: np.ndarray
    z_name: np.ndarray
    z_type: np.ndarray
    z_port: np.ndarray
    speed_gbps: np.ndarray
    medium: np.ndarray
    a_optic: np.ndarray
    cable: np.ndarray
    z_optic: np.ndarray
    length_m: np.ndarray
    layer: np.ndarray
    note: np.ndarray
    lanes: np.ndarray | None = None  # links the cable carries (1 when None)
    # part numbers of the A optic, the cable or fibre and the Z optic ("" where none)
    a_optic_part: np.ndarray | None = None
    cable_part: np.ndarray | None = None
    z_optic_part: np.ndarray | None = None
    # the cable's first link (index into ``LinkTable.expand()``): where its ends sit
    link: np.ndarray | None = None

    header: tuple[str, ...] = HEADER

    def rows(self) -> Iterator[tuple]:
        cols = (
            self.label, self.a_name, self.a_type, self.a_port, self.z_name, self.z_type,
            self.z_port, self.speed_gbps.tolist(), self.medium, self.a_optic, self.cable,
            self.z_optic, np.round(self.length_m.astype(np.float64), 2).tolist(), self.layer,
            (self.lanes if self.lanes is not None else np.ones(self.n, np.int64)).tolist(),
            self.note, *(x if x is not None else np.full(self.n, "", dtype=object)
                         for x in (self.a_optic_part, self.cable_part, self.z_optic_part)),
        )
        return zip(*cols, strict=True)

    def by_layer_and_part(self) -> list[tuple[str, str, str, str, str, int]]:
        """(layer, medium, A optic, cable, Z optic, cables) counts for the summary sheet."""
        counts = Counter(zip(self.layer.tolist(), self.medium.tolist(), self.a_optic.tolist(),
                             self.cable.tolist(), self.z_optic.tolist(), strict=True))
        return [(*k, n) for k, n in sorted(counts.items())]


def unique_names(project: Project) -> np.ndarray:
    """Each device's name, made unambiguous with its id where two devices share a name."""
    names = [d.name for d in project.fabric.devices]
    dup = {n for n, c in Counter(names).items() if c > 1}
    return np.array(
        [f"{d.name} ({d.id})" if d.name in dup else d.name for d in project.fabric.devices],
        dtype=object,
    )


def _ids(items: tuple[str, ...], codes: np.ndarray) -> np.ndarray:
    """Catalog ids of item codes (-1: "")."""
    table = np.array([*items, ""], dtype=object)
    return table[np.where(codes >= 0, codes, len(items))]


def _notes(m: MediaPlan) -> np.ndarray:
    note = np.full(len(m), "", dtype=object)
    note[~m.reach_ok] = "longer than the medium reaches: shorten the run or pick another"
    note[m.forced & ~m.forced_ok] = "the medium set on this link does not exist for its gear"
    note[m.medium_class == 0] = "no catalog cable or optic fits this link"
    return note


def link_cable_ids(project: Project, catalog: Catalog, m: MediaPlan) -> np.ndarray:
    """The physical cable of every link, by the rule the BOM counts copper with."""
    e = project.fabric.links.expand()
    t = device_table(project.fabric, catalog)
    per_item = np.ones(max(len(m.items), 1), np.int64)
    for k, gid in enumerate(m.items):
        g = catalog.get(gid) if gid in catalog else None
        if isinstance(g, MediumSpec):
            per_item[k] = g.links_per_item
    return cable_ids(e["a"], e["b"], e["a_port"], e["b_port"], t.is_switch, t.cage_ports,
                     m.cable, per_item)[0]


def _lanes_joined(col: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """A cable's value for one column: its first lane's, and `` + `` the second lane's when
    the cable has one that differs."""
    out = col[first].astype(object)
    has = second >= 0
    if has.any():
        two = col[np.where(has, second, first)]
        differ = has & (two != out)
        out[differ] = out[differ] + " + " + two[differ].astype(object)
    return out


def cabling_plan(project: Project, catalog: Catalog, media: MediaPlan | None = None,
                 cable_id: np.ndarray | None = None) -> CablingPlan:
    """The plan of ``project`` (``catalog`` already has its overrides). ``media``: the solver's
    choice (``Result.media``) and ``cable_id`` its cable per link (``Result.bom.cable_id``)
    when the caller has them, else they are made here."""
    m = media if media is not None else choose_media(project, catalog)
    per_link = _link_plan(project, catalog, m)
    n_links = per_link.n
    cid = cable_id if cable_id is not None and len(cable_id) == n_links else \
        link_cable_ids(project, catalog, m)
    if n_links == 0:
        return per_link
    n = int(cid.max()) + 1
    order = np.lexsort((np.arange(n_links), cid))
    srt = cid[order]
    start = np.r_[0, np.flatnonzero(np.diff(srt)) + 1]
    count = np.diff(np.r_[start, n_links])
    first = order[start]
    second = np.where(count > 1, order[np.minimum(start + 1, n_links - 1)], -1)
    # a cable of more than two lanes names its first two; "Links" counts them all
    keep = np.argsort(first, kind="stable")  # cables in the order of their first link
    first, second, count = first[keep], second[keep], count[keep]
    layer = per_link.layer[first]
    prefix = np.array([LAYER_PREFIX.get(x, "X") for x in layer.tolist()], dtype=object)
    width = max(len(str(n)), 5)
    label = np.array(
        [f"{p}-{i:0{width}d}" for p, i in zip(prefix.tolist(), range(1, n + 1), strict=True)],
        dtype=object,
    )
    return CablingPlan(
        project_name=per_link.project_name,
        n=n,
        label=label,
        a_name=_lanes_joined(per_link.a_name, first, second),
        a_type=per_link.a_type[first],
        a_port=_lanes_joined(per_link.a_port, first, second),
        z_name=_lanes_joined(per_link.z_name, first, second),
        z_type=per_link.z_type[first],
        z_port=_lanes_joined(per_link.z_port, first, second),
        speed_gbps=per_link.speed_gbps[first],
        medium=per_link.medium[first],
        a_optic=per_link.a_optic[first],
        cable=per_link.cable[first],
        z_optic=per_link.z_optic[first],
        length_m=per_link.length_m[first],
        layer=layer,
        note=per_link.note[first],
        lanes=count.astype(np.int64),
        a_optic_part=_at(per_link.a_optic_part, first),
        cable_part=_at(per_link.cable_part, first),
        z_optic_part=_at(per_link.z_optic_part, first),
        link=first.astype(np.int64),
    )


def _at(col: np.ndarray | None, rows: np.ndarray) -> np.ndarray | None:
    return None if col is None else col[rows]


def part_numbers(items: tuple[str, ...], catalog: Catalog) -> tuple[str, ...]:
    """The part number of each catalog id, "not known" where the catalog gives none."""
    return tuple(catalog.get(i).part_number_text if i in catalog else NOT_KNOWN
                 for i in items)


def _link_plan(project: Project, catalog: Catalog, m: MediaPlan) -> CablingPlan:
    """The plan with one row per link (cables of two lanes still split)."""
    fabric = project.fabric
    e = fabric.links.expand()
    n = int(e["a"].shape[0])
    if len(m) != n:
        raise ValueError(f"medium choice covers {len(m)} cables, the design has {n}")
    names = unique_names(project)
    per_cage = per_cage_of(project.fabric, catalog)
    is_switch = np.array([d.role.is_switch for d in fabric.devices], dtype=bool)
    kind = np.where(is_switch, "Switch", "Host").astype(object)
    a, b = e["a"].astype(np.int64), e["b"].astype(np.int64)
    # per-code lookups: a layer or medium name is looked up once, not once per cable
    layer_code = m.layer.astype(np.int64)
    layers = m.layers if m.layers else ("",)
    layer = np.array(layers, dtype=object)[layer_code]
    prefix = np.array([LAYER_PREFIX.get(x, "X") for x in layers], dtype=object)[layer_code]
    width = max(len(str(n)), 5)
    label = np.array(
        [f"{p}-{i:0{width}d}" for p, i in zip(prefix.tolist(), range(1, n + 1), strict=True)],
        dtype=object,
    )
    medium = np.array([MEDIUM_LABELS[x] for x in MEDIA], dtype=object)
    cable = _ids(m.items, m.cable)
    parts = part_numbers(m.items, catalog)
    return CablingPlan(
        project_name=project.name,
        n=n,
        label=label,
        a_name=names[a],
        a_type=kind[a],
        a_port=port_labels(e["a_port"], per_cage[a]),
        z_name=names[b],
        z_type=kind[b],
        z_port=port_labels(e["b_port"], per_cage[b]),
        speed_gbps=e["speed_gbps"].astype(np.int64),
        medium=medium[m.medium_class.astype(np.int64)],
        a_optic=_ids(m.items, m.a_module),
        cable=np.where(cable != "", cable, _ids(m.items, m.fibre)),
        z_optic=_ids(m.items, m.b_module),
        length_m=np.asarray(m.length_m, dtype=np.float64),
        layer=layer,
        note=_notes(m),
        a_optic_part=_ids(parts, m.a_module),
        cable_part=np.where(m.cable >= 0, _ids(parts, m.cable), _ids(parts, m.fibre)),
        z_optic_part=_ids(parts, m.b_module),
        link=np.arange(n, dtype=np.int64),
    )
