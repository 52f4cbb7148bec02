"""What the live check brings up: the whole design, or a representative slice of it, and what
the design says the routes must be (ECMP widths and switch hops between leaves)."""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from designer.core.ethernet.plan import Underlay

MAX_SWITCHES = 48
MAX_SESSIONS = 1200  # BGP sessions (switch-to-switch cables) two cores bring up in seconds
HOSTS_PER_LEAF = 2


def restrict(u: Underlay, keep: np.ndarray, cables: np.ndarray | None = None) -> Underlay:
    """The underlay of the switches ``keep`` (bool per switch) and the cables among them
    (only those of ``cables`` when given), with the full design's ASNs and addresses (so
    configs match the full export)."""
    new = np.full(u.n, -1, np.int64)
    new[keep] = np.arange(int(keep.sum()))
    cab = keep[u.a] & keep[u.b]
    if cables is not None:
        cab &= cables
    host = keep[u.h_leaf]
    per_switch = {f.name for f in dataclasses.fields(u)} & {
        "switch", "tier", "plane", "asn", "loopback", "per_cage", "ports", "speed", "block"}
    changes = {k: getattr(u, k)[keep] for k in per_switch}
    changes["names"] = tuple(n for n, k in zip(u.names, keep.tolist(), strict=True) if k)
    for k in ("a_port", "b_port", "p2p", "length_m"):
        changes[k] = getattr(u, k)[cab]
    changes["a"], changes["b"] = new[u.a[cab]], new[u.b[cab]]
    for k in ("h_server", "h_port", "h_leaf_port", "h_speed"):
        changes[k] = getattr(u, k)[host]
    changes["h_leaf"] = new[u.h_leaf[host]]
    return dataclasses.replace(u, **changes)


def choose_slice(u: Underlay, max_switches: int = MAX_SWITCHES) -> tuple[np.ndarray, str | None]:
    """(switches to bring up, a sentence saying which slice, or None for the whole design).

    One plane (planes are copies); then leaves taken alternately from each pod, each with the
    switches above it, as many as fit in ``max_switches``."""
    keep = np.ones(u.n, bool)
    notes = []
    planes = np.unique(u.plane)
    if planes.size > 1:
        keep = u.plane == planes[0]
        notes.append(f"plane 1 of {planes.size} (the planes are alike)")
    if int(keep.sum()) <= max_switches:
        return keep, "; ".join(notes) or None
    up = np.zeros((u.n, u.n), bool)  # switch -> higher-tier neighbour
    lower = u.tier[u.a] < u.tier[u.b]
    up[u.a[lower], u.b[lower]] = True
    up[u.b[~lower & (u.tier[u.b] < u.tier[u.a])], u.a[~lower & (u.tier[u.b] < u.tier[u.a])]] = True
    leaves = np.flatnonzero(keep & (u.tier == 1))
    # pod of a leaf: the lowest-numbered switch above it, so leaves alternate between pods
    pod = np.array([int(np.argmax(up[x])) if up[x].any() else x for x in leaves.tolist()])
    rank = np.zeros(leaves.size, np.int64)
    for p in np.unique(pod).tolist():
        rank[pod == p] = np.arange(int((pod == p).sum()))
    order = leaves[np.lexsort((pod, rank))]
    chosen = np.zeros(u.n, bool)
    for x in order.tolist():
        trial = chosen.copy()
        trial[x] = True
        closure = trial.copy()
        frontier = trial.copy()
        while frontier.any():  # every switch above the chosen leaves, tier by tier
            frontier = up[frontier].any(axis=0) & ~closure & keep
            closure |= frontier
        if int(closure.sum()) > max_switches and int(chosen.sum()) >= 2:
            break
        chosen = trial
        final = closure
    n_leaves = int((chosen & (u.tier == 1)).sum())
    notes.append(f"{n_leaves} of {int((keep & (u.tier == 1)).sum())} leaves with every switch "
                 f"above them ({int(final.sum())} of {u.n} switches; at most {max_switches})")
    return final, "; ".join(notes)


def thin_cables(u: Underlay, max_sessions: int = MAX_SESSIONS) -> tuple[np.ndarray | None,
                                                                      str | None]:
    """(cables to keep, a sentence) when ``u`` has more switch-to-switch cables than
    ``max_sessions``: at most m parallel cables between any two switches, m as large as fits.
    The topology stays; only bundles get narrower (the expected ECMP widths follow)."""
    if u.a.size <= max_sessions:
        return None, None
    pair = np.minimum(u.a, u.b) * u.n + np.maximum(u.a, u.b)
    order = np.argsort(pair, kind="stable")
    sp = pair[order]
    start = np.r_[0, np.flatnonzero(sp[1:] != sp[:-1]) + 1]
    sizes = np.diff(np.r_[start, sp.size])
    rank = np.empty(u.a.size, np.int64)
    rank[order] = np.arange(sp.size) - np.repeat(start, sizes)
    m = int(sizes.max())
    while m > 1 and int(np.minimum(sizes, m).sum()) > max_sessions:
        m -= 1
    keep = rank < m
    return keep, (f"at most {m} of the up to {int(sizes.max())} parallel cables between two "
                  f"switches ({int(keep.sum()):,} of {u.a.size:,} sessions)")


@dataclasses.dataclass(frozen=True)
class Expected:
    leaves: np.ndarray  # switch indices of the leaves (switches with servers)
    switch_hops: np.ndarray  # (leaves, leaves): switches a packet crosses leaf to leaf
    ecmp: np.ndarray  # (leaves, leaves): equal-cost next hops (cables) at the source leaf


def expected_routes(u: Underlay, down: np.ndarray | None = None) -> Expected:
    """Shortest paths on the design's switch graph, without the switches ``down``."""
    alive = np.ones(u.n, bool) if down is None else ~down
    ok = alive[u.a] & alive[u.b]
    a, b = u.a[ok], u.b[ok]
    g = coo_matrix((np.ones(a.size), (a, b)), shape=(u.n, u.n)).tocsr()
    dist = shortest_path(g, unweighted=True, directed=False)
    leaves = u.leaves()
    leaves = leaves[alive[leaves]]
    f = np.concatenate([a, b])
    t = np.concatenate([b, a])
    d_to = dist[:, leaves]
    on_path = d_to[t] == d_to[f] - 1  # (cable ends, leaves)
    width = np.zeros((u.n, leaves.size), np.int64)
    np.add.at(width, f, on_path.astype(np.int64))
    hops = d_to[leaves] + 1
    hops[~np.isfinite(hops)] = -1
    return Expected(leaves, hops.astype(np.int64), width[leaves])
