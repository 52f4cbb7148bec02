"""What htsim measures of a flow, beside the fluid rate: headers, pacing and the last ack.

The flow model gives each flow a rate on the links; htsim's programs print a flow's
completion when its sender has the last acknowledgement, and count every header on the wire.
Read from csg-htsim's sources (the defaults ``run.sh`` keeps):

- ``htsim_roce`` (``main_roce.cpp``: packet size 9000; ``roce.cpp``: the sender spaces its
  packets by ``(packet + ACKSIZE)`` at line rate, ``RocePacket::ACKSIZE`` 64 bytes): 9000
  bytes of payload per 9064 on the wire;
- ``htsim_eqds`` (``main_eqds.cpp``: packet size 4150, ``EqdsPullPacer(linkspeed, 0.99, ...)``;
  ``eqds.cpp``: ``_hdr_size`` 64, ``_mss = _mtu - _hdr_size``): 4086 bytes of payload per 4150,
  and each receiver pulls (credits) at 0.99 of its line, so the flows into one receiver
  together get at most 0.99 of it;
- completion: ``RoceSrc`` and ``EqdsSrc`` print "finished" on the acknowledgement of the
  last packet, so a flow's time is its bytes at its rate plus one round trip: the links'
  propagation and every switch's latency both ways (``design.topo``'s
  ``Downlink_Latency_ns`` and ``Switch_Latency_ns``), the last data packet stored and
  forwarded at every hop, and the acknowledgement's 64 bytes likewise.

This is the packet simulator's accounting, not a property of the fabric: the tool's own
figures (``designer load``) stay fluid.
"""

from __future__ import annotations

import numpy as np

from designer.core.simulate.tiers import ClosTiers

ACK_BYTES = 64  # RocePacket::ACKSIZE, EqdsAckPacket::ACKSIZE
ROCE_PACKET = 9000  # main_roce.cpp: packet_size
EQDS_PACKET = 4150  # main_eqds.cpp: packet_size
EQDS_HEADER = 64  # EqdsSrc::_hdr_size
EQDS_PULL = 0.99  # EqdsPullPacer's rate, a share of the line

PACKET = {"ecmp": ROCE_PACKET + ACK_BYTES, "spray": EQDS_PACKET}
PAYLOAD = {"ecmp": ROCE_PACKET / (ROCE_PACKET + ACK_BYTES),
           "spray": (EQDS_PACKET - EQDS_HEADER) / EQDS_PACKET}


def round_trip_us(ct: ClosTiers, src: np.ndarray, dst: np.ndarray, routing: str
                  ) -> np.ndarray:
    """Each flow's round trip in htsim's fat tree (µs): up to the lowest tier joining the
    hosts and down again, data packet out and acknowledgement back."""
    t = ct.tiers
    top = np.zeros(src.size, np.int64)  # tier of the highest switch on the path
    if len(t) > 1:
        top = np.where(src // t[0].radix_down != dst // t[0].radix_down, 1, 0)
    if len(t) > 2:
        top = np.where(src // ct.pod_hosts != dst // ct.pod_hosts, 2, top)
    link_ns = np.cumsum([x.link_ns for x in t])  # one way, up to tier i: links below it
    sw_ns = np.array([x.switch_ns for x in t])
    below = np.r_[0.0, np.cumsum(sw_ns)]  # switches strictly below tier i, one side
    one_way = 2 * link_ns[top] + 2 * below[top] + sw_ns[top]  # up, across, down
    hops = 2 * (top + 1)
    line = t[0].down_gbps  # htsim runs every link at -linkspeed
    # ns: the last data packet stored and forwarded past the first hop, the ack at every hop
    store = ((hops - 1) * PACKET[routing] + hops * ACK_BYTES) * 8 / line
    return (2 * one_way + store) / 1e3


def measured(t: np.ndarray, size: np.ndarray, demand: np.ndarray, dst: np.ndarray,
             line_gbps: float, rtt_us: np.ndarray, routing: str) -> np.ndarray:
    """Throughput as htsim measures it (bytes over the time to the last ack, relative to the
    flow's demand) of flows the fluid model gives throughput ``t`` (``demand``: share of the
    line)."""
    rate = t * demand * line_gbps * PAYLOAD[routing]  # Gb/s of payload
    if routing == "spray":  # the receiver's pull pacer
        into = np.bincount(dst, weights=t * demand * line_gbps)
        scale = np.minimum(1.0, EQDS_PULL * line_gbps / np.maximum(into, 1e-300))
        rate = rate * scale[dst]
    with np.errstate(divide="ignore", invalid="ignore"):
        done_us = size * 8 / (rate * 1e3) + rtt_us
        out = size * 8 / (done_us * demand * line_gbps * 1e3)
    return np.where(rate > 0, out, 0.0)
