"""Placement policies: which free GPUs a job gets.

- ``pack`` (topology-aware): the smallest level (server, scale-up domain, leaf group, pod,
  the cluster) with a group that holds the job; of those groups the one with the fewest free
  GPUs that still fit (best fit, which keeps large holes for large jobs); inside it the GPUs of
  the emptiest lower groups first, so the job spans as few servers, domains and leaves as it
  can. What Slurm's topology plugin and Kubernetes' topology-aware schedulers aim for.
- ``first-fit``: the free GPUs with the lowest numbers: blind to the topology, it fragments as
  jobs come and go.
- ``scattered``: free GPUs drawn at random (a scheduler that balances load, not locality).
- ``trace``: the trace's own hosts mapped onto the design's servers (same ToR, same leaf
  group); a job without one, or whose hosts are busy, is packed.
Every policy takes GPUs only from ``free`` (neither busy nor failed).
"""

from __future__ import annotations

import numpy as np

from designer.core.cluster.topology import Topology

POLICIES = ("pack", "first-fit", "scattered", "trace")


def place(policy: str, topo: Topology, free: np.ndarray, need: int,
          rng: np.random.Generator, wanted: np.ndarray | None = None) -> np.ndarray | None:
    """GPU numbers for a job of ``need`` GPUs, or None when too few are free."""
    if policy == "first-fit":
        return _lowest(free, need)
    idx = np.flatnonzero(free)
    if idx.size < need:
        return None
    if policy == "trace" and wanted is not None and wanted.size == need and free[wanted].all():
        return np.sort(wanted)
    if policy == "scattered":
        return np.sort(rng.choice(idx, need, replace=False))
    return _pack(topo, free, idx, need)


def _lowest(free: np.ndarray, need: int) -> np.ndarray | None:
    """The ``need`` free GPUs with the lowest numbers, looked for from the first free one in
    a window widened until it holds them (a replay places thousands of small jobs: a pass
    over every GPU for each added up)."""
    if not free.size:
        return None
    lo = int(free.argmax())  # the first free GPU (0 when none is)
    width = max(2 * need, 256)
    while True:
        hi = min(free.size, lo + width)
        got = np.flatnonzero(free[lo:hi])
        if got.size >= need:
            return got[:need] + lo
        if hi == free.size:
            return None
        width *= 4


def _pack(topo: Topology, free: np.ndarray, idx: np.ndarray, need: int) -> np.ndarray:
    for level in ("server", "domain", "leaf", "pod", "cluster"):
        lab = topo.labels(level)
        cnt = np.bincount(lab[idx], minlength=int(lab.max(initial=0)) + 1)
        fit = np.flatnonzero(cnt >= need)
        if fit.size:
            best = fit[np.argmin(cnt[fit])]  # best fit: the tightest group that holds it
            pick = idx[lab[idx] == best]
            break
    # inside it: the emptiest leaf, domain and server first (fewest of each spanned)
    keys = []
    for level in ("server", "domain", "leaf", "pod"):
        lab = topo.labels(level)[pick]
        cnt = np.bincount(lab)
        keys += [lab, -cnt[lab]]
    order = np.lexsort(tuple(keys))  # last key is primary: pod, then leaf, domain, server
    return np.sort(pick[order[:need]])


def trace_slots(topo: Topology, hosts: list[str]) -> dict[str, int]:
    """Design server for each trace host: hosts named ``switches/host`` (Lingjun) keep their
    ToR group together and start a new leaf group where their ToR changes; others fill servers
    in order."""
    order = np.lexsort((np.arange(topo.server_device.size),
                        np.bincount(topo.server, weights=topo.leaf,
                                    minlength=topo.server_device.size)
                        / np.maximum(np.bincount(topo.server), 1)))
    srv_leaf = (np.bincount(topo.server, weights=topo.leaf) /
                np.maximum(np.bincount(topo.server), 1)).astype(np.int64)
    out: dict[str, int] = {}
    k = 0
    last_group = None
    for h in sorted(hosts) if any("/" in h for h in hosts) else hosts:
        group = h.rpartition("/")[0]
        if last_group is not None and group != last_group and "/" in h and k < order.size:
            cur = srv_leaf[order[k - 1]] if k else -1
            while k < order.size and srv_leaf[order[k]] == cur:
                k += 1  # the next ToR starts on the next leaf group
        last_group = group
        if k >= order.size:
            k = 0  # more hosts than servers: wrap (a trace from a larger cluster)
        out[h] = int(order[k])
        k += 1
    return out


def wanted_gpus(topo: Topology, slots: dict[str, int], placed) -> np.ndarray:
    """The design GPUs a trace job's hosts stand for: on each mapped server its first GPUs."""
    srv_first = np.searchsorted(topo.server, np.arange(topo.server_device.size))
    per = np.bincount(topo.server, minlength=topo.server_device.size)
    out = []
    for host, n in placed:
        s = slots.get(host)
        if s is None:
            return np.empty(0, np.int64)
        out.append(srv_first[s] + np.arange(min(n, int(per[s]))))
    return np.concatenate(out) if out else np.empty(0, np.int64)
