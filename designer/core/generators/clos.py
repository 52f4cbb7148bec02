"""Folded-Clos (fat-tree) wiring shared by the rail-optimized and fat-tree generators.

Sizing rules (the ones that reproduce NVIDIA's DGX SuperPOD tables and Al-Fares' k-ary tree):

* every leaf has ``u1`` uplinks; the spine count S is the smallest number that gives the
  leaves enough spine ports *and divides u1*, so each leaf sends the same number of links to
  every spine (24 leaves x 32 uplinks would fit 12 spines of 64 ports, but 12 does not divide
  32: 16 spines);
* a third tier is needed once the leaves outnumber the ports of one spine; leaves are then
  grouped in pods of at most ``d2`` leaves (the spine's down ports), every pod has the same
  spine count by the rule above, and spine j of every pod joins core group j, whose size is
  again the smallest count that has the ports and divides the spine's uplinks.

Those rules can leave ports idle: with 72 spines of 32 uplinks, core groups must divide 32,
so 64-port cores give 4,096 ports for 2,304 links. A Clos keeps its full capacity without
uniform striping: the *balanced* layout (the default) takes the fewest spines and cores that
have the ports (every pod's spines hold its leaves' uplinks, the cores hold every spine's
uplinks) and spreads each switch's uplinks round-robin over the tier above, so each leaf sends
as many links to every spine of its pod as the ports allow (counts differ by at most one) and
likewise each spine to the cores. Rail and fat-tree designs use it where the uniform rule would
need more switches; where both need as many, the uniform layout is kept (and always for a
published row, an oversubscribed spine tier or ``--striping uniform``). Uneven counts are not
free: a cut that puts on one side the leaves sending one more link to a spine crosses a little less
than full bisection (``designer solve`` finds and proves the figure), and static ECMP, which
splits by link and not by where a destination hangs, loads the single links harder; the plan
says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from designer.core.errors import GeneratorError
from designer.core.generators.gear import GearChoice, SwitchChoice
from designer.core.generators.params import Ratio
from designer.core.generators.plane import (
    LinkChunk,
    Plane,
    Servers,
    SwitchRow,
    compose_ids,
    spread,
)
from designer.core.model import Role

SERVER_DX = 60.0
SERVER_DY = 60.0  # between rows of servers in a unit's grid
TRAY_DY = 22.0  # between the trays of a rack-scale system, stacked as in the rack
MAX_RACK_ROWS = 8  # servers stacked under one ToR before a second column starts
SWITCH_DX = 110.0
UNIT_GAP = 120.0
POD_GAP = 400.0
GPUS_FMT = "{:,}"


def smallest_divisor_count(uplinks: int, needed_ports: int, ports_each: int) -> int | None:
    """Smallest n dividing ``uplinks`` with ``n * ports_each >= needed_ports``."""
    for n in range(max(1, math.ceil(needed_ports / ports_each)), uplinks + 1):
        if uplinks % n == 0:
            return n
    return None


def split_ports(radix: int, ratio: Ratio) -> tuple[int, int]:
    """(down, up) ports of a ``radix``-port switch at ``ratio``. A whole ratio gives the
    largest whole multiple, exactly the ratio (64 ports at 7:1: 56 + 8; 32 at 2:1: 20 + 10);
    a decimal one the most down ports whose fewest uplinks still fit, so the tier is as
    close to the ratio as the ports allow and never above it (64 ports at 2.8:1: 47 + 17,
    2.76:1)."""
    if float(ratio.down).is_integer() and float(ratio.up).is_integer():
        m = radix // int(ratio.down + ratio.up)
        return int(ratio.down) * m, int(ratio.up) * m
    d = int(radix * ratio.down / (ratio.down + ratio.up) + 1e-9)
    while d > 0 and d + ratio.uplinks(d) > radix:
        d -= 1
    return d, ratio.uplinks(d)


@dataclass(frozen=True)
class ClosSpec:
    """``endpoints``: NIC ports of one server in one plane (a GPU's port, or a NIC that GPUs
    share). Rail designs: a *rail* is an endpoint position in a scale-up domain (``domain``
    servers: 1, or the 18 trays of an NVL72 rack), and each rail leaf of an SU takes
    ``rails_per_leaf`` rails of every domain of the SU (one for an 8-GPU server: rail i is
    NIC i; four for an NVL72 on 32-down-port leaves: the four GPUs of tray j of 8 racks)."""

    endpoints: int
    servers: int
    placement: Literal["rail", "tor"]
    unit: int  # rail: servers per SU; tor: servers per leaf
    units: int  # rail: SUs; tor: leaves
    u1: int  # uplinks of every leaf
    tiers: int
    leaves_per_pod: int
    spine_ratio: Ratio
    leaf: SwitchChoice
    upper: SwitchChoice
    reserve: int = 0  # leaf ports for appliances (rail designs), taken from free server slots
    domain: int = 1  # rail: servers of one scale-up domain
    rails_per_leaf: int = 1
    # "balanced": fewest switches, links spread as evenly as the ports allow (uniform where
    # that needs no more switches; the default of both generators); "uniform": every leaf
    # sends as many links to every spine (the published SuperPOD tables, --striping
    # uniform), whatever it leaves idle
    striping: Literal["balanced", "uniform"] = "uniform"

    @property
    def domains_per_unit(self) -> int:
        return self.unit // self.domain

    @property
    def d1(self) -> int:
        if self.placement == "rail":
            return self.rails_per_leaf * self.domains_per_unit
        return self.unit * self.endpoints

    @property
    def leaves_per_unit(self) -> int:
        if self.placement == "rail":
            return self.endpoints * self.domain // self.rails_per_leaf
        return 1

    @property
    def leaves(self) -> int:
        return self.units * self.leaves_per_unit


@dataclass(frozen=True)
class ClosPlan:
    spec: ClosSpec
    spines_per_pod: int  # 2-tier: all spines
    pods: int
    u2: int  # spine uplinks (3-tier)
    spine_down: int  # spine down ports wired for a full pod
    cores_per_group: int
    # balanced layouts: spines of each pod, cores, spine-core links (one plane)
    pod_spines: tuple[int, ...] = ()
    core_count: int = 0
    up_links: int = 0

    @property
    def balanced(self) -> bool:
        return bool(self.pod_spines)

    @property
    def spines(self) -> int:
        if self.balanced:
            return sum(self.pod_spines)
        return self.spines_per_pod * self.pods

    @property
    def cores(self) -> int:
        if self.spec.tiers != 3:
            return 0
        if self.balanced:
            return self.core_count
        return self.spines_per_pod * self.cores_per_group

    @property
    def spine_core_links(self) -> int:
        if self.spec.tiers != 3:
            return 0
        return self.up_links if self.balanced else self.spines * self.u2


def round_robin(ups: np.ndarray, n: int) -> np.ndarray:
    """counts[i, j]: links from lower switch i to upper switch j when the lower switches'
    uplinks are numbered one after another (i's are o_i .. o_i + ups_i - 1) and link t goes
    to upper switch t mod n. Each row's counts differ by at most one, and so do the column
    totals, so no upper switch gets more than ceil(sum / n) links."""
    ups = np.asarray(ups, dtype=np.int64)
    o = np.concatenate([[0], np.cumsum(ups)[:-1]])[:, None]
    j = np.arange(n, dtype=np.int64)[None, :]
    return (o + ups[:, None] - 1 - j) // n - (o - 1 - j) // n


def _pod_sizes(spec: ClosSpec) -> list[int]:
    L, Lp = spec.leaves, spec.leaves_per_pod
    pods = math.ceil(L / Lp)
    return [Lp] * (pods - 1) + [L - (pods - 1) * Lp]


def spine_downs(spec: ClosSpec, pod_spines: tuple[int, ...]) -> np.ndarray:
    """Down links of every spine (pods in order) of a balanced layout."""
    by_shape: dict[tuple[int, int], np.ndarray] = {}  # every full pod is alike
    parts = []
    for n, sp in zip(_pod_sizes(spec), pod_spines, strict=True):
        if (n, sp) not in by_shape:
            by_shape[n, sp] = round_robin(np.full(n, spec.u1), sp).sum(axis=0)
        parts.append(by_shape[n, sp])
    return np.concatenate(parts)


def _plan_balanced(spec: ClosSpec) -> ClosPlan | None:
    """The fewest spines (and cores) that hold every uplink, spread round-robin; None when
    no such layout keeps every leaf on every spine of its pod and every full pod on every
    core."""
    K2 = spec.upper.radix
    L, u1 = spec.leaves, spec.u1
    if spec.tiers == 2:
        n = math.ceil(L * u1 / K2)
        if n > u1:  # a leaf could not reach every spine: not a two-tier Clos
            return None
        return ClosPlan(spec, n, 1, 0, 0, 0, pod_spines=(n,))
    if spec.spine_ratio.value != 1:
        return None  # an oversubscribed spine tier keeps the asked ratio only when uniform
    d2, _ = split_ports(K2, spec.spine_ratio)
    if spec.leaves_per_pod > d2:
        return None
    sizes = _pod_sizes(spec)
    pod_spines = tuple(math.ceil(n * u1 / d2) for n in sizes)
    downs = spine_downs(spec, pod_spines)
    ups = downs  # 1:1 spines (checked above)
    if int((downs + ups).max()) > K2:
        return None
    U = int(ups.sum())
    C = math.ceil(U / K2)
    full_pod_ups = int(ups[: pod_spines[0]].sum())
    if len(sizes) > 1 and full_pod_ups < C:  # a full pod would miss some cores
        return None
    return ClosPlan(spec, max(pod_spines), len(sizes), int(ups.max()), int(downs.max()), 0,
                    pod_spines=pod_spines, core_count=C, up_links=U)


def plan_clos(spec: ClosSpec) -> ClosPlan:
    """The uniform layout where it needs no more switches than the balanced one (or where
    ``spec.striping`` asks for it), the balanced one otherwise."""
    try:
        uniform = _plan_uniform(spec)
    except GeneratorError:
        if spec.striping == "uniform" or spec.d1 + spec.u1 > spec.leaf.radix:
            raise
        balanced = _plan_balanced(spec)
        if balanced is None:
            raise
        return balanced
    if spec.striping == "uniform":
        return uniform
    balanced = _plan_balanced(spec)
    if balanced is None or uniform.spines + uniform.cores <= balanced.spines + balanced.cores:
        return uniform
    return balanced


def _plan_uniform(spec: ClosSpec) -> ClosPlan:
    K1, K2 = spec.leaf.radix, spec.upper.radix
    L = spec.leaves
    if spec.d1 + spec.u1 > K1:
        raise GeneratorError(
            f"a leaf needs {spec.d1} down and {spec.u1} up ports, but '{spec.leaf.model}' has "
            f"{K1}; use fewer servers per {'SU' if spec.placement == 'rail' else 'leaf'}, more "
            "oversubscription or a larger radix"
        )
    if spec.tiers == 2:
        S = smallest_divisor_count(spec.u1, L * spec.u1, K2)
        if S is None:
            limit = K2 * spec.d1
            if spec.placement == "rail":
                per_unit = spec.unit * spec.endpoints  # endpoints of an SU, one plane
                limit = (K2 // spec.leaves_per_unit) * per_unit
            raise GeneratorError(
                f"a 2-tier fabric of {K2}-port switches holds at most {limit:,} GPUs with "
                f"{spec.u1} uplinks per leaf ({L:,} leaves asked, at most {K2}); use --tiers 3 "
                "or a larger radix"
            )
        return ClosPlan(spec, S, 1, 0, 0, 0)

    d2, _u2max = split_ports(K2, spec.spine_ratio)
    Lp = spec.leaves_per_pod
    if Lp > d2:
        raise GeneratorError(
            f"a pod of {Lp} leaves needs spines with {Lp} down ports at {spec.spine_ratio}, but "
            f"'{spec.upper.model}' gives {d2}; use smaller pods or a larger spine switch"
        )
    Sp = smallest_divisor_count(spec.u1, Lp * spec.u1, d2)
    if Sp is None:
        raise GeneratorError(
            f"{Lp} leaves of {spec.u1} uplinks cannot be spread evenly over spines of {d2} "
            "down ports; use smaller pods"
        )
    pods = math.ceil(L / Lp)
    spine_down = Lp * spec.u1 // Sp
    u2 = spec.spine_ratio.uplinks(spine_down)
    if spine_down + u2 > K2:
        raise GeneratorError(
            f"spines need {spine_down} down and {u2} up ports, more than the {K2} of "
            f"'{spec.upper.model}'"
        )
    C = smallest_divisor_count(u2, pods * u2, K2)
    if C is None:
        max_gpus = K2 * Lp * spec.d1
        raise GeneratorError(
            f"a 3-tier fabric of {K2}-port switches holds at most {K2} pods ({max_gpus:,} GPUs "
            f"with these pods); {pods} pods asked. Use a larger radix, more planes or "
            "--oversubscription"
        )
    return ClosPlan(spec, Sp, pods, u2, spine_down, C)


def server_columns(spec: ClosSpec) -> int:
    """Servers of a unit stand in a grid, like racks: under the rail leaves of an SU in a
    column per rail (a column per rack of a rack-scale system), under a ToR in one column (a
    rack), so a design is not a 100:1 strip."""
    if spec.placement == "rail":
        if spec.domain > 1:  # a rack-scale domain per column: its trays stacked
            return max(1, spec.domains_per_unit)
        return max(1, min(spec.unit, spec.endpoints))
    return max(1, math.ceil(spec.unit / MAX_RACK_ROWS))


def _unit_layout(spec: ClosSpec) -> tuple[np.ndarray, float]:
    """Left x of every unit (SU or ToR) and a unit's width, with gaps between pods."""
    units_per_pod = max(1, spec.leaves_per_pod // spec.leaves_per_unit)
    width = max(server_columns(spec) * SERVER_DX, spec.leaves_per_unit * SWITCH_DX)
    gap = UNIT_GAP if spec.placement == "rail" else UNIT_GAP / 4
    idx = np.arange(spec.units)
    left = idx * (width + gap) + (idx // units_per_pod) * POD_GAP
    return left.astype(float), width


def build_clos(plan: ClosPlan, gear: GearChoice) -> tuple[Plane, Servers]:
    spec = plan.spec
    L = spec.leaves
    three = spec.tiers == 3
    Lp = spec.leaves_per_pod if three else L
    left, width = _unit_layout(spec)

    # servers and where their endpoints plug in --------------------------------------------
    E = spec.endpoints
    T = spec.domain
    s = np.arange(spec.servers)
    unit_of = s // spec.unit
    slot = s % spec.unit
    cols = server_columns(spec)
    if spec.placement == "rail" and T > 1:
        # racks side by side, each rack's trays stacked
        server_x = left[unit_of] + ((slot // T) % cols + 0.5) * (width / cols)
        server_dy = (slot % T) * TRAY_DY
    else:
        server_x = left[unit_of] + (slot % cols + 0.5) * (width / cols)
        server_dy = (slot // cols) * SERVER_DY
    ep = np.arange(spec.servers * E)
    es, ei = ep // E, ep % E
    if spec.placement == "rail":
        # rail = the endpoint's position in its domain; a leaf takes rails_per_leaf of them
        # from every domain of the SU, domain j of the SU on port (rail % r) * domains + j + 1
        r = spec.rails_per_leaf
        pos = (slot[es] % T) * E + ei
        attach_sw = unit_of[es] * spec.leaves_per_unit + pos // r
        attach_port = (pos % r) * spec.domains_per_unit + slot[es] // T + 1
    else:
        attach_sw = unit_of[es]
        attach_port = slot[es] * E + ei + 1
    leaf_pod = np.arange(L) // Lp

    def unit_groups(u: int) -> dict[str, int]:
        g = {"su": u + 1} if spec.placement == "rail" else {}
        if three and Lp >= spec.leaves_per_unit:
            g["pod"] = u * spec.leaves_per_unit // Lp + 1
        return g

    unit_group_list = [unit_groups(u) for u in range(spec.units)]
    if spec.placement == "rail" and T > 1:
        racks = -(-spec.unit // T)
        server_ids = compose_ids(
            [f"su{u + 1}-rack{r + 1}-tray" for u in range(spec.units) for r in range(racks)],
            [f"{t + 1:02d}" for t in range(T)],
            unit_of * racks + slot // T, slot % T)
    elif spec.placement == "rail":
        server_ids = compose_ids([f"su{u + 1}-node" for u in range(spec.units)],
                                 [f"{k + 1:02d}" for k in range(spec.unit)], unit_of, slot)
    else:
        server_ids = compose_ids([f"rack{u + 1}-node" for u in range(spec.units)],
                                 [str(k + 1) for k in range(spec.unit)], unit_of, slot)
    servers = Servers(server_ids, [unit_group_list[u] for u in unit_of.tolist()], server_x,
                      dy=server_dy.astype(float))

    # leaves --------------------------------------------------------------------------------
    leaf_idx = np.arange(L)
    if spec.placement == "rail":
        Lu = spec.leaves_per_unit
        leaf_unit, leaf_rail = leaf_idx // Lu, leaf_idx % Lu
        leaf_x = left[leaf_unit] + (leaf_rail + 0.5) * (width / Lu)
        leaf_ids = [
            f"su{u + 1}-leaf-r{r + 1}"
            for u, r in zip(leaf_unit.tolist(), leaf_rail.tolist(), strict=True)
        ]
        leaf_groups = [
            unit_group_list[u] | {"rail": r + 1}
            for u, r in zip(leaf_unit.tolist(), leaf_rail.tolist(), strict=True)
        ]
        if three and Lp < Lu:  # pods within an SU (rack-scale): each leaf names its own
            for g, pod in zip(leaf_groups, leaf_pod.tolist(), strict=True):
                g["pod"] = pod + 1
    else:
        leaf_x = left + width / 2
        leaf_ids = [f"rack{u + 1}-tor" for u in range(L)]
        leaf_groups = [dict(g) for g in unit_group_list]
    rows = [
        SwitchRow(
            Role.LEAF, leaf_ids, leaf_groups, leaf_x, spec.leaf.model, spec.leaf.speed_gbps, 1
        )
    ]

    if plan.balanced:
        links = _balanced_upper(plan, rows, leaf_x, leaf_pod)
    else:
        links = _uniform_upper(plan, rows, leaf_x, leaf_pod)
    plane = Plane(rows, links, attach_sw.astype(np.int32), attach_port.astype(np.int32))
    if spec.reserve:
        _add_appliances(plane, spec, left, width)
    return plane, servers


def _chunk(counts: np.ndarray, a_ids: np.ndarray, a_base: np.ndarray, b_ids: np.ndarray,
           b_base: int, speed: int, layer: str) -> LinkChunk:
    """Bundles for a lower x upper count matrix: lower i's links take its ports from
    a_base[i] in upper order, upper j's from b_base in lower order."""
    a_port = a_base[:, None] + np.cumsum(counts, axis=1) - counts
    b_port = b_base + np.cumsum(counts, axis=0) - counts
    ii, jj = np.nonzero(counts)
    return LinkChunk(a=a_ids[ii], a_port=a_port[ii, jj], b=b_ids[jj], b_port=b_port[ii, jj],
                     count=counts[ii, jj], speed_gbps=speed, layer=layer)


def _balanced_upper(plan: ClosPlan, rows: list[SwitchRow], leaf_x: np.ndarray,
                    leaf_pod: np.ndarray) -> list[LinkChunk]:
    """Spines (and cores) of a balanced layout: each pod's leaves spread round-robin over its
    own spines, every spine's uplinks round-robin over all cores."""
    spec = plan.spec
    L = spec.leaves
    three = spec.tiers == 3
    sizes = _pod_sizes(spec) if three else [L]
    ids, groups, xs, chunks = [], [], [], []
    first_leaf, first_spine = 0, L
    for p, (n, sp) in enumerate(zip(sizes, plan.pod_spines, strict=True)):
        lx = leaf_x[first_leaf:first_leaf + n]
        lo, hi = float(lx.min()) - SWITCH_DX / 2, float(lx.max()) + SWITCH_DX / 2
        xs.append(spread(sp, lo, hi - lo) if three else
                  spread(sp, float(lx.min()), float(lx.max() - lx.min())))
        ids += [f"pod{p + 1}-spine{j + 1}" if three else f"spine{j + 1}" for j in range(sp)]
        groups += [{"pod": p + 1} if three else {} for _ in range(sp)]
        counts = round_robin(np.full(n, spec.u1), sp)
        chunks.append(_chunk(counts, np.arange(first_leaf, first_leaf + n),
                             np.full(n, spec.d1 + 1), np.arange(first_spine, first_spine + sp),
                             1, spec.leaf.speed_gbps, "leaf-spine"))
        first_leaf += n
        first_spine += sp
    rows.append(SwitchRow(Role.SPINE, ids, groups, np.concatenate(xs), spec.upper.model,
                          spec.upper.speed_gbps, 2))
    if three:
        downs = spine_downs(spec, plan.pod_spines)
        ups = np.array([spec.spine_ratio.uplinks(int(d)) for d in downs])
        C = plan.cores
        core_ids = [f"core{c + 1}" for c in range(C)]
        rows.append(SwitchRow(
            Role.CORE, core_ids, [{} for _ in core_ids],
            spread(C, float(leaf_x.min()), float(leaf_x.max() - leaf_x.min())),
            spec.upper.model, spec.upper.speed_gbps, 3))
        S = len(ids)
        chunks.append(_chunk(round_robin(ups, C), np.arange(L, L + S), downs + 1,
                             np.arange(L + S, L + S + C), 1, spec.upper.speed_gbps,
                             "spine-core"))
    return chunks


def _uniform_upper(plan: ClosPlan, rows: list[SwitchRow], leaf_x: np.ndarray,
                   leaf_pod: np.ndarray) -> list[LinkChunk]:
    spec = plan.spec
    L = spec.leaves
    three = spec.tiers == 3
    Lp = spec.leaves_per_pod if three else L
    leaf_idx = np.arange(L)
    # spines --------------------------------------------------------------------------------
    Sp, pods = plan.spines_per_pod, plan.pods
    m1 = spec.u1 // Sp
    sp_pod = np.repeat(np.arange(pods), Sp)
    sp_j = np.tile(np.arange(Sp), pods)
    if three:
        pod_left = np.array([leaf_x[leaf_pod == p].min() for p in range(pods)]) - SWITCH_DX / 2
        pod_right = np.array([leaf_x[leaf_pod == p].max() for p in range(pods)]) + SWITCH_DX / 2
        spine_x = np.concatenate(
            [spread(Sp, pod_left[p], pod_right[p] - pod_left[p]) for p in range(pods)]
        )
        spine_ids = [
            f"pod{p + 1}-spine{j + 1}" for p, j in zip(sp_pod.tolist(), sp_j.tolist(), strict=True)
        ]
        spine_groups = [{"pod": p + 1} for p in sp_pod.tolist()]
    else:
        spine_x = spread(Sp, float(leaf_x.min()), float(leaf_x.max() - leaf_x.min()))
        spine_ids = [f"spine{j + 1}" for j in range(Sp)]
        spine_groups = [{} for _ in range(Sp)]
    rows.append(
        SwitchRow(
            Role.SPINE, spine_ids, spine_groups, spine_x, spec.upper.model, spec.upper.speed_gbps, 2
        )
    )

    # leaf -> spine: leaf l, spine j of its pod, m1 links, leaf ports d1 + j*m1 + 1 ...
    spine_base = L
    ll = np.repeat(leaf_idx, Sp)
    jj = np.tile(np.arange(Sp), L)
    local = ll % Lp
    links = [
        LinkChunk(
            a=ll,
            a_port=spec.d1 + jj * m1 + 1,
            b=spine_base + (ll // Lp) * Sp + jj,
            b_port=local * m1 + 1,
            count=np.full(ll.shape, m1),
            speed_gbps=spec.leaf.speed_gbps,
            layer="leaf-spine",
        )
    ]

    # cores ---------------------------------------------------------------------------------
    if three:
        C, u2 = plan.cores_per_group, plan.u2
        m2 = u2 // C
        n_core = Sp * C
        core_x = spread(n_core, float(leaf_x.min()), float(leaf_x.max() - leaf_x.min()))
        core_ids = [f"core{j + 1}-{c + 1}" for j in range(Sp) for c in range(C)]
        rows.append(
            SwitchRow(
                Role.CORE,
                core_ids,
                [{} for _ in core_ids],
                core_x,
                spec.upper.model,
                spec.upper.speed_gbps,
                3,
            )
        )
        core_base = L + pods * Sp
        sp = np.repeat(np.arange(pods * Sp), C)
        cc = np.tile(np.arange(C), pods * Sp)
        links.append(
            LinkChunk(
                a=spine_base + sp,
                a_port=plan.spine_down + cc * m2 + 1,
                b=core_base + (sp % Sp) * C + cc,
                b_port=(sp // Sp) * m2 + 1,
                count=np.full(sp.shape, m2),
                speed_gbps=spec.upper.speed_gbps,
                layer="spine-core",
            )
        )
    return links


def _add_appliances(plane: Plane, spec: ClosSpec, left: np.ndarray, width: float) -> None:
    """Management appliances (two ports each) on the leaf ports of the free server slots."""
    G = spec.endpoints  # one-server domains: a leaf per rail, rail i = endpoint i
    R = spec.reserve
    first_free = spec.servers
    r = np.arange(R)
    slot_global = first_free + r // G
    unit, slot = slot_global // spec.unit, slot_global % spec.unit
    rail = r % G
    sw = unit * G + rail
    app = r // 2
    n_app = int(app.max()) + 1
    plane.appliances = [
        (
            f"ufm{k + 1}",
            {"su": int(unit[2 * k]) + 1},
            float(left[unit[2 * k]] + width + UNIT_GAP / 2),
        )
        for k in range(n_app)
    ]
    plane.appliance_links = (
        app.astype(np.int32),
        (r % 2 + 1).astype(np.int32),
        sw.astype(np.int32),
        (slot + 1).astype(np.int32),
    )
