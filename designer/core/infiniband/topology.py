"""A design as InfiniBand nodes: switches and HCAs (channel adapters), cables port to port.

The subnet manager and the diagnostics know a fabric by node: a switch with ports 1..N, and one
channel adapter per NIC port. This module maps a project onto that picture and back:

* a switch is one IB switch node whose ports are numbered as the gear numbers them (1..N; the
  front-panel ``cage/lane`` label such as ``9/2`` is the same port, see ``ports.PortLayout``);
* each cabled NIC port of a server or appliance is one single-port HCA, named like the Linux
  driver names them, ``"<server> mlx5_<k>"`` for the server's port k+1 (a multi-port NIC such
  as a ConnectX-8 in 2 x 400G mode shows one mlx5 device per port, which is also why a
  multi-plane design keeps its planes apart: each HCA sits in exactly one plane);
* node descriptions carry the device names, so a discovered fabric maps back to the design;
* GUIDs are derived from the device index and port, so the same design always gets the same
  GUIDs (and the subnet manager the same LIDs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError, FabricError
from designer.core.model import TIER_OF_ROLE, Fabric, Project, Role
from designer.core.ports import nic_mode_of, port_counts
from designer.core.problems import device_table
from designer.core.scaleup.domains import domain_table

SWITCH, CA, ROUTER = 0, 1, 2
KIND_WORDS = {SWITCH: "Switch", CA: "Ca", ROUTER: "Rt"}
IB_TECHS = frozenset({"ib-ndr", "ib-xdr"})

# A node description is 64 bytes on the wire; ibsim keeps 63 characters and a terminating NUL.
MAX_DESCRIPTION = 63
# An IB switch numbers its ports with one byte; 255 is reserved.
MAX_SWITCH_PORTS = 254
# '"' ends the quoted name, '#' starts a comment, and ibsim reserves '@' for port aliases.
_BAD_DESCRIPTION = re.compile(r'["#@]|[^\x20-\x7e]|^\s|\s$')

# GUID layout: a fixed 16-bit tag, 4 bits of node kind, 28 bits of device index, 16 bits port.
GUID_TAG = 0x0FAB << 48
_GUID_KIND_SHIFT, _GUID_DEV_SHIFT = 44, 16
MAX_DEVICES_FOR_GUIDS = 1 << 28

# ``<host> mlx5_<k>`` (Linux mlx driver names, k from 0) or ``<host> HCA-<k>`` (k from 1).
_HCA_SUFFIX = re.compile(r"^(?P<host>.*\S)\s+(?:(?P<mlx>mlx\d*_)|(?P<hca>HCA-?))(?P<n>\d+)$")


class NotInfiniBand(DesignerError):
    """The design is not an InfiniBand fabric, so IB formats and tools do not apply."""


@dataclass(frozen=True, eq=False)
class IbFabric:
    """IB nodes and the cables between their ports (each cable once).

    ``nodeid`` is the quoted name a topology file uses to refer to a node (a GUID name such as
    ``S-0002c9...`` in real ``ibnetdiscover`` output, or the description itself in ours);
    ``desc`` is the node description. Unknown numbers are 0.
    """

    nodeid: tuple[str, ...]
    desc: tuple[str, ...]
    kind: np.ndarray  # int8: SWITCH, CA or ROUTER
    nports: np.ndarray  # int32
    guid: np.ndarray  # uint64, node GUID (an HCA's port GUIDs follow it: +1, +2 ...)
    devid: np.ndarray  # int32, PCI device id of the chip (0 unknown)
    lid: np.ndarray  # int32: a switch's port-0 LID, an HCA's first port LID (0 unknown)
    a: np.ndarray  # int32 node index
    a_port: np.ndarray  # int32
    b: np.ndarray
    b_port: np.ndarray
    speed_gbps: np.ndarray  # int32, active link rate when the file says (0 unknown)

    def __post_init__(self) -> None:
        n = len(self.nodeid)
        for name in ("kind", "nports", "guid", "devid", "lid"):
            if getattr(self, name).shape != (n,):
                raise ValueError(f"IbFabric.{name} has the wrong length")
        m = self.a.shape[0]
        for name in ("a_port", "b", "b_port", "speed_gbps"):
            if getattr(self, name).shape != (m,):
                raise ValueError(f"IbFabric.{name} has the wrong length")

    @property
    def n_nodes(self) -> int:
        return len(self.nodeid)

    @property
    def n_cables(self) -> int:
        return int(self.a.shape[0])

    @property
    def is_switch(self) -> np.ndarray:
        return self.kind == SWITCH

    def port_guid(self, node: np.ndarray, port: np.ndarray) -> np.ndarray:
        """Port GUIDs: a switch has one GUID for all ports, an HCA port p has node GUID + p."""
        node = np.asarray(node)
        add = np.where(self.kind[node] == SWITCH, 0, np.asarray(port)).astype(np.uint64)
        return self.guid[node] + add

    def ends(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Both directions of every cable, sorted by (node, port): node, port, peer, peer port,
        cable index."""
        node = np.concatenate([self.a, self.b]).astype(np.int64)
        port = np.concatenate([self.a_port, self.b_port]).astype(np.int64)
        peer = np.concatenate([self.b, self.a]).astype(np.int64)
        peer_port = np.concatenate([self.b_port, self.a_port]).astype(np.int64)
        cable = np.concatenate([np.arange(self.n_cables)] * 2)
        order = np.lexsort((port, node))
        return node[order], port[order], peer[order], peer_port[order], cable[order]


def hca_description(host: str, index: int) -> str:
    """The node description of the host's HCA number ``index`` (counted from 0)."""
    return f"{host} mlx5_{index}"


def split_hca_description(desc: str) -> tuple[str, int | None]:
    """(host, HCA index from 0) of an HCA's node description; index None when it has none."""
    m = _HCA_SUFFIX.match(desc.strip())
    if not m:
        return desc.strip(), None
    n = int(m.group("n"))
    if m.group("hca") is not None:
        n = max(n - 1, 0)
    return m.group("host"), n


def description_problem(desc: str, suffix_len: int = 0) -> str | None:
    """Why ``desc`` cannot be a node description (None when it can)."""
    if not desc:
        return "it is empty"
    if _BAD_DESCRIPTION.search(desc):
        return "it holds a quote, '#', '@', a non-ASCII character or an outer space"
    if len(desc) + suffix_len > MAX_DESCRIPTION:
        return f"it is longer than the {MAX_DESCRIPTION - suffix_len} characters that fit"
    return None


def node_descriptions(fabric: Fabric) -> tuple[list[str], str]:
    """The node description of every device and which field it came from ("name" or "id").

    Device names are used when they are unique and fit a node description (64 bytes, with
    room for an HCA's `` mlx5_NN`` suffix on servers); otherwise the ids are, for all devices,
    so that a discovered fabric maps back one way.
    """
    devices = fabric.devices
    endpoint = [not d.role.is_switch for d in devices]
    suffix = len(" mlx5_") + 4

    def usable(values: list[str]) -> bool:
        if len(set(values)) != len(values):
            return False
        return all(
            description_problem(v, suffix if e else 0) is None
            for v, e in zip(values, endpoint, strict=True)
        )

    names = [d.name for d in devices]
    if usable(names):
        return names, "name"
    ids = [d.id for d in devices]
    for d, e in zip(devices, endpoint, strict=True):
        why = description_problem(d.id, suffix if e else 0)
        if why:
            raise FabricError(
                f"device '{d.id}' cannot be named in an InfiniBand node description: {why}; "
                "rename it (names or ids of up to "
                f"{MAX_DESCRIPTION - suffix} characters for servers, {MAX_DESCRIPTION} for "
                "switches)"
            )
    return ids, "id"


def check_infiniband(project: Project, catalog: Catalog) -> None:
    """Raise ``NotInfiniBand`` unless every device of the design runs InfiniBand."""
    name = project.name
    if project.profile.startswith("roce") or project.profile.startswith("eth"):
        raise NotInfiniBand(
            f"'{name}' is an Ethernet (RoCE) design (gear profile {project.profile}); "
            "ibnetdiscover topology files, OpenSM and the InfiniBand diagnostics only describe "
            "InfiniBand fabrics"
        )
    fabric = project.fabric
    if not any(d.role.is_switch for d in fabric.devices):
        raise NotInfiniBand(f"'{name}' has no switches, so there is no InfiniBand fabric to show")
    table = device_table(fabric, catalog)
    not_ib = [
        d.id
        for d, techs, known in zip(fabric.devices, table.techs, table.known, strict=True)
        if known and not IB_TECHS.intersection(techs)
    ]
    unknown = [d.id for d, known in zip(fabric.devices, table.known, strict=True) if not known]
    if unknown:
        raise NotInfiniBand(
            f"device '{unknown[0]}' uses gear the catalog does not know"
            + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else "")
            + "; add it to a user catalog first"
        )
    if not_ib:
        more = f" and {len(not_ib) - 1} more" if len(not_ib) > 1 else ""
        raise NotInfiniBand(
            f"device '{not_ib[0]}'{more} run(s) Ethernet, not InfiniBand; ibnetdiscover topology "
            "files and the InfiniBand tools only describe InfiniBand fabrics"
        )


@dataclass(frozen=True, eq=False)
class ProjectIb:
    """A project's IB nodes, with the way back to its devices and ports."""

    fabric: IbFabric
    device: np.ndarray  # int64: the design device of each IB node
    port_base: np.ndarray  # int64: device port = port_base + IB port
    descriptions: tuple[str, ...]  # node description of each design device
    named_by: str  # "name" or "id": which device field the descriptions came from
    cable_row: np.ndarray  # int64: the link bundle (row of the LinkTable) of each IB cable
    tier: np.ndarray  # int8 per IB node: switch tier (1 leaf/router, 2 spine, 3 core), 0 HCA
    role: np.ndarray  # object per IB node: the role value of its design device ("leaf", ...)
    group: np.ndarray  # int64 per IB node: the device's dragonfly "group" label (-1 none)
    # int64 per IB node: the scale-up domain of its design device (a server or an NVL72 rack;
    # -1 for switches): GPUs of one domain talk over NVLink, never over the fabric
    domain: np.ndarray


# PCI device ids of the chips, written as ``devid=`` so tools show the right part.
DEVICE_IDS = {
    "qm9700": 0xD2F0,  # Quantum-2
    "qm9790": 0xD2F0,
    "q3400": 0xD2F2,  # Quantum-3 (Quantum-X800)
    "connectx-7": 0x1021,
    "connectx-8": 0x1023,
    "bluefield-3": 0xA2DC,
}


def ib_fabric_of(project: Project, catalog: Catalog) -> ProjectIb:
    """The IB nodes and cables of ``project`` (raises ``NotInfiniBand`` for Ethernet)."""
    check_infiniband(project, catalog)
    fabric = project.fabric
    n_dev = len(fabric.devices)
    if n_dev >= MAX_DEVICES_FOR_GUIDS:
        raise FabricError(f"{n_dev:,} devices are more than GUIDs can be derived for")
    descs, named_by = node_descriptions(fabric)
    is_switch = np.array([d.role.is_switch for d in fabric.devices], dtype=bool)
    ports = port_counts(fabric, catalog)
    big = np.flatnonzero(is_switch & (ports > MAX_SWITCH_PORTS))
    if big.size:
        d = fabric.devices[int(big[0])]
        raise FabricError(
            f"switch '{d.id}' ({d.model}) has {int(ports[big[0]])} ports; an InfiniBand switch "
            f"numbers at most {MAX_SWITCH_PORTS}"
        )

    e = fabric.links.expand()
    a = e["a"].astype(np.int64)
    b = e["b"].astype(np.int64)
    ap = e["a_port"].astype(np.int64)
    bp = e["b_port"].astype(np.int64)

    # switch nodes: every switch, in device order
    sw_dev = np.flatnonzero(is_switch)
    # HCA nodes: every cabled port of a non-switch device, in (device, port) order
    end_dev = np.concatenate([a, b])
    end_port = np.concatenate([ap, bp])
    on_host = ~is_switch[end_dev]
    host_key = np.unique((end_dev[on_host] << 20) | end_port[on_host])
    hca_dev = host_key >> 20
    hca_port = host_key & 0xFFFFF

    n_sw, n_hca = sw_dev.size, hca_dev.size
    node_of_switch = np.full(n_dev, -1, dtype=np.int64)
    node_of_switch[sw_dev] = np.arange(n_sw)

    def node_and_port(dev: np.ndarray, port: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sw = is_switch[dev]
        key = (dev << 20) | port
        hca_node = n_sw + np.searchsorted(host_key, key)
        node = np.where(sw, node_of_switch[dev], hca_node)
        return node, np.where(sw, port, 1)

    na, pa = node_and_port(a, ap)
    nb, pb = node_and_port(b, bp)

    device = np.concatenate([sw_dev, hca_dev])
    port_base = np.concatenate([np.zeros(n_sw, np.int64), hca_port - 1])
    kind = np.concatenate([np.full(n_sw, SWITCH, np.int8), np.full(n_hca, CA, np.int8)])
    nports = np.concatenate([ports[sw_dev], np.ones(n_hca, np.int64)]).astype(np.int32)
    guid = (
        np.uint64(GUID_TAG)
        | (np.where(kind == SWITCH, 1, 2).astype(np.uint64) << np.uint64(_GUID_KIND_SHIFT))
        | (device.astype(np.uint64) << np.uint64(_GUID_DEV_SHIFT))
        | (port_base.astype(np.uint64) << np.uint64(4))
    )
    nodeid_list = [descs[int(i)] for i in sw_dev]
    nodeid_list += [
        hca_description(descs[int(d)], int(p) - 1)
        for d, p in zip(hca_dev.tolist(), hca_port.tolist(), strict=True)
    ]
    # per design device (a few thousand), then spread over the IB nodes (one per HCA port)
    dev_devid = np.zeros(n_dev, np.int32)
    model_ids: dict[tuple, int] = {}
    for i, d in enumerate(fabric.devices):
        key = (d.model, d.nic)
        if key not in model_ids:
            if d.role.is_switch:
                model_ids[key] = DEVICE_IDS.get(d.model, 0)
            else:
                try:
                    nic_id = nic_mode_of(d, catalog)[0]
                except DesignerError:
                    nic_id = ""
                model_ids[key] = DEVICE_IDS.get(nic_id, 0)
        dev_devid[i] = model_ids[key]
    dev_role = np.array([d.role.value for d in fabric.devices], dtype=object)
    dev_group = np.fromiter((d.groups.get("group", -1) for d in fabric.devices), np.int64, n_dev)
    dev_tier = np.fromiter((TIER_OF_ROLE.get(d.role, 1) for d in fabric.devices), np.int8, n_dev)
    dev_domain = _domains(fabric, catalog)
    nodeids = tuple(nodeid_list)
    ib = IbFabric(
        nodeid=nodeids,
        desc=nodeids,
        kind=kind,
        nports=nports,
        guid=guid,
        devid=dev_devid[device],
        lid=np.zeros(n_sw + n_hca, np.int32),
        a=na.astype(np.int32),
        a_port=pa.astype(np.int32),
        b=nb.astype(np.int32),
        b_port=pb.astype(np.int32),
        speed_gbps=e["speed_gbps"].astype(np.int32),
    )
    return ProjectIb(
        fabric=ib,
        device=device,
        port_base=port_base,
        descriptions=tuple(descs),
        named_by=named_by,
        cable_row=e["row"].astype(np.int64),
        tier=np.where(kind == SWITCH, dev_tier[device], 0).astype(np.int8),
        role=dev_role[device],
        group=dev_group[device],
        domain=dev_domain[device],
    )


def _domains(fabric: Fabric, catalog: Catalog) -> np.ndarray:
    """The scale-up domain of every device (-1: not a GPU server), as the solver numbers them."""
    t = device_table(fabric, catalog)
    is_server = (fabric.roles == Role.GPU_SERVER.value) & t.known & (t.gpus > 0)
    return domain_table(fabric, t, catalog, is_server).of_device


def subfabric(ib: IbFabric, nodes: np.ndarray) -> IbFabric:
    """The nodes ``nodes`` (ascending indices) and the cables between them."""
    nodes = np.asarray(nodes, dtype=np.int64)
    new = np.full(ib.n_nodes, -1, np.int64)
    new[nodes] = np.arange(nodes.size)
    keep = (new[ib.a] >= 0) & (new[ib.b] >= 0)
    return IbFabric(
        nodeid=tuple(ib.nodeid[i] for i in nodes.tolist()),
        desc=tuple(ib.desc[i] for i in nodes.tolist()),
        kind=ib.kind[nodes],
        nports=ib.nports[nodes],
        guid=ib.guid[nodes],
        devid=ib.devid[nodes],
        lid=ib.lid[nodes],
        a=new[ib.a[keep]].astype(np.int32),
        a_port=ib.a_port[keep],
        b=new[ib.b[keep]].astype(np.int32),
        b_port=ib.b_port[keep],
        speed_gbps=ib.speed_gbps[keep],
    )


def merge(fabrics: list[IbFabric]) -> IbFabric:
    """Several fabrics (such as the planes of a design) as one."""
    offsets = np.cumsum([0] + [f.n_nodes for f in fabrics])

    def cat(name: str, shift: bool = False) -> np.ndarray:
        parts = [
            getattr(f, name) + (int(o) if shift else 0)
            for f, o in zip(fabrics, offsets, strict=False)
        ]
        return np.concatenate(parts) if parts else np.empty(0)

    return IbFabric(
        nodeid=tuple(n for f in fabrics for n in f.nodeid),
        desc=tuple(n for f in fabrics for n in f.desc),
        kind=cat("kind").astype(np.int8),
        nports=cat("nports").astype(np.int32),
        guid=cat("guid").astype(np.uint64),
        devid=cat("devid").astype(np.int32),
        lid=cat("lid").astype(np.int32),
        a=cat("a", True).astype(np.int32),
        a_port=cat("a_port").astype(np.int32),
        b=cat("b", True).astype(np.int32),
        b_port=cat("b_port").astype(np.int32),
        speed_gbps=cat("speed_gbps").astype(np.int32),
    )


def components(ib: IbFabric) -> list[np.ndarray]:
    """Node indices of each connected part (each is its own subnet), largest first."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = ib.n_nodes
    g = coo_matrix((np.ones(ib.n_cables), (ib.a, ib.b)), shape=(n, n))
    count, label = connected_components(g, directed=False)
    parts = [np.flatnonzero(label == k) for k in range(count)]
    return sorted(parts, key=lambda p: (-p.size, int(p[0])))
