"""The installable cabling plan: every cable with the rack and U of both ends, sorted so an
installer walks the floor rack by rack.

Built on the cabling plan (``designer.core.writers.cabling``: names, ports, media, labels) and
the floor plan's positions. Each cable is listed once, at the rack where it starts: its A end
is the end in the earlier rack of the floor (row by row, rack by rack); within a rack, cables
go by U from the bottom, then device, then port. Devices off the floor come last, under
"(not placed)". All numpy over the cables.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.model import Project
from designer.core.physical.errors import NoFloorPlan
from designer.core.physical.lengths import positions
from designer.core.writers.cabling import cabling_plan, unique_names

HEADER: tuple[str, ...] = (
    "Rack A", "U A", "Device A", "Port A", "Rack Z", "U Z", "Device Z", "Port Z",
    "Length (m)", "Medium", "Cable / fibre", "Optic A", "Optic Z", "Label",
)
LABEL_HEADER: tuple[str, ...] = ("Label", "This end", "Far end", "Length (m)", "Medium")
NOT_PLACED = "(not placed)"


@dataclass(frozen=True, eq=False)
class InstallPlan:
    project_name: str
    racks: tuple[str, ...]  # rack names in floor order, then NOT_PLACED
    rack_a: np.ndarray  # index into racks, per row (sorted)
    columns: dict[str, np.ndarray]  # HEADER -> values, rows sorted
    # label sheet: one row per cable end, grouped by the rack that end sits in
    label_rack: np.ndarray
    label_columns: dict[str, np.ndarray]

    @property
    def n(self) -> int:
        return int(self.rack_a.shape[0])

    def rows(self) -> Iterator[tuple]:
        return zip(*(self.columns[h].tolist() for h in HEADER), strict=True)

    def sections(self) -> Iterator[tuple[str, range]]:
        """(rack name, row range) of every rack that starts a cable."""
        yield from _sections(self.racks, self.rack_a)

    def label_sections(self) -> Iterator[tuple[str, range]]:
        yield from _sections(self.racks, self.label_rack)

    def label_rows(self, rows: range) -> Iterator[tuple]:
        cols = [self.label_columns[h][rows.start:rows.stop].tolist() for h in LABEL_HEADER]
        return zip(*cols, strict=True)


def _sections(racks: tuple[str, ...], key: np.ndarray) -> Iterator[tuple[str, range]]:
    if not key.size:
        return
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    ends = [*starts[1:].tolist(), key.size]
    for s, e in zip(starts.tolist(), ends, strict=True):
        yield racks[int(key[s])], range(s, e)


def install_plan(project: Project, catalog: Catalog, media=None) -> InstallPlan:
    phys = project.physical
    if phys is None or phys.floor is None:
        raise NoFloorPlan("the installable cabling plan needs a floor plan; "
                          "'designer floor FILE --place' makes one")
    floor = phys.floor
    plan = cabling_plan(project, catalog, media)
    e = project.fabric.links.expand()
    # one row per cable (a two-lane cable is one row): its ends are those of its first link
    first = plan.link if plan.link is not None else np.arange(plan.n, dtype=np.int64)
    a, b = e["a"].astype(np.int64)[first], e["b"].astype(np.int64)[first]
    pos = positions(floor, project.fabric, catalog)
    racks = (*(r.name for _, _, r in floor.racks()), NOT_PLACED)
    off = len(racks) - 1
    rack = np.where(pos.rack >= 0, pos.rack, off)
    ra, rb = rack[a], rack[b]
    swap = (rb < ra) | ((rb == ra) & (pos.u[b] < pos.u[a]))
    rack_names = np.array(racks, dtype=object)
    u_text = np.where(pos.rack >= 0, pos.u, 0)

    def side(x_a, x_b):
        return np.where(swap, x_b, x_a), np.where(swap, x_a, x_b)

    A_rack, Z_rack = side(ra, rb)
    A_dev, Z_dev = side(a, b)
    A_name, Z_name = side(plan.a_name, plan.z_name)
    A_port, Z_port = side(plan.a_port, plan.z_port)
    A_opt, Z_opt = side(plan.a_optic, plan.z_optic)
    order = np.lexsort((np.arange(a.size), A_name, u_text[A_dev], A_rack))
    length = np.round(plan.length_m, 2)
    cols = {
        "Rack A": rack_names[A_rack], "U A": u_text[A_dev], "Device A": A_name,
        "Port A": A_port, "Rack Z": rack_names[Z_rack], "U Z": u_text[Z_dev],
        "Device Z": Z_name, "Port Z": Z_port, "Length (m)": length, "Medium": plan.medium,
        "Cable / fibre": plan.cable, "Optic A": A_opt, "Optic Z": Z_opt, "Label": plan.label,
    }
    cols = {k: np.asarray(v)[order] for k, v in cols.items()}
    # labels: both ends, each under the rack it sits in; the "rack / U / device" part is made
    # once per device, then joined with each end's port
    here = np.r_[A_rack, Z_rack]
    names = unique_names(project)
    prefix = [f"{rack_names[r]} / U{u} / {nm}" for r, u, nm in
              zip(rack.tolist(), u_text.tolist(), names.tolist(), strict=True)]
    end_a = _end_text(prefix, A_dev, A_port)
    end_z = _end_text(prefix, Z_dev, Z_port)
    this, far = np.r_[end_a, end_z], np.r_[end_z, end_a]
    dev_u = np.r_[u_text[A_dev], u_text[Z_dev]]
    lorder = np.lexsort((np.arange(here.size), dev_u, here))
    labels = {
        "Label": np.r_[plan.label, plan.label][lorder], "This end": this[lorder],
        "Far end": far[lorder], "Length (m)": np.r_[length, length][lorder],
        "Medium": np.r_[plan.medium, plan.medium][lorder],
    }
    return InstallPlan(project.name, racks, A_rack[order], cols, here[lorder], labels)


def _end_text(prefix: list[str], dev: np.ndarray, port: np.ndarray) -> np.ndarray:
    return np.array([f"{prefix[d]} / port {p}" for d, p in zip(dev.tolist(), port.tolist(),
                                                               strict=True)], dtype=object)
