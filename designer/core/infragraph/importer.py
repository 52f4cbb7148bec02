"""An InfraGraph Infrastructure turned into a project.

Devices with accelerators (``xpu`` components, counted through composed devices) become GPU
servers; devices whose cabled components are ports and that have neither accelerators nor
NICs become switches; other cabled devices are appliances. A switch is a leaf when GPU
servers hang on it, a spine one switch hop further, a core beyond; when every switch has GPU
servers and switches link to each other they are dragonfly routers. A device named like a
catalog model (this tool's own exports) keeps that model; any other becomes a generic server
(its GPU count and accelerator name) or a generic switch of its port count, added to the
project's gear. A cabled component ``name[k]`` is port k+1 of its device; cables on deeper
paths (``cx5[0].port[1]``) are numbered in path order. Link speeds come from the links'
bandwidth.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from pathlib import Path

import numpy as np
from pydantic import ValidationError
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from designer.core.catalog import Catalog, GearItem, Profile, ServerSpec, SwitchSpec
from designer.core.errors import ProjectFileError
from designer.core.fileformat import check_project_gear
from designer.core.generators.gear import generic_switch
from designer.core.infragraph.reader import (
    MAX_CABLES,
    InfraGraphError,
    Infrastructure,
    expand_edge,
    load,
    simple_edge,
)
from designer.core.infragraph.schema import safe_name
from designer.core.limits import MAX_DEVICES
from designer.core.links import MAX_SPEED, LinkTable
from designer.core.model import Device, Fabric, Overrides, Project, Role
from designer.core.names import FILE, map_names
from designer.core.text import shown, without_controls

ROW_DY = 260.0
_GEAR_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_PROFILE_NOTE = re.compile(r"gear profile ([a-z0-9][a-z0-9._-]{0,63})")
SERVER, SWITCH, APPLIANCE, NONE = "server", "switch", "appliance", "none"


MAX_DEPTH = 8
# the model's ranges (``catalog_items``): a server's GPUs and NICs, a switch's ports
MAX_SERVER_GPUS = 1024
MAX_SERVER_PORTS = 1024 * 8
MAX_SWITCH_PORTS = 100_000
MAX_RACK_UNITS = 100


def xpu_counts(inf: Infrastructure) -> dict[str, int]:
    """Accelerators of every device, counted through composed devices. Each device is counted
    once (memoised): a device of twelve devices of twelve ... eight deep is 8 x 12 sums, not
    12^8 calls. Composition more than ``MAX_DEPTH`` deep (or a cycle) is refused."""
    memo: dict[str, int] = {}

    def count(device: str, depth: int) -> int:
        if device in memo:
            return memo[device]
        if depth > MAX_DEPTH:
            raise InfraGraphError(f"device '{shown(device, 80)}': devices composed more than "
                                  f"{MAX_DEPTH} deep")
        total = 0
        for c in inf.devices[device].components.values():
            if c.choice == "xpu":
                total += c.count
            elif c.choice == "device" and c.name in inf.devices and c.name != device:
                total += c.count * count(c.name, depth + 1)
        memo[device] = total
        return total

    for d in inf.devices:
        count(d, 0)
    return memo


def _kind(inf: Infrastructure, device: str, xpus: dict[str, int]) -> str:
    comps = inf.devices[device].components.values()
    if xpus[device]:
        return SERVER
    choices = {c.choice for c in comps}
    if "port" in choices and "nic" not in choices:
        return SWITCH
    return APPLIANCE


def _profile(catalog: Catalog, gear: str | None, speeds: np.ndarray,
             description: str) -> Profile:
    if gear:
        return catalog.profile(gear)
    profiles = catalog.profiles
    named = _PROFILE_NOTE.search(description)
    if named and named.group(1) in profiles:  # written by this tool's export
        return profiles[named.group(1)]
    top = float(np.median(speeds)) if speeds.size else 400.0
    if top >= 800 and "ib-xdr" in profiles:
        return profiles["ib-xdr"]
    return profiles.get("ib-ndr") or next(iter(profiles.values()))


def _gear_id(text: str) -> str:
    return safe_name(text.lower(), "device").replace("_", "-")[:48].strip("-") or "device"


def _server_model(name: str, xpus: int, xpu_text: str, ports: int, speed: int,
                  profile: Profile, catalog: Catalog, added: dict[str, GearItem]
                  ) -> tuple[str, int | None]:
    nic = catalog.nic(profile.nic)
    mode = nic.mode_for(speed, profile.tech) or nic.mode_for(profile.nic_speed_gbps,
                                                             profile.tech) or nic.modes[0]
    nics = max(1, -(-ports // mode.ports))
    if name in catalog:
        spec = catalog.get(name)
        if isinstance(spec, ServerSpec) and spec.gpus == xpus:
            cat_nic = catalog.nic(spec.nic)
            m = cat_nic.mode_for(speed, profile.tech) or cat_nic.modes[0]
            if spec.nics * m.ports >= ports:
                return spec.id, None
            return spec.id, max(1, -(-ports // m.ports))
    # a name that is a valid gear id keeps it (a generated server of this tool's export)
    gid = name if _GEAR_ID.match(name) and name not in catalog else f"ig-{_gear_id(name)}"
    if gid not in added:
        try:
            added[gid] = ServerSpec(
                id=gid,
                name=without_controls(f"{name} ({xpus} x {xpu_text or 'accelerator'})")[:200],
                gpus=xpus, gpu_model=without_controls(xpu_text or "accelerator")[:200]
                or "accelerator", nic=profile.nic, nics=nics,
                power_w=round(1250.0 * max(xpus, 1), 1),
                rack_units=min(max(1, xpus), MAX_RACK_UNITS), price_usd=31250.0 * max(xpus, 1),
                notes="Made by the InfraGraph import; power and price are estimates.")
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            field = ".".join(str(x) for x in err["loc"])
            raise InfraGraphError(f"device '{shown(name, 80)}': as a server, {field}: "
                                  f"{err['msg']}") from None
    return gid, None


def _switch_model(name: str, ports: int, speed: int, profile: Profile, catalog: Catalog,
                  added: dict[str, GearItem]) -> tuple[str, int]:
    if name in catalog:
        spec = catalog.get(name)
        if isinstance(spec, SwitchSpec):
            for m in spec.modes:
                if m.ports == ports and (m.speed_gbps == speed or not speed):
                    return spec.id, m.speed_gbps
    base = catalog.switch(profile.switch)
    use = speed if base.mode_for(speed, profile.tech) else profile.switch_speed_gbps
    gen = generic_switch(ports, base, use, profile.tech)
    added.setdefault(gen.id, gen)
    return gen.id, use


def _link_speed(inf: Infrastructure, link: str, edge: int) -> float:
    """The speed of ``link`` in Gb/s (0: not given), refused unless it rounds into the
    model's range of a link speed."""
    g = inf.link_gbps.get(link, 0.0)
    if g and not (np.isfinite(g) and 1 <= round(g) <= MAX_SPEED):
        raise InfraGraphError(f"edges[{edge}] link '{shown(link, 80)}': bandwidth {g:g} Gb/s "
                              f"is outside 1 to {MAX_SPEED:,} Gb/s")
    return g


def _tiers(n_dev: int, is_switch: np.ndarray, has_gpu: np.ndarray, a: np.ndarray,
           b: np.ndarray) -> np.ndarray:
    """Switch hops from the nearest switch with GPU servers (-1: none reachable)."""
    sw = np.flatnonzero(is_switch)
    if not sw.size:
        return np.zeros(0, np.int64)
    src = np.flatnonzero(has_gpu[sw])
    if not src.size:
        return np.full(sw.size, -1, np.int64)
    pos = np.full(n_dev, -1, np.int64)
    pos[sw] = np.arange(sw.size)
    isl = is_switch[a] & is_switch[b]
    # one search from a virtual node k joined to every switch with GPUs (a multi-source
    # breadth-first search): one row of distances, memory in the switches, not switches x
    # sources (40,000 sources x 40,000 switches was 12.8 GB)
    k = sw.size
    rows = np.r_[pos[a[isl]], np.full(src.size, k)]
    cols = np.r_[pos[b[isl]], src]
    m = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(k + 1, k + 1)).tocsr()
    dist = shortest_path(m, directed=False, unweighted=True, indices=k)[:k] - 1
    return np.where(np.isfinite(dist), dist, -1).astype(np.int64)


def project_from_infrastructure(inf: Infrastructure, catalog: Catalog, *, name: str = "",
                                gear: str | None = None, source: str = "") -> Project:
    """A project of ``inf``'s cabled devices (see the module's notes); ``gear`` names the
    gear profile (default: the one this tool's export noted, else by the link speeds)."""
    xpus_of = xpu_counts(inf)
    kinds = {d: _kind(inf, d, xpus_of) for d in inf.devices}
    # devices: every instance, servers first, in file order
    order = sorted(inf.instances.values(),
                   key=lambda x: {SERVER: 0, APPLIANCE: 1, SWITCH: 2}.get(kinds[x.device], 3))
    base: dict[str, int] = {}
    total = 0
    for inst in order:
        base[inst.name] = total
        total += inst.count
        if total > MAX_DEVICES:
            raise InfraGraphError(f"more than {MAX_DEVICES:,} devices")
    n = total
    kind_of_dev = np.empty(n, object)
    inst_of_dev = np.empty(n, object)
    for inst in order:
        kind_of_dev[base[inst.name]:base[inst.name] + inst.count] = kinds[inst.device]
        inst_of_dev[base[inst.name]:base[inst.name] + inst.count] = inst.name
    top_single: dict[str, int] = {}
    for d, dev in inf.devices.items():
        top_single[d] = max((c.count for c in dev.components.values()
                             if c.choice in ("port", "nic", "custom")), default=0)
    # ports: name[k] -> k+1; deeper paths numbered per device kind after those
    deep: dict[str, dict[tuple, int]] = {}

    def port_of(end) -> int:
        iname, _k, path = end
        if len(path) == 1:
            return path[0][1] + 1
        dev = inf.instances[iname].device
        table = deep.setdefault(dev, {})
        if path not in table:
            table[path] = len(table)
        return top_single[dev] + 1 + table[path]

    parts: list[tuple[np.ndarray, ...]] = []
    total_cables = 0
    for i in range(len(inf.edges)):
        simple = simple_edge(inf, i)
        if simple is not None:
            (ia, xa, ca), (ib, xb, cb), scheme, link = simple
            ad = np.repeat(base[ia] + xa, ca.size)
            apt = np.tile(ca + 1, xa.size)
            bd = np.repeat(base[ib] + xb, cb.size)
            bpt = np.tile(cb + 1, xb.size)
            if scheme == "many2many":
                if ad.size * bd.size > MAX_CABLES:
                    raise InfraGraphError(f"edges[{i}]: many2many expands to more than "
                                          f"{MAX_CABLES:,} links")
                ad, apt, bd, bpt = (np.repeat(ad, bd.size), np.repeat(apt, bd.size),
                                    np.tile(bd, ad.size), np.tile(bpt, ad.size))
            else:
                m = min(ad.size, bd.size)
                ad, apt, bd, bpt = ad[:m], apt[:m], bd[:m], bpt[:m]
        else:
            a, b, link = expand_edge(inf, i)
            ad = np.fromiter((base[e[0]] + e[1] for e in a), np.int64, len(a))
            bd = np.fromiter((base[e[0]] + e[1] for e in b), np.int64, len(b))
            apt = np.fromiter((port_of(e) for e in a), np.int64, len(a))
            bpt = np.fromiter((port_of(e) for e in b), np.int64, len(b))
        keep = ad != bd  # edges inside one device are its own wiring
        if not keep.any():
            continue
        sp = np.full(int(keep.sum()), _link_speed(inf, link, i))
        parts.append((ad[keep], apt[keep], bd[keep], bpt[keep], sp))
        total_cables += int(keep.sum())
        if total_cables > MAX_CABLES:
            raise InfraGraphError(f"more than {MAX_CABLES:,} cables between devices")
    if not parts:
        raise InfraGraphError("the file has no cables between devices (no edges joining two "
                              "instances)")
    a_dev, a_port, b_dev, b_port, speed = (np.concatenate(x) for x in zip(*parts, strict=True))
    # each port carries one cable
    used = np.concatenate([a_dev * (1 << 24) + a_port, b_dev * (1 << 24) + b_port])
    u, c = np.unique(used, return_counts=True)
    if (c > 1).any():
        d, p = divmod(int(u[np.argmax(c > 1)]), 1 << 24)
        raise InfraGraphError(f"port {p} of {inst_of_dev[d]}[{d - base[inst_of_dev[d]]}] "
                              "carries more than one cable")

    profile = _profile(catalog, gear, speed[speed > 0], inf.description)
    speed_i = np.where(speed > 0, np.rint(speed), profile.nic_speed_gbps).astype(np.int64)
    is_switch = np.array([k == SWITCH for k in kind_of_dev], bool)
    is_server = np.array([k == SERVER for k in kind_of_dev], bool)
    has_gpu = np.zeros(n, bool)
    has_gpu[a_dev[is_server[b_dev]]] = True
    has_gpu[b_dev[is_server[a_dev]]] = True
    dist = _tiers(n, is_switch, has_gpu, a_dev, b_dev)
    isl = bool((is_switch[a_dev] & is_switch[b_dev]).any())
    flat = bool(dist.size and (dist == 0).all() and isl)
    role = np.empty(n, object)
    role[is_server] = Role.GPU_SERVER
    role[~is_server & ~is_switch] = Role.APPLIANCE
    sw_idx = np.flatnonzero(is_switch)
    for s, d in zip(sw_idx.tolist(), dist.tolist(), strict=True):
        role[s] = Role.ROUTER if flat else (Role.LEAF if d == 0 else Role.SPINE if d in (1, -1)
                                           else Role.CORE)

    # models per instance device and the speed its cables run at
    top_port = np.zeros(n, np.int64)
    np.maximum.at(top_port, a_dev, a_port)
    np.maximum.at(top_port, b_dev, b_port)
    dev_speed = np.zeros(n, np.int64)
    np.maximum.at(dev_speed, a_dev, speed_i)
    np.maximum.at(dev_speed, b_dev, speed_i)
    added: dict[str, GearItem] = {}
    devices: list[Device] = []
    rows: Counter = Counter()
    row_total = Counter(role.tolist())
    ys = {Role.GPU_SERVER: 0.0, Role.APPLIANCE: 0.0, Role.LEAF: -ROW_DY, Role.ROUTER: -ROW_DY,
          Role.SPINE: -2 * ROW_DY, Role.CORE: -3 * ROW_DY}
    width = max(60.0 * max(row_total[Role.GPU_SERVER], 1), 600.0)
    model_cache: dict[tuple, tuple[str, int | None, int | None]] = {}
    # one unique, safe stem per instance (the export's name mapping): names that differ only
    # in characters a device id cannot hold (two Chinese names, two long names alike in
    # their first 120 characters) no longer become one id
    stems = dict(zip((x.name for x in order),
                     map_names([(x.name, safe_name(x.name, "device")) for x in order],
                               FILE).mapped, strict=True))
    for inst in order:
        dev = inf.devices[inst.device]
        k = kinds[inst.device]
        lo, hi = base[inst.name], base[inst.name] + inst.count
        ports = int(top_port[lo:hi].max()) if inst.count else 0
        sp = int(dev_speed[lo:hi].max()) if inst.count else 0
        sp = sp or profile.nic_speed_gbps
        key = (inst.device, ports, sp)
        if key not in model_cache:
            if k == SWITCH:
                port_comp = max((c.count for c in dev.components.values()
                                 if c.choice == "port"), default=0)
                radix = max(ports, port_comp)
                if radix > MAX_SWITCH_PORTS:
                    raise InfraGraphError(
                        f"instance '{shown(inst.name, 80)}' (device '{shown(inst.device, 80)}'):"
                        f" {radix:,} ports; a switch has at most {MAX_SWITCH_PORTS:,}")
                try:
                    mid, use = _switch_model(inst.device, radix, sp, profile, catalog, added)
                except ValidationError as exc:  # a radix whose scaled price or power is absurd
                    err = exc.errors(include_url=False)[0]
                    raise InfraGraphError(
                        f"instance '{shown(inst.name, 80)}' (device '{shown(inst.device, 80)}')"
                        f": as a {radix:,}-port switch, "
                        f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}") from None
                model_cache[key] = (mid, None, use)
            else:
                xpus = xpus_of[inst.device]
                xpu_text = next((c.description for c in dev.components.values()
                                 if c.choice == "xpu" and c.description), "")
                if k == APPLIANCE:
                    xpus = 0
                if xpus > MAX_SERVER_GPUS or max(ports, 1) > MAX_SERVER_PORTS:
                    what, n, top = (("accelerators", xpus, MAX_SERVER_GPUS)
                                    if xpus > MAX_SERVER_GPUS
                                    else ("cabled ports", ports, MAX_SERVER_PORTS))
                    raise InfraGraphError(
                        f"instance '{shown(inst.name, 80)}' (device '{shown(inst.device, 80)}'):"
                        f" {n:,} {what}; a server has at most {top:,}")
                mid, nics = _server_model(inst.device, xpus, xpu_text, max(ports, 1), sp,
                                          profile, catalog, added)
                nic = catalog.nic(catalog.get(mid).nic) if mid in catalog else \
                    catalog.nic(profile.nic)
                model_cache[key] = (mid, nics, sp if nic.mode_for(sp, profile.tech) else None)
        mid, nics, port_speed = model_cache[key]
        stem = stems[inst.name]
        xs = np.empty(inst.count)
        for x in range(inst.count):
            r = role[lo + x]
            j = rows[r]
            rows[r] += 1
            tot = row_total[r]
            xs[x] = width / 2 if tot == 1 else j * width / (tot - 1)
        fixed = {**({"nics": nics} if nics else {}),
                 **({"port_speed_gbps": port_speed} if port_speed else {})}
        # runs of one role (an instance's switches can sit in different tiers): each a block
        # of devices alike but for id and place, checked as the generators' are
        roles_here = role[lo:hi]
        cuts = [0, *(k for k in range(1, inst.count) if roles_here[k] is not roles_here[k - 1]),
                inst.count]
        for s0, s1 in itertools.pairwise(cuts):
            r = roles_here[s0]
            ids = [f"{stem}-{x}" for x in range(s0, s1)]
            try:
                devices.extend(Device.block(ids, [{}] * len(ids), xs[s0:s1],
                                            np.full(len(ids), ys[r]), model=mid, role=r,
                                            **fixed))
            except (ValidationError, ValueError) as exc:
                msg = (exc.errors(include_url=False)[0]["msg"]
                       if isinstance(exc, ValidationError) else str(exc))
                raise InfraGraphError(f"instance '{shown(inst.name, 80)}': "
                                      f"{msg.removeprefix('Value error, ')}") from None
    title = name or (f"InfraGraph {inf.name}" if inf.name else "InfraGraph import")
    notes = "Imported from an InfraGraph file" + (f" ({source})" if source else "") + "."
    if inf.description:
        notes += " " + " ".join(inf.description.split())[:500]
    try:
        links = LinkTable(a=a_dev, a_port=a_port, b=b_dev, b_port=b_port, count=1,
                          speed_gbps=speed_i)
        fabric = Fabric(devices=tuple(devices), links=links)
        project = Project(name=without_controls(title)[:200], notes=without_controls(notes),
                          profile=profile.id, fabric=fabric,
                          overrides=Overrides(gear=tuple(added.values())))
    except ValidationError as exc:
        raise InfraGraphError(_model_refusal(exc, devices)) from None
    except ValueError as exc:
        raise InfraGraphError(f"the imported links: {exc}") from None
    # the checks every project file meets when it is read (no "accepted but invalid")
    try:
        check_project_gear(project, catalog)
    except ProjectFileError as exc:
        raise InfraGraphError(f"the imported design would not be a valid project: "
                              f"{exc}") from None
    return project


def _model_refusal(exc: ValidationError, devices: list[Device]) -> str:
    """The first model error of an import, naming the device it comes from."""
    err = exc.errors(include_url=False)[0]
    loc = list(err["loc"])
    what = ""
    if loc and isinstance(loc[0], int) and loc[0] < len(devices):
        what = f"device '{devices[loc[0]].id}' "
        loc = loc[1:]
    field = ".".join(str(x) for x in loc)
    msg = err["msg"].removeprefix("Value error, ")
    return f"{what}{field}: {msg}".strip()


def project_from_infragraph(path: str | Path, catalog: Catalog, *, name: str = "",
                            gear: str | None = None) -> Project:
    """Read an InfraGraph file (JSON or YAML) and build its project."""
    p = Path(path)
    return project_from_infrastructure(load(p), catalog, name=name, gear=gear, source=p.name)
