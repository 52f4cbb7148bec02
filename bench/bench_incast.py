"""Incast by transport (issue 23 target): an incast on 16,384 GPUs within 2 s.

A 16,384-GPU rail-optimized RoCE design (DGX H100, SN5600 as 128 x 400G); the incast is routed
and solved by the load model, then the transport's fluid model runs on the design's round
trip. Three fan-ins: 16 (the default), 1,024 and every other server (2,047). Times exclude
generating and compiling the design (the window has it compiled) but include building the
traffic network. Each transport is timed (its load routing differs: ECMP, adaptive, static).

Baseline: the fluid model stepped per sender in plain Python (one rate and backlog per sender,
no symmetry), timed on 64 senders and scaled to the fan-in, against the symmetric model's one
sender standing for all.

Run: python bench/bench_incast.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._util import best_of
from designer.core.catalog import builtin_catalog
from designer.core.generators import generate, params_from_dict
from designer.core.solver.compile import compile_project
from designer.core.transport.incast import IncastInputs, incast
from designer.core.transport.profiles import TRANSPORTS
from designer.core.transport.traffic import run_transport_load

TARGET_S = 2.0


def per_sender_baseline(fan_in: int, message: float, gbps: float, rtt: float) -> float:
    """Seconds for the DCQCN ladder stepped sender by sender (the plain approach)."""
    C = gbps * 1e3 / 8
    rates = [C] * fan_in
    left = [message] * fan_in
    q, t, dt = 0.0, 0.0, rtt / 8
    t0 = time.perf_counter()
    while any(x > 0 for x in left) and t < 1e6:
        arrive = 0.0
        for i in range(fan_in):
            if left[i] > 0:
                b = min(left[i], rates[i] * dt)
                left[i] -= b
                arrive += b
        q = max(0.0, q + arrive - C * dt)
        if q > 400_000 and t > rtt:
            for i in range(fan_in):
                rates[i] = max(rates[i] / 2, C / fan_in)
        t += dt
    return time.perf_counter() - t0


def main() -> None:
    cat = builtin_catalog()
    project = generate(params_from_dict("rail", {"gpus": 16384, "gear": "roce-400"}), cat)
    c = compile_project(project, cat)
    print(f"design: {c.n_gpus:,} GPUs, {len(project.fabric.devices):,} devices")
    worst = 0.0
    for fan_in in (16, 1024, 2047):
        for t in TRANSPORTS.values():
            if not t.runs_on("eth"):
                continue
            secs, tl = best_of(lambda t=t, f=fan_in: run_transport_load(c, "incast", t,
                                                                        fan_in=f), 2)
            worst = max(worst, secs)
            x = tl.incast
            print(f"fan-in {fan_in:>5}  {t.short:<15} {secs:6.3f} s  routing {tl.load.routing:<8}"
                  f" queue peak {x.queue_peak_bytes / 1e6:7.2f} MB  paused {x.paused_us:8.1f} us"
                  f"  victim {x.victim_throughput:.3f}  resent {x.retransmit_share:.3f}")
    print(f"slowest incast: {worst:.3f} s; target {TARGET_S:.1f} s: "
          f"{'met' if worst <= TARGET_S else 'MISSED'}")
    # the fluid model alone: symmetric (one sender stands for all) against per sender
    rtt, msg = 7.7, float(1 << 20)
    for fan_in in (1024, 16383):
        secs, _ = best_of(lambda f=fan_in: incast(TRANSPORTS["roce"],
                                                  IncastInputs(f, msg, 400, rtt)), 3)
        base = per_sender_baseline(64, msg, 400, rtt) * fan_in / 64
        print(f"fluid model, fan-in {fan_in:,}: {secs * 1e3:.1f} ms; per-sender Python "
              f"baseline (64 senders scaled) {base:.2f} s; ratio {base / secs:,.0f}x")


if __name__ == "__main__":
    main()
