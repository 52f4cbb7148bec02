"""The as-built of an Ethernet fabric from LLDP neighbour tables, and a design's own LLDP view.

Input, one file per switch (the file name, less ``.json``/``.lldp``/``.txt``, is the switch's
name, since neither output names the local system), or a folder of them:
* ``lldpcli show neighbors -f json`` (lldpd; ``interface`` a dict or a list of one-key dicts),
  or ``-f json0`` (every value a list);
* SONiC ``show lldp table`` (columns LocalPort, RemoteDevice, RemotePortID, ...).

Port names become port numbers: SONiC's ``Ethernet<lane>`` (eight lanes a cage, split by the
gear profile's ports per cage), ``swp<N>``/``swp<C>s<S>`` (Cumulus), on servers ``eth<N>`` (port
N, as in the containerlab export) and ``mlx5_<k>`` (port k+1, as the RDMA devices are named).
The neighbours become the nodes and cables of an ``IbFabric`` (a server port is one adapter node
``"<server> mlx5_<k>"``), and ``infiniband.asbuilt.project_from_ib`` builds the project, so
roles, models and layout are guessed exactly as for a discovered InfiniBand fabric, and
``designer diff`` compares it with the plan the same way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import orjson

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.ethernet.plan import LANES_PER_CAGE, interface_name
from designer.core.infiniband.asbuilt import project_from_ib
from designer.core.infiniband.topology import CA, SWITCH, IbFabric, hca_description
from designer.core.model import Project
from designer.core.names import FILE, is_valid
from designer.core.ports import port_layout
from designer.core.safe_io import ExportFolder, FileRefused, read_head, read_text
from designer.core.text import NAME_MAX, has_control, shown

# ASCII digits, at most nine: no digit of another script, no number past int32
_ETHERNET = re.compile(r"^Ethernet([0-9]{1,9})$")
_SWP = re.compile(r"^swp([0-9]{1,9})(?:s([0-9]{1,9}))?$")
_ETH = re.compile(r"^(?:eth|port|p)([0-9]{1,9})$")
_MLX = re.compile(r"^mlx[0-9]{0,4}_([0-9]{1,9})$")
_SUFFIXES = (".json", ".lldp", ".txt", ".out")
MAX_FILES = 100_000


class LldpError(DesignerError):
    """LLDP output cannot be read; the message names the file and the line or field."""


def looks_like_lldp(head: bytes) -> bool:
    text = head.lstrip()[:4096].decode("utf-8", "replace")
    if text.startswith("{"):
        return re.match(r'\{\s*"lldp"\s*:', text) is not None
    return "LocalPort" in text and "RemoteDevice" in text


def switch_name(path: Path) -> str:
    """The switch a table belongs to: its file's name, less the suffixes."""
    name = path.name
    for _ in range(2):
        for suf in _SUFFIXES:
            name = name.removesuffix(suf)
    return _name(name, f"file {shown(path.name, 120)}")


# Names, ports and rows an LLDP table may hold: a name is what a project keeps (at most 200
# characters, no control characters); a port number what an int32 column and any switch hold.
MAX_PORT = 65_535
MAX_NEIGHBOURS = 1_000_000  # rows of one file
MAX_FILE_BYTES = 64 * 1024 * 1024


def _kind(x: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null",
            bool: "true/false"}.get(type(x), "a number")


def _obj(x: object, where: str) -> dict:
    if not isinstance(x, dict):
        raise LldpError(f"{where}: expected an object, found {_kind(x)}")
    return x


def _items(x: object, where: str) -> list:
    if not isinstance(x, list):
        raise LldpError(f"{where}: expected a list, found {_kind(x)}")
    if len(x) > MAX_NEIGHBOURS:
        raise LldpError(f"{where}: {len(x):,} entries is more than one switch has")
    return x


def _value(x: object, where: str) -> str:
    """A scalar: a string, a number, or json0's ``[{"value": ...}]`` around one."""
    if isinstance(x, list):
        x = x[0] if x else ""
    if isinstance(x, dict):
        x = x.get("value", "")
    if isinstance(x, bool) or not isinstance(x, str | int | float):
        raise LldpError(f"{where}: expected a name, found {_kind(x)}")
    return str(x)


def _name(text: str, where: str) -> str:
    """A system or port name as a project can keep it; refused with the place otherwise."""
    text = text.strip()
    if len(text) > NAME_MAX:
        raise LldpError(f"{where}: '{shown(text, 60)}' has {len(text):,} characters (a name has "
                        f"at most {NAME_MAX})")
    if has_control(text):
        raise LldpError(f"{where}: '{shown(text, 80)}' holds control characters")
    return text


def _rows_from_json(data: object, where: str) -> list[tuple[str, str, str, bool]]:
    """(local port, remote system, remote port, remote is a router/bridge) per neighbour.
    Every level is checked for the shape lldpcli writes; anything else is refused with its
    place in the file."""
    if not isinstance(data, dict) or "lldp" not in data:
        raise LldpError(f"{where}: no 'lldp' object (expected 'lldpcli -f json' output)")
    lldp = data["lldp"]
    ifaces: list = []
    if isinstance(lldp, list):  # 'lldpcli -f json0': every value a list, names inside
        for k, block in enumerate(_items(lldp, f"{where}: lldp")):
            block = _obj(block, f"{where}: lldp[{k}]")
            for j, i in enumerate(_items(block.get("interface") or [],
                                         f"{where}: lldp[{k}].interface")):
                at = f"{where}: lldp[{k}].interface[{j}]"
                i = _obj(i, at)
                ifaces.append({_value(i.get("name", "?"), at + ".name"): _from_json0(i, at)})
    elif isinstance(lldp, dict):
        found = lldp.get("interface") or []
        if isinstance(found, dict):
            found = [{k: v} for k, v in found.items()]
        ifaces = _items(found, f"{where}: lldp.interface")
    elif lldp is not None:
        raise LldpError(f"{where}: lldp: expected an object, found {_kind(lldp)}")
    rows = []
    for n, item in enumerate(ifaces):
        for local, info in _obj(item or {}, f"{where}: interface[{n}]").items():
            at = f"{where}: interface '{shown(str(local), 60)}'"
            info = _obj(info, at)
            chassis = _obj(info.get("chassis") or {}, at + ": chassis")
            if "id" in chassis or "name" in chassis:  # json0 shape: no name key
                remote, ch = _value(chassis.get("name", ""), at + ": chassis.name"), chassis
            else:
                remote, ch = next(iter(chassis.items()), ("", {}))
                ch = _obj(ch or {}, at + ": chassis")
            port = _obj(info.get("port") or {}, at + ": port")
            rport = _value(port.get("id") or "", at + ": port.id")
            descr = _value(port.get("descr") or "", at + ": port.descr")
            if _port_number(rport, 1) is None and _port_number(descr, 1) is not None:
                rport = descr  # a MAC as the id: the description names the port
            caps = ch.get("capability") or []
            caps = [caps] if isinstance(caps, dict) else _items(caps, at + ": capability")
            router = any(c.get("type") in ("Router", "Bridge") and c.get("enabled", True)
                         for c in caps if isinstance(c, dict))
            local, remote = _name(str(local), at), _name(str(remote), at + ": system name")
            rport = _name(rport, at + ": port")
            if not remote or not rport:
                raise LldpError(f"{at}: the neighbour has no system name or port")
            rows.append((local, remote, rport, router))
    return rows


def _from_json0(iface: dict, where: str) -> dict:
    """One json0 interface in the shape of plain ``-f json`` (what ``_rows_from_json`` reads)."""
    chs = iface.get("chassis") or [{}]
    ports = iface.get("port") or [{}]
    ch = _obj(_items(chs, where + ".chassis")[0] if chs else {}, where + ".chassis[0]")
    port = _obj(_items(ports, where + ".port")[0] if ports else {}, where + ".port[0]")
    name = _value(ch.get("name") or "", where + ".chassis.name")
    return {
        "chassis": {name: {"capability": ch.get("capability") or []}} if name else {},
        "port": {"id": {"value": _value(port.get("id") or "", where + ".port.id")},
                 "descr": _value(port.get("descr") or "", where + ".port.descr")},
    }


def _rows_from_table(text: str, where: str) -> list[tuple[str, str, str, bool]]:
    rows = []
    started = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("LocalPort"):
            started = True
            continue
        if not started or not line.strip() or line.startswith("-") or line.startswith("Total"):
            continue
        parts = line.split()
        if len(parts) < 3:
            raise LldpError(f"{where} line {n}: expected LocalPort RemoteDevice RemotePortID")
        caps = parts[3] if len(parts) > 3 else ""
        rows.append((_name(parts[0], f"{where} line {n}"), _name(parts[1], f"{where} line {n}"),
                     _name(parts[2], f"{where} line {n}"), "R" in caps or "B" in caps))
        if len(rows) > MAX_NEIGHBOURS:
            raise LldpError(f"{where}: more than {MAX_NEIGHBOURS:,} neighbours")
    if not started:
        raise LldpError(f"{where}: no 'LocalPort RemoteDevice RemotePortID' header "
                        "(expected SONiC 'show lldp table' output)")
    return rows


def read_neighbours(path: Path) -> list[tuple[str, str, str, bool]]:
    where = shown(path.name, 120)
    try:
        text = read_text(path, limit=MAX_FILE_BYTES, what="LLDP file", fallback="latin-1")
    except FileRefused as exc:
        raise LldpError(str(exc)) from None
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LldpError(f"{where}: not JSON ({exc.msg}, line {exc.lineno})") from None
        except RecursionError:
            raise LldpError(f"{where}: JSON nested too deeply to read") from None
        return _rows_from_json(data, where)
    return _rows_from_table(text, where)


def _port_number(name: str, per_cage: int) -> int | None:
    """Front-panel port number (from 1) of an interface name, or None (also when the number
    is past any switch's ports)."""
    port = _port_number_of(name, per_cage)
    return port if port is not None and 0 < port <= MAX_PORT else None


def _port_number_of(name: str, per_cage: int) -> int | None:
    m = _ETHERNET.match(name)
    if m:
        lane = int(m.group(1))
        lanes = max(1, LANES_PER_CAGE // max(1, per_cage))
        cage, sub = divmod(lane, LANES_PER_CAGE)
        return cage * per_cage + sub // lanes + 1
    m = _SWP.match(name)
    if m:
        base = int(m.group(1))
        return (base - 1) * per_cage + int(m.group(2)) if m.group(2) else base
    m = _ETH.match(name)
    if m:
        return int(m.group(1)) or None
    m = _MLX.match(name)
    if m:
        return int(m.group(1)) + 1
    return None


def _is_lldp_file(path: Path) -> bool:
    try:
        return looks_like_lldp(read_head(path, 4096))
    except FileRefused:
        return False


def _files(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():  # a folder may hold other files too: take the LLDP tables
            out += sorted(f for f in p.iterdir()
                          if f.is_file() and not f.name.startswith(".") and _is_lldp_file(f))
        elif p.exists():
            out.append(p)  # read_neighbours refuses what is not a regular file
        else:
            raise LldpError(f"{shown(str(p), 200)}: no such file or folder")
        if len(out) > MAX_FILES:
            raise LldpError(f"more than {MAX_FILES:,} files; give fewer")
    if not out:
        raise LldpError("no LLDP files found (one file per switch, named after the switch)")
    return out


def project_from_lldp(paths: list[Path], catalog: Catalog, gear: str = "roce-400",
                      name: str | None = None) -> Project:
    """The as-built project from LLDP neighbour tables of the switches."""
    profile = catalog.profile(gear)
    if profile.tech != "eth":
        raise LldpError(f"gear profile '{gear}' is not Ethernet; LLDP import builds RoCE "
                        "fabrics (use --gear roce-400 or roce-800)")
    spec = catalog.switch(profile.switch)
    mode = spec.mode_for(profile.switch_speed_gbps, "eth") or spec.modes[0]
    per_cage = max(1, mode.ports // spec.cages)
    files = _files(paths)
    seen: dict[str, list[tuple[str, str, str, bool]]] = {}
    for f in files:
        seen[switch_name(f)] = read_neighbours(f)
    switches = set(seen)
    for rows in seen.values():
        switches |= {r for _l, r, _p, router in rows if router}
    sw_names = sorted(switches)
    sw_index = {n: i for i, n in enumerate(sw_names)}
    cables: dict[tuple[tuple[str, int], tuple[str, int]], None] = {}
    used: set[tuple[str, int]] = set()
    server_ports: dict[str, set[int]] = {}
    skipped = 0
    for sw in sorted(seen):
        for local, remote, rport, _router in seen[sw]:
            lp = _port_number(local, per_cage)
            if lp is None:
                raise LldpError(f"{sw}: cannot read a port number from interface '{local}'")
            remote_is_switch = remote in switches
            rp = _port_number(rport, per_cage if remote_is_switch else 1)
            if rp is None:
                raise LldpError(f"{sw}: cannot read a port number from {remote}'s port "
                                f"'{rport}'")
            ends = tuple(sorted([(sw, lp), (remote, rp)]))
            if ends in cables:
                continue  # the other end reported the same cable
            if (sw, lp) in used or (remote, rp) in used:
                skipped += 1  # two reports disagree: the first one wins
                continue
            cables[ends] = None
            used |= {(sw, lp), (remote, rp)}
            if not remote_is_switch:
                server_ports.setdefault(remote, set()).add(rp)
    ib = _as_nodes(sw_names, sw_index, cables, server_ports, int(mode.ports))
    title = name or f"As-built {files[0].parent.name if len(files) > 1 else files[0].name}"
    project = project_from_ib(ib, catalog, name=title, gear=gear,
                              source=f"{len(files)} LLDP file(s)", source_format="LLDP")
    if skipped:
        project = project.evolve(notes=project.notes + f" {skipped} conflicting neighbour "
                                 "report(s) ignored (the first report of a port wins).")
    return project


def _as_nodes(sw_names, sw_index, cables, server_ports, switch_ports: int) -> IbFabric:
    """Switches and one adapter node per server port, as the InfiniBand import sees them."""
    desc = list(sw_names)
    kind = [SWITCH] * len(sw_names)
    top = {n: 0 for n in sw_names}
    for (a, pa), (b, pb) in cables:
        for n, p in ((a, pa), (b, pb)):
            if n in top:
                top[n] = max(top[n], p)
    nports = [max(switch_ports, top[n]) for n in sw_names]
    ca_index: dict[tuple[str, int], int] = {}
    for server in sorted(server_ports):
        for port in sorted(server_ports[server]):
            ca_index[(server, port)] = len(desc)
            desc.append(hca_description(server, port - 1))
            kind.append(CA)
            nports.append(1)

    def node(end):
        n, p = end
        if n in sw_index:
            return sw_index[n], p
        return ca_index[(n, p)], 1

    a, ap, b, bp = [], [], [], []
    for e1, e2 in cables:
        (x, xp), (y, yp) = node(e1), node(e2)
        a.append(x)
        ap.append(xp)
        b.append(y)
        bp.append(yp)
    n = len(desc)
    i32 = lambda v: np.asarray(v, np.int32)  # noqa: E731
    return IbFabric(
        nodeid=tuple(desc), desc=tuple(desc), kind=np.asarray(kind, np.int8),
        nports=i32(nports), guid=np.arange(1, n + 1, dtype=np.uint64),
        devid=np.zeros(n, np.int32), lid=np.zeros(n, np.int32),
        a=i32(a), a_port=i32(ap), b=i32(b), b_port=i32(bp),
        speed_gbps=np.zeros(len(a), np.int32),
    )


# -- a design's own LLDP view (for the round trip and for checking an import) -----------------
def lldp_view(project: Project, catalog: Catalog) -> dict[str, dict]:
    """What ``lldpcli show neighbors -f json`` prints on every switch of the design, by
    switch name."""
    fabric = project.fabric
    devs = fabric.devices
    e = fabric.links.expand()
    per_cage = {}
    for i, d in enumerate(devs):
        if d.role.is_switch:
            per_cage[i] = port_layout(d, catalog).per_cage
    out: dict[str, list] = {devs[i].name: [] for i in per_cage}
    for a, ap, b, bp in zip(e["a"].tolist(), e["a_port"].tolist(), e["b"].tolist(),
                            e["b_port"].tolist(), strict=True):
        for x, xp, y, yp in ((a, ap, b, bp), (b, bp, a, ap)):
            if x not in per_cage:
                continue
            remote_port = (interface_name(yp, per_cage[y]) if y in per_cage else f"eth{yp}")
            caps = [{"type": "Router", "enabled": True}] if y in per_cage else []
            out[devs[x].name].append((xp, {interface_name(xp, per_cage[x]): {
                "via": "LLDP",
                "chassis": {devs[y].name: {"id": {"type": "mac", "value": _mac(y)},
                                           "capability": caps}},
                "port": {"id": {"type": "ifname", "value": remote_port},
                         "descr": remote_port},
            }}))
    return {n: {"lldp": {"interface": [v for _p, v in sorted(rows, key=lambda r: r[0])]}}
            for n, rows in out.items()}


def _mac(i: int) -> str:
    return "02:fe:" + ":".join(f"{(i >> s) & 0xFF:02x}" for s in (24, 16, 8, 0))


def write_lldp_view(project: Project, catalog: Catalog, out: Path) -> int:
    """One ``<switch>.json`` per switch in the folder ``out``; the number written. The file's
    name is the switch's (that is how a table names its switch), so a switch whose name is not
    a file name on every system is refused, never renamed behind the reader's back."""
    from designer.core.writers.output import ExportError

    view = lldp_view(project, catalog)
    for n in view:
        if not is_valid(f"{n}.json", FILE):
            raise LldpError(f"switch name '{shown(n, 80)}' cannot be a file name ({FILE.rule}); "
                            "rename it")
    try:
        folder = ExportFolder(out, "LLDP export")
        for n, data in view.items():
            folder.write(f"{n}.json", orjson.dumps(data, option=orjson.OPT_INDENT_2))
    except FileRefused as exc:
        raise ExportError(str(exc)) from None
    return len(view)


def as_built_source(path: Path) -> Path:
    """What a file picked in a file dialog stands for: one switch's LLDP table stands for
    the folder of all of them; anything else for itself."""
    p = Path(path)
    try:
        head = read_head(p, 4096)
    except FileRefused:
        return p
    return p.parent if looks_like_lldp(head) else p
