"""A many-to-one burst on each transport: a fluid model of the last hop and its senders.

F senders each send M bytes at once to one receiver whose link runs at C. Senders are alike,
so one sender's rate stands for all; the receiver's queue ``Q`` grows by what arrives beyond C.
What each transport does about it (``Transport.reaction`` and ``flow_control``):

* **dcqcn** (RoCEv2): once the queue passes ECN's Kmin, the first CNP reaches the senders a
  round trip later; each cuts its rate by half (DCQCN's R(1 - a/2) with a near 1, at most 50%
  per event) at most once per rate-reduction period while marks go on, so a fan-in of F needs
  about log2 F cuts. The cuts stop at the fair share: DCQCN's later oscillation around it (a
  few per cent of throughput, Zhu et al. 5) is not modelled.
* **telemetry** (Spectrum-X): a round trip after the queue forms, each sender runs at C/F.
* **receiver** (Ultra Ethernet, RCCC): each sender's first window (one round trip at line rate)
  is unscheduled; after that the receiver's credits hold the senders to C together.
* **sender** (MRC): senders cut to C/F two round trips after the queue forms (a trimmed header
  or ECN mark back, then the cut).
* **backpressure** (InfiniBand, congestion control off): senders keep their line rate.

And at the last hop, by flow control:

* **pfc** / **credits**: the queue holds at most a threshold (PFC: the lossless share of the
  shared buffer; credits: the port's receive buffer); beyond it the upstream links are held back
  (paused). A link held back moves only what the incast flow on it may send, so an innocent
  flow sharing it (same priority or virtual lane, behind it in the queue) is slowed too:
  its throughput over the burst is ``1 - pause_share x (1 - 1/F)`` (head-of-line blocking,
  Guo et al. SIGCOMM 2016).
* **none** with trimming: above the trimming threshold a packet's payload is cut and its header
  sent on; the sender resends those bytes a round trip later. Nothing upstream is paused.

Assumptions, stated in every result: one incast alone on the fabric; the senders start
together at line rate; the fabric before the last hop is not the bottleneck (the load model
answers that part); queues are fluid (no packet granularity); DCQCN's a stays near 1 during
the burst. Where a figure comes from a source it says so in ``assumptions``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from designer.core.transport.profiles import S_DCQCN, Transport

# the switch configs' thresholds, scaled per Gb/s of line rate (ethernet/qos.py's RoceQos)
KMIN_BYTES_PER_GBPS = 1000  # ECN starts marking: 100 KB at 100G (HPCC's DCQCN setting)
TRIM_BYTES_PER_GBPS = 4000  # the UEC profile trims where ECN would mark every packet
# ConnectX's DCQCN: rate_reduce_monitor_period 4 us, rpg_min_dec_fac 50%, initial alpha
# 1023/1024 (NVIDIA DOCA "DCQCN CC Parameters"); the paper's NP sent at most one CNP per 50 us
CUT_INTERVAL_US = 4.0
S_DCQCN_NIC = ("NVIDIA DOCA SDK, 'DCQCN CC Parameters' (ConnectX-4 and later): "
               "rate_reduce_monitor_period 4 us, rpg_min_dec_fac 50%, initial alpha 1023/1024")
S_IB_CC = ("Gran et al., 'First experiences with congestion control in InfiniBand hardware', "
           "IPDPS 2010: without congestion control a hot spot's back-pressure collapses the "
           "throughput of victim flows sharing its links")
SHARED_BUFFER_BYTES = 128 * 2**20  # Spectrum-4 shared buffer, 128 MB [M]
LOSSLESS_ALPHA = 0.25  # dynamic_th -2 of the lossless PG (qos.py)
IB_PORT_BUFFER_BYTES = 128 * 1024  # credits one port may hold (assumption)
MAX_STEPS = 60_000


@dataclass(frozen=True)
class IncastInputs:
    fan_in: int
    message_bytes: float  # per sender
    line_gbps: float
    rtt_us: float  # base round trip, sender to receiver and back
    shared_buffer_bytes: float = SHARED_BUFFER_BYTES
    congested_ports: int = 1  # ports contending for the shared buffer at once


@dataclass(frozen=True)
class IncastResult:
    transport: str
    model: str
    fan_in: int
    message_bytes: float
    line_gbps: float
    rtt_us: float
    ideal_us: float  # F M / C: the receiver's link busy from the first byte to the last
    completion_us: float
    queue_peak_bytes: float
    queue_delay_peak_us: float  # the last hop's queue at its peak, in time
    paused_us: float  # time upstream links were held back (PFC or credits)
    victim_throughput: float  # an innocent flow sharing a held-back link, of its rate
    retransmit_share: float  # bytes trimmed and sent again, of all bytes
    rate_cuts: int
    threshold_bytes: float  # where the last hop stops queueing (pause or trim); 0: none
    assumptions: tuple[str, ...] = field(default=())
    sources: tuple[str, ...] = field(default=())

    @property
    def completion_ratio(self) -> float:
        return self.completion_us / self.ideal_us if self.ideal_us > 0 else 1.0

    @property
    def pause_share(self) -> float:
        return self.paused_us / self.completion_us if self.completion_us > 0 else 0.0

    def to_json(self) -> dict:
        r = 6
        return {"transport": self.transport, "model": self.model, "fan_in": self.fan_in,
                "message_bytes": self.message_bytes, "line_gbps": self.line_gbps,
                "rtt_us": round(self.rtt_us, 4), "ideal_us": round(self.ideal_us, 4),
                "completion_us": round(self.completion_us, 4),
                "completion_ratio": round(self.completion_ratio, r),
                "queue_peak_bytes": round(self.queue_peak_bytes),
                "queue_delay_peak_us": round(self.queue_delay_peak_us, 4),
                "threshold_bytes": round(self.threshold_bytes),
                "paused_us": round(self.paused_us, 4),
                "pause_share": round(self.pause_share, r),
                "victim_throughput": round(self.victim_throughput, r),
                "retransmit_share": round(self.retransmit_share, r),
                "rate_cuts": self.rate_cuts,
                "assumptions": list(self.assumptions), "sources": list(self.sources)}


def threshold_bytes(t: Transport, x: IncastInputs) -> float:
    """Bytes the last hop queues before it pauses upstream (PFC, credits) or trims."""
    if t.flow_control == "pfc":
        # a lossless PG under dynamic thresholds takes a/(1 + a n) of the shared buffer when
        # n ports contend for it
        a = LOSSLESS_ALPHA
        return x.shared_buffer_bytes * a / (1 + a * max(1, x.congested_ports))
    if t.flow_control == "credits":
        return IB_PORT_BUFFER_BYTES
    if t.trims:
        return TRIM_BYTES_PER_GBPS * x.line_gbps
    return math.inf


def model_text(t: Transport) -> str:
    how = {
        "dcqcn": "DCQCN halves the senders' rates at most once per 4 us after ECN marks",
        "telemetry": "telemetry sets each sender's share a round trip after the queue forms",
        "receiver": "receiver credits hold the senders to the line rate after the first "
                    "round trip",
        "sender": "senders cut to their share two round trips after trims or marks",
        "backpressure": "no end-to-end rate control: link credits hold the senders back",
    }[t.reaction]
    limit = {"pfc": "PFC pauses upstream links past the lossless threshold",
             "credits": "credits hold upstream links once the port's buffer is full",
             "none": "payloads above the trimming threshold are trimmed and resent"
             if t.trims else "nothing limits the queue"}[t.flow_control]
    return f"incast fluid model, {t.short}: {how}; {limit}"


def incast(t: Transport, x: IncastInputs) -> IncastResult:
    """The burst on transport ``t`` (see the module's model and assumptions)."""
    F = max(1, int(x.fan_in))
    C = x.line_gbps * 1e3 / 8.0  # bytes per microsecond
    M = float(x.message_bytes)
    rtt = max(float(x.rtt_us), 1e-3)
    ideal = F * M / C
    limit = threshold_bytes(t, x)
    kmin = KMIN_BYTES_PER_GBPS * x.line_gbps
    # fine steps for the first round trips, coarser once the burst has settled
    fine = rtt / 8.0
    coarse = max(fine, (ideal + 20 * rtt) / 4000.0)
    fair = C / F
    r = C  # one sender's rate
    left = M  # one sender's bytes still to send (trimmed bytes come back)
    pending: list[tuple[float, float]] = []  # (time back at the sender, bytes per sender)
    sent_first = 0.0  # one sender's bytes in its first (unscheduled) window
    q = peak = paused = trimmed = 0.0
    t_now = 0.0
    mark_at = -1.0  # when the queue first passed the signalling level
    last_cut = -math.inf
    cuts = 0
    done_at = None
    for _ in range(MAX_STEPS):
        dt = fine if t_now < 64 * rtt else coarse
        # rate control: what each sender offers in this step
        signal = q > (kmin if t.reaction == "dcqcn" else 0.0) or trimmed > 0
        if signal and mark_at < 0:
            mark_at = t_now
        if t.reaction == "dcqcn" and mark_at >= 0:
            if q > kmin and r > fair and t_now >= mark_at + rtt and \
                    t_now - last_cut >= CUT_INTERVAL_US - 1e-9:
                r = max(r / 2.0, fair)
                last_cut, cuts = t_now, cuts + 1
        elif t.reaction == "telemetry" and mark_at >= 0 and t_now >= mark_at + rtt:
            cuts += r > fair
            r = fair
        elif t.reaction == "receiver":
            if sent_first >= min(M, C * rtt) or t_now >= rtt:
                cuts += r > fair
                r = fair
        elif t.reaction == "sender" and mark_at >= 0 and t_now >= mark_at + 2 * rtt:
            cuts += r > fair
            r = fair
        while pending and pending[0][0] <= t_now:
            left += pending.pop(0)[1]
        offer = min(left, r * dt) * F
        room = max(0.0, limit - q) + C * dt
        arrive = min(offer, room)
        held = offer - arrive
        if held > 0 and t.flow_control in ("pfc", "credits"):
            paused += dt  # the upstream links run at the incast's drain rate
        elif held > 0:  # trimmed: the header goes on, the payload comes back
            trimmed += held
            pending.append((t_now + rtt, held / F))
        left -= (arrive + (held if t.flow_control == "none" else 0.0)) / F
        if t.reaction == "receiver" and t_now < rtt:
            sent_first += (arrive + held) / F
        out = min(q + arrive, C * dt)
        q = q + arrive - out
        peak = max(peak, q)
        t_now += dt
        if left <= 1e-9 and not pending and q <= 1e-9:
            done_at = t_now
            break
    if done_at is None:  # the step budget ran out: finish at line rate from here
        rest = left * F + sum(b for _, b in pending) * F + q
        done_at = t_now + rest / C
    completion = max(done_at, ideal)
    victim = 1.0 - (paused / completion) * (1.0 - 1.0 / F) if completion > 0 else 1.0
    assumptions = [
        "one incast alone on the fabric; senders start together at line rate",
        "the fabric before the last hop is not the bottleneck (the load model answers that)",
        "fluid queues; round trip from the design's switch and NIC latencies",
    ]
    if t.flow_control == "pfc":
        assumptions.append(
            "PFC threshold: a lossless PG's share a/(1 + a n) of a "
            f"{x.shared_buffer_bytes / 2**20:,.0f} MiB shared buffer "
            f"(a = {LOSSLESS_ALPHA}, dynamic_th -2; n = "
            f"{max(1, x.congested_ports)} congested port(s)); Spectrum-4 buffer 128 MB [M]")
    if t.flow_control == "credits":
        assumptions.append(f"credits: {IB_PORT_BUFFER_BYTES // 1024} KiB of receive buffer "
                           "per port and virtual lane (assumption); congestion control off")
    if t.reaction == "dcqcn":
        assumptions.append(f"DCQCN: Kmin {KMIN_BYTES_PER_GBPS} B per Gb/s, at most one halving "
                           f"per {CUT_INTERVAL_US:g} us (ConnectX defaults), down to the fair "
                           "share")
    if t.trims:
        assumptions.append(f"trimming above {TRIM_BYTES_PER_GBPS} B per Gb/s of queue (where "
                           "ECN would mark every packet); trimmed bytes resent a round trip "
                           "later")
    if t.reaction == "receiver":
        assumptions.append("first window unscheduled: one round trip at line rate per sender")
    extra = {"dcqcn": (S_DCQCN, S_DCQCN_NIC), "backpressure": (S_IB_CC,)}.get(t.reaction, ())
    sources = tuple(dict.fromkeys(t.sources + extra))
    return IncastResult(
        transport=t.id, model=model_text(t), fan_in=F, message_bytes=M,
        line_gbps=x.line_gbps, rtt_us=rtt, ideal_us=ideal, completion_us=completion,
        queue_peak_bytes=peak, queue_delay_peak_us=peak / C, paused_us=paused,
        victim_throughput=max(0.0, min(1.0, victim)),
        retransmit_share=trimmed / (F * M) if M > 0 else 0.0, rate_cuts=int(cuts),
        threshold_bytes=0.0 if math.isinf(limit) else limit,
        assumptions=tuple(assumptions), sources=sources)
