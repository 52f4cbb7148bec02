"""Problems only the solver sees: media that cannot reach, unreachable GPU pairs, switches
without uplinks, blocking tiers. Wiring problems come from ``designer.core.problems``."""

from __future__ import annotations

import numpy as np

from designer.core.links import MEDIA
from designer.core.problems import MAX_NAMED_DEVICES, Problem, Severity
from designer.core.solver.compile import TECHS, Compiled
from designer.core.solver.media import MediaPlan
from designer.core.solver.oversub import Oversubscription, ratio_text
from designer.core.solver.paths import PathStats


def _devices_of(c: Compiled, rows: np.ndarray) -> tuple[str, ...]:
    cab = c.cables
    devs = np.unique(np.r_[cab["a"][rows], cab["b"][rows]])[:MAX_NAMED_DEVICES]
    return tuple(c.fabric.devices[int(i)].id for i in devs)


def solver_problems(c: Compiled, media: MediaPlan, over: Oversubscription,
                    paths: PathStats) -> list[Problem]:
    out: list[Problem] = []
    cab = c.cables
    if c.n_gpus == 0:
        out.append(Problem(Severity.INFO, "no-gpus",
                           "the design has no GPU servers yet: bandwidth, hops and latency are "
                           "zero until servers are added and cabled"))
    elif not (c.gpu_class >= 0).any():
        out.append(Problem(Severity.INFO, "nothing-cabled",
                           "nothing is cabled yet: no GPU is connected to a switch, so "
                           "bandwidth, hops and latency are zero"))
    none = np.flatnonzero(media.medium_class == 0)
    if none.size:
        kinds = sorted({f"{TECHS[int(t)]} {int(s)}G" for t, s in
                        zip(c.cable_tech[none][:1000], cab["speed_gbps"][none][:1000],
                            strict=True)})
        out.append(Problem(Severity.WARNING, "no-medium",
                           f"{none.size:,} link(s) have no cable or optics in the catalog "
                           f"({', '.join(kinds)}); they are left out of the bill of materials",
                           _devices_of(c, none)))
    bad = np.flatnonzero(media.forced & ~media.forced_ok)
    if bad.size:
        wanted = sorted({MEDIA[int(m)] for m in cab["medium"][bad]})
        out.append(Problem(Severity.ERROR, "medium-unavailable",
                           f"{bad.size:,} link(s) ask for {', '.join(wanted)}, which their "
                           "technology does not offer (InfiniBand XDR has no DAC and no "
                           "multimode optics); the cheapest medium that reaches is costed",
                           _devices_of(c, bad)))
    far = np.flatnonzero((media.medium_class > 0) & ~media.reach_ok)
    if far.size:
        out.append(Problem(Severity.WARNING, "medium-reach",
                           f"{far.size:,} link(s) are longer ({media.length_m[far].max():,.0f} m"
                           " at most) than their medium reaches",
                           _devices_of(c, far)))
    if paths.hops.unreachable_pairs:
        out.append(Problem(Severity.ERROR, "gpus-unreachable",
                           f"{paths.hops.unreachable_pairs:,} pair(s) of GPUs cannot reach each "
                           "other: the fabric is in separate pieces"))
    # switches below the top of their fabric with no uplinks while their tier has some
    tier = c.switch_tier
    no_up = (over.up_gbps <= 0) & (over.down_gbps > 0)
    has_up_tier = {int(t) for t in np.unique(tier[over.up_gbps > 0])}
    lonely = np.flatnonzero(no_up & np.isin(tier, list(has_up_tier)))
    if lonely.size:
        out.append(Problem(Severity.WARNING, "no-uplinks",
                           f"{lonely.size:,} switch(es) carry GPUs or lower tiers but have no "
                           "uplinks while others of their tier do",
                           tuple(c.fabric.devices[int(c.sw[i])].id
                                 for i in lonely[:MAX_NAMED_DEVICES])))
    for name, t in over.by_tier.items():
        if t.blocking:
            out.append(Problem(Severity.INFO, "oversubscribed",
                               f"{name} tier is oversubscribed up to {ratio_text(t.worst)} "
                               f"(typical {ratio_text(t.typical)})"))
    if not paths.verified:
        out.append(Problem(Severity.INFO, "paths-searched-per-class",
                           "symmetry did not hold everywhere: distances were searched from "
                           "every GPU class (exact, slower)"))
    return out
