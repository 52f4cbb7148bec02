"""A ring collective under ECMP, as NCCL's channels and queue pairs meet the hashed paths.

NCCL lays a ring all-reduce over several channels (``channels_per_nic`` per NIC: one ring per
NIC position, doubled when the node's NVLink allows) and opens ``qps`` queue pairs per
connection (``NCCL_IB_QPS_PER_CONNECTION``, 1 by default); on RoCE each queue pair is its own
UDP flow, hashed onto one path. A channel's chunks go round its ring in a pipeline, so every
hop of a channel moves at the channel's one rate, split evenly over the connection's queue
pairs (NCCL sends messages round robin on them); the NIC shares its line rate between its
channels. Rates are max-min fair with each channel a single commodity over every link its
queue pairs were hashed onto (a channel slowed at one hot link leaves room on the others),
and the collective's network time is that of its slowest channel: its bytes are split evenly
over the channels. The slowdown against the same channels on an ideal fabric (NIC-bound) is
what the estimates apply to the network terms, which the NVLink part of a ring may hide.

NCCL does not always run a ring: for a large all-reduce across nodes its tuning picks the tree,
or NVLS-tree on NVLS-capable GPUs, whose network part is the same double binary tree over the
nodes (``src/graph/connect.cc``: ``connectTrees``, channel c on tree 0 and c + nChannels on
tree 1; ``connectNvls``, channel c on tree c % 2; the trees from ``ncclGetDtree`` in
``src/graph/trees.cc``). Every tree edge carries a flow each way (reduce up, broadcast down,
pipelined), so a NIC has up to four flows where the ring has two, each at a quarter of the line
rate instead of a half: the same hashing meets less collision. The tree's factor is computed
the same way and applies to the algorithms that run it.

A channel that finishes early frees its links, but that cannot shorten the collective: the
slowest channel's bottleneck link is full with channels all at the slowest rate (max-min
fairness gives none of them more), so they finish together and the link stays full until then;
the collective's time is the slowest channel's bytes over its initial rate.

A job rings only its own servers: with ``gpus`` set (the workload's job), the ring runs over
the first servers that hold that many GPUs (contiguous placement), so it crosses only their
ToRs and meets only their collisions; a ring over 192 ToRs meets the worst of 192.

The per-flow balls-into-bins view (one flow per link, ``designer load``) is unchanged; this
module only calls ``core.traffic``'s public functions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.analysis.nccl_model import CHANNELS_PER_NIC, QPS_PER_CONNECTION
from designer.core.analysis.workload import WorkloadError
from designer.core.catalog import Catalog, builtin_catalog
from designer.core.model import Project
from designer.core.solver.compile import Compiled, compile_project
from designer.core.traffic.maxmin import max_min_fair
from designer.core.traffic.network import build_network
from designer.core.traffic.patterns import Pattern, PatternError, gpu_server, ring
from designer.core.traffic.routing import hash_salt, route_hashed


@dataclass(frozen=True)
class RingUnderEcmp:
    channels_per_nic: int
    qps: int
    flows: int  # hashed flows (queue pairs) crossing a server boundary
    trials: int
    slowdown: float  # mean over hash seeds of the slowest channel against the ideal
    slowdown_worst: float
    channel_rates: np.ndarray  # last trial: each channel's rate over its ideal, in (0, 1]
    servers: int = 0  # servers the ring runs over (the job's, or all)
    tree_slowdown: float | None = None  # the double binary tree's factor (None: not asked)

    def label(self) -> str:
        tree = "" if self.tree_slowdown is None else \
            f", tree and NVLS-tree {self.tree_slowdown:.3f}x"
        return (f"ECMP, {self.channels_per_nic} channel(s) per NIC x {self.qps} queue pair(s) "
                f"per connection, a ring over {self.servers:,} servers: ring network time "
                f"{self.slowdown:.3f}x the ideal{tree}")


def job_servers(c: Compiled, gpus: int | None) -> tuple[np.ndarray, int]:
    """(first GPU of each server, GPU positions) of the servers a job of ``gpus`` GPUs runs
    on: the first servers that hold them (contiguous placement), all when ``gpus`` is 0."""
    srv = np.flatnonzero(c.is_server)
    held = np.cumsum(c.table.gpus[srv])
    n = srv.size if not gpus else min(int(np.searchsorted(held, gpus)) + 1, srv.size)
    return c.gpu_base[srv[:n]], int(c.table.gpus[srv[:n]].min())


def job_ring(c: Compiled, pat: Pattern, gpus: int | None) -> tuple[np.ndarray, np.ndarray, int]:
    """(src, dst, servers) of the ring a job of ``gpus`` GPUs runs: over the first servers that
    hold them (contiguous placement), GPU k of each server to GPU k of the next and the last
    back to the first, as ``ring`` lays it over the whole design."""
    base, k = job_servers(c, gpus)
    n = base.size
    if n == int(c.is_server.sum()):
        return pat.src, pat.dst, n
    pos = np.arange(k)
    src = (base[:, None] + pos[None, :]).ravel()
    dst = (np.roll(base, -1)[:, None] + pos[None, :]).ravel()
    return (src, dst, n) if n > 1 else (src[:0], dst[:0], n)


def btree_parents(n: int) -> np.ndarray:
    """Each rank's parent in NCCL's binary tree over ``n`` ranks (-1 for the root 0): a rank's
    lowest set bit b, parent (r ^ b) | 2b, or r ^ b when that is out of range
    (``ncclGetBtree``, src/graph/trees.cc)."""
    r = np.arange(n, dtype=np.int64)
    low = r & -r  # lowest set bit (0 for rank 0)
    up = (r ^ low) | (low << 1)
    up = np.where(up >= n, r ^ low, up)
    return np.where(r == 0, -1, up)


def dtree_parents(n: int) -> tuple[np.ndarray, np.ndarray]:
    """NCCL's double binary tree (``ncclGetDtree``): the binary tree, and its mirror (n even)
    or the tree shifted by one rank (n odd), so a rank inner in one is a leaf in the other."""
    first = btree_parents(n)
    r = np.arange(n, dtype=np.int64)
    if n % 2:
        up = btree_parents(n)[(r - 1) % n]
        second = np.where(up < 0, -1, (up + 1) % n)
    else:
        up = btree_parents(n)[n - 1 - r]
        second = np.where(up < 0, -1, n - 1 - up)
    return first, second


def channel_flows(c: Compiled, pat: Pattern, gpus: int | None, channels_per_nic: int,
                  algorithm: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """(src, dst, channel, channels, servers): the network hops of each NCCL channel. Ring:
    channel (k, j) runs GPU k's ring; tree: channel (k, j) runs tree j % 2 through GPU k of
    every node, an up and a down flow per edge."""
    if algorithm == "ring":
        src, dst, servers = job_ring(c, pat, gpus)
        pos = src - c.gpu_base[gpu_server(c)[src]]
        hop = np.repeat(np.arange(src.size), channels_per_nic)
        chan = pos[hop] * channels_per_nic + np.tile(np.arange(channels_per_nic), src.size)
        k = int(pos.max()) + 1 if src.size else 1
        return src[hop], dst[hop], chan, k * channels_per_nic, servers
    base, k = job_servers(c, gpus)
    trees = dtree_parents(base.size)
    srcs, dsts, chans = [], [], []
    for j in range(channels_per_nic):
        parent = trees[j % 2]
        child = np.flatnonzero(parent >= 0)
        for pos in range(k):
            a, b = base[child] + pos, base[parent[child]] + pos
            srcs += [a, b]
            dsts += [b, a]
            chans.append(np.full(2 * a.size, pos * channels_per_nic + j))
    return (np.concatenate(srcs), np.concatenate(dsts), np.concatenate(chans),
            k * channels_per_nic, base.size)


def hashed_slowdown(net, src: np.ndarray, dst: np.ndarray, channel: np.ndarray, n_channels: int,
                    qps: int, trials: int, seed: int, control=None
                    ) -> tuple[list[float], np.ndarray]:
    """Each trial's slowest channel against the ideal, and the last trial's channel rates.

    The ideal is NIC-bound: a channel gets the line rate over the most flows one NIC sends or
    receives (2 for the ring's two channels, 4 for an inner tree node's). Each flow is ``qps``
    queue pairs, each hashed onto its own path, carrying an equal share (round robin)."""
    per_nic = max(np.bincount(src).max(), np.bincount(dst).max())
    demand = np.full(n_channels, float(net.line_rate[src].min()) / per_nic)
    hop = np.repeat(np.arange(src.size), qps)
    s, d, chan = src[hop], dst[hop], channel[hop]
    slow: list[float] = []
    rates = np.ones(n_channels)
    for k in range(trials):
        rng = np.random.default_rng(seed + k)
        key = rng.integers(0, np.iinfo(np.int64).max, size=s.size).astype(np.uint64)
        routed = route_hashed(net, s, d, key, hash_salt(net, seed + k, False))
        if not routed.reached.all():
            raise WorkloadError("--under ecmp: some hops have no path in this design")
        fair = max_min_fair(chan[routed.flow], routed.link, routed.frac / qps, demand,
                            net.link_cap, None, control)
        rates = np.clip(fair.t, 1e-12, 1.0)
        slow.append(float(1.0 / rates.min()))
    return slow, rates


def _prepare(project: Project, channels_per_nic: int, qps: int, trials: int,
             catalog: Catalog | None, control):
    if channels_per_nic < 1 or qps < 1 or trials < 1:
        raise WorkloadError("channels per NIC, queue pairs per connection and trials must be "
                            "at least 1")
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    c = compile_project(project, cat, control)
    try:
        pat = ring(c)
    except PatternError as exc:
        raise WorkloadError(f"--under ecmp: {exc}") from None
    return c, pat, build_network(c, control)


def tree_under_ecmp(project: Project, *, channels_per_nic: int = CHANNELS_PER_NIC,
                    qps: int = QPS_PER_CONNECTION, trials: int = 3, seed: int = 0,
                    gpus: int | None = None, catalog: Catalog | None = None,
                    control=None) -> float:
    """The double binary tree's factor (tree and NVLS-tree), mean over hash seeds."""
    c, pat, net = _prepare(project, channels_per_nic, qps, trials, catalog, control)
    src, dst, chan, n_channels, _ = channel_flows(c, pat, gpus, channels_per_nic, "tree")
    if src.size == 0:
        return 1.0
    return float(np.mean(hashed_slowdown(net, src, dst, chan, n_channels, qps, trials, seed,
                                         control)[0]))


def ring_under_ecmp(project: Project, *, channels_per_nic: int = CHANNELS_PER_NIC,
                    qps: int = QPS_PER_CONNECTION, trials: int = 3, seed: int = 0,
                    gpus: int | None = None, catalog: Catalog | None = None,
                    tree: bool = False, control=None) -> RingUnderEcmp:
    """The ring's ECMP factor (and with ``tree`` the double binary tree's)."""
    c, pat, net = _prepare(project, channels_per_nic, qps, trials, catalog, control)
    src, dst, chan, n_channels, servers = channel_flows(c, pat, gpus, channels_per_nic, "ring")
    if src.size == 0:
        return RingUnderEcmp(channels_per_nic, qps, 0, trials, 1.0, 1.0, np.ones(1), servers,
                             1.0 if tree else None)
    slow, rates = hashed_slowdown(net, src, dst, chan, n_channels, qps, trials, seed, control)
    tree_slow = None
    if tree:
        tree_slow = tree_under_ecmp(project, channels_per_nic=channels_per_nic, qps=qps,
                                    trials=trials, seed=seed, gpus=gpus, catalog=catalog,
                                    control=control)
    return RingUnderEcmp(channels_per_nic, qps, int(src.size) * qps, trials,
                         float(np.mean(slow)), float(max(slow)), rates, servers, tree_slow)


def runs_a_tree(algorithms) -> bool:
    """Whether any of NCCL's chosen algorithms runs the double binary tree across nodes."""
    return any(a in ("tree", "nvls-tree") for a in algorithms)
