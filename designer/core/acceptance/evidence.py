"""Causes found in as-built data, for an acceptance miss: the cabling diff against the plan
(``ibnetdiscover`` output, LLDP neighbour tables or an as-built project, as ``designer diff``
reads them) and, from ``ibnetdiscover`` output, links that came up slower than designed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from designer.core.acceptance.check import Cause
from designer.core.as_built import load_as_built
from designer.core.catalog import Catalog
from designer.core.infiniband.diff import diff_projects
from designer.core.model import Project

SHOWN = 5


def as_built_causes(project: Project, catalog: Catalog, path: str | Path) -> list[Cause]:
    p = Path(path)
    built = load_as_built(p, catalog)
    diff = diff_projects(project, built, catalog)
    out: list[Cause] = []
    n_mis, n_miss = len(diff.miswired_plan), len(diff.missing)
    if n_mis:
        shown = "; ".join(diff.miswire_text(i) for i in range(min(SHOWN, n_mis)))
        out.append(Cause(f"{n_mis:,} miswired cable(s) against the plan",
                         f"{p.name}: {shown}" + (" ..." if n_mis > SHOWN else "")))
    if n_miss:
        shown = "; ".join(diff.cable_text(diff.missing[i]) for i in range(min(SHOWN, n_miss)))
        out.append(Cause(f"{n_miss:,} planned cable(s) missing or down",
                         f"{p.name}: {shown}" + (" ..." if n_miss > SHOWN else "")))
    out += _slow_links(project, catalog, p)
    return out


def _slow_links(project: Project, catalog: Catalog, path: Path) -> list[Cause]:
    """Links ibnetdiscover reports below the design's port speed."""
    if path.is_dir():
        return []
    from designer.core.infiniband.netfile import NetfileError, read_netfile

    try:
        ib = read_netfile(path)
    except (NetfileError, OSError, ValueError):
        return []  # not ibnetdiscover output: LLDP tables carry no link rate
    speeds = project.fabric.links.speed_gbps
    if not len(speeds) or not len(ib.speed_gbps):
        return []
    want = int(np.median(speeds))
    slow = np.flatnonzero((ib.speed_gbps > 0) & (ib.speed_gbps < want))
    if not slow.size:
        return []
    shown = "; ".join(f"{ib.desc[int(ib.a[i])]} [{int(ib.a_port[i])}] <-> "
                      f"{ib.desc[int(ib.b[i])]} [{int(ib.b_port[i])}] at "
                      f"{int(ib.speed_gbps[i])}G" for i in slow[:SHOWN])
    return [Cause(f"{slow.size:,} link(s) slower than the design's {want}G",
                  f"{path.name}: {shown}" + (" ..." if slow.size > SHOWN else "") +
                  "; reseat or replace the cable or optic, check the port's configured speed")]
