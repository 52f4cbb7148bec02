"""How an all-to-all's flows meet the fabric on each transport: hashed or sprayed.

A transport that hashes each queue pair onto one path (RoCEv2 with ECMP) loads the uplinks
unevenly: with ``n`` equal flows per uplink on average over ``L`` uplinks, the busiest carries
about ``n + sqrt(2 n ln L)`` (balls into bins with many more balls than bins: Raab and Steger,
RANDOM 1998; the load model's class-level all-to-all uses the same rule), so the exchange runs
``1 + sqrt(2 ln L / n)`` slower than the fluid split. (NVIDIA's "60% for standard Ethernet"
is not this model's figure: it gives the busiest link for the design at hand, and the fabric
behind the 60% is not published.) A transport that sprays packets
(adaptive routing, Ultra Ethernet, MRC) or routes by destination (InfiniBand's subnet manager,
whose up ports each serve as many destinations) runs at the fluid split.
"""

from __future__ import annotations

import math


def hash_spread(flows_per_link: float, links: int) -> float:
    """The busiest of ``links`` hashed uplinks over their mean, ``flows_per_link`` flows each
    on average (1.0 with no flow or a single link)."""
    if flows_per_link <= 0 or links < 2:
        return 1.0
    return 1.0 + math.sqrt(2.0 * math.log(links) / flows_per_link)


def all_to_all_spread(hashed: bool, members: int, members_under_leaf: int, leaf_ratio: float,
                      qps: int, job_gpus: int) -> tuple[float, float, int]:
    """(slowdown of an all-to-all's network term, flows per uplink, uplinks) for a group of
    ``members`` GPUs of which ``members_under_leaf`` share a leaf: each member sends ``qps``
    flows to every member under another leaf, and a leaf's GPUs share ``1 / leaf_ratio`` as
    many uplinks."""
    remote = members - min(members, max(1, members_under_leaf))
    if not hashed or remote <= 0:
        return 1.0, 0.0, 0
    n = max(leaf_ratio, 1.0) * remote * max(qps, 1)
    links = max(2, int(job_gpus / max(leaf_ratio, 1.0)))
    return hash_spread(n, links), n, links
