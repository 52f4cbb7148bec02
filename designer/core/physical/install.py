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
from designer.core.writers.cabling import cabling_plan

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
    u_text = np.where(pos.rack >= 0, pos.u, 0)
    ua, ub = u_text[a], u_text[b]
    length = np.round(plan.length_m, 2)
    a_name, z_name, a_port, z_port = plan.a_name, plan.z_name, plan.a_port, plan.z_port
    a_opt, z_opt, medium, cable, label = (plan.a_optic, plan.z_optic, plan.medium, plan.cable,
                                          plan.label)
    if project.networks:  # their cables join the back-end's, rack by rack
        net = _network_rows(project, catalog, floor, rack, u_text, off)
        ra, rb, ua, ub = (np.r_[x, net[k]] for x, k in
                          ((ra, "ra"), (rb, "rb"), (ua, "ua"), (ub, "ub")))
        length = np.r_[length.astype(object), np.full(len(net["ra"]), "", dtype=object)]
        a_name, z_name, a_port, z_port, a_opt, z_opt, medium, cable, label = (
            _join(x, net[k]) for x, k in ((a_name, "a_name"), (z_name, "z_name"),
                                          (a_port, "a_port"), (z_port, "z_port"),
                                          (a_opt, "a_opt"), (z_opt, "z_opt"),
                                          (medium, "medium"), (cable, "cable"),
                                          (label, "label")))
    swap = (rb < ra) | ((rb == ra) & (ub < ua))
    rack_names = np.array(racks, dtype=object)

    def side(x_a, x_b):
        return np.where(swap, x_b, x_a), np.where(swap, x_a, x_b)

    A_rack, Z_rack = side(ra, rb)
    A_u, Z_u = side(ua, ub)
    A_name, Z_name = side(a_name, z_name)
    A_port, Z_port = side(a_port, z_port)
    A_opt, Z_opt = side(a_opt, z_opt)
    order = np.lexsort((np.arange(ra.size), A_name, A_u, A_rack))
    cols = {
        "Rack A": rack_names[A_rack], "U A": A_u, "Device A": A_name,
        "Port A": A_port, "Rack Z": rack_names[Z_rack], "U Z": Z_u,
        "Device Z": Z_name, "Port Z": Z_port, "Length (m)": length, "Medium": medium,
        "Cable / fibre": cable, "Optic A": A_opt, "Optic Z": Z_opt, "Label": label,
    }
    cols = {k: np.asarray(v)[order] for k, v in cols.items()}
    # labels: both ends, each under the rack it sits in
    here = np.r_[A_rack, Z_rack]
    end_a = _end_text(rack_names, A_rack, A_u, A_name, A_port)
    end_z = _end_text(rack_names, Z_rack, Z_u, Z_name, Z_port)
    this, far = np.r_[end_a, end_z], np.r_[end_z, end_a]
    dev_u = np.r_[A_u, Z_u]
    lorder = np.lexsort((np.arange(here.size), dev_u, here))
    labels = {
        "Label": np.r_[label, label][lorder], "This end": this[lorder],
        "Far end": far[lorder], "Length (m)": np.r_[length, length][lorder],
        "Medium": np.r_[medium, medium][lorder],
    }
    return InstallPlan(project.name, racks, A_rack[order], cols, here[lorder], labels)


def _end_text(rack_names: np.ndarray, rack: np.ndarray, u: np.ndarray, name: np.ndarray,
              port: np.ndarray) -> np.ndarray:
    return np.array([f"{rack_names[r]} / U{x} / {nm} / port {p}" for r, x, nm, p in
                     zip(rack.tolist(), u.tolist(), name.tolist(), port.tolist(), strict=True)],
                    dtype=object)


def _join(backend: np.ndarray, extra: list) -> np.ndarray:
    return np.r_[np.asarray(backend, dtype=object), np.array(extra, dtype=object)]


def _network_rows(project: Project, catalog: Catalog, floor, rack: np.ndarray,
                  u_text: np.ndarray, off: int) -> dict[str, list]:
    """The other networks' cables as install rows (unsorted): the rack and U of both ends
    (a back-end device's from its position, a network device's from its slot), names,
    ports, optics and labels of the networks' cabling plan, no length (these cables are not
    on the floor plan's runs)."""
    from designer.core.writers.cabling_files import network_medium
    from designer.core.writers.network_cabling import networks_cabling

    index = project.fabric.index
    rack_of = {r.name: k for k, (_, _, r) in enumerate(floor.racks())}

    def where(dev: str) -> tuple[int, int]:
        i = index.get(dev)
        if i is not None:
            return int(rack[i]), int(u_text[i])
        s = floor.placement.get(dev)
        k = rack_of.get(s.rack, -1) if s is not None else -1
        return (k, s.u) if k >= 0 else (off, 0)

    out: dict[str, list] = {k: [] for k in (
        "ra", "rb", "ua", "ub", "a_name", "z_name", "a_port", "z_port", "a_opt", "z_opt",
        "medium", "cable", "label")}
    for cab, net in zip(networks_cabling(project, catalog), project.networks.values(),
                        strict=True):
        for dev_a, dev_b, row in zip(net.links.a, net.links.b, cab.cables, strict=True):
            label, an, _at, ap, zn, _zt, zp, _g, a_opt, cable, z_opt, *_ = row
            (r_a, u_a), (r_b, u_b) = where(dev_a), where(dev_b)
            for k, v in (("ra", r_a), ("rb", r_b), ("ua", u_a), ("ub", u_b), ("a_name", an),
                         ("z_name", zn), ("a_port", ap), ("z_port", zp), ("a_opt", a_opt),
                         ("z_opt", z_opt), ("medium", network_medium(cable)),
                         ("cable", cable), ("label", label)):
                out[k].append(v)
    return out
