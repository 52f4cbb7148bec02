"""The transports, each with what it decides in the tool and why, in one place.

A transport is how GPUs' RDMA traffic crosses the back-end fabric: its flow control (credits,
PFC or none), its congestion control, how it spreads a flow over paths (one hashed path or
sprayed packets) and how it recovers a lost or trimmed packet. From it follow:

* the default routing of the load model (``load_routing``) and of the estimates (``hashed``:
  an all-to-all's flows each hashed onto one path, or sprayed over all of them);
* the incast and tail model (``incast.py`` reads ``flow_control``, ``reaction``, ``trims``);
* the QoS profile the switch configs write (``qos_profile``: lossless RoCE with PFC, or the
  Ultra Ethernet profile with no PFC and packet trimming; none for InfiniBand);
* the tuning effort TCO charges when the project sets none (``tuning_weeks``).

Figures a source gives carry it; the others say they are assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from designer.core.errors import DesignerError

FlowControl = Literal["credits", "pfc", "none"]
# how senders learn of a many-to-one burst and cut their rate (see incast.py):
# dcqcn: ECN marks -> CNPs -> multiplicative cuts, at most one per CNP interval;
# telemetry: switch telemetry sets each sender's share within a round trip;
# receiver: the receiver grants credits at its line rate after the first round trip;
# sender: sender-side congestion control on ECN and trims, two round trips;
# backpressure: no end-to-end rate control, only link-level back-pressure
Reaction = Literal["dcqcn", "telemetry", "receiver", "sender", "backpressure"]

S_IBTA = ("InfiniBand Architecture Specification vol. 1, 7.9 (credit-based link-level flow "
          "control: a sender transmits only against credits the receiver advertised)")
S_OPENSM = ("OpenSM's opensm.conf: congestion_control FALSE by default; routing_engine "
            "minhop/ftree (static, destination-based)")
S_DCQCN = ("Zhu et al., 'Congestion Control for Large-Scale RDMA Deployments' (DCQCN), "
           "SIGCOMM 2015: ECN marking between Kmin and Kmax, at most one CNP per flow per "
           "50 us, rate cut R(1 - a/2) with a starting at 1")
S_PFC = ("Guo et al., 'RDMA over Commodity Ethernet at Scale', SIGCOMM 2016: PFC pauses "
         "spread hop by hop to flows that never crossed the congested port (head-of-line "
         "blocking), pause storms and deadlocks")
S_LLAMA = ("Llama 3, arXiv 2407.21783, 3.3.1: RoCE with enhanced ECMP, 16 queue pairs "
           "between two GPUs to give the hash enough flows")
S_SPX = ("NVIDIA Spectrum-X Network Platform Architecture whitepaper: per-packet adaptive "
         "routing on Spectrum-4 switches, BlueField-3 / ConnectX-8 SuperNICs placing packets "
         "that arrive out of order, congestion control metered by switch telemetry; NVIDIA's "
         "xAI Colossus release (Oct 2024): '95% data throughput' with Spectrum-X where "
         "standard Ethernet 'delivers only 60%' (the fabric and traffic of the 60% are not "
         "published, so the tool does not reproduce or use it)")
S_SPX_RA = ("NVIDIA DGX SuperPOD B300 / NVL72 Enterprise reference architectures: RoCE on "
            "Spectrum-X, lossless (PFC + ECN) with adaptive routing, two 400G planes per "
            "ConnectX-8")
S_UEC = ("Ultra Ethernet Specification 1.0 (Ultra Ethernet Consortium, June 2025), overview: "
         "Ultra Ethernet Transport with packet spraying over entropy values, sender-side "
         "(NSCC) and receiver-side credit (RCCC) congestion control, packet trimming, "
         "link-level retry (LLR) and credit-based flow control optional, PFC not required")
S_UEC_PAPER = ("Hoefler et al., 'Ultra Ethernet's Design Principles and Architectural "
               "Innovations', arXiv 2508.08906 (2025)")
S_TRIM = ("SONiC packet trimming design (sonic-net/SONiC doc/packet_trimming): "
          "SWITCH_TRIMMING|GLOBAL size, dscp_value, queue_index; BUFFER_PROFILE "
          "packet_discard_action trim")
S_MRC = ("Araujo et al., 'Resilient AI Supercomputer Networking using MRC and SRv6', arXiv "
         "2605.04333 (OCP MRC 1.0, May 2026): an 800G NIC as 8 x 100G planes, every transfer "
         "sprayed over hundreds of paths in all planes, best-effort Ethernet (no PFC), "
         "packet trimming at the destination, static SRv6 source routes, no BGP")
S_TUNING = ("assumption: weeks of network-engineer time to bring the transport to its "
            "published performance and keep it there; no published figure found, edit it "
            "in the project's economics")


class TransportError(DesignerError):
    """A transport that does not exist or cannot run on the design's technology."""


@dataclass(frozen=True)
class Transport:
    id: str
    name: str
    short: str  # a column label
    family: Literal["ib", "eth"]
    summary: str
    flow_control: FlowControl
    reaction: Reaction
    load_routing: Literal["static", "ecmp", "spray"]
    hashed: bool  # a flow (queue pair) rides one hashed path; else packets are sprayed
    trims: bool  # switches trim a packet's payload instead of dropping it
    link_retry: bool  # link-level retry (LLR) repairs a corrupted frame on the hop
    qos_profile: Literal["", "roce-lossless", "uec-trim"]
    tuning_weeks: float
    tuning_why: str
    reasoning: tuple[str, ...]
    sources: tuple[str, ...]

    def runs_on(self, tech: str) -> bool:
        return tech.startswith("ib") if self.family == "ib" else not tech.startswith("ib")

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "family": self.family,
                "summary": self.summary, "flow_control": self.flow_control,
                "reaction": self.reaction, "load_routing": self.load_routing,
                "hashed": self.hashed, "trims": self.trims, "link_retry": self.link_retry,
                "qos_profile": self.qos_profile or None, "tuning_weeks": self.tuning_weeks,
                "tuning_why": self.tuning_why, "reasoning": list(self.reasoning),
                "sources": list(self.sources)}


TRANSPORTS: dict[str, Transport] = {t.id: t for t in (
    Transport(
        id="infiniband", name="InfiniBand (credits, subnet-manager routing)", short="InfiniBand",
        family="ib",
        summary="lossless by link credits; static destination routes from the subnet "
        "manager (adaptive routing and SHARP are settings); no end-to-end rate control "
        "unless congestion control is switched on",
        flow_control="credits", reaction="backpressure", load_routing="static", hashed=False,
        trims=False, link_retry=True, qos_profile="",
        tuning_weeks=1.0,
        tuning_why="the subnet manager computes routes and credits need no thresholds; "
        "about a week to validate (assumption)",
        reasoning=(
            "Credits make every link lossless without thresholds: a sender waits for buffer "
            "space downstream, so a many-to-one burst backs up link by link toward its "
            "senders and holds up other flows on those links (tree saturation) while it "
            "drains.",
            "Destination-based routes from OpenSM spread a uniform all-to-all like the "
            "fluid split (each up port serves as many destinations), so an all-to-all does "
            "not pay for hashing.",
            "In-network reduction (SHARP) is a workload setting (NCCL_COLLNET_ENABLE), not "
            "a property of the transport.",
        ),
        sources=(S_IBTA, S_OPENSM),
    ),
    Transport(
        id="roce", name="RoCEv2 (PFC + ECN/DCQCN, ECMP)", short="RoCE ECMP", family="eth",
        summary="lossless Ethernet by PFC on one priority, DCQCN rate control on ECN marks, "
        "each queue pair hashed onto one ECMP path",
        flow_control="pfc", reaction="dcqcn", load_routing="ecmp", hashed=True, trims=False,
        link_retry=False, qos_profile="roce-lossless",
        tuning_weeks=6.0,
        tuning_why="PFC headroom, ECN thresholds, DCQCN timers, buffer shares and the PFC "
        "watchdog tuned per switch and NIC firmware, and queue pairs per connection for "
        "ECMP (assumption: six weeks)",
        reasoning=(
            "ECMP hashes each queue pair onto one path: a few large flows per link collide "
            "(balls into bins), so an all-to-all runs at its hottest link; more queue pairs "
            "per connection (NCCL_IB_QPS_PER_CONNECTION) give the hash more, smaller flows.",
            "A burst into one port fills its queue; ECN marks make DCQCN halve the senders' "
            "rates at most once per CNP interval, so a fan-in of F needs about log2 F cuts; "
            "past the lossless threshold PFC pauses the upstream links, and every flow on a "
            "paused link waits, even one bound elsewhere.",
        ),
        sources=(S_DCQCN, S_PFC, S_LLAMA),
    ),
    Transport(
        id="spectrum-x", name="Spectrum-X (RoCE, adaptive routing, SuperNICs)",
        short="Spectrum-X", family="eth",
        summary="RoCE kept lossless with PFC, packets sprayed by the switches' adaptive "
        "routing and put back in order by BlueField-3 / ConnectX-8 SuperNICs, congestion "
        "control metered by switch telemetry",
        flow_control="pfc", reaction="telemetry", load_routing="spray", hashed=False,
        trims=False, link_retry=False, qos_profile="roce-lossless",
        tuning_weeks=2.0,
        tuning_why="the vendor's validated RoCE profile sets PFC, ECN and adaptive routing "
        "on switches and SuperNICs together (assumption: two weeks)",
        reasoning=(
            "Per-packet adaptive routing uses every equal-cost path; NVIDIA publishes 95% "
            "effective bandwidth for it, so a comparison runs its network terms at 1 / 0.95 "
            "of the fluid optimum. The 60% NVIDIA quotes for standard Ethernet is not "
            "reproduced: RoCE's own figure comes from hashing its queue pairs on the design.",
            "Telemetry tells each sender its share within about a round trip, so a burst "
            "rarely reaches the PFC threshold; PFC stays on as the backstop.",
        ),
        sources=(S_SPX, S_SPX_RA, S_PFC),
    ),
    Transport(
        id="uec", name="Ultra Ethernet 1.0 (spraying, trimming, no PFC)", short="Ultra Ethernet",
        family="eth",
        summary="Ultra Ethernet Transport: packets sprayed over many entropy values, "
        "receiver credits and sender congestion control, trimmed packets retransmitted at "
        "once, link-level retry; best-effort Ethernet without PFC",
        flow_control="none", reaction="receiver", load_routing="spray", hashed=False,
        trims=True, link_retry=True, qos_profile="uec-trim",
        tuning_weeks=3.0,
        tuning_why="no PFC or headroom to tune, but a young stack: NIC and switch firmware "
        "to qualify together (assumption: three weeks)",
        reasoning=(
            "Spraying over entropy values makes the fabric the fluid optimum, as adaptive "
            "routing does; the last hop of an incast is what remains.",
            "No PFC: a burst never pauses an upstream link, so flows bound elsewhere are not "
            "held up. Above the trimming threshold a switch cuts a packet to its header, "
            "which reaches the receiver, and the sender resends at once, so the loss costs "
            "a round trip, not a timeout.",
            "Receiver credits hold the senders to the receiver's line rate after the first "
            "round trip; only that first window can overflow.",
        ),
        sources=(S_UEC, S_UEC_PAPER, S_TRIM),
    ),
    Transport(
        id="mrc", name="MRC (multi-plane spraying, SRv6 source routes)", short="MRC",
        family="eth",
        summary="Multipath Reliable Connection: every transfer sprayed over hundreds of "
        "paths in all planes, static SRv6 source routes, packet trimming, best-effort "
        "Ethernet without PFC; sender-based congestion control",
        flow_control="none", reaction="sender", load_routing="spray", hashed=False,
        trims=True, link_retry=False, qos_profile="uec-trim",
        tuning_weeks=3.0,
        tuning_why="static routes and no PFC; NICs of three vendors to qualify "
        "(assumption: three weeks)",
        reasoning=(
            "Spraying over every path of every plane: the fabric is the fluid optimum and a "
            "failed link is left within microseconds.",
            "Congestion at the destination is signalled by trimmed headers and ECN; with no "
            "receiver credits the senders cut their rate after about two round trips.",
        ),
        sources=(S_MRC, S_TRIM),
    ),
)}
TRANSPORT_IDS = tuple(TRANSPORTS)
SPRAYING = frozenset(t.id for t in TRANSPORTS.values() if not t.hashed)


def get_transport(transport_id: str, what: str = "transport") -> Transport:
    try:
        return TRANSPORTS[transport_id]
    except KeyError:
        raise TransportError(f"{what}: unknown transport '{transport_id}' (known: "
                             f"{', '.join(TRANSPORT_IDS)})") from None


def default_transport(tech: str) -> Transport:
    """The transport a technology runs when nothing says otherwise."""
    return TRANSPORTS["infiniband" if tech.startswith("ib") else "roce"]


def check_fits(transport: Transport, tech: str, what: str = "transport") -> None:
    if not transport.runs_on(tech):
        kind = "InfiniBand" if tech.startswith("ib") else "Ethernet"
        fits = ", ".join(t.id for t in TRANSPORTS.values() if t.runs_on(tech))
        raise TransportError(f"{what}: '{transport.id}' does not run on {kind} gear "
                             f"(choose {fits})")
