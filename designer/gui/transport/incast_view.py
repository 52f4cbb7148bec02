"""The incast figures of a transport load run, as the Traffic panel shows them."""

from __future__ import annotations

import html

from designer.core.transport import TransportLoad


def incast_html(tl: TransportLoad) -> str:
    x = tl.incast
    if x is None:
        return ""
    if tl.held_links and x.paused_us > 0:
        held = (f"{tl.held_links:,} link(s) held back for {x.paused_us:,.1f} µs; an innocent "
                f"flow on one keeps {x.victim_throughput:.0%} of its rate")
    elif tl.held_links:
        held = "the queue stayed under the pause threshold: no link held back"
    else:
        held = "no pause on this transport: no innocent flow held back"
    tips = "<br>".join(html.escape(a, quote=False) for a in x.assumptions)
    return (
        f"<br><b>Incast</b> <i>{html.escape(x.model, quote=False)}</i>"
        f"<br>{x.fan_in} senders × {x.message_bytes / 2**20:,.2f} MiB, round "
        f"trip {x.rtt_us:.2f} µs: completes in {x.completion_us:,.1f} µs "
        f"({x.completion_ratio:.3f}× line rate)"
        f"<br>Last-hop queue peak {x.queue_peak_bytes / 1e6:,.2f} MB "
        f"(+{x.queue_delay_peak_us:,.1f} µs); {held}"
        f"<br>Retransmitted (trimmed): {x.retransmit_share:.1%}; rate cuts: {x.rate_cuts}"
        f"<br><small>{tips}</small>"
    )
