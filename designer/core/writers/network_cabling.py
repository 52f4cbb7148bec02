"""The cabling plan and port map of each other network (front-end, storage, out-of-band).

One cable row per link (each of these networks' links is one cable: a fibre with an optic at
each end, or a copper patch cable), labelled with the network's prefix (``FE-00001``), and
every switch port of the network in front-panel order with what its cable reaches, free ports
too. A switch's ports are numbered from 1 as the network numbers them from 0: its down ports,
then its uplinks (the management switches' separate uplink ports after their 48). The servers'
ports are named by the network (``FE1``, ``ST2``, ``BMC``), a back-end switch's management
port ``mgmt``.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.core.catalog import NOT_KNOWN, Catalog
from designer.core.errors import DesignerError
from designer.core.model import Project
from designer.core.networks import NETWORK_LABELS
from designer.core.networks.gear import part
from designer.core.networks.model import Network
from designer.core.writers.cabling import unique_names

CABLE_HEADER: tuple[str, ...] = (
    "Cable label", "A-Node Name", "A-Type", "A-Port", "Z-Node Name", "Z-Type", "Z-Port",
    "Speed (Gb/s)", "A-side optic", "Cable / fibre", "Z-side optic", "Layer",
    "A-side optic part", "Cable / fibre part", "Z-side optic part",
)
PORT_HEADER: tuple[str, ...] = (
    "Switch", "Port", "Far device", "Far port", "Cable label", "Layer", "Speed (Gb/s)",
    "Optic at this port",
)
LABEL_PREFIX = {"frontend": "FE", "storage": "ST", "oob": "OOB"}
SHEET_PREFIX = {"frontend": "Front-end", "storage": "Storage", "oob": "OOB"}
SERVER_PORT = {"frontend": "FE", "storage": "ST", "oob": "BMC"}
FREE = "(free)"
_TYPE = {"leaf": "Switch", "spine": "Switch", "access": "Switch", "storage-node": "Storage"}


@dataclass(frozen=True)
class NetworkCabling:
    kind: str
    cables: tuple[tuple, ...]
    ports: tuple[tuple, ...]

    @property
    def label(self) -> str:
        return NETWORK_LABELS[self.kind]

    @property
    def cables_sheet(self) -> str:
        return f"{SHEET_PREFIX[self.kind]} cables"

    @property
    def ports_sheet(self) -> str:
        return f"{SHEET_PREFIX[self.kind]} port map"


def _part_number(gear_id: str, catalog: Catalog) -> str:
    if not gear_id:
        return ""
    try:
        return part(gear_id, catalog).part_number or NOT_KNOWN
    except DesignerError:
        return NOT_KNOWN


def network_cabling(project: Project, net: Network, catalog: Catalog,
                    names: dict[str, str] | None = None) -> NetworkCabling:
    """The cables and port map of ``net``; ``names``: the back-end devices' names by id."""
    if names is None:
        names = dict(zip((d.id for d in project.fabric.devices), unique_names(project).tolist(),
                         strict=True))
    tier = {d.id: d.tier for d in net.devices}
    backend_switch = {d.id for d in project.fabric.devices if d.role.is_switch}
    rank = {"storage-node": 0, "access": 1, "leaf": 2, "spine": 3}

    def name(dev: str) -> str:
        return names.get(dev, dev)

    def kind_of(dev: str) -> str:
        if dev in tier:
            return _TYPE[tier[dev]]
        return "Switch" if dev in backend_switch or dev not in names else "Host"

    def port_name(dev: str, port: int) -> str:
        if dev in tier:
            return str(port + 1)
        if dev in names and dev not in backend_switch:  # a GPU server's port of this network
            word = SERVER_PORT[net.kind]
            return word if word == "BMC" and port == 0 else f"{word}{port + 1}"
        return "mgmt"  # a back-end switch's, or another network's device's, management port

    def layer(a: str, b: str) -> str:
        ta, tb = tier.get(a, "endpoint"), tier.get(b, "endpoint")
        if rank.get(ta, -1) > rank.get(tb, -1):
            ta, tb = tb, ta
        return f"{ta}-{tb}"

    parts: dict[str, str] = {}

    def pn(gear_id: str) -> str:
        if gear_id not in parts:
            parts[gear_id] = _part_number(gear_id, catalog)
        return parts[gear_id]

    lk = net.links
    prefix = LABEL_PREFIX[net.kind]
    cables = []
    at_port: dict[tuple[str, int], tuple] = {}  # a switch port -> its far end and cable
    for i, (a, ap, b, bp, g, cable, optic) in enumerate(zip(
            lk.a, lk.a_port, lk.b, lk.b_port, lk.gbps, lk.cable, lk.optic, strict=True)):
        label = f"{prefix}-{i + 1:05d}"
        ly = layer(a, b)
        cables.append((label, name(a), kind_of(a), port_name(a, ap), name(b), kind_of(b),
                       port_name(b, bp), int(g), optic, cable, optic, ly, pn(optic), pn(cable),
                       pn(optic)))
        for dev, port, far, far_port in ((a, ap, b, bp), (b, bp, a, ap)):
            if tier.get(dev) in ("leaf", "spine", "access"):
                at_port[(dev, port)] = (name(far), port_name(far, far_port), label, ly, int(g),
                                        optic)
    top: dict[str, int] = {}  # each switch's highest port in use
    for dev, port in at_port:
        top[dev] = max(top.get(dev, -1), port)
    # a main-catalog switch runs in the port mode the network was generated at
    asked = net.params.get("switch_gbps")
    speed = asked if isinstance(asked, int) and not isinstance(asked, bool) else None
    ports = []
    for d in net.devices:
        if d.tier == "storage-node":
            continue
        try:
            p = part(d.model, catalog, speed)
            down, up, gbps, up_gbps = p.ports, p.uplinks, p.port_gbps, p.uplink_gbps
        except DesignerError:  # gear the catalog no longer has: its used ports alone
            down, up, gbps, up_gbps = 0, 0, 0, 0
        for port in range(max(down + up, top.get(d.id, -1) + 1)):
            far = at_port.get((d.id, port))
            if far is None:
                rate = up_gbps if up and port >= down else gbps
                ports.append((d.id, str(port + 1), FREE, "", "", "", rate, ""))
            else:
                ports.append((d.id, str(port + 1), *far))
    return NetworkCabling(net.kind, tuple(cables), tuple(ports))


def networks_cabling(project: Project, catalog: Catalog) -> list[NetworkCabling]:
    """Every other network's cables and port map ([] for a design with the back-end alone)."""
    if not project.networks:
        return []
    names = dict(zip((d.id for d in project.fabric.devices), unique_names(project).tolist(),
                     strict=True))
    return [network_cabling(project, n, catalog, names) for n in project.networks.values()]
