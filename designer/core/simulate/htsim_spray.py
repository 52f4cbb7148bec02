"""Spraying as ``htsim_eqds -strat ecmp_host -paths N`` does it: N path ids hashed onto paths.

The tool's packet spraying spreads every flow evenly over all of its shortest paths. EQDS in
csg-htsim does not pick paths; it stamps each packet with a path id (entropy) and the
switches hash it: ``EqdsSrc::nextEntropy`` walks the N ids in turn (each id once per round,
the order XORed with a random mask each round), and ``FatTreeSwitch::getNextHop`` picks the
next hop by ``freeBSDHash(flow_id, pathid, salt) % hops`` at every switch (ECMP_FIB). So a
flow's packets land on the paths its N ids hash to, 1/N each: two ids may share a link and
some links carry none, so a link may be offered more than it carries.

EQDS does not slow a flow to its most loaded path: its receiver pulls (credits) the flow at
its fair rate whatever the paths, and a switch queue past its limit trims the packet to its
header (``CompositeQueue``), which the receiver NACKs and the sender sends again
(``EqdsSrc::processNack``) on the next id. First order, stated:

- every flow sends at its fair rate with spraying (the receiver's pull shares the receiver
  as the fluid model shares it), its packets spread over the links by its N ids hashed at
  random at every switch (a new draw per trial, as the tool's ECMP);
- a link offered more than it carries trims the excess: the share ``1 - capacity / offered``
  of the packets crossing it;
- a flow's goodput is its rate less the share of its packets trimmed on the way (summed over
  its links), each of which it sends again.

EQDS also skips an id once after it is marked or trimmed (``penalizePath``, a penalty of 1),
which moves some traffic off hot links before the queues trim; not modelled. The trims this
counts are therefore more than htsim's retransmissions (it prints both: ``New: ... Rtx:``).
"""

from __future__ import annotations

import numpy as np

from designer.core.traffic.network import Network
from designer.core.traffic.routing import hash_salt, route_hashed


def trimmed_share(net: Network, src: np.ndarray, dst: np.ndarray, rate: np.ndarray,
                  paths: int, seed: int) -> np.ndarray:
    """Per flow ``src -> dst`` (GPU ids) sending ``rate`` Gb/s over ``paths`` hashed path
    ids: the share of its packets trimmed (and sent again) on links offered more than they
    carry."""
    F = src.size
    rng = np.random.default_rng(seed)
    sub = np.repeat(np.arange(F), paths)
    key = rng.integers(0, np.iinfo(np.int64).max, size=sub.size).astype(np.uint64)
    r = route_hashed(net, src[sub], dst[sub], key, hash_salt(net, seed, False))
    f = sub[r.flow]
    cap = net.link_cap
    offered = np.bincount(r.link, weights=rate[f] / paths, minlength=cap.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        trim = np.where(offered > cap, 1 - cap / np.maximum(offered, 1e-300), 0.0)
    return np.minimum(np.bincount(f, weights=trim[r.link] / paths, minlength=F), 1.0)
