"""Oversubscription: capacity facing down / capacity facing up, per switch, tier and path.

Down is everything toward the endpoints: GPU and appliance links and links to lower tiers.
Up is links to higher tiers. A dragonfly router's down is its endpoint capacity and its up
its global capacity (links to routers of other groups); its local links are neither. Links
between switches of the same tier count neither way. The end-to-end figure is the worst
product, along a path that climbs from a GPU switch to the top, of each switch's ratio
(ratios below 1 count as 1: spare uplink at one tier does not undo a bottleneck below).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from designer.core.model import Role
from designer.core.solver.compile import ROLE_CODE, ROLES, Compiled


def ratio_text(x: float | None) -> str:
    if x is None or not np.isfinite(x):
        return "no uplinks"
    if x >= 1:
        return f"{x:.3g}:1"
    return f"1:{1 / x:.3g}"


@dataclass(frozen=True)
class TierOversub:
    worst: float
    typical: float  # median
    switches: int  # switches of this tier with uplinks
    blocking: bool

    def to_json(self) -> dict:
        return {
            "worst": round(self.worst, 6),
            "typical": round(self.typical, 6),
            "ratio": ratio_text(self.worst),
            "switches": self.switches,
            "blocking": self.blocking,
        }


@dataclass(frozen=True)
class Oversubscription:
    worst: float  # end to end, 1.0 when non-blocking
    by_tier: dict[str, TierOversub]
    blocking_tiers: tuple[str, ...]
    # per switch index (into Compiled.sw): Gb/s down and up, ratio (nan without uplinks)
    down_gbps: np.ndarray = field(repr=False, compare=False)
    up_gbps: np.ndarray = field(repr=False, compare=False)
    ratio: np.ndarray = field(repr=False, compare=False)
    worst_switches: tuple[tuple[str, float], ...] = ()
    # dragonflies: endpoint capacity of half the GPUs against the global links a balanced
    # cut crosses (None for designs without routers)
    global_cut: float | None = None

    def to_json(self) -> dict:
        out = {
            "worst": round(self.worst, 6),
            "worst_ratio": ratio_text(self.worst),
            "by_tier": {k: v.to_json() for k, v in self.by_tier.items()},
            "blocking_tiers": list(self.blocking_tiers),
            "worst_switches": [{"device": d, "ratio": round(r, 6)} for d, r in
                               self.worst_switches],
        }
        if self.global_cut is not None:
            out["global_cut"] = {
                "ratio": round(self.global_cut, 6),
                "text": ratio_text(self.global_cut),
                "basis": GLOBAL_BASIS,
            }
        return out


def tier_name(role_code: int) -> str:
    return ROLES[role_code].value


def _sum_at(index: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    # bincount of an empty index gives integers whatever the weights; sums here are Gb/s
    return np.bincount(index, weights=weights, minlength=n).astype(np.float64, copy=False)


def oversubscription(c: Compiled) -> Oversubscription:
    S = c.n_switches
    tier = c.switch_tier.astype(np.int64)
    role = c.role[c.sw]
    is_router = role == ROLE_CODE[Role.ROUTER]
    cl = c.classes
    down = _sum_at(cl.att_switch, cl.att_cap * cl.count[cl.owner], S)
    _, app_sw, app_cap = c.appliance_att
    down += _sum_at(app_sw, app_cap, S)
    up = np.zeros(S)
    eu, ev, cap = c.edge_u, c.edge_v, c.edge_cap
    lower = tier[eu] < tier[ev]
    higher = tier[eu] > tier[ev]
    up += _sum_at(eu[lower], cap[lower], S)
    down += _sum_at(ev[lower], cap[lower], S)
    up += _sum_at(ev[higher], cap[higher], S)
    down += _sum_at(eu[higher], cap[higher], S)
    # routers: global links are "up"
    grp = c.groups.get("group")
    both = is_router[eu] & is_router[ev]
    if grp is not None:
        g = grp[c.sw]
        glob = both & ((g[eu] != g[ev]) | (g[eu] == 0))
    else:
        glob = both
    up += _sum_at(eu[glob], cap[glob], S)
    up += _sum_at(ev[glob], cap[glob], S)

    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(up > 0, down / up, np.nan)
    by_tier: dict[str, TierOversub] = {}
    for code in sorted(np.unique(role).tolist(), key=lambda r: (tier[role == r].min(), r)):
        sel = (role == code) & (up > 0) & (down > 0)
        if not sel.any():
            continue
        vals = ratio[sel]
        worst = float(vals.max())
        by_tier[tier_name(code)] = TierOversub(worst, float(np.median(vals)), int(sel.sum()),
                                               worst > 1 + 1e-9)
    # worst product along upward paths, from the top down
    e2e = np.ones(S)
    f = np.where(np.isfinite(ratio), np.maximum(ratio, 1.0), 1.0)
    for t in sorted(np.unique(tier).tolist(), reverse=True):
        at = tier == t
        best_up = np.zeros(S)
        np.maximum.at(best_up, eu[lower], e2e[ev[lower]])
        np.maximum.at(best_up, ev[higher], e2e[eu[higher]])
        e2e[at] = f[at] * np.maximum(best_up[at], 1.0)
    entry = down > 0
    worst = float(e2e[entry].max()) if entry.any() else 1.0
    order = np.argsort(-np.nan_to_num(ratio, nan=-1.0), kind="stable")[:5]
    worst_sw = tuple(
        (c.fabric.devices[int(c.sw[i])].id, float(ratio[i])) for i in order
        if np.isfinite(ratio[i]) and ratio[i] > 1 + 1e-9
    )
    blocking = tuple(k for k, v in by_tier.items() if v.blocking)
    return Oversubscription(worst, by_tier, blocking, down, up, ratio, worst_sw)


GLOBAL_BASIS = ("endpoint capacity of half the GPUs against the global links the balanced cut "
                "crosses (a router's own endpoint:global ratio misses that most global traffic "
                "crosses the cut)")


def with_global_cut(over: Oversubscription, c: Compiled, full_gbps: float,
                    cut_gbps: float) -> Oversubscription:
    """For a design with dragonfly routers, the figure that says what the routers' own 1:1
    hides: half the GPUs' capacity (``full_gbps``, N/2 x rate) against the capacity of the
    balanced cut found (``cut_gbps``, the global links it crosses). The cut is the solver's
    best, an upper bound on the true minimum, so this ratio never overstates the bottleneck.
    It becomes the end-to-end worst and a tier named ``global``."""
    routers = int((c.role[c.sw] == ROLE_CODE[Role.ROUTER]).sum())
    if routers == 0 or cut_gbps <= 0 or full_gbps <= 0:
        return over
    ratio = full_gbps / cut_gbps
    by_tier = dict(over.by_tier)
    by_tier["global"] = TierOversub(ratio, ratio, routers, ratio > 1 + 1e-9)
    blocking = tuple(k for k, v in by_tier.items() if v.blocking)
    return replace(over, worst=max(over.worst, ratio), by_tier=by_tier,
                   blocking_tiers=blocking, global_cut=ratio)
