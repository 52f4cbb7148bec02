"""The cabling plan: one row per physical cable, as installers and cable checkers read it.

Columns follow the point-to-point ("P2P") layout that InfiniBand cable-validation tools take:
the A side (node name, host or switch, port) and the Z side, then what to pull: speed, medium,
the cable or optics to use, length, and a label to print on both ends. Ports are named as the
gear labels them: ``cage/lane`` on twin-port cages (``1/2``), the NIC number on servers.

Rows follow ``LinkTable.expand()``, the order of the solver's medium choice
(``designer.core.solver.media.MediaPlan``, which the BOM counts too), and are built with numpy
over all cables (port names per distinct port layout, never a catalog lookup per cable).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.links import MEDIA
from designer.core.model import Project
from designer.core.ports import per_cage_of, port_labels
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
    "Note",
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

    header: tuple[str, ...] = HEADER

    def rows(self) -> Iterator[tuple]:
        cols = (
            self.label, self.a_name, self.a_type, self.a_port, self.z_name, self.z_type,
            self.z_port, self.speed_gbps.tolist(), self.medium, self.a_optic, self.cable,
            self.z_optic, np.round(self.length_m.astype(np.float64), 2).tolist(), self.layer,
            self.note,
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


def cabling_plan(project: Project, catalog: Catalog, media: MediaPlan | None = None) -> CablingPlan:
    """The plan of ``project`` (``catalog`` already has its overrides). ``media``: the solver's
    choice (``Result.media``) when the caller has it, else it is made here."""
    m = media if media is not None else choose_media(project, catalog)
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
    )
