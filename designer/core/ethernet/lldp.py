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
from designer.core.safe_io import ExportFolder, FileRefused
from designer.core.text import shown

_ETHERNET = re.compile(r"^Ethernet(\d+)$")
_SWP = re.compile(r"^swp(\d+)(?:s(\d+))?$")
_ETH = re.compile(r"^(?:eth|port|p)(\d+)$")
_MLX = re.compile(r"^mlx\d*_(\d+)$")
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
    name = path.name
    for _ in range(2):
        for suf in _SUFFIXES:
            name = name.removesuffix(suf)
    return name


def _rows_from_json(data: object, where: str) -> list[tuple[str, str, str, bool]]:
    """(local port, remote system, remote port, remote is a router/bridge) per neighbour."""
    try:
        lldp = data["lldp"]
    except (TypeError, KeyError):
        raise LldpError(f"{where}: no 'lldp' object (expected 'lldpcli -f json' output)") from None
    if isinstance(lldp, list):  # 'lldpcli -f json0': every value a list, names inside
        ifaces = [{i.get("name", "?"): _from_json0(i)} for block in lldp
                  for i in (block.get("interface") or [])]
    else:
        ifaces = lldp.get("interface", []) if isinstance(lldp, dict) else []
    if isinstance(ifaces, dict):
        ifaces = [{k: v} for k, v in ifaces.items()]
    rows = []
    for item in ifaces:
        for local, info in (item or {}).items():
            chassis = info.get("chassis") or {}
            if "id" in chassis or "name" in chassis:  # json0 shape: no name key
                remote, ch = chassis.get("name", ""), chassis
                if isinstance(remote, list):
                    remote = remote[0].get("value", "")
            else:
                remote, ch = next(iter(chassis.items()), ("", {}))
            port = info.get("port") or {}
            pid = port.get("id") or {}
            rport = pid.get("value", "") if isinstance(pid, dict) else str(pid)
            descr = port.get("descr", "")
            if _port_number(rport, 1) is None and _port_number(str(descr), 1) is not None:
                rport = str(descr)  # a MAC as the id: the description names the port
            caps = ch.get("capability", []) if isinstance(ch, dict) else []
            if isinstance(caps, dict):
                caps = [caps]
            router = any(c.get("type") in ("Router", "Bridge") and c.get("enabled", True)
                         for c in caps if isinstance(c, dict))
            if not remote or not rport:
                raise LldpError(f"{where}: neighbour on '{local}' has no system name or port")
            rows.append((local, str(remote), str(rport), router))
    return rows


def _first_value(x: object) -> str:
    """json0 wraps scalars as ``[{"value": ...}]``."""
    if isinstance(x, list):
        x = x[0] if x else {}
    if isinstance(x, dict):
        return str(x.get("value", ""))
    return "" if x is None else str(x)


def _from_json0(iface: dict) -> dict:
    """One json0 interface in the shape of plain ``-f json`` (what ``_rows_from_json`` reads)."""
    ch = (iface.get("chassis") or [{}])[0]
    port = (iface.get("port") or [{}])[0]
    name = _first_value(ch.get("name"))
    return {
        "chassis": {name: {"capability": ch.get("capability", [])}} if name else {},
        "port": {"id": {"value": _first_value(port.get("id"))},
                 "descr": _first_value(port.get("descr"))},
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
        rows.append((parts[0], parts[1], parts[2], "R" in caps or "B" in caps))
    if not started:
        raise LldpError(f"{where}: no 'LocalPort RemoteDevice RemotePortID' header "
                        "(expected SONiC 'show lldp table' output)")
    return rows


def read_neighbours(path: Path) -> list[tuple[str, str, str, bool]]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise LldpError(f"cannot read {path}: {exc.strerror or exc}") from None
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LldpError(f"{path.name}: not JSON ({exc.msg}, line {exc.lineno})") from None
        return _rows_from_json(data, path.name)
    return _rows_from_table(text, path.name)


def _port_number(name: str, per_cage: int) -> int | None:
    """Front-panel port number (from 1) of an interface name, or None."""
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
        with open(path, "rb") as fh:
            return looks_like_lldp(fh.read(4096))
    except OSError:
        return False


def _files(paths: list[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():  # a folder may hold other files too: take the LLDP tables
            out += sorted(f for f in p.iterdir()
                          if f.is_file() and not f.name.startswith(".") and _is_lldp_file(f))
        elif p.exists():
            out.append(p)
        else:
            raise LldpError(f"{p}: no such file or folder")
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
    from designer.core.export.output import ExportError

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
        with open(p, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return p
    return p.parent if looks_like_lldp(head) else p
