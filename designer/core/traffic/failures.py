"""Failure what-if: take elements out of a copy of the design and measure what is left.

A failed switch loses every cable (it stays in the design, so GPU numbering does not move); a
failed bundle loses its cables; ``cables:K`` fails K switch-to-switch cables drawn at random;
``plane:N`` fails every switch of plane N; ``rack:N`` fails the N-th scale-up domain whole (an
NVL72 rack: power, cooling or its NVLink switch trays take all 72 GPUs; an 8-GPU server is a
domain of its own). Nothing is edited: the project is copied.

Reported: bisection retained (the solver's bisection after / before), oversubscription per
tier after the failure and its growth, GPUs stranded (every NIC link lost) and NIC links lost, the
max link utilisation and the slowdown of a pattern under the routing in use, and the money
per day it costs: a stranded GPU's hours are lost whole, and a job running ``slowdown`` times
longer does ``1 - 1/slowdown`` less work per day on every GPU still connected, at the given
$/GPU-hour (an upper bound: it treats the job as limited by the network).

The N-1 table fails each switch of one tier in turn, but only one per symmetry class: switches
alike in role, capacity down and up, neighbour count and GPUs attached give the same answer
in a generated design, so one representative stands for its class (``members`` says how many).
``rack`` as the tier fails each scale-up domain in turn, one per class of alike domains.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from designer.core.errors import DesignerError
from designer.core.limits import GPU_HOUR_USD_MAX, MAX_GROUP_LABEL, MAX_SEED
from designer.core.model import Project
from designer.core.solver.bisection import solve_bisection
from designer.core.solver.compile import ROLES, Compiled, compile_project
from designer.core.solver.oversub import oversubscription
from designer.core.text import ascii_int, shown
from designer.core.traffic.load import LoadResult, run_load
from designer.core.traffic.ranks import switch_classes

DEFAULT_USD_PER_GPU_HOUR = 2.0


class FailureError(DesignerError):
    """A failure that names an element the design does not have."""


@dataclass(frozen=True)
class WhatIf:
    failed: tuple[str, ...]  # what was failed, as given
    devices: tuple[str, ...]  # device ids failed (switches), for the canvas overlay
    cables: int  # cables lost
    bisection_retained: float
    oversubscription: dict[str, dict[str, float]]  # tier -> before, after, factor
    stranded_gpus: int
    nic_links_lost: int
    load: LoadResult | None
    money_per_day_usd: float
    usd_per_gpu_hour: float

    @property
    def slowdown(self) -> float | None:
        return self.load.slowdown if self.load is not None else None

    def to_json(self) -> dict:
        ld = self.load
        return {
            "failed": list(self.failed),
            "devices": list(self.devices),
            "cables_lost": self.cables,
            "bisection_retained": round(self.bisection_retained, 6),
            # no uplinks left reads null: JSON has no infinity
            "oversubscription": {k: {x: round(y, 6) if np.isfinite(y) else None
                                     for x, y in v.items()}
                                 for k, v in self.oversubscription.items()},
            "stranded_gpus": self.stranded_gpus,
            "nic_links_lost": self.nic_links_lost,
            "throughput": None if ld is None else {k: round(v, 6)
                                                   for k, v in ld.throughput.items()},
            "slowdown": None if ld is None or not np.isfinite(ld.slowdown)
            else round(ld.slowdown, 6),
            "max_utilisation": None if ld is None else round(ld.max_utilisation, 6),
            "pattern": None if ld is None else ld.pattern,
            "routing": None if ld is None else ld.routing,
            "money_per_day_usd": round(self.money_per_day_usd, 2),
            "usd_per_gpu_hour": self.usd_per_gpu_hour,
        }


_SPEC = re.compile(r"^(?P<kind>[a-z][a-z0-9-]*):(?P<arg>.+)$")


def resolve(c: Compiled, specs: list[str], seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(failed device indices, bool mask of cables lost) for failure specs."""
    fabric = c.fabric
    n_cab = c.cables["a"].size
    lost = np.zeros(n_cab, bool)
    devs: list[int] = []
    a, b = c.cables["a"], c.cables["b"]
    roles = {r.value for r in ROLES}
    if not 0 <= seed <= MAX_SEED:
        raise FailureError(f"the seed must be 0 to {MAX_SEED:,} (got {seed:,})")
    for raw_spec in specs:
        raw_spec = raw_spec.strip()
        m = _SPEC.match(raw_spec)
        if raw_spec in fabric.index:
            devs.append(fabric.index[raw_spec])
            continue
        spec = shown(raw_spec, 80)  # as messages show it
        if m is None:
            raise FailureError(f"--fail '{spec}': expected a device id, ROLE:N (e.g. spine:3), "
                               "rack:N, plane:N, bundle:A/B or cables:K")
        kind, arg = m["kind"], m["arg"]
        if kind in roles:
            members = np.flatnonzero(fabric.roles == kind)
            k = ascii_int(arg)
            if k is None or not 1 <= k <= members.size:
                raise FailureError(f"--fail '{spec}': the design has {members.size} {kind} "
                                   f"device(s), numbered 1..{members.size}")
            devs.append(int(members[k - 1]))
        elif kind in ("rack", "domain"):
            n_dom = c.domains.count
            k = ascii_int(arg)
            if k is None or not 1 <= k <= n_dom:
                raise FailureError(f"--fail '{spec}': the design has {n_dom:,} scale-up "
                                   f"domain(s) (racks or servers), numbered 1..{n_dom:,}")
            devs.extend(np.flatnonzero(c.domains.of_device == k - 1).tolist())
        elif kind == "plane":
            g = c.groups.get("plane")
            k = ascii_int(arg)
            sel = np.flatnonzero((g == k) & c.is_switch) if (
                g is not None and k is not None and 0 <= k <= MAX_GROUP_LABEL) \
                else np.empty(0, int)
            if not sel.size:
                raise FailureError(f"--fail '{spec}': the design has no switches in plane "
                                   f"{shown(arg, 40)}")
            devs.extend(sel.tolist())
        elif kind == "bundle":
            x, _, y = arg.partition("/")
            for d in (x, y):
                if d not in fabric.index:
                    raise FailureError(f"--fail '{spec}': no device '{shown(d, 80)}' in the "
                                       "design")
            i, j = fabric.index[x], fabric.index[y]
            sel = ((a == i) & (b == j)) | ((a == j) & (b == i))
            if not sel.any():
                raise FailureError(f"--fail '{spec}': no link between {shown(x, 80)} and "
                                   f"{shown(y, 80)}")
            lost |= sel
        elif kind == "cables":
            both = np.flatnonzero(c.is_switch[a] & c.is_switch[b])
            k = ascii_int(arg)
            if k is None or not 1 <= k <= both.size:
                raise FailureError(f"--fail '{spec}': K must be 1..{both.size} "
                                   "(switch-to-switch cables)")
            rng = np.random.default_rng(seed)
            lost[rng.choice(both, k, replace=False)] = True
        else:
            raise FailureError(f"--fail '{spec}': unknown kind '{shown(kind, 40)}' (a role "
                               "such as spine, rack, plane, bundle or cables)")
    dev = np.unique(np.array(devs, np.int64))
    if dev.size:
        lost |= np.isin(a, dev) | np.isin(b, dev)
    return dev, lost


def failed_project(c: Compiled, lost: np.ndarray) -> Project:
    """A copy of the project without the lost cables (bundles shrink or go)."""
    links = c.fabric.links
    rows = c.cables["row"]
    keep_count = links.count.astype(np.int64) - np.bincount(rows[lost], minlength=len(links))
    # a bundle that loses some cables keeps the rest, from its first port
    keep = keep_count > 0
    table = links.take(keep).replace(slice(None), count=keep_count[keep])
    return c.project.with_fabric(c.fabric.with_links(table))


def what_if(c: Compiled, specs: list[str], *, pattern: str = "permutation",
            routing: str | None = None, flows_per_pair: int = 1, trials: int = 1,
            seed: int = 0, usd_per_gpu_hour: float = DEFAULT_USD_PER_GPU_HOUR,
            with_load: bool = True, before: tuple | None = None,
            baseline: LoadResult | None = None, control=None) -> WhatIf:
    """``before``: (bisection Gb/s, Oversubscription) of the intact design and ``baseline``:
    its load result under the same options, when the caller has them (N-1 rows share them)."""
    if not 0 <= usd_per_gpu_hour <= GPU_HOUR_USD_MAX:  # also refuses NaN
        raise FailureError(f"$/GPU-hour must be 0 to {GPU_HOUR_USD_MAX:,.0f} (got "
                           f"{usd_per_gpu_hour:g})")
    dev, lost = resolve(c, specs, seed)
    after = compile_project(failed_project(c, lost), c.catalog, control)
    bis0, over0 = before if before is not None else (solve_bisection(c, control).gbps,
                                                     oversubscription(c))
    bis1 = solve_bisection(after, control).gbps
    over1 = oversubscription(after)
    tiers: dict[str, dict[str, float]] = {}
    for k, v in over0.by_tier.items():
        w = over1.by_tier.get(k)
        worst = w.worst if w is not None else float("inf")
        tiers[k] = {"before": v.worst, "after": worst,
                    "factor": worst / v.worst if v.worst > 0 else float("nan")}
    stranded = int(((c.gpu_class >= 0) & (after.gpu_class < 0)).sum())
    cab = c.cables
    nic = (c.is_server[cab["a"]] | c.is_server[cab["b"]]) & lost
    ld = None
    if with_load and after.n_gpus >= 2:
        ld = run_load(after, pattern, routing or None, flows_per_pair, trials, seed,
                      control=control)
        # compare with the intact design under the same routing
        base = baseline if baseline is not None and baseline.routing == ld.routing else \
            run_load(c, pattern, ld.routing, flows_per_pair, trials, seed, control=control)
        ld = _with_slowdown(ld, against_intact(ld, base))
    slow = ld.slowdown if ld is not None else 1.0
    lost_frac = 1 - 1 / slow if np.isfinite(slow) and slow > 0 else 1.0
    # stranded GPUs do no work at all: their hours are lost whole; the rest run slower
    working = max(c.n_gpus - stranded, 0)
    money = (stranded + max(0.0, lost_frac) * working) * 24 * usd_per_gpu_hour
    names = tuple(c.fabric.devices[int(i)].id for i in dev)
    return WhatIf(tuple(specs), names, int(lost.sum()), bis1 / bis0 if bis0 > 0 else 0.0,
                  tiers, stranded, int(nic.sum()), ld, money, usd_per_gpu_hour)


def against_intact(ld: LoadResult, base: LoadResult) -> float:
    """The failed design's slowdown against the intact design: its collective's completion
    over the intact one's. Each design's own ``slowdown`` is against its own NIC-bound ideal,
    which a failure lowers with the GPUs it leaves on fewer NIC ports (one plane of two:
    half), so the ratio of slowdowns read 1.000 where the GPUs run at half their bandwidth.
    The ratio of slowdowns remains for results without an absolute completion (all-to-all by
    GPU class)."""
    if np.isfinite(base.completion) and base.completion > 0 and not np.isnan(ld.completion):
        return ld.completion / base.completion if np.isfinite(ld.completion) else float("inf")
    return ld.slowdown / base.slowdown if base.slowdown > 0 else ld.slowdown


def _with_slowdown(ld: LoadResult, ratio: float) -> LoadResult:
    from dataclasses import replace

    return replace(ld, slowdown=ratio, slowdown_worst=max(ratio, ld.slowdown_worst))


@dataclass(frozen=True)
class N1Row:
    example: str  # a representative device
    members: int  # switches of its symmetry class
    result: WhatIf

    def to_json(self) -> dict:
        return {"example": self.example, "members": self.members} | self.result.to_json()


def domain_classes(c: Compiled) -> np.ndarray:
    """A symmetry key per scale-up domain: its system, GPUs, fabric Gb/s and GPU classes."""
    cl = c.classes
    n = c.domains.count
    rate = np.bincount(cl.dom_id, weights=cl.dom_count * cl.rate[cl.dom_class], minlength=n)
    kinds = np.bincount(cl.dom_id, minlength=n)
    model = np.unique(np.array(c.domains.spec_id, dtype=object), return_inverse=True)[1]
    keys = np.stack([model.reshape(-1).astype(np.float64), c.domains.gpus.astype(np.float64),
                     np.round(rate, 3), kinds.astype(np.float64)], axis=1)
    return np.unique(keys, axis=0, return_inverse=True)[1].reshape(-1)


def _n_minus_1_racks(c: Compiled, control=None, **kw) -> list[N1Row]:
    if not c.domains.count:
        raise FailureError("--n-1 rack: the design has no GPU servers")
    before = (solve_bisection(c, control).gbps, oversubscription(c))
    if kw.get("with_load", True) and c.n_gpus >= 2:
        kw["baseline"] = run_load(c, kw.get("pattern", "permutation"), kw.get("routing"),
                                  kw.get("flows_per_pair", 1), kw.get("trials", 1),
                                  kw.get("seed", 0), control=control)
    cls = domain_classes(c)
    rows: list[N1Row] = []
    for k in np.unique(cls).tolist():
        sel = np.flatnonzero(cls == k)
        d = int(sel[0])
        first = int(np.flatnonzero(c.domains.of_device == d)[0])
        rows.append(N1Row(c.fabric.devices[first].id, int(sel.size),
                          what_if(c, [f"rack:{d + 1}"], before=before, control=control, **kw)))
    return rows


def n_minus_1(c: Compiled, tier: str, control=None, **kw) -> list[N1Row]:
    """Fail each switch of ``tier`` (a role: leaf, spine, core, router) in turn, one per
    symmetry class; ``rack``: each scale-up domain in turn, one per class of alike domains."""
    if tier in ("rack", "domain"):
        return _n_minus_1_racks(c, control, **kw)
    roles = {r.value for r in ROLES if r.is_switch}
    if tier not in roles:
        raise FailureError(f"--n-1 '{tier}': choose a switch tier ({', '.join(sorted(roles))}) "
                           "or rack")
    members = np.flatnonzero(c.fabric.roles[c.sw] == tier)
    if not members.size:
        raise FailureError(f"--n-1 '{tier}': the design has no {tier} switches")
    over = oversubscription(c)
    before = (solve_bisection(c, control).gbps, over)
    if kw.get("with_load", True) and c.n_gpus >= 2:
        kw["baseline"] = run_load(c, kw.get("pattern", "permutation"), kw.get("routing"),
                                  kw.get("flows_per_pair", 1), kw.get("trials", 1),
                                  kw.get("seed", 0), control=control)
    cls = switch_classes(c, over)[members]
    rows: list[N1Row] = []
    for k in np.unique(cls).tolist():
        sel = members[cls == k]
        dev = c.fabric.devices[int(c.sw[sel[0]])].id
        rows.append(N1Row(dev, int(sel.size), what_if(c, [dev], before=before, control=control,
                                                      **kw)))
    return rows
