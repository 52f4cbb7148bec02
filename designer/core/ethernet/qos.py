"""The lossless RoCE settings: every tuning choice in one place, with its default and why.

docs/roce.md lists the same table. Sources:
* DSCP 26 / priority 3 for RoCE and DSCP 48 / priority 6 for congestion notification packets
  are the values NVIDIA's RoCE configuration guides and SONiC's default QoS maps use;
* DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015) marks
  ECN between Kmin and Kmax with probability rising to Pmax; HPCC (Li et al., SIGCOMM 2019)
  ran DCQCN at 100 Gb/s with Kmin 100 KB, Kmax 400 KB, Pmax 20%, i.e. thresholds that scale
  with line rate, which is the rule used here;
* PFC headroom (IEEE 802.1Qbb): after a port sends PAUSE, the bytes still arriving are the
  round trip on the cable, a maximum frame on each side and the peer's reaction time.

The Ultra Ethernet profile (``UEC_QOS``, for the uec and mrc transports, core/transport) keeps
the marking and scheduling but runs the RDMA class best effort: no PFC, no headroom, no PFC
watchdog; a queue that passes the trimming threshold (where ECN would mark every packet) trims
packets to ``trim_size_bytes`` and sends the header on the strict-priority queue so the receiver
asks for the payload at once (Ultra Ethernet 1.0's packet trimming; SONiC's SWITCH_TRIMMING
table and ``packet_discard_action: trim``, sonic-net/SONiC doc/packet_trimming).
"""

from __future__ import annotations

from dataclasses import dataclass

PROPAGATION_NS_PER_M = 5.0  # light in fibre, about 5 ns a metre


@dataclass(frozen=True)
class RoceQos:
    roce_dscp: int = 26
    roce_priority: int = 3
    cnp_dscp: int = 48
    cnp_priority: int = 6
    mtu: int = 9100  # switch port MTU (SONiC's default for fabric ports)
    host_mtu: int = 9000
    roce_mtu: int = 4096  # RDMA path MTU: the largest a RoCE NIC uses
    kmin_bytes_per_gbps: int = 1000  # ECN marking starts: 100 KB at 100G (HPCC's DCQCN)
    kmax_bytes_per_gbps: int = 4000  # ECN marks every packet: 400 KB at 100G
    pmax_percent: int = 20
    pfc_reaction_ns: int = 1000  # the peer's time to act on PAUSE, generous for 400G+ ASICs
    lossless_dynamic_th: int = -2  # shared-buffer share of a lossless PG (alpha 1/4)
    pfc_watchdog_ms: int = 200  # a queue paused this long is a storm: drop, then restore
    lossless_weight: int = 50  # DWRR weight of the RoCE queue against the lossy ones
    bgp_keepalive_s: int = 3  # RFC 7938 7.1: short timers where BFD is absent
    bgp_hold_s: int = 9
    advertisement_interval_s: int = 0  # RFC 7938 7.2: MRAI only slows a Clos down
    bgp_connect_s: int = 5  # retry a refused session soon (FRR's default is 120 s)
    bfd_interval_ms: int = 300
    bfd_multiplier: int = 3
    maximum_paths: int = 64  # ECMP width: at least the widest fan-out of any switch
    lossless: bool = True  # PFC on the RoCE priority; False: the Ultra Ethernet profile
    trim_size_bytes: int = 128  # a trimmed packet: headers only (SONiC's example size)
    name: str = "roce-lossless"

    def kmin(self, speed_gbps: int) -> int:
        return self.kmin_bytes_per_gbps * speed_gbps

    def kmax(self, speed_gbps: int) -> int:
        return self.kmax_bytes_per_gbps * speed_gbps

    def headroom(self, speed_gbps: int, length_m: float) -> int:
        """xoff bytes of a lossless PG: round trip on the cable plus two frames plus the
        peer's reaction, at line rate."""
        bytes_per_ns = speed_gbps / 8.0
        rtt_ns = 2 * length_m * PROPAGATION_NS_PER_M
        return round(bytes_per_ns * (rtt_ns + self.pfc_reaction_ns) + 2 * self.mtu)

    def trim_threshold(self, speed_gbps: int) -> int:
        """Queue bytes above which the Ultra Ethernet profile trims: Kmax, where ECN already
        marks every packet and more queue only adds delay."""
        return self.kmax(speed_gbps)

    def choices(self) -> list[tuple[str, str, str]]:
        """(setting, default, why) of every tuning choice, for the documentation and the
        exports."""
        rows = self._choices()
        if self.lossless:
            return rows
        drop = ("PFC", "PFC watchdog", "PFC headroom (xoff)", "Lossless PG share")
        rows = [r for r in rows if r[0] not in drop]
        return [("Transport profile", "Ultra Ethernet (uec-trim)",
                 "best-effort Ethernet: spraying and trimming replace PFC (UE 1.0)"),
                ("PFC", "off on every priority",
                 "no pause can spread to flows that never crossed the congested port"),
                ("Packet trimming", f"above Kmax, trimmed to {self.trim_size_bytes} B, DSCP "
                 f"{self.cnp_dscp} on queue {self.cnp_priority}",
                 "the header reaches the receiver at once, so the sender resends within a "
                 "round trip instead of a timeout"), *rows]

    def _choices(self) -> list[tuple[str, str, str]]:
        return [
            ("RoCE DSCP / priority", f"{self.roce_dscp} / {self.roce_priority}",
             "the usual RoCEv2 marking; the switch trusts DSCP and maps it to a lossless TC"),
            ("CNP DSCP / priority", f"{self.cnp_dscp} / {self.cnp_priority}",
             "congestion notifications jump the queue on a strict-priority class"),
            ("PFC", f"on priority {self.roce_priority} only",
             "lossless only for RoCE, so a pause never stalls other traffic"),
            ("PFC watchdog", f"{self.pfc_watchdog_ms} ms, drop",
             "a stuck pause (storm, deadlock) is broken instead of spreading"),
            ("ECN Kmin / Kmax / Pmax",
             f"{self.kmin_bytes_per_gbps} / {self.kmax_bytes_per_gbps} B per Gb/s, "
             f"{self.pmax_percent}%",
             "DCQCN marking thresholds scaled with line rate (HPCC's 100G setting)"),
            ("PFC headroom (xoff)", f"rate x (2 x length x 5 ns/m + {self.pfc_reaction_ns} ns)"
             f" + 2 x {self.mtu} B", "the bytes still in flight after PAUSE (802.1Qbb)"),
            ("Lossless PG share", f"dynamic_th {self.lossless_dynamic_th}",
             "caps one PG's share of the shared buffer so PFC fires before drops"),
            ("Scheduler", f"DWRR, RoCE weight {self.lossless_weight} of 100",
             "RoCE gets half under contention, lossy traffic is not starved"),
            ("MTU", f"switch {self.mtu}, host {self.host_mtu}, RDMA {self.roce_mtu}",
             "jumbo frames carry a 4 KiB RDMA payload with its headers"),
            ("BGP timers", f"keepalive {self.bgp_keepalive_s} s, hold {self.bgp_hold_s} s",
             "fast failover even where BFD is off (RFC 7938 7.1)"),
            ("BGP advertisement interval", f"{self.advertisement_interval_s} s",
             "a change reaches every switch at once instead of in timer steps (RFC 7938 7.2)"),
            ("BGP connect retry", f"{self.bgp_connect_s} s",
             "a switch that boots after its neighbour is peered within seconds"),
            ("FEC", "RS (Reed-Solomon)", "400G and 800G PAM4 links do not run without it"),
            ("Unused ports", "admin down", "a dark port cannot carry a stray link or loop"),
            ("BFD", f"{self.bfd_interval_ms} ms x {self.bfd_multiplier}",
             "sub-second detection of a silent link failure"),
            ("maximum-paths", str(self.maximum_paths),
             "ECMP over every equal-cost uplink (at least the widest fan-out)"),
        ]


DEFAULT_QOS = RoceQos()
UEC_QOS = RoceQos(lossless=False, name="uec-trim")
QOS_PROFILES = {"roce-lossless": DEFAULT_QOS, "uec-trim": UEC_QOS}


def qos_for_profile(name: str) -> RoceQos:
    """The QoS a transport's ``qos_profile`` names (InfiniBand's empty one: the RoCE one, for
    an Ethernet export of an IB design)."""
    return QOS_PROFILES.get(name, DEFAULT_QOS)
