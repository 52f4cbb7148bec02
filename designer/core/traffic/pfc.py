"""Head-of-line blocking from PFC on a lossless fabric, to first order.

The fluid model (``maxmin``) gives every flow its max-min fair share, as if each flow's
sender knew its bottleneck. On lossless RoCE a congested egress port instead pauses the
ingress ports that feed it (PFC, IEEE 802.1Qbb): while an ingress is paused nothing on it
moves, so flows that share that ingress with a throttled flow but are bound elsewhere (the
victims) stop too. With senders at line rate between pauses, the traffic on a paused link
keeps the mix its senders offer, so every flow on it is slowed by the same factor as the
most throttled flow bound through it to a hot port.

First order, stated:

- a flow held below its demand by the fluid solve (throughput ``t < 1``) pauses the link it
  crosses just before its first saturated link (the ingress port of the congested switch);
- every flow crossing a paused link gets at most that flow's throughput (``t' = min(t,
  pause)`` over its links);
- one step: the pause is not followed further upstream, and the capacity the victims leave
  is not handed back to others (a second solve would raise some flows again). Rates only go
  down.

It applies to hashed routing (ECMP) on lossless Ethernet; spraying spreads load so that few
ports saturate, and InfiniBand's credit-based flow control throttles per virtual lane at the
sender (the same spreading in kind, not modelled here).
"""

from __future__ import annotations

import numpy as np

SATURATED = 1 - 1e-6


def pfc_victims(flow: np.ndarray, link: np.ndarray, t: np.ndarray, util: np.ndarray
                ) -> np.ndarray:
    """Throughput of every flow once PFC pauses spread one hop upstream of saturated links.

    ``flow``/``link``: the flows' paths as incidence pairs, each flow's links in path order
    (``route_hashed`` writes them hop by hop); ``t``: the fluid throughput per flow;
    ``util``: utilisation per link."""
    if flow.size == 0:
        return t.copy()
    order = np.argsort(flow, kind="stable")  # each flow's links stay in path order
    f, lk = flow[order], link[order]
    hot = util[lk] >= SATURATED
    slow = t[f] < SATURATED
    # the first saturated link of each throttled flow, and the link just before it
    first = np.zeros(f.size, bool)
    cand = np.flatnonzero(hot & slow)
    if cand.size == 0:
        return t.copy()
    _, at = np.unique(f[cand], return_index=True)
    first[cand[at]] = True
    prev = np.flatnonzero(first)
    prev = prev[(prev > 0)]
    prev = prev[f[prev - 1] == f[prev]]  # not the flow's first link: an ingress exists
    pause = np.full(util.size, np.inf)
    np.minimum.at(pause, lk[prev - 1], t[f[prev]])
    # every flow on a paused link slows to the pause
    lim = np.full(t.size, np.inf)
    np.minimum.at(lim, f, pause[lk])
    return np.minimum(t, lim)
