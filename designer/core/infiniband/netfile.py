"""The topology text of ``ibnetdiscover``, which ``ibsim`` also loads: writing and reading.

A file is a list of node records separated by blank lines. A record starts with optional
assignment lines (``vendid=``, ``devid=``, ``sysimgguid=``, ``switchguid=`` or ``caguid=``; ibsim
takes the GUID of the next node from the last two), then a header line
``Switch|Ca|Hca|Rt <ports> "<nodeid>"  # "<description>" ...`` and one line per cabled port,
``[<port>] "<peer nodeid>"[<peer port>]`` with optional ``(<port GUID>)`` after either port and
a comment. Real ``ibnetdiscover`` output names nodes by GUID (``S-<guid>``, ``H-<guid>``) and
puts the description in the comment; the example files shipped with ibsim name nodes by a
plain string and have no comments. The reader takes both; the writer writes the real form with
the description as the node id too, so the file reads well and loads in ibsim as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from designer.core.errors import DesignerError
from designer.core.infiniband.topology import CA, KIND_WORDS, ROUTER, SWITCH, IbFabric
from designer.core.safe_io import FileRefused, read_text
from designer.core.text import has_control, shown

MAX_NETFILE_BYTES = 512 * 1024 * 1024
# ibsim reads lines into a 256-byte buffer
MAX_LINE = 255

# 4x lanes: the data rate suffix ibnetdiscover prints -> Gb/s per lane
_LANE_GBPS = {
    "SDR": 2.5,
    "DDR": 5,
    "QDR": 10,
    "FDR10": 10,
    "FDR": 14,
    "EDR": 25,
    "HDR": 50,
    "NDR": 100,
    "XDR": 200,
}
_RATE_NAMES = {400: "4xNDR", 800: "4xXDR", 200: "4xHDR", 100: "4xEDR", 1600: "4xGDR"}

_HEADER = re.compile(r'^(Switch|Hca|Ca|Rt)\s*(\d+)\s+"([^"]*)"(.*)$')
_PORT = re.compile(
    r'^\[(\d+)\](?:\[ext\s*\d+\])?(?:\((?:0x)?([0-9a-fA-F]+)\))?\s*"([^"]*)"\s*'
    r"(?:\[(\d+)\])?(?:\[ext\s*\d+\])?(?:\((?:0x)?([0-9a-fA-F]+)\))?(.*)$"
)
_DESC = re.compile(r'#\s*"([^"]*)"')
_LID = re.compile(r"\blid\s+(\d+)")
_RATE = re.compile(r"\b(\d+)x([A-Z]+\d*)\b")
_GUID_ID = re.compile(r"^[SHR]-([0-9a-fA-F]{1,16})$")
_KIND_OF_WORD = {"Switch": SWITCH, "Hca": CA, "Ca": CA, "Rt": ROUTER}


class NetfileError(DesignerError):
    """A topology file cannot be read; the message names the line."""


def rate_gbps(text: str) -> int:
    """Gb/s of an ibnetdiscover rate such as ``4xNDR`` (0 when it names none)."""
    m = _RATE.search(text)
    if not m:
        return 0
    lane = _LANE_GBPS.get(m.group(2))
    return round(int(m.group(1)) * lane) if lane else 0


# writing -------------------------------------------------------------------------------------

FILE_NOTES = (
    "Each record: GUID lines, a header 'Switch|Ca <ports> \"<node>\"', then one line per",
    "cabled port, '[<port>] \"<peer node>\"[<peer port>]'. Nodes are named by their node",
    "description, so this file loads in ibsim as it is and compares with what ibnetdiscover",
    "prints on the built fabric ('designer import ibnetdiscover', 'designer diff').",
    "Switch ports are numbered as the switch numbers them, 1..N. On twin-port OSFP cages",
    "(two ports per cage, such as a QM9700's 32 cages of 2 x 400G) the front-panel label",
    "cage/lane is port 2 x (cage - 1) + lane: port 1 is 1/1, port 2 is 1/2, port 17 is 9/1.",
    "Each cabled NIC port of a server is a one-port HCA '<server> mlx5_<k>', where k is the",
    "server's NIC port number - 1 (GPU i of a P-plane server owns ports i x P + 1 .. i x P + P).",
    "GUIDs are derived from the design's device order and port, so they are the same on",
    "every export of the same design; they are not the GUIDs of the real hardware.",
)


def _guid_hex(g: int) -> str:
    return f"{g:016x}"


def _one_line(text: str) -> str:
    """``text`` with every control character shown as ``?``: a line break in a comment would
    start a record of its own."""
    return "".join("?" if has_control(ch) else ch for ch in text)


def write_netfile(
    ib: IbFabric, title: str = "", first: int | None = None, notes: Sequence[str] = FILE_NOTES
) -> str:
    """The fabric as topology text. ``first``: the node to write first (ibsim attaches
    tools that name no node, such as the subnet manager, to the first node of the file)."""
    for i, name in enumerate(ib.nodeid):
        if '"' in name or len(name) > 63 or has_control(name):
            raise NetfileError(f"node {i} has a name that cannot be written: {name!r}")
    for i, desc in enumerate(ib.desc):
        if '"' in desc or has_control(desc):
            raise NetfileError(f"node {i} has a description that cannot be written: {desc!r}")
    node, port, peer, peer_port, cable = ib.ends()
    starts = np.searchsorted(node, np.arange(ib.n_nodes + 1))
    port_guid = ib.port_guid(peer, peer_port)
    own_guid = ib.port_guid(node, port)
    speeds = ib.speed_gbps[cable]
    order = list(range(ib.n_nodes))
    if first is not None:
        order.remove(first)
        order.insert(0, first)

    out: list[str] = ["#"]
    if title:
        # the title is the project's name: one comment line, whatever it holds
        out.append(f"# Topology file: {_one_line(title)}")
    out.extend(f"# {line}" if line else "#" for line in notes)
    out.append("#")
    out.append("")
    names = ib.nodeid
    descs = ib.desc
    port_list = port.tolist()
    peer_list = peer.tolist()
    peer_port_list = peer_port.tolist()
    pg_list = port_guid.tolist()
    og_list = own_guid.tolist()
    speed_list = speeds.tolist()
    kinds = ib.kind.tolist()
    guids = ib.guid.tolist()
    lids = ib.lid.tolist()
    for n in order:
        kind = kinds[n]
        g = int(guids[n])
        out.append("vendid=0x2c9")
        out.append(f"devid=0x{int(ib.devid[n]):x}")
        out.append(f"sysimgguid=0x{_guid_hex(g)}")
        lo, hi = int(starts[n]), int(starts[n + 1])
        if kind == SWITCH:
            out.append(f"switchguid=0x{_guid_hex(g)}({_guid_hex(g)})")
            out.append(
                f'Switch\t{int(ib.nports[n])} "{names[n]}"\t\t# "{descs[n]}" enhanced port 0 '
                f"lid {lids[n]} lmc 0"
            )
            for k in range(lo, hi):
                p = peer_list[k]
                rate = _RATE_NAMES.get(speed_list[k], "")
                out.append(
                    f'[{port_list[k]}]\t"{names[p]}"[{peer_port_list[k]}]'
                    + (f"({_guid_hex(pg_list[k])})" if kinds[p] != SWITCH else "")
                    + f'\t\t# "{descs[p]}" lid {lids[p]} {rate}'.rstrip()
                )
        else:
            word = KIND_WORDS[kind]
            out.append(f"{'caguid' if kind == CA else 'rtguid'}=0x{_guid_hex(g)}")
            out.append(f'{word}\t{int(ib.nports[n])} "{names[n]}"\t\t# "{descs[n]}"')
            for k in range(lo, hi):
                p = peer_list[k]
                rate = _RATE_NAMES.get(speed_list[k], "")
                out.append(
                    f'[{port_list[k]}]({_guid_hex(og_list[k])}) \t"{names[p]}"'
                    f'[{peer_port_list[k]}]\t\t# lid {lids[n]} lmc 0 "{descs[p]}" lid {lids[p]} '
                    f"{rate}".rstrip()
                )
        out.append("")
    return "\n".join(out) + "\n"


# reading -------------------------------------------------------------------------------------


def read_netfile(path: str | Path) -> IbFabric:
    p = Path(path)
    try:
        text = read_text(p, limit=MAX_NETFILE_BYTES, what="topology file", fallback="latin-1")
    except FileRefused as exc:
        raise NetfileError(str(exc)) from None
    return parse_netfile(text, shown(str(p), 200))


def parse_netfile(text: str, source: str = "topology") -> IbFabric:
    """Nodes and cables of a topology file, real ``ibnetdiscover`` output or ibsim input."""
    nodeids: list[str] = []
    descs: list[str] = []
    kinds: list[int] = []
    nports: list[int] = []
    guids: list[int] = []
    devids: list[int] = []
    lids: list[int] = []
    # one entry per port line: own node, own port, peer name, peer port, rate, line number
    e_node: list[int] = []
    e_port: list[int] = []
    e_peer: list[str] = []
    e_peer_port: list[int] = []
    e_rate: list[int] = []
    e_line: list[int] = []
    index: dict[str, int] = {}

    pending_guid = 0
    pending_devid = 0
    current = -1  # node whose port lines follow
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            current = -1
            continue
        if line.startswith("#"):
            continue
        if line[0] == "[" and current >= 0:
            m = _PORT.match(line)
            if not m:
                raise NetfileError(f"{source}: line {lineno}: cannot read this port line: {line!r}")
            own_port = int(m.group(1))
            if own_port < 1 or own_port > nports[current]:
                raise NetfileError(
                    f'{source}: line {lineno}: port {own_port} of "{nodeids[current]}" is out '
                    f"of its range 1..{nports[current]}"
                )
            rest = m.group(6) or ""
            e_node.append(current)
            e_port.append(own_port)
            e_peer.append(m.group(3))
            e_peer_port.append(int(m.group(4)) if m.group(4) else 1)
            e_rate.append(rate_gbps(rest))
            e_line.append(lineno)
            if kinds[current] != SWITCH and lids[current] == 0:
                lm = _LID.search(rest)
                if lm:
                    lids[current] = int(lm.group(1))
            continue
        if line[0] in "[@":
            # a port line outside a record, or an ibsim port alias: no cable to read
            continue
        m = _HEADER.match(line)
        if m:
            word, count, nodeid, rest = m.groups()
            if nodeid in index:
                raise NetfileError(f'{source}: line {lineno}: node "{nodeid}" is defined twice')
            n_ports = int(count)
            if not 1 <= n_ports <= 255:
                raise NetfileError(f"{source}: line {lineno}: {n_ports} ports is outside 1..255")
            dm = _DESC.search(rest)
            desc = dm.group(1) if dm else nodeid
            guid = pending_guid
            gm = _GUID_ID.match(nodeid)
            if not guid and gm:
                guid = int(gm.group(1), 16)
            lid = 0
            if word == "Switch":
                after = rest[dm.end() :] if dm else rest
                lm = _LID.search(after)
                lid = int(lm.group(1)) if lm else 0
            current = len(nodeids)
            index[nodeid] = current
            nodeids.append(nodeid)
            descs.append(desc)
            kinds.append(_KIND_OF_WORD[word])
            nports.append(n_ports)
            guids.append(guid)
            devids.append(pending_devid)
            lids.append(lid)
            pending_guid = 0
            continue
        current = -1
        key, _, value = line.partition("=")
        key = key.strip()
        if key in ("switchguid", "caguid", "hcaguids", "rtguid"):
            try:
                pending_guid = int(value.split("(")[0].strip(), 0)
            except ValueError:
                raise NetfileError(f"{source}: line {lineno}: bad GUID {value!r}") from None
        elif key == "devid":
            try:
                pending_devid = int(value.strip(), 0)
            except ValueError:
                pending_devid = 0
        # vendid, sysimgguid, ibsim commands (do, include, width ...) carry no cable

    if not nodeids:
        raise NetfileError(
            f"{source}: no Switch or Ca records found; is this ibnetdiscover output?"
        )
    return _assemble(
        source,
        nodeids,
        descs,
        kinds,
        nports,
        guids,
        devids,
        lids,
        e_node,
        e_port,
        e_peer,
        e_peer_port,
        e_rate,
        e_line,
        index,
    )


def _assemble(
    source: str,
    nodeids: list[str],
    descs: list[str],
    kinds: list[int],
    nports: list[int],
    guids: list[int],
    devids: list[int],
    lids: list[int],
    e_node: list[int],
    e_port: list[int],
    e_peer: list[str],
    e_peer_port: list[int],
    e_rate: list[int],
    e_line: list[int],
    index: dict[str, int],
) -> IbFabric:
    missing = [i for i, name in enumerate(e_peer) if name not in index]
    if missing:
        i = missing[0]
        raise NetfileError(
            f'{source}: line {e_line[i]}: port {e_port[i]} links to "{e_peer[i]}", which has no '
            "record in the file"
        )
    node = np.array(e_node, dtype=np.int64)
    port = np.array(e_port, dtype=np.int64)
    peer = np.array([index[name] for name in e_peer], dtype=np.int64)
    peer_port = np.array(e_peer_port, dtype=np.int64)
    line = np.array(e_line, dtype=np.int64)
    np_ports = np.array(nports, dtype=np.int64)
    bad = np.flatnonzero(peer_port > np_ports[peer]) if peer.size else np.empty(0, np.int64)
    if bad.size:
        i = int(bad[0])
        raise NetfileError(
            f'{source}: line {int(line[i])}: "{e_peer[i]}" has no port {int(peer_port[i])}'
        )
    # each end once: a port with two different peers is a contradiction
    own = (node << 8) | port
    other = (peer << 8) | peer_port
    order = np.lexsort((other, own))
    own_s, other_s = own[order], other[order]
    same_port = np.flatnonzero(own_s[1:] == own_s[:-1])
    clash = same_port[other_s[same_port + 1] != other_s[same_port]]
    if clash.size:
        i = int(order[clash[0] + 1])
        raise NetfileError(
            f'{source}: line {int(line[i])}: port {int(port[i])} of "{nodeids[int(node[i])]}" is '
            "listed with two different peers"
        )
    lo = np.minimum(own, other)
    hi = np.maximum(own, other)
    key = (lo << 32) | hi
    uniq, inverse = np.unique(key, return_inverse=True)
    rate = np.zeros(uniq.size, dtype=np.int64)
    np.maximum.at(rate, inverse, np.array(e_rate, dtype=np.int64))
    # a port may appear in only one cable (its peer must agree)
    ends = np.concatenate([uniq >> 32, uniq & 0xFFFFFFFF])
    srt = np.sort(ends)
    dup = np.flatnonzero(srt[1:] == srt[:-1])
    if dup.size:
        k = int(srt[dup[0]])
        n, p = k >> 8, k & 0xFF
        raise NetfileError(
            f'{source}: port {p} of "{nodeids[n]}" is cabled to two different ports (the two '
            "records disagree)"
        )
    a_key, b_key = uniq >> 32, uniq & 0xFFFFFFFF
    return IbFabric(
        nodeid=tuple(nodeids),
        desc=tuple(descs),
        kind=np.array(kinds, dtype=np.int8),
        nports=np_ports.astype(np.int32),
        guid=np.array(guids, dtype=np.uint64),
        devid=np.array(devids, dtype=np.int32),
        lid=np.array(lids, dtype=np.int32),
        a=(a_key >> 8).astype(np.int32),
        a_port=(a_key & 0xFF).astype(np.int32),
        b=(b_key >> 8).astype(np.int32),
        b_port=(b_key & 0xFF).astype(np.int32),
        speed_gbps=rate.astype(np.int32),
    )
