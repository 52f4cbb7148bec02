"""A project built from a discovered fabric (the as-built), for comparing with the plan.

Node descriptions become device names: an HCA ``"<host> mlx5_<k>"`` is NIC port k+1 of server
``<host>`` (``"<host> HCA-<k>"`` is port k), a switch keeps its description. Roles are guessed
from the wiring: hosts are GPU servers (appliances when the name says UFM), switches are leaves
when GPU servers hang on them, spines one switch hop further, cores beyond; when every switch
has GPU servers and switches link to each other, they are dragonfly routers. Models are guessed
from the chip's device id when the file gives it, else from the port count (64 ports: QM9700,
144: Q3400), else a generic switch of that radix is added to the project.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from pydantic import TypeAdapter, ValidationError
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from designer.core.catalog import Catalog, GearItem, Profile, ServerSpec, SwitchSpec
from designer.core.errors import DesignerError
from designer.core.generators.gear import generic_switch
from designer.core.infiniband.topology import (
    DEVICE_IDS,
    IbFabric,
    components,
    split_hca_description,
)
from designer.core.limits import MAX_GROUP_LABEL
from designer.core.links import LinkTable
from designer.core.model import Device, Fabric, Overrides, Project, Role
from designer.core.text import shown

ROW_DY = 260.0  # same spacing as generated designs
_ID_BAD = re.compile(r"[^A-Za-z0-9_.:/+-]+")
# ASCII digits only; a number past the model's group labels (a date in a name, such as
# pod20240611120000-leaf1) is not a group and is left out, as the project's notes say
_GROUP_PATTERNS = (
    ("plane", re.compile(r"^p([0-9]+)-")),
    ("su", re.compile(r"(?:^|[-_.])su([0-9]+)(?=[-_.]|$)")),
    ("pod", re.compile(r"(?:^|[-_.])pod([0-9]+)(?=[-_.]|$)")),
    ("group", re.compile(r"(?:^|[-_.])g([0-9]+)(?=-)")),
)
_UFM = re.compile(r"ufm", re.IGNORECASE)
@functools.cache
def _devices_adapter() -> TypeAdapter:
    """Built on first use: building a validator at import costs every command's start."""
    return TypeAdapter(tuple[Device, ...])


class AsBuiltError(DesignerError):
    """A discovered fabric cannot be turned into a project."""


def _guess_profile(ib: IbFabric, catalog: Catalog, gear: str | None) -> Profile:
    if gear:
        return catalog.profile(gear)
    rates = ib.speed_gbps[ib.speed_gbps > 0]
    profiles = catalog.profiles
    if rates.size and int(np.median(rates)) >= 800 and "ib-xdr" in profiles:
        return profiles["ib-xdr"]
    sw_ports = ib.nports[ib.is_switch]
    if sw_ports.size and int(np.bincount(sw_ports).argmax()) == 144 and "ib-xdr" in profiles:
        return profiles["ib-xdr"]
    return profiles.get("ib-ndr") or next(iter(profiles.values()))


def _switch_model(
    ports: int, devid: int, profile: Profile, catalog: Catalog, added: dict[str, GearItem]
) -> str:
    """A catalog switch with ``ports`` ports of the profile's technology, or a generic one."""
    by_devid = [m for m, d in DEVICE_IDS.items() if d == devid and devid]
    preferred = [profile.switch, *by_devid]
    candidates = [
        s
        for s in catalog.of_kind("switch")
        if isinstance(s, SwitchSpec) and s.mode_for(profile.switch_speed_gbps, profile.tech)
    ]
    fitting = [
        s for s in candidates if s.mode_for(profile.switch_speed_gbps, profile.tech).ports == ports
    ]
    for want in preferred:
        for s in fitting:
            if s.id == want:
                return s.id
    if fitting:
        return sorted(fitting, key=lambda s: (s.vendor == "generic", s.id))[0].id
    base = catalog.switch(profile.switch)
    gen = generic_switch(ports, base, profile.switch_speed_gbps, profile.tech)
    added.setdefault(gen.id, gen)
    return gen.id


def _server_model(
    ports_needed: int,
    appliance: bool,
    planes: int,
    profile: Profile,
    catalog: Catalog,
    added: dict[str, GearItem],
) -> tuple[str, int | None]:
    """(model, NIC count override) of a server or appliance with ``ports_needed`` NIC ports
    of the profile's kind, ``planes`` of them per GPU: the profile's server when its GPU count
    fits (with more NICs for more planes), else a generic server."""
    nic = catalog.nic(profile.nic)
    mode = nic.mode_for(profile.nic_speed_gbps, profile.tech) or nic.modes[0]
    if appliance:
        ufm = catalog.get("ufm-appliance") if "ufm-appliance" in catalog else None
        if isinstance(ufm, ServerSpec) and ufm.nics * mode.ports >= ports_needed:
            return ufm.id, None
        spec = ServerSpec(
            id=f"appliance-{ports_needed}p",
            name=f"Appliance with {ports_needed} fabric ports",
            gpus=0,
            nic=profile.nic,
            nics=max(1, -(-ports_needed // mode.ports)),
            power_w=800,
            price_usd=35000,
            notes="Made by the as-built import; figures are estimates.",
        )
        added.setdefault(spec.id, spec)
        return spec.id, None
    server = catalog.server(profile.server)
    nics = max(1, -(-ports_needed // mode.ports))
    if server.nics * mode.ports == ports_needed:
        return server.id, None
    if planes > 1 and nics % planes == 0 and server.gpus == nics // planes:
        return server.id, nics
    gpus = nics
    spec = ServerSpec(
        id=f"gpu-server-{gpus}g",
        name=f"Generic {gpus}-GPU server",
        gpus=gpus,
        gpu_model=f"{gpus} x accelerator",
        nic=profile.nic,
        nics=gpus,
        power_w=round(1250.0 * gpus, 1),
        rack_units=max(1, gpus),
        price_usd=31250.0 * gpus,
        notes="Made by the as-built import for a host with this many HCA ports; estimates.",
    )
    added.setdefault(spec.id, spec)
    return spec.id, None


def _unique_names(names: list[str], guids: list[int]) -> list[str]:
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    out = []
    for n, g in zip(names, guids, strict=True):
        out.append(f"{n} ({g:x})" if seen[n] > 1 and g else n)
    # still clashing (no GUIDs): number them
    count: dict[str, int] = {}
    final = []
    for n in out:
        k = count.get(n, 0)
        count[n] = k + 1
        final.append(n if k == 0 else f"{n} ({k + 1})")
    return final


def _device_ids(names: list[str]) -> list[str]:
    used: set[str] = set()
    out = []
    for n in names:
        base = _ID_BAD.sub("-", n).strip("-._:/+")[:110] or "node"
        if not base[0].isalnum():
            base = "n" + base
        cand, k = base, 2
        while cand in used:
            cand = f"{base}-{k}"
            k += 1
        used.add(cand)
        out.append(cand)
    return out


def _groups(name: str, past: list[str] | None = None) -> dict[str, int]:
    """Group labels a name carries (``su3``, ``pod2``, ``p1-``); ``past`` collects names whose
    number is past what a label holds."""
    g = {}
    for key, pat in _GROUP_PATTERNS:
        m = pat.search(name)
        if m:
            digits = m.group(1).lstrip("0") or "0"
            if len(digits) > 10 or int(digits) > MAX_GROUP_LABEL:
                if past is not None:
                    past.append(name)
                continue
            g[key] = int(digits)
    return g


def _planes(ib: IbFabric, host_of_node: np.ndarray, n_hosts: int, appliance: np.ndarray) -> int:
    """How many separate subnets (planes) a GPU server's HCAs reach, most commonly."""
    if not n_hosts:
        return 1
    part = np.empty(ib.n_nodes, np.int64)
    for k, nodes in enumerate(components(ib)):
        part[nodes] = k
    ca = np.flatnonzero(host_of_node >= 0)
    pairs = np.unique(np.stack([host_of_node[ca], part[ca]], axis=1), axis=0)
    per_host = np.bincount(pairs[:, 0], minlength=n_hosts)[~appliance]
    per_host = per_host[per_host > 0]
    return int(np.bincount(per_host).argmax()) if per_host.size else 1


def switch_tiers(ib: IbFabric, gpu_host_node: np.ndarray) -> np.ndarray:
    """Per switch node: switch hops to the nearest switch with a GPU server HCA (-1: none)."""
    sw = np.flatnonzero(ib.is_switch)
    pos = np.full(ib.n_nodes, -1, np.int64)
    pos[sw] = np.arange(sw.size)
    a, b = ib.a.astype(np.int64), ib.b.astype(np.int64)
    both = ib.is_switch[a] & ib.is_switch[b]
    n = sw.size
    if n == 0:
        return np.empty(0, np.int64)
    g = coo_matrix((np.ones(int(both.sum())), (pos[a[both]], pos[b[both]])), shape=(n, n)).tocsr()
    # leaves: switches cabled to a GPU server HCA
    leaf_of = np.concatenate(
        [pos[b[gpu_host_node[a] & ib.is_switch[b]]], pos[a[gpu_host_node[b] & ib.is_switch[a]]]]
    )
    leaves = np.unique(leaf_of[leaf_of >= 0])
    if leaves.size == 0:
        return np.full(n, -1, np.int64)
    dist = dijkstra(g, directed=False, unweighted=True, indices=leaves, min_only=True)
    out = np.where(np.isfinite(dist), dist, -1).astype(np.int64)
    return out


def project_from_ib(
    ib: IbFabric,
    catalog: Catalog,
    name: str = "As-built fabric",
    gear: str | None = None,
    source: str = "",
    source_format: str = "ibnetdiscover",
) -> Project:
    """A project holding the discovered devices and cables, with guessed roles and models.
    ``source_format`` names where the nodes came from (the LLDP import builds the same node
    picture from an Ethernet fabric's neighbour tables)."""
    profile = _guess_profile(ib, catalog, gear)
    if source_format == "ibnetdiscover" and not profile.tech.startswith("ib"):
        raise AsBuiltError(f"gear profile '{profile.id}' is not InfiniBand")
    is_sw = ib.is_switch
    nodes = np.arange(ib.n_nodes)
    past_groups: list[str] = []

    # hosts: group HCAs by the host part of their description
    host_of_node = np.full(ib.n_nodes, -1, np.int64)
    base_port = np.zeros(ib.n_nodes, np.int64)  # device port = base + IB port
    host_names: list[str] = []
    host_index: dict[str, int] = {}
    host_next: list[int] = []  # next free HCA index for HCAs without one
    host_taken: list[set[int]] = []
    for n in nodes[~is_sw].tolist():
        host, k = split_hca_description(ib.desc[n])
        h = host_index.get(host)
        if h is None:
            h = host_index[host] = len(host_names)
            host_names.append(host)
            host_next.append(0)
            host_taken.append(set())
        if k is None or k in host_taken[h]:
            k = host_next[h]
            while k in host_taken[h]:
                k += 1
        host_taken[h].add(k)
        host_next[h] = max(host_next[h], k + 1)
        host_of_node[n] = h
        base_port[n] = k * int(ib.nports[n])
    n_hosts = len(host_names)
    host_ports = np.zeros(n_hosts, np.int64)
    ca = ~is_sw
    if n_hosts:
        np.maximum.at(host_ports, host_of_node[ca], base_port[ca] + ib.nports[ca])
    appliance = np.array([bool(_UFM.search(h)) for h in host_names], dtype=bool)

    # switches
    sw_nodes = nodes[is_sw]
    gpu_host_node = np.zeros(ib.n_nodes, bool)
    gpu_host_node[ca] = ~appliance[host_of_node[ca]] if n_hosts else False
    dist = switch_tiers(ib, gpu_host_node)
    has_isl = bool((is_sw[ib.a] & is_sw[ib.b]).any())
    flat = sw_nodes.size > 0 and bool((dist == 0).all()) and has_isl
    roles_sw = []
    for d in dist.tolist():
        if flat:
            roles_sw.append(Role.ROUTER)
        elif d <= 0:
            roles_sw.append(Role.LEAF)
        elif d == 1:
            roles_sw.append(Role.SPINE)
        else:
            roles_sw.append(Role.CORE)

    # device names: hosts then switches, made unique
    host_guids = [0] * n_hosts
    names = _unique_names(
        host_names + [ib.desc[n] for n in sw_nodes.tolist()],
        host_guids + [int(ib.guid[n]) for n in sw_nodes.tolist()],
    )
    ids = _device_ids(names)
    added: dict[str, GearItem] = {}
    devices: list[dict] = []
    tiers_y = {
        Role.LEAF: -ROW_DY,
        Role.ROUTER: -ROW_DY,
        Role.SPINE: -2 * ROW_DY,
        Role.CORE: -3 * ROW_DY,
    }
    width = max(60.0 * max(n_hosts, 1), 600.0)
    # hosts of one kind usually have the same port count; one with a missing cable on its
    # last HCA still gets the common model
    gpu_ports = host_ports[~appliance] if n_hosts else host_ports
    common = int(np.bincount(gpu_ports).argmax()) if gpu_ports.size else 0
    planes = _planes(ib, host_of_node, n_hosts, appliance)
    for h in range(n_hosts):
        need = int(host_ports[h]) if appliance[h] else max(int(host_ports[h]), common)
        model, nics = _server_model(need, bool(appliance[h]), planes, profile, catalog, added)
        devices.append(
            {
                "id": ids[h],
                "name": names[h],
                "model": model,
                "role": (Role.APPLIANCE if appliance[h] else Role.GPU_SERVER).value,
                "groups": _groups(names[h], past_groups),
                "x": 30.0 + 60.0 * h,
                "y": 0.0,
                **({"nics": nics} if nics else {}),
            }
        )
    sw_model_cache: dict[tuple[int, int], str] = {}
    row_count: dict[Role, int] = {}
    row_total: dict[Role, int] = {}
    for r in roles_sw:
        row_total[r] = row_total.get(r, 0) + 1
    for i, n in enumerate(sw_nodes.tolist()):
        key = (int(ib.nports[n]), int(ib.devid[n]))
        model = sw_model_cache.get(key)
        if model is None:
            model = sw_model_cache[key] = _switch_model(key[0], key[1], profile, catalog, added)
        role = roles_sw[i]
        k = row_count.get(role, 0)
        row_count[role] = k + 1
        total = row_total[role]
        x = width / 2 if total == 1 else k * width / (total - 1)
        devices.append(
            {
                "id": ids[n_hosts + i],
                "name": names[n_hosts + i],
                "model": model,
                "role": role.value,
                "groups": _groups(names[n_hosts + i], past_groups),
                "x": float(x),
                "y": tiers_y[role],
                "port_speed_gbps": profile.switch_speed_gbps,
            }
        )

    # cables: IB node -> device
    dev_of_node = np.empty(ib.n_nodes, np.int64)
    dev_of_node[ca] = host_of_node[ca]
    dev_of_node[sw_nodes] = n_hosts + np.arange(sw_nodes.size)
    a_dev = dev_of_node[ib.a]
    b_dev = dev_of_node[ib.b]
    a_port = base_port[ib.a] + ib.a_port
    b_port = base_port[ib.b] + ib.b_port
    loops = np.flatnonzero(a_dev == b_dev)
    if loops.size:
        i = int(loops[0])
        raise AsBuiltError(
            f"a cable joins two ports of '{names[int(a_dev[i])]}' (ports {int(a_port[i])} and "
            f"{int(b_port[i])}); a device cannot be cabled to itself in a design"
        )
    host_end = ~(is_sw[ib.a] & is_sw[ib.b])
    speed = np.where(host_end, profile.nic_speed_gbps, profile.switch_speed_gbps)
    links = LinkTable(a=a_dev, a_port=a_port, b=b_dev, b_port=b_port, count=1, speed_gbps=speed)
    try:
        devs = _devices_adapter().validate_python(devices)
        fabric = Fabric(devices=devs, links=links)
    except ValidationError as exc:  # a name or a figure of the found fabric a design cannot hold
        err = exc.errors(include_url=False)[0]
        loc = err["loc"]
        which = (f"device '{shown(str(devices[loc[0]]['name']), 80)}'"
                 if loc and isinstance(loc[0], int) and loc[0] < len(devices) else "the fabric")
        field = ".".join(str(x) for x in loc[1:]) or "value"
        raise AsBuiltError(f"{which}: {field}: {shown(err['msg'], 200)}") from None
    notes = f"Imported from {source_format} output" + (f" ({source})" if source else "") + "."
    if past_groups:
        notes += (f" {len(past_groups):,} name(s) carry a number too large for a group label "
                  f"and were not grouped by it (e.g. '{past_groups[0]}').")
    return Project(
        name=name[:200],
        notes=notes,
        profile=profile.id,
        fabric=fabric,
        overrides=Overrides(gear=tuple(added.values())),
    )
