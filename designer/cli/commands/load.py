"""``designer load FILE``: a traffic pattern routed on the design, max-min fair rates."""

from __future__ import annotations

import argparse

from designer.cli.commands._common import (
    FLOWS_PER_PAIR,
    SEED,
    TRIALS,
    add_command,
    count_arg,
    load,
    print_json,
)
from designer.core import limits
from designer.core.errors import DesignerError
from designer.core.solver import compile_project
from designer.core.traffic import (
    ALIASES,
    PATTERNS,
    ROUTINGS,
    build_network,
    canonical_routing,
    opensm_tables,
)
from designer.core.transport import (
    BURST_BYTES,
    LOSSLESS,
    TRANSPORT_IDS,
    check_fits,
    get_transport,
    project_tech,
    run_transport_load,
    transport_of,
)


def add_traffic_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--routing", choices=(*ROUTINGS, *ALIASES), default=None,
                   type=canonical_routing,
                   help="routing model: spray (packet spraying, every packet on its own "
                   "shortest path: the fluid split), ecmp (ECMP hashing, one path per flow), "
                   "static (d-mod-k destination routes), valiant; default the design's "
                   "transport's: static on InfiniBand, ecmp on RoCE, spray on Spectrum-X, "
                   "Ultra Ethernet and MRC. The former name 'adaptive' is accepted and means "
                   "spray (flowlet/adaptive switching is not modelled)")
    p.add_argument("--flows-per-pair", type=FLOWS_PER_PAIR, default=1, metavar="Q",
                   help="queue pairs per connection under ECMP/Valiant (default 1)")
    p.add_argument("--trials", type=TRIALS, default=1, metavar="T",
                   help="Monte Carlo trials over hash seeds (default 1)")
    p.add_argument("--seed", type=SEED, default=0,
                   help=f"random seed, 0 to {limits.MAX_SEED:,} (default 0)")
    p.add_argument("--polarised", action="store_true",
                   help="ECMP: the same hash function at every tier (hash polarisation)")


def register(sub: argparse._SubParsersAction, name: str) -> None:
    p = add_command(
        sub, name, run,
        help="traffic under load: a pattern routed on the design, max-min fair rates",
        description="Route a traffic pattern on the design's graph with the chosen routing "
        "and solve max-min fair rates. Prints the throughput distribution relative to each "
        "connection's demand (its share of the GPU line rate), the collective's slowdown "
        "against an ideal fabric, link utilisation per tier, the hottest links and a "
        "queueing tail.",
    )
    p.add_argument("--pattern", default="permutation", metavar="PATTERN",
                   help=f"{'|'.join(PATTERNS)} or a CSV file (source GPU, destination GPU, "
                   "bytes); default permutation")
    p.add_argument("--fan-in", type=count_arg(1, limits.MAX_GPUS), default=16, metavar="K",
                   help="incast: senders to one GPU (default 16)")
    p.add_argument("--burst-bytes", type=count_arg(1, 1 << 40), default=BURST_BYTES,
                   metavar="B", help="incast: bytes each sender sends in the burst (default "
                   "1 MiB)")
    p.add_argument("--transport", choices=TRANSPORT_IDS, default=None,
                   help="run under this transport instead of the design's")
    p.add_argument("--lossless", choices=LOSSLESS, default="auto",
                   help="rate model on a lossless (PFC) transport under hashed routing: pfc "
                   "(the default there: max-min fair shares, then PFC head-of-line blocking; "
                   "a saturated port pauses the ingress ports it holds, the pause spreads "
                   "upstream hop by hop and every flow on a paused link slows to the held "
                   "flows' rate, the hot port's own flows kept), ports (also each egress fair "
                   "among its ingress ports before flows, solved again as flows finish: the "
                   "model checked against htsim, up to 8,192 flows), off (fluid max-min, as "
                   "if each sender knew its bottleneck). First order: pauses are steady "
                   "shares of time, the capacity victims leave is not handed back; a packet "
                   "simulator's pauses come in bursts, so its worst flows are slower still "
                   "(htsim's worst ECMP flow on a 1,024-GPU permutation is 0.7-0.8 of this "
                   "model's). auto: pfc on RoCE and Spectrum-X under ecmp or valiant, else "
                   "off (InfiniBand's credits, spraying, static routes, a class-level "
                   "all-to-all)")
    p.add_argument("--opensm", action="store_true",
                   help="static routing on OpenSM's own forwarding tables: brings the design "
                   "up on ibsim as check-ib does (needs the InfiniBand tools)")
    add_traffic_options(p)


def run(args: argparse.Namespace) -> int:
    project, cat = load(args, args.file)
    c = compile_project(project, cat)
    net = build_network(c)
    tables = None
    if args.opensm:
        if args.routing not in (None, "static"):
            raise DesignerError("--opensm routes on OpenSM's tables: use it with --routing static")
        tables = opensm_tables(project, cat, net)
        args.routing = "static"
    transport = transport_of(project, cat)
    if args.transport:
        transport = get_transport(args.transport, "--transport")
        check_fits(transport, project_tech(project, cat), "--transport")
    tl = run_transport_load(c, args.pattern, transport, args.routing, args.flows_per_pair,
                            args.trials, args.seed, args.polarised, args.fan_in,
                            burst_bytes=args.burst_bytes, net=net, tables=tables,
                            lossless=args.lossless)
    r = tl.load
    j = tl.to_json()
    if args.json:
        print_json(j)
        return 0
    th = j["throughput"]
    how = " (OpenSM's tables)" if tables is not None else ""
    print(f"{project.name}: {r.pattern} under {r.routing} routing{how}"
          + (f", {r.flows_per_pair} flows per pair" if r.flows_per_pair > 1 else "")
          + (f", {r.trials} trials" if r.trials > 1 else ""))
    print(f"  connections      {r.connections:,}" + (f" ({r.unrouted:,} without a path)"
                                                     if r.unrouted else ""))
    print(f"  throughput       min {th['min']:.3f}  p1 {th['p1']:.3f}  p50 {th['p50']:.3f}  "
          f"mean {th['mean']:.3f}  (of demand)")
    sd = j["completion"]["slowdown"]
    print("  slowdown         " + ("never completes" if sd is None else f"{sd:.3f} x ideal"))
    print(f"  max utilisation  {r.max_utilisation:.3f}  "
          + "  ".join(f"{k} {v:.3f}" for k, v in r.by_tier.items()))
    tail = j["latency_tail_us"]
    print(f"  queueing added   mean {tail['mean']:.3f} us  p99 {tail['p99']:.3f} us "
          f"({tail['model']})")
    if r.model:
        print(f"  model            {r.model}")
    print(f"  lossless model   {tl.lossless}" + (" (fluid max-min)" if tl.lossless == "off"
                                                   else ""))
    print(f"  transport        {tl.model_text()}")
    if tl.incast is not None:
        print(format_incast(j["incast"]))
    for h in r.hot_links[:5]:
        arrow = "<->" if h.both_ways else "->"
        cables = f", {h.cables} cables" if h.cables > 1 else ""
        print(f"  hot link         {h.src} {arrow} {h.dst} ({h.layer}{cables}) "
              f"{h.utilisation:.3f}")
    return 0


def format_incast(x: dict) -> str:
    """The incast block of ``designer load --pattern incast`` as lines."""
    if x["held_links"] and x["paused_us"] > 0:
        held = (f"{x['held_links']:,} link(s) held back for {x['paused_us']:,.1f} us "
                f"({x['held_links_share']:.1%} of the fabric's)")
    elif x["held_links"]:
        held = f"the queue stayed under the pause threshold: none of {x['held_links']:,} held"
    else:
        held = "no pause on this transport"
    return "\n".join([
        f"  incast           {x['fan_in']} senders x {x['message_bytes'] / 2**20:,.2f} MiB, "
        f"round trip {x['rtt_us']:.2f} us",
        f"  completion       {x['completion_us']:,.1f} us ({x['completion_ratio']:.3f} x the "
        f"receiver's line rate)",
        f"  last-hop queue   peak {x['queue_peak_bytes'] / 1e6:,.2f} MB = "
        f"{x['queue_delay_peak_us']:,.1f} us of delay",
        f"  pause spreading  {held}; an innocent flow on one keeps "
        f"{x['victim_throughput']:.1%} of its rate",
        f"  retransmitted    {x['retransmit_share']:.1%} of the bytes (trimmed); "
        f"{x['rate_cuts']} rate cut(s)",
    ])
