"""SONiC ``config_db.json`` of one switch: ports at the design's speeds and breakouts, routed
interfaces, BGP neighbours and the lossless RoCE QoS profile (tables as SONiC's config DB
names them; FRR runs in split mode and reads the ``frr.conf`` written beside it)."""

from __future__ import annotations

import functools

import numpy as np

from designer.core.ethernet.frr import host_ports, neighbours
from designer.core.ethernet.plan import LANES_PER_CAGE, TYPE_OF, Underlay, interface_name, ip
from designer.core.ethernet.qos import DEFAULT_QOS, RoceQos

MAP = "ROCE"  # name of the QoS maps
LOSSLESS_POOL, LOSSY_POOL = "ingress_lossless_pool", "egress_lossy_pool"


def _ports(u: Underlay, s: int) -> tuple[dict, dict]:
    """PORT and BREAKOUT_CFG: every port of the switch at its mode's speed (fresh dicts: the
    caller marks unused ports down)."""
    ports, breakout = _port_table(int(u.per_cage[s]), int(u.ports[s]), int(u.speed[s]))
    return {k: dict(v) for k, v in ports.items()}, {k: dict(v) for k, v in breakout.items()}


@functools.lru_cache(maxsize=16)
def _port_table(per_cage: int, n_ports: int, speed: int) -> tuple[dict, dict]:
    lanes = max(1, LANES_PER_CAGE // max(1, per_cage))
    ports, breakout = {}, {}
    for p in range(1, n_ports + 1):
        name = interface_name(p, per_cage)
        first = int(name.removeprefix("Ethernet"))
        cage, sub = divmod(p - 1, max(1, per_cage))
        ports[name] = {
            "admin_status": "up",
            "alias": f"etp{cage + 1}" + (chr(ord("a") + sub) if per_cage > 1 else ""),
            "index": str(cage + 1),
            "lanes": ",".join(str(first + k) for k in range(lanes)),
            "speed": str(speed * 1000),
            "mtu": str(DEFAULT_QOS.mtu),
            "fec": "rs",
        }
        if sub == 0:
            breakout[name] = {"brkout_mode": f"{per_cage}x{speed}G" if per_cage > 1
                              else f"1x{speed}G"}
    return ports, breakout


def config_db(u: Underlay, s: int, qos: RoceQos = DEFAULT_QOS) -> dict:
    """The config DB of switch ``s`` as a dict (dump it with ``json.dumps``)."""
    ports, breakout = _ports(u, s)
    name = u.hostname(s)
    speed = int(u.speed[s])
    loop = ip(int(u.loopback[s]))
    nbrs = neighbours(u, s)
    hosts = host_ports(u, s)
    used = [row[0] for row in nbrs] + [row[0] for row in hosts]
    interface: dict[str, dict] = {}
    bgp: dict[str, dict] = {}
    device_neighbor: dict[str, dict] = {}
    for iface, own, peer, asn, peer_name, peer_iface in nbrs:
        interface[iface] = {}
        interface[f"{iface}|{own}/31"] = {}
        bgp[peer] = {"admin_status": "up", "asn": str(asn), "name": peer_name,
                     "local_addr": own, "holdtime": str(qos.bgp_hold_s),
                     "keepalive": str(qos.bgp_keepalive_s), "nhopself": "0", "rrclient": "0"}
        device_neighbor[iface] = {"name": peer_name, "port": peer_iface}
    for iface, own, server, port in hosts:
        interface[iface] = {}
        interface[f"{iface}|{own}/31"] = {}
        device_neighbor[iface] = {"name": server, "port": f"port {port}"}
    for p, row in ports.items():
        if p not in device_neighbor:
            row["admin_status"] = "down"  # unused ports stay dark
    lengths = _cable_lengths(u, s, used)
    lossless = f"{qos.roce_priority}"
    port_qos, queue, buffer_pg, buffer_queue, pfc_wd = {}, {}, {}, {}, {}
    profiles: dict[str, dict] = {}
    for iface in used:
        length = lengths[iface]
        pg_profile = f"pg_lossless_{speed * 1000}_{length}m_profile"
        if pg_profile not in profiles:
            xoff = qos.headroom(speed, length)
            profiles[pg_profile] = {"pool": LOSSLESS_POOL, "xon": str(2 * qos.mtu),
                                    "xoff": str(xoff), "size": str(xoff + 2 * qos.mtu),
                                    "dynamic_th": str(qos.lossless_dynamic_th)}
        port_qos[iface] = {"dscp_to_tc_map": MAP, "tc_to_queue_map": MAP,
                           "tc_to_pg_map": MAP, "pfc_to_queue_map": MAP,
                           "pfc_enable": lossless, "pfcwd_sw_enable": lossless}
        if not qos.lossless:
            port_qos[iface] = {"dscp_to_tc_map": MAP, "tc_to_queue_map": MAP,
                               "tc_to_pg_map": MAP}
        queue[f"{iface}|{lossless}"] = {"scheduler": "scheduler.roce", "wred_profile": "ROCE_ECN"}
        queue[f"{iface}|0-2"] = {"scheduler": "scheduler.lossy"}
        queue[f"{iface}|{qos.cnp_priority}"] = {"scheduler": "scheduler.cnp"}
        buffer_pg[f"{iface}|0"] = {"profile": "ingress_lossy_profile"}
        buffer_pg[f"{iface}|{lossless}"] = {"profile": pg_profile}
        buffer_queue[f"{iface}|{lossless}"] = {"profile": "egress_lossless_profile"}
        buffer_queue[f"{iface}|0-2"] = {"profile": "egress_lossy_profile"}
        pfc_wd[iface] = {"action": "drop", "detection_time": str(qos.pfc_watchdog_ms),
                         "restoration_time": str(qos.pfc_watchdog_ms)}
    pfc_wd["GLOBAL"] = {"POLL_INTERVAL": "100"}
    kmin, kmax = qos.kmin(speed), qos.kmax(speed)
    if not qos.lossless:  # the Ultra Ethernet profile: best effort, trimming, no PFC
        for iface in used:
            buffer_pg[f"{iface}|{lossless}"] = {"profile": "ingress_lossy_profile"}
            buffer_queue[f"{iface}|{lossless}"] = {"profile": "q_lossy_trim_profile"}
        profiles = {"q_lossy_trim_profile": {
            "pool": LOSSY_POOL, "size": "0", "static_th": str(qos.trim_threshold(speed)),
            "packet_discard_action": "trim"}}
        pfc_wd = {}
    dscp = {str(v): "0" for v in range(64)}
    dscp[str(qos.roce_dscp)] = str(qos.roce_priority)
    dscp[str(qos.cnp_dscp)] = str(qos.cnp_priority)
    identity = {str(v): str(v) for v in range(8)}
    tier = int(u.tier[s])
    return {
        "DEVICE_METADATA": {"localhost": {
            "hostname": name, "bgp_asn": str(int(u.asn[s])),
            "type": TYPE_OF.get(tier, "LeafRouter"),
            "hwsku": u.project.fabric.devices[int(u.switch[s])].model,
            "docker_routing_config_mode": "split", "default_bgp_status": "up",
            "default_pfcwd_status": "enable" if qos.lossless else "disable",
            "buffer_model": "traditional",
        }},
        "LOOPBACK_INTERFACE": {"Loopback0": {}, f"Loopback0|{loop}/32": {}},
        "PORT": ports,
        "BREAKOUT_CFG": breakout,
        "INTERFACE": interface,
        "BGP_NEIGHBOR": bgp,
        "DEVICE_NEIGHBOR": device_neighbor,
        "DSCP_TO_TC_MAP": {MAP: dscp},
        "TC_TO_QUEUE_MAP": {MAP: identity},
        "TC_TO_PRIORITY_GROUP_MAP": {MAP: identity},
        "MAP_PFC_PRIORITY_TO_QUEUE": {MAP: identity},
        "PORT_QOS_MAP": port_qos,
        "SCHEDULER": {
            "scheduler.roce": {"type": "DWRR", "weight": str(qos.lossless_weight)},
            "scheduler.lossy": {"type": "DWRR", "weight": str(100 - qos.lossless_weight)},
            "scheduler.cnp": {"type": "STRICT"},
        },
        "WRED_PROFILE": {"ROCE_ECN": {
            "ecn": "ecn_all", "wred_green_enable": "true", "wred_yellow_enable": "true",
            "wred_red_enable": "true",
            **{f"{c}_min_threshold": str(kmin) for c in ("green", "yellow", "red")},
            **{f"{c}_max_threshold": str(kmax) for c in ("green", "yellow", "red")},
            **{f"{c}_drop_probability": str(qos.pmax_percent)
               for c in ("green", "yellow", "red")},
        }},
        "QUEUE": queue,
        "BUFFER_POOL": {
            LOSSLESS_POOL: {"type": "ingress", "mode": "dynamic", "size": "auto"},
            "egress_lossless_pool": {"type": "egress", "mode": "static", "size": "auto"},
            LOSSY_POOL: {"type": "egress", "mode": "dynamic", "size": "auto"},
        },
        "BUFFER_PROFILE": {
            "ingress_lossy_profile": {"pool": LOSSLESS_POOL, "size": "0", "dynamic_th": "3"},
            "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0",
                                        "static_th": "auto"},
            "egress_lossy_profile": {"pool": LOSSY_POOL, "size": "1518", "dynamic_th": "3"},
            **profiles,
        },
        "BUFFER_PG": buffer_pg,
        "BUFFER_QUEUE": buffer_queue,
        "CABLE_LENGTH": {MAP: {i: f"{lengths[i]}m" for i in used}},
        "PFC_WD": pfc_wd,
        **({} if qos.lossless else {"SWITCH_TRIMMING": {"GLOBAL": {
            "size": str(qos.trim_size_bytes), "dscp_value": str(qos.cnp_dscp),
            "queue_index": str(qos.cnp_priority)}}}),
    }


def _cable_lengths(u: Underlay, s: int, used: list[str]) -> dict[str, int]:
    """Whole metres of the cable on each used port (fabric: the design's; servers: the
    analysis default for endpoint cables)."""
    out = {}
    host_len = round(u.project.analysis.length_for("endpoint-leaf"))
    for side, port in ((u.a, u.a_port), (u.b, u.b_port)):
        for c in np.flatnonzero(side == s).tolist():
            out[u.iface(s, int(port[c]))] = max(1, round(float(u.length_m[c])))
    for iface in used:
        out.setdefault(iface, max(1, host_len))
    return out
