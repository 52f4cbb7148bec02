"""Dragonfly (Kim, Dally, Scott, Abts, ISCA 2008).

``p`` GPU ports per router, ``a`` routers per group wired all-to-all, ``h`` global links per
router, ``g`` groups. Router radix k = p + a - 1 + h; at most a*h + 1 groups with one link per
group pair; N = a*p*g. Router ports: 1..p GPUs, then a-1 local ports, then h global ports.

Global arrangements: a group's global slots t = 0 .. a*h-1 (router t // h, its global port
t % h) are dealt to the other groups in an order:
* absolute: slot t goes to the t-th other group in ascending order;
* relative: slot t goes to group (i + t + 1) mod g;
* circulant: slots alternate +1, -1, +2, -2, ... around the ring of groups.
With m links per pair, slot t serves copy t // (g-1) of the pair.
"""

from __future__ import annotations

import math

import numpy as np

from designer.core.catalog import Catalog
from designer.core.errors import GeneratorError
from designer.core.generators.gear import resolve_gear
from designer.core.generators.params import DragonflyParams
from designer.core.generators.plan import Plan
from designer.core.generators.plane import LinkChunk, Plane, Servers, SwitchRow
from designer.core.model import Role

ROUTER_DX = 90.0
GROUP_GAP = 260.0
GRID_DY = 900.0


def target_group(i: np.ndarray, q: np.ndarray, g: int, arrangement: str) -> np.ndarray:
    """Group reached by slot index q (0 .. g-2 within one copy) of group i."""
    if arrangement == "absolute":
        return np.where(q < i, q, q + 1)
    if arrangement == "relative":
        return (i + q + 1) % g
    if arrangement == "circulant":
        d = q // 2 + 1
        sign = np.where(q % 2 == 0, 1, -1)
        return (i + sign * d) % g
    raise GeneratorError(f"unknown global arrangement '{arrangement}'")


def slot_of(i: np.ndarray, j: np.ndarray, g: int, arrangement: str) -> np.ndarray:
    """Inverse of ``target_group``: the slot index q of group i that reaches group j."""
    if arrangement == "absolute":
        return np.where(j < i, j, j - 1)
    if arrangement == "relative":
        return (j - i - 1) % g
    d = (j - i) % g
    if g % 2 == 0:
        half = g // 2
        return np.where(d < half, 2 * (d - 1), np.where(d == half, g - 2, 2 * (g - d - 1) + 1))
    return np.where(d <= (g - 1) // 2, 2 * (d - 1), 2 * (g - d - 1) + 1)


def plan_dragonfly(params: DragonflyParams, catalog: Catalog) -> Plan:
    gear = resolve_gear(params, catalog)
    K = gear.leaf.radix
    base = params.p or params.h or (params.a // 2 if params.a else None) or max(1, (K + 1) // 4)
    p = params.p or base
    h = params.h or base
    a = params.a or 2 * base
    k = p + a - 1 + h
    if k > K:
        raise GeneratorError(
            f"a router needs p + a - 1 + h = {p} + {a} - 1 + {h} = {k} ports, but "
            f"'{gear.leaf.model}' has {K}; lower p, a or h, or use a larger radix"
        )
    g_max = a * h + 1
    g = params.groups or g_max
    if g > g_max:
        raise GeneratorError(
            f"{g} groups need {g - 1} global links per group, but a*h = {a * h}; at most "
            f"{g_max} groups (raise a or h)"
        )
    m = params.links_per_pair or (a * h) // (g - 1)
    if m * (g - 1) > a * h:
        raise GeneratorError(
            f"{m} links per group pair need {m * (g - 1)} global ports per group, but a*h = "
            f"{a * h}; at most {(a * h) // (g - 1)}"
        )
    G = gear.endpoints_per_server  # NIC ports of a server in one plane
    T = gear.domain_servers
    N = a * p * g
    if N % (G * T):
        what = (f"{T}-tray '{gear.server.id}' racks ({G * T} ports each)" if T > 1
                else f"{G}-port servers")
        raise GeneratorError(
            f"{N:,} GPU ports (a*p*g) are not a whole number of {what}; change p, a or "
            "g, or --gpus-per-server"
        )
    gpus = N // G * gear.gpus_per_server
    P = gear.planes
    local = g * a * (a - 1) // 2
    glob = g * (g - 1) // 2 * m
    details = [
        f"p = {p}, a = {a}, h = {h}, g = {g}, router radix {k} of {K}, {m} link(s) per group "
        f"pair, {params.arrangement} arrangement",
    ]
    if a != 2 * p or a != 2 * h:
        details.append("unbalanced: a balanced dragonfly has a = 2p = 2h")
    unused = a * h - m * (g - 1)
    if unused:
        details.append(f"{unused} global port(s) per group left free")
    if gear.added:
        details.append("generic gear added to the project: " + ", ".join(x.id for x in gear.added))
    details.append(
        f"global oversubscription {_global_ratio(N, g, m)}: half the GPUs ({N // 2:,}) against "
        f"the {(g // 2) * (g - g // 2) * m:,} global links a balanced cut of the groups "
        "crosses; the routers' own endpoint:global ratio does not make it non-blocking")

    def build() -> tuple[Plane, Servers]:
        return _build(p, a, h, g, m, params.arrangement, gear)

    return Plan(
        kind="dragonfly",
        title=f"Dragonfly ({gpus:,} GPUs, {g} groups), {gear.profile.name}",
        gpus=gpus,
        servers=N // G,
        planes=P,
        switches={"router": g * a * P},
        links={"endpoint-router": N * P, "local": local * P, "global": glob * P},
        oversubscription={"router": _router_ratio(p, h), "global": _global_ratio(N, g, m)},
        details=tuple(details),
        gear=gear,
        build=build,
        domain_servers=T,
    )


def _global_ratio(n_gpus: int, g: int, m: int) -> str:
    """Endpoint capacity of half the GPUs against the global links between two halves of
    the groups (floor(g/2) x ceil(g/2) group pairs of ``m`` links), as the solver reports."""
    cross = (g // 2) * (g - g // 2) * m
    if not cross:
        return "no global links"
    q = (n_gpus / 2) / cross  # three significant figures, as the solver's ratios read
    return f"{q:.3g}:1" if q >= 1 else f"1:{1 / q:.3g}"


def _router_ratio(p: int, h: int) -> str:
    q = p / h
    return f"{q:g}:1" if q >= 1 else f"1:{h / p:g}"


def _build(p: int, a: int, h: int, g: int, m: int, arrangement: str, gear) -> tuple[Plane, Servers]:
    G = gear.endpoints_per_server
    n_routers = g * a
    N = a * p * g
    cols = max(1, math.ceil(math.sqrt(g)))
    group_w = a * ROUTER_DX
    gi = np.arange(g)
    gx = (gi % cols) * (group_w + GROUP_GAP)
    gy_row = gi // cols
    r = np.arange(n_routers)
    rg, rl = r // a, r % a
    router_x = gx[rg] + (rl + 0.5) * ROUTER_DX
    ids = [f"g{x + 1}-router{y + 1}" for x, y in zip(rg.tolist(), rl.tolist(), strict=True)]
    groups = [{"group": x + 1} for x in rg.tolist()]
    # groups in a grid: each grid row of groups sits one block lower on the canvas
    row_dy = gy_row * GRID_DY
    row = SwitchRow(
        Role.ROUTER,
        ids,
        groups,
        router_x,
        gear.leaf.model,
        gear.leaf.speed_gbps,
        1,
        dy=row_dy[rg].astype(float),
    )

    gpu = np.arange(N)
    attach_sw = (gpu // p).astype(np.int32)
    attach_port = (gpu % p + 1).astype(np.int32)

    # local all-to-all: routers x < y of one group; router x's port for y is p + idx(y)
    lx, ly = np.triu_indices(a, k=1)
    grp = np.repeat(np.arange(g), lx.size)
    x = np.tile(lx, g)
    y = np.tile(ly, g)
    local = LinkChunk(
        a=grp * a + x,
        a_port=p + (y - 1) + 1,
        b=grp * a + y,
        b_port=p + x + 1,
        count=np.ones(x.size, np.int64),
        speed_gbps=gear.leaf.speed_gbps,
        layer="local",
    )

    # global: for every group i and used slot t, the pair (i, j) copy c, emitted once (i < j)
    slots = m * (g - 1)
    t = np.tile(np.arange(slots), g)
    i = np.repeat(np.arange(g), slots)
    c, q = t // (g - 1), t % (g - 1)
    j = target_group(i, q, g, arrangement)
    keep = i < j
    i, j, c, t = i[keep], j[keep], c[keep], t[keep]
    t_back = c * (g - 1) + slot_of(j, i, g, arrangement)
    first_global = p + (a - 1) + 1
    glob = LinkChunk(
        a=i * a + t // h,
        a_port=first_global + t % h,
        b=j * a + t_back // h,
        b_port=first_global + t_back % h,
        count=np.ones(i.size, np.int64),
        speed_gbps=gear.leaf.speed_gbps,
        layer="global",
    )

    n_servers = N // G
    s = np.arange(n_servers)
    first_router = (s * G) // p
    server_group = first_router // a
    server_x = router_x[first_router] + ((s * G) % p) / max(p, 1) * ROUTER_DX
    server_ids = [
        f"g{x + 1}-node{y + 1}"
        for x, y in zip(server_group.tolist(), _rank_within(server_group).tolist(), strict=True)
    ]
    servers = Servers(
        server_ids,
        [{"group": x + 1} for x in server_group.tolist()],
        server_x,
        dy=row_dy[server_group].astype(float),
    )
    return Plane([row], [local, glob], attach_sw, attach_port), servers


def _rank_within(labels: np.ndarray) -> np.ndarray:
    """0, 1, 2 ... within each run of equal (sorted) labels."""
    starts = np.r_[0, np.flatnonzero(np.diff(labels)) + 1]
    run = np.repeat(starts, np.diff(np.r_[starts, labels.size]))
    return np.arange(labels.size) - run
