"""Where every GPU sits in the design: its server, its scale-up domain, its leaf group and its
pod, as integer labels per GPU (the levels a topology-aware scheduler packs by).

- server: the GPU server the GPU is in.
- domain: the scale-up (NVLink) domain. A group label ``domain`` on the servers when the design
  carries one; else the workload's ``nvlink_domain`` when it spans several servers
  (consecutive servers of one leaf group); else the server itself.
- leaf group: servers whose GPUs attach to the same set of switches (the servers under one
  ToR leaf, or one scalable unit of a rail-optimized design, whose rails are its leaves).
- pod: leaf groups whose leaves reach the same set of next-tier switches (all of them in a
  two-tier design, where every leaf sees every spine).
Found from the compiled graph with numpy; nothing loops over GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.core.solver.compile import Compiled, mix64
from designer.core.traffic.patterns import gpu_server

LEVELS = ("server", "domain", "leaf", "pod", "cluster")
def _set_ids(owner: np.ndarray, member: np.ndarray, n: int) -> np.ndarray:
    """A label per owner (0..n-1) equal for owners with the same set of members."""
    pair = np.unique(owner.astype(np.int64) * (int(member.max(initial=0)) + 1) + member)
    o = pair // (int(member.max(initial=0)) + 1)
    m = pair % (int(member.max(initial=0)) + 1)
    h = np.zeros(n, np.uint64)
    with np.errstate(over="ignore"):
        np.add.at(h, o, mix64(m))
    return np.unique(h, return_inverse=True)[1].reshape(-1)


@dataclass(frozen=True, eq=False)
class Topology:
    n_gpus: int
    server: np.ndarray  # per GPU: dense server number
    domain: np.ndarray
    leaf: np.ndarray
    pod: np.ndarray
    server_device: np.ndarray  # per dense server: device index
    gpus_per_server: int
    domain_gpus: int
    connected: np.ndarray  # per GPU: has a NIC link

    def labels(self, level: str) -> np.ndarray:
        if level == "cluster":
            return np.zeros(self.n_gpus, np.int64)
        return getattr(self, level)

    def sizes(self) -> dict[str, int]:
        """Typical GPUs per group at each level (the median group)."""
        out = {}
        for lv in LEVELS:
            cnt = np.bincount(self.labels(lv))
            out[lv] = int(np.median(cnt[cnt > 0])) if cnt.size else 0
        return out


def topology(c: Compiled, domain_gpus: int = 0) -> Topology:
    """The levels of design ``c``; ``domain_gpus`` > a server's GPUs groups servers into
    scale-up domains of that size (0: the design's label, else the server)."""
    n = c.n_gpus
    dev = gpu_server(c)
    server_device, server = np.unique(dev, return_inverse=True)
    server = server.reshape(-1)
    per_srv = np.bincount(server)
    gps = int(np.median(per_srv)) if per_srv.size else 0
    cl = c.classes
    gcls = c.gpu_class
    connected = gcls >= 0
    # switches each server's GPUs attach to
    g_idx = np.flatnonzero(connected)
    n_att = cl.n_att[gcls[g_idx]] if g_idx.size else np.empty(0, np.int64)
    rep = np.repeat(g_idx, n_att)
    starts = cl.ptr[gcls[g_idx]]
    rows = np.repeat(starts, n_att) + (np.arange(rep.size) - np.repeat(np.cumsum(n_att) - n_att,
                                                                        n_att))
    sw = cl.att_switch[rows] if rows.size else np.empty(0, np.int64)
    n_srv = server_device.size
    if sw.size:
        leaf_of_srv = _set_ids(server[rep], sw, n_srv)
        # next tier: the neighbours of those switches one tier up
        tier = c.switch_tier
        nb_ptr, nb = c.indptr, c.indices
        deg = nb_ptr[sw + 1] - nb_ptr[sw]
        o = np.repeat(server[rep], deg)
        pos = np.repeat(nb_ptr[sw], deg) + (np.arange(int(deg.sum()))
                                            - np.repeat(np.cumsum(deg) - deg, deg))
        up = nb[pos]
        keep = tier[up] > tier[np.repeat(sw, deg)]
        if keep.any():
            pod_of_srv = _set_ids(np.r_[o[keep], np.arange(n_srv)],
                                  np.r_[up[keep], np.full(n_srv, c.n_switches)], n_srv)
        else:
            pod_of_srv = np.zeros(n_srv, np.int64)
    else:
        leaf_of_srv = np.arange(n_srv)
        pod_of_srv = np.zeros(n_srv, np.int64)
    leaf = leaf_of_srv[server] if n else np.empty(0, np.int64)
    pod = pod_of_srv[server] if n else np.empty(0, np.int64)
    label = c.groups.get("domain")
    if label is not None and (label[server_device] > 0).all():
        domain = np.unique(label[server_device], return_inverse=True)[1].reshape(-1)[server]
        dom = int(np.median(np.bincount(domain)))
    elif domain_gpus > gps > 0:
        per = max(1, domain_gpus // gps)
        # consecutive servers of one leaf group share a domain (a rack of trays)
        order = np.lexsort((np.arange(n_srv), leaf_of_srv))
        rank = np.empty(n_srv, np.int64)
        grp_start = np.r_[0, np.flatnonzero(np.diff(leaf_of_srv[order])) + 1]
        within = np.arange(n_srv) - np.repeat(grp_start, np.diff(np.r_[grp_start, n_srv]))
        rank[order] = leaf_of_srv[order] * (n_srv + 1) + within // per
        domain = np.unique(rank, return_inverse=True)[1].reshape(-1)[server]
        dom = per * gps
    else:
        domain = server.copy()
        dom = gps
    return Topology(n, server.astype(np.int64), domain.astype(np.int64),
                    np.unique(leaf, return_inverse=True)[1].reshape(-1).astype(np.int64),
                    np.unique(pod, return_inverse=True)[1].reshape(-1).astype(np.int64),
                    server_device, gps, dom, connected)
