"""The design's Clos tiers as simulators describe them: per tier the links' speed, the
switches' down and up radix, cables per switch pair (bundle), oversubscription and latency;
and the order of the hosts (cabled GPU NIC ports) leaf by leaf, port by port, which is the
order htsim numbers its hosts in.

Read from the links with numpy: the most common value per tier, since generated designs are
uniform (a partial last scalable unit keeps its full-size neighbours' figures).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from designer.core.catalog import Catalog
from designer.core.errors import DesignerError
from designer.core.model import Project, Role

TIER_ROLES = (Role.LEAF, Role.SPINE, Role.CORE)


class SimulatorInputError(DesignerError):
    """The design cannot be described in a simulator's format; the message says why."""


@dataclass(frozen=True)
class Tier:
    role: Role
    count: int
    down_gbps: int  # speed of the links below this tier
    radix_down: int
    radix_up: int  # 0 at the top
    bundle: int  # cables per (switch, switch below) pair
    link_ns: float  # propagation on the links below
    switch_ns: float


@dataclass(frozen=True)
class ClosTiers:
    hosts: int
    tiers: tuple[Tier, ...]
    pod_hosts: int
    host_server: np.ndarray  # device index of each host (htsim host order)
    host_port: np.ndarray  # that server's port number


def _mode(values) -> int:
    c = Counter(int(v) for v in values).most_common(1)
    return c[0][0] if c else 0


def clos_tiers(project: Project, catalog: Catalog) -> ClosTiers:
    devs = project.fabric.devices
    roles = [d.role for d in devs]
    if any(r is Role.ROUTER for r in roles):
        raise SimulatorInputError("a dragonfly's routers do not fit htsim's fat-tree or "
                                  "ASTRA-sim's switch tiers; export InfraGraph instead")
    present = [r for r in TIER_ROLES if r in roles]
    if len(present) < 2:
        raise SimulatorInputError("the design has one switch tier; the simulators' fat trees "
                                  "need two or three (leaf and spine, and core)")
    links = project.fabric.links
    count = links.count.astype(np.int64)
    rep = np.repeat(np.arange(len(links)), count)
    k = np.arange(rep.size) - np.repeat(np.cumsum(count) - count, count)
    a = links.a[rep].astype(np.int64)
    b = links.b[rep].astype(np.int64)
    ap = (links.a_port[rep] + k).astype(np.int64)
    bp = (links.b_port[rep] + k).astype(np.int64)
    speed = links.speed_gbps[rep].astype(np.int64)
    level = np.array([TIER_ROLES.index(r) + 1 if r in TIER_ROLES else 0 for r in roles])
    la, lb = level[a], level[b]
    lo_is_a = la <= lb
    lo = np.where(lo_is_a, a, b)
    hi = np.where(lo_is_a, b, a)
    lo_port = np.where(lo_is_a, ap, bp)
    hi_port = np.where(lo_is_a, bp, ap)
    llo, lhi = level[lo], level[hi]
    if np.any(lhi - llo != 1):
        raise SimulatorInputError("some cables skip a tier or join switches of one tier; "
                                  "htsim's fat tree joins each tier only to the next")
    length = links.length_m[rep].astype(np.float64)
    ns_per_m = project.analysis.propagation_ns_per_m
    tiers = []
    n_dev = len(devs)
    for t, role in enumerate(present):
        below = lhi == t + 1
        above = llo == t + 1
        sw = [i for i, r in enumerate(roles) if r is role]
        down = np.bincount(hi[below], minlength=n_dev)[sw]
        up = np.bincount(lo[above], minlength=n_dev)[sw]
        pair = hi[below] * n_dev + lo[below]
        _u, per_pair = np.unique(pair, return_counts=True)
        layer = "endpoint-leaf" if t == 0 else f"{present[t - 1].value}-{role.value}"
        default_m = project.analysis.default_length_m.get(layer, 0.0)
        lens = length[below]
        lens = np.where(np.isfinite(lens), lens, default_m)
        model = devs[sw[0]].model
        tech = catalog.profile(project.profile).tech if project.profile in \
            catalog.profiles else None
        spec = catalog.switch(model)
        tiers.append(Tier(role, len(sw), _mode(speed[below]), _mode(down),
                          _mode(up) if t < len(present) - 1 else 0,
                          _mode(per_pair) if t > 0 else 1,
                          float(np.median(lens)) * ns_per_m if lens.size else 0.0,
                          float(spec.latency_for(tech))))
    # hosts: cabled server ports, leaf by leaf, port by port
    to_leaf = (llo == 0) & (lhi == 1)
    order = np.lexsort((hi_port[to_leaf], hi[to_leaf]))
    host_server = lo[to_leaf][order]
    host_port = lo_port[to_leaf][order]
    hosts = int(host_server.size)
    pod = hosts
    if len(present) == 3:
        # hosts under the leaves that one spine reaches
        spine_leaf = (lhi == 2)
        leaves_of = {}
        for s, l_ in zip(hi[spine_leaf].tolist(), lo[spine_leaf].tolist(), strict=True):
            leaves_of.setdefault(s, set()).add(l_)
        down_hosts = np.bincount(hi[to_leaf], minlength=n_dev)
        pod = _mode(sum(int(down_hosts[x]) for x in ls) for ls in leaves_of.values())
    return ClosTiers(hosts, tuple(tiers), pod, host_server, host_port)
