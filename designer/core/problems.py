"""Wiring problems of a design, found with whole-array checks (no per-link Python loop).

Used by ``designer validate``, by the solver's Result and by the window's problems list.
"""

from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from designer.core.catalog import Catalog, ServerSpec, SwitchSpec
from designer.core.errors import CatalogError
from designer.core.factorize import factorize
from designer.core.model import Fabric, Role
from designer.core.ports import PortLayout, highest_port, port_layout, used_port_counts

MAX_NAMED_DEVICES = 50  # a problem names at most this many devices (and says how many more)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Problem:
    severity: Severity
    code: str
    message: str
    devices: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "devices": list(self.devices),
        }


def _names(fabric: Fabric, idx: np.ndarray) -> tuple[str, ...]:
    return tuple(fabric.devices[int(i)].id for i in idx[:MAX_NAMED_DEVICES])


def _more(idx: np.ndarray) -> str:
    extra = idx.size - MAX_NAMED_DEVICES
    return f" (and {extra:,} more)" if extra > 0 else ""


GearChoice = tuple[str, int | None, str | None, int | None]  # model, port speed, NIC, NICs


@dataclass(frozen=True)
class DeviceTable:
    """Per-device arrays the checks (and the solver) need, looked up once per gear choice.

    Devices with the same ``GearChoice`` share one lookup: ``gear[i]`` is device i's row in
    ``choices`` and ``layouts`` (None: gear the catalog does not have), so per-model work
    elsewhere is also done once per choice and spread with ``gear``.
    """

    ports: np.ndarray  # port count
    speed: np.ndarray  # port speed (Gb/s)
    gpus: np.ndarray  # GPUs (servers), else 0
    per_gpu: np.ndarray  # NIC ports per GPU (servers), else 0
    per_cage: np.ndarray  # ports per cage (1 for servers and unknown gear)
    cage_ports: np.ndarray  # ports behind one physical cage, servers' NIC cages included
    is_switch: np.ndarray  # the model is a switch (unknown gear: the role is)
    known: np.ndarray  # model found in the catalog
    gear: np.ndarray  # int64 row into choices / layouts
    choices: tuple[GearChoice, ...]
    layouts: tuple[PortLayout | None, ...]

    @property
    def choice_techs(self) -> list[tuple[str, ...]]:
        """Technologies the ports of every gear choice can run (empty for unknown gear)."""
        return [lay.techs if lay is not None else () for lay in self.layouts]

    @property
    def techs(self) -> list[tuple[str, ...]]:
        """The same per device."""
        per_choice = self.choice_techs
        return [per_choice[g] for g in self.gear.tolist()]

    def first_of(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(gear choice, its first device) for every choice among the devices of ``mask``,
        in order of first appearance."""
        idx = np.flatnonzero(mask)
        choice, first = np.unique(self.gear[idx], return_index=True)
        order = np.argsort(first)
        return choice[order], idx[first[order]]

    def models(self, mask: np.ndarray) -> Counter[str]:
        """How many of the devices of ``mask`` use each model."""
        out: Counter[str] = Counter()
        counts = np.bincount(self.gear[mask], minlength=len(self.choices))
        for g in np.flatnonzero(counts).tolist():
            out[self.choices[g][0]] += int(counts[g])
        return out


# a device's gear: what its port layout, and so its row of the device table, depends on
GEAR_CHOICE = operator.attrgetter("model", "port_speed_gbps", "nic", "nics")


def device_table(fabric: Fabric, catalog: Catalog) -> DeviceTable:
    n = len(fabric.devices)
    # choices in the order each first appears; C-level maps, not a Python call per device
    distinct, gear = factorize(list(map(GEAR_CHOICE, fabric.devices)))
    choices: tuple[GearChoice, ...] = tuple(distinct)
    first = np.unique(gear, return_index=True)[1]  # a device of every choice
    layouts: list[PortLayout | None] = []
    switch_spec: list[bool] = []
    for i in first.tolist():
        d = fabric.devices[i]
        try:
            layouts.append(port_layout(d, catalog))
            switch_spec.append(isinstance(catalog.get(d.model), SwitchSpec))
        except CatalogError:
            layouts.append(None)
            switch_spec.append(False)

    def column(field: str, unknown: int) -> np.ndarray:
        per = [getattr(lay, field) if lay is not None else unknown for lay in layouts]
        return np.array(per, np.int64)[gear]

    known = np.array([lay is not None for lay in layouts], bool)[gear]
    # unknown gear: a switch when its role is one
    by_role = np.isin(fabric.roles, [r.value for r in Role if r.is_switch]) if n else known
    return DeviceTable(
        ports=column("count", 0),
        speed=column("speed_gbps", 0),
        gpus=column("gpus", 0),
        per_gpu=column("per_gpu", 0),
        per_cage=column("per_cage", 1),
        cage_ports=column("cage_ports", 1),
        is_switch=np.where(known, np.array(switch_spec, bool)[gear], by_role),
        known=known,
        gear=gear,
        choices=choices,
        layouts=tuple(layouts),
    )


def find_problems(
    fabric: Fabric,
    catalog: Catalog,
    table: DeviceTable | None = None,
    cables: dict[str, np.ndarray] | None = None,
) -> list[Problem]:
    """``table`` and ``cables`` (``fabric.links.expand()``) may be passed by a caller that
    already has them (the solver), so they are not computed twice."""
    t = table if table is not None else device_table(fabric, catalog)
    out: list[Problem] = []
    n = len(fabric.devices)
    links = fabric.links
    roles = fabric.roles if n else np.empty(0, dtype=object)

    unknown = np.flatnonzero(~t.known)
    if unknown.size:
        models = sorted({fabric.devices[int(i)].model for i in unknown})
        out.append(
            Problem(
                Severity.ERROR,
                "unknown-gear",
                f"{unknown.size:,} device(s) use gear the catalog does not have: "
                f"{', '.join(models[:5])}{_more(unknown)}",
                _names(fabric, unknown),
            )
        )

    used = used_port_counts(fabric)
    over = np.flatnonzero(t.known & (highest_port(fabric) > t.ports))
    if over.size:
        out.append(
            Problem(
                Severity.ERROR,
                "ports-over-used",
                f"{over.size:,} device(s) have links on ports they do not have{_more(over)}",
                _names(fabric, over),
            )
        )

    if len(links):
        # a link faster than either end's ports, or between technologies that cannot meet
        too_fast = (links.speed_gbps > t.speed[links.a]) | (links.speed_gbps > t.speed[links.b])
        known_ends = t.known[links.a] & t.known[links.b]
        bad = np.flatnonzero(too_fast & known_ends)
        if bad.size:
            devs = np.unique(np.concatenate([links.a[bad], links.b[bad]]))
            out.append(
                Problem(
                    Severity.ERROR,
                    "speed-mismatch",
                    f"{bad.size:,} link bundle(s) run faster than a port they use",
                    _names(fabric, devs),
                )
            )
        techs = t.choice_techs
        kinds = sorted(set(techs))
        code = {k: c for c, k in enumerate(kinds)}
        dev_code = np.array([code[k] for k in techs], dtype=np.int32)[t.gear]
        meets = np.array([[bool(set(x) & set(y)) for y in kinds] for x in kinds], dtype=bool)
        tech_bad = np.flatnonzero(known_ends & ~meets[dev_code[links.a], dev_code[links.b]])
        if tech_bad.size:
            rows = tech_bad
            devs = np.unique(np.concatenate([links.a[rows], links.b[rows]]))
            out.append(
                Problem(
                    Severity.ERROR,
                    "technology-mismatch",
                    f"{rows.size:,} link bundle(s) join InfiniBand and Ethernet ports",
                    _names(fabric, devs),
                )
            )

    servers = np.flatnonzero((roles == Role.GPU_SERVER.value) & t.known & (t.gpus > 0))
    if servers.size:
        dead = servers[used[servers] == 0]
        if dead.size:
            out.append(
                Problem(
                    Severity.ERROR,
                    "gpu-unconnected",
                    f"{dead.size:,} GPU server(s) have no fabric link{_more(dead)}",
                    _names(fabric, dead),
                )
            )
        partial = servers[(used[servers] > 0) & (used[servers] < t.ports[servers])]
        if partial.size:
            out.append(
                Problem(
                    Severity.WARNING,
                    "gpu-partly-connected",
                    f"{partial.size:,} GPU server(s) have NIC ports left unconnected: "
                    f"some GPUs miss a rail or a plane{_more(partial)}",
                    _names(fabric, partial),
                )
            )
        if len(links):
            e = cables if cables is not None else links.expand()
            out.extend(_uneven_planes(fabric, t, servers, e))
            out.extend(_mixed_rails(fabric, t, servers, e, catalog))

    idle = np.flatnonzero(t.is_switch & (used == 0))
    if idle.size:
        out.append(
            Problem(
                Severity.WARNING,
                "switch-unlinked",
                f"{idle.size:,} switch(es) have no links{_more(idle)}",
                _names(fabric, idle),
            )
        )
    return out


def _rack_scale(catalog: Catalog, model: str) -> bool:
    spec = catalog.get(model) if model in catalog else None
    return isinstance(spec, ServerSpec) and spec.domain_servers > 1


def _uneven_planes(fabric: Fabric, t: DeviceTable, servers: np.ndarray,
                   e: dict[str, np.ndarray]) -> list[Problem]:
    """GPUs should reach every plane: count connected ports per (server, port lane)."""
    is_server = np.zeros(len(fabric.devices), bool)
    is_server[servers] = True
    dev = np.concatenate([e["a"], e["b"]])
    port = np.concatenate([e["a_port"], e["b_port"]]).astype(np.int64)
    mask = is_server[dev]
    dev, port = dev[mask], port[mask]
    per_gpu = t.per_gpu[dev]
    multi = per_gpu > 1
    if not multi.any():
        return []
    lane = (port[multi] - 1) % per_gpu[multi]
    counts = np.zeros((len(fabric.devices), int(per_gpu.max())), np.int64)
    np.add.at(counts, (dev[multi], lane), 1)
    rows = counts[servers]
    uneven = servers[(rows.max(axis=1) != rows.min(axis=1)) & (t.per_gpu[servers] > 1)]
    if not uneven.size:
        return []
    return [
        Problem(
            Severity.WARNING,
            "uneven-planes",
            f"{uneven.size:,} server(s) have more GPUs on one plane than another{_more(uneven)}",
            _names(fabric, uneven),
        )
    ]


def _mixed_rails(fabric: Fabric, t: DeviceTable, servers: np.ndarray,
                 e: dict[str, np.ndarray], catalog: Catalog | None = None) -> list[Problem]:
    """A rail leaf (a switch with a "rail" label) should carry one GPU index of every server:
    GPU i of each server on rail i. Flag rail leaves that mix GPU indices. Trays of rack-scale
    systems are checked per rack (``designer.core.scaleup.problems``): a rail there is a GPU
    position in the rack."""
    if catalog is not None:
        rack = np.array([_rack_scale(catalog, m) for m, *_ in t.choices], bool)
        servers = servers[~rack[t.gear[servers]]]
    n = len(fabric.devices)
    switches = np.flatnonzero(t.is_switch)
    rail = np.zeros(n, np.int64)
    rail[switches] = np.fromiter(
        (fabric.devices[i].groups.get("rail", 0) for i in switches.tolist()), np.int64,
        switches.size,
    )
    if not (rail > 0).any():
        return []
    is_server = np.zeros(n, bool)
    is_server[servers] = True
    a, b = e["a"].astype(np.int64), e["b"].astype(np.int64)
    sa = is_server[a] & (rail[b] > 0)
    sb = is_server[b] & (rail[a] > 0)
    srv = np.r_[a[sa], b[sb]]
    port = np.r_[e["a_port"][sa], e["b_port"][sb]].astype(np.int64)
    leaf = np.r_[b[sa], a[sb]]
    per = np.maximum(t.per_gpu[srv], 1)
    gpu = (port - 1) // per
    lo = np.full(n, np.iinfo(np.int64).max)
    hi = np.full(n, -1)
    np.minimum.at(lo, leaf, gpu)
    np.maximum.at(hi, leaf, gpu)
    mixed = np.flatnonzero((hi >= 0) & (hi != lo))
    if not mixed.size:
        return []
    return [
        Problem(
            Severity.WARNING,
            "uneven-rails",
            f"{mixed.size:,} rail leaf switch(es) carry GPUs of different rails (GPU i of every "
            f"server belongs on rail i){_more(mixed)}",
            _names(fabric, mixed),
        )
    ]
