"""``solve(project)``: every figure the window shows and ``designer solve`` prints.

A pure function of a project snapshot: compile once, then oversubscription, bisection,
paths (hops and latency), media, bill of materials and problems. Progress and cancellation
go through ``Control``; a cancelled solve raises ``SolveCancelled``.
"""

from __future__ import annotations

import numpy as np

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.gcpause import collector_paused
from designer.core.model import Project
from designer.core.physical.extras import with_extras
from designer.core.physical.racks import floor_problems
from designer.core.problems import find_problems
from designer.core.scaleup.problems import domain_problems
from designer.core.solver.bisection import solve_bisection
from designer.core.solver.bom import bill_of_materials
from designer.core.solver.compile import ROLES, compile_project
from designer.core.solver.control import CancelledFn, Control, ProgressFn
from designer.core.solver.forwarding import rail_forwarding
from designer.core.solver.media import choose_media
from designer.core.solver.oversub import oversubscription, with_global_cut
from designer.core.solver.paths import path_stats
from designer.core.solver.problems import solver_problems
from designer.core.solver.result import LinkCounts, Result, SwitchCounts
from designer.core.solver.utilisation import port_use, stranded_problems


def solve(
    project: Project,
    progress: ProgressFn | None = None,
    cancelled: CancelledFn | None = None,
    catalog: Catalog | None = None,
) -> Result:
    """Analyse ``project``. ``catalog`` is the resolved catalog (default: the built-in one
    with the project's overrides). ``progress(fraction, stage)`` is called as stages advance;
    when ``cancelled()`` turns true the solve stops with ``SolveCancelled``."""
    ctl = Control(progress, cancelled)
    ctl.stage("compile", 0.0, 0.1)
    cat = catalog if catalog is not None else project.catalog(builtin_catalog())
    with collector_paused():
        c = compile_project(project, cat, ctl)
    ctl.stage("oversubscription", 0.1, 0.15)
    over = oversubscription(c)
    ctl.stage("bisection", 0.15, 0.55)
    bis = solve_bisection(c, ctl)
    forwarding = rail_forwarding(c, c.domains.summary.gbytes_s)
    over = with_global_cut(over, c, bis.full_gbps, bis.gbps)
    ctl.stage("hops and latency", 0.55, 0.8)
    paths = path_stats(c, ctl)
    ctl.stage("media", 0.8, 0.88)
    media = choose_media(project, compiled=c)
    ctl.stage("bill of materials", 0.88, 0.94)
    bom = with_extras(c, bill_of_materials(c, media, ctl))
    ctl.stage("problems", 0.94, 1.0)
    problems = find_problems(c.fabric, cat, c.table, c.cables)
    ctl.check()
    problems += solver_problems(c, media, over, paths)
    problems += floor_problems(project, cat)
    problems += domain_problems(c)
    ports = port_use(c)
    problems += stranded_problems(ports)

    sw_roles = c.role[c.sw]
    by_tier = {ROLES[int(r)].value: int(n) for r, n in
               zip(*np.unique(sw_roles, return_counts=True), strict=True)}
    by_model = dict(sorted(c.table.models(c.is_switch).items()))
    layer_counts = np.bincount(c.cable_layer, minlength=len(c.layers))
    by_layer = {c.layers[i]: int(n) for i, n in enumerate(layer_counts) if n}
    servers = int(c.is_server.sum())
    appliances = int((c.is_endpoint & ~c.is_server).sum())
    timings = ctl.finish()
    return Result(
        name=project.name,
        gpus=c.n_gpus,
        servers=servers,
        appliances=appliances,
        unconnected_gpus=int((c.gpu_class < 0).sum()),
        switches=SwitchCounts(int(c.n_switches), by_tier, by_model),
        links=LinkCounts(int(c.cables["a"].shape[0]), by_layer),
        bisection=bis,
        oversubscription=over,
        hops=paths.hops,
        latency=paths.latency,
        bom=bom,
        power_w=bom.power_w,
        power_by_category=bom.power_by_category,
        rack_units=bom.rack_units,
        problems=tuple(problems),
        timings=timings,
        media=media,
        path_searches=paths.searches,
        path_colours=paths.colours,
        path_verified=paths.verified,
        path_method=paths.method,
        cables=bom.cables,
        ports=ports,
        domains=c.domains.summary,
        rail_forwarding=forwarding,
    )
