"""Ports of devices as the gear has them: how many, how fast, how named, how used."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog, PortMode, ServerSpec, SwitchSpec
from designer.core.errors import CatalogError, FabricError, UnknownGear
from designer.core.model import Device, Fabric, Role


@dataclass(frozen=True, slots=True)
class PortLayout:
    """The ports of one device: ``count`` ports of ``speed_gbps``, ``per_cage`` to a cage."""

    count: int
    speed_gbps: int
    per_cage: int
    techs: tuple[str, ...]
    # servers: ports that belong to one GPU (GPU i owns ports i*per_gpu+1 .. (i+1)*per_gpu)
    gpus: int = 0
    per_gpu: int = 0
    # ports behind one physical cage (what one transceiver or cable end serves). Switches:
    # ``per_cage``; servers: their NIC cages (``per_cage`` stays 1 there, since ports are
    # named by NIC number).
    cage_ports: int = 1

    def name(self, port: int) -> str:
        """The port as the gear labels it: ``cage/lane`` on split cages, else the number."""
        return port_label(port, self.per_cage)

    def gpu_of(self, port: int) -> int | None:
        if not self.per_gpu:
            return None
        return (port - 1) // self.per_gpu


def nic_mode_of(device: Device, catalog: Catalog) -> tuple[str, int, PortMode]:
    """(NIC model, NIC count, port mode) of a server or appliance."""
    server = catalog.server(device.model, f"device '{device.id}'")
    nic_id = device.nic or server.nic
    nic = catalog.nic(nic_id, f"NIC of device '{device.id}'")
    mode = nic.mode(device.port_speed_gbps)
    return nic_id, device.nics or server.nics, mode


def _mode_techs(modes: tuple[PortMode, ...], mode: PortMode) -> tuple[str, ...]:
    """Every technology the ports can run in ``mode``'s shape: a ConnectX-7 lists 1 x 400G
    once for InfiniBand and once for Ethernet, and either may be wired."""
    same = (m for m in modes if m.speed_gbps == mode.speed_gbps and m.ports == mode.ports)
    return tuple(dict.fromkeys(t for m in same for t in m.techs))


def port_layout(device: Device, catalog: Catalog) -> PortLayout:
    """Ports of ``device`` according to its catalog model and chosen mode."""
    spec = catalog.get(device.model, f"device '{device.id}'")
    try:
        if isinstance(spec, SwitchSpec):
            mode = spec.mode(device.port_speed_gbps)
            techs = _mode_techs(spec.modes, mode)
            per_cage = mode.ports // spec.cages
            return PortLayout(mode.ports, mode.speed_gbps, per_cage, techs, cage_ports=per_cage)
        if isinstance(spec, ServerSpec):
            nic_id, nics, mode = nic_mode_of(device, catalog)
            techs = _mode_techs(catalog.nic(nic_id).modes, mode)
            count = nics * mode.ports
            per_gpu = count // spec.gpus if spec.gpus and count % spec.gpus == 0 else 0
            cage = spec.ports_per_cage(count)
            if not spec.cages or nic_id != spec.nic:
                # a NIC port split into lanes (8 x 100G) is still one cage; a NIC other than
                # the server's own is a card with its own cages, not the server's
                cage = catalog.nic(nic_id).split_of(mode)
            return PortLayout(count, mode.speed_gbps, 1, techs, spec.gpus, per_gpu,
                              cage_ports=cage)
    except CatalogError as exc:
        if isinstance(exc, UnknownGear):
            raise
        raise CatalogError(f"device '{device.id}': {exc}") from None
    raise CatalogError(
        f"device '{device.id}' uses '{device.model}', a {spec.kind}, which has no ports"
    )


def port_counts(fabric: Fabric, catalog: Catalog) -> np.ndarray:
    """Number of ports of every device (int64 array), looked up once per distinct model."""
    cache: dict[tuple, int] = {}
    out = np.empty(len(fabric.devices), dtype=np.int64)
    for i, d in enumerate(fabric.devices):
        key = (d.model, d.port_speed_gbps, d.nic, d.nics)
        n = cache.get(key)
        if n is None:
            n = cache[key] = port_layout(d, catalog).count
        out[i] = n
    return out


def used_port_counts(fabric: Fabric) -> np.ndarray:
    """How many ports of each device the links use."""
    links = fabric.links
    n = len(fabric.devices)
    used = np.bincount(links.a, weights=links.count, minlength=n)
    used += np.bincount(links.b, weights=links.count, minlength=n)
    return used.astype(np.int64)


def highest_port(fabric: Fabric) -> np.ndarray:
    """The highest port number each device's links use (0 when none)."""
    links = fabric.links
    n = len(fabric.devices)
    top = np.zeros(n, dtype=np.int64)
    if len(links):
        np.maximum.at(top, links.a, links.a_port.astype(np.int64) + links.count - 1)
        np.maximum.at(top, links.b, links.b_port.astype(np.int64) + links.count - 1)
    return top


def check_ports_exist(fabric: Fabric, catalog: Catalog) -> None:
    """Every device's model is known and every link lands on a port the device has."""
    counts = port_counts(fabric, catalog)
    top = highest_port(fabric)
    over = np.flatnonzero(top > counts)
    if over.size:
        d = fabric.devices[int(over[0])]
        raise FabricError(
            f"device '{d.id}' ({d.model}) has {int(counts[over[0]])} ports, but a link uses "
            f"port {int(top[over[0]])}"
        )


def check_roles_match_gear(fabric: Fabric, catalog: Catalog) -> None:
    """A switch role needs a switch model and a server or appliance a server model: a GPU
    server drawn as a leaf would be costed as a switch and carry no GPUs."""
    seen: set[tuple[str, Role]] = set()
    for d in fabric.devices:
        key = (d.model, d.role)
        if key in seen:
            continue
        seen.add(key)
        item = catalog.get(d.model, f"device '{d.id}'")
        wants = "switch" if d.role.is_switch else "server"
        if item.kind != wants:
            what = {"switch": "a switch", "server": "a server or appliance"}[wants]
            raise FabricError(
                f"device '{d.id}' is a {d.role.label.lower()}, which needs {what} model, but "
                f"'{d.model}' is a {item.kind}"
            )


def port_label(port: int, per_cage: int) -> str:
    """Port ``port`` as the front panel labels it: ``cage/lane`` when a cage carries several
    ports (a twin-port OSFP: port 17 is 9/1), else the plain number."""
    if per_cage <= 1:
        return str(port)
    cage, lane = divmod(port - 1, per_cage)
    return f"{cage + 1}/{lane + 1}"


def port_labels(port: np.ndarray, per_cage: np.ndarray) -> np.ndarray:
    """``port_label`` for many ports at once (an object array of strings)."""
    port = np.asarray(port, dtype=np.int64)
    per_cage = np.asarray(per_cage, dtype=np.int64)
    out = port.astype(str).astype(object)
    split = per_cage > 1
    if split.any():
        cage, lane = np.divmod(port[split] - 1, per_cage[split])
        out[split] = [
            f"{c}/{x}" for c, x in zip((cage + 1).tolist(), (lane + 1).tolist(), strict=True)
        ]
    return out


def per_cage_of(fabric: Fabric, catalog: Catalog) -> np.ndarray:
    """Ports per cage of every device (1 when its gear is unknown), one lookup per model."""
    cache: dict[tuple, int] = {}
    out = np.ones(len(fabric.devices), np.int64)
    for i, d in enumerate(fabric.devices):
        key = (d.model, d.port_speed_gbps, d.nic, d.nics)
        if key not in cache:
            try:
                cache[key] = port_layout(d, catalog).per_cage
            except CatalogError:
                cache[key] = 1
        out[i] = cache[key]
    return out


def planes_text(fabric: Fabric, index: int, catalog: Catalog) -> str:
    """What planes (or rails) a device belongs to, in words, for the inspector: a switch its
    plane or rail label; a server how its NIC ports split into lanes and how many planes its
    links reach. Empty when the design has one plane."""
    d = fabric.devices[index]
    if d.role.is_switch:
        parts = [f"{k} {d.groups[k]}" for k in ("plane", "rail") if d.groups.get(k)]
        return ", ".join(parts)
    spec = catalog.get(d.model) if d.model in catalog else None
    if not isinstance(spec, ServerSpec) or not spec.gpus:
        return ""
    nic_id, _, mode = nic_mode_of(d, catalog)
    split = catalog.nic(nic_id).split_of(mode)
    links = fabric.links
    mine = np.flatnonzero((links.a == index) | (links.b == index))
    other = np.where(links.a[mine] == index, links.b[mine], links.a[mine])
    planes = {fabric.devices[int(k)].groups.get("plane", 0) for k in np.unique(other)}
    rails = {fabric.devices[int(k)].groups.get("rail", 0) for k in np.unique(other)}
    out = []
    if split > 1:
        out.append(f"each NIC port split into {split} x {mode.speed_gbps}G (lanes to planes)")
    if len(planes - {0}) > 1:
        out.append(f"links on {len(planes - {0})} planes")
    elif len(rails - {0}) > 1 and not (planes - {0}):
        out.append(f"links on {len(rails - {0})} rails")
    return "; ".join(out)
