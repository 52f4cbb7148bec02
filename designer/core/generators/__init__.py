"""Fabric generators: parameters in, a wired and laid-out Project out. No Qt here.

``plan(params)`` says what will be built (cheap, for previews and errors); ``generate(params)``
builds it. Both raise ``GeneratorError`` with the limit and a way out when the parameters
cannot work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import GeneratorError
from designer.core.faces import lazy_names
from designer.core.gcpause import collector_paused
from designer.core.generators.dragonfly import plan_dragonfly
from designer.core.generators.params import (
    PARAMS_BY_KIND,
    CommonParams,
    DragonflyParams,
    FatTreeParams,
    GeneratorParams,
    RailOnlyParams,
    RailParams,
    Ratio,
)
from designer.core.generators.plan import Plan
from designer.core.generators.plane import assemble
from designer.core.generators.rail_only import plan_rail_only
from designer.core.generators.trees import plan_fat_tree, plan_rail
from designer.core.limits import MAX_CABLES, MAX_DEVICES, MAX_GPUS
from designer.core.model import GeneratorSpec, Overrides, Project
from designer.core.text import plain_error

KINDS: dict[str, Callable[[Any, Catalog], Plan]] = {
    "rail": plan_rail,
    "fat-tree": plan_fat_tree,
    "dragonfly": plan_dragonfly,
    "rail-only": plan_rail_only,
}
KIND_LABELS = {
    "rail": "Rail-optimized",
    "fat-tree": "Fat-tree / folded Clos",
    "dragonfly": "Dragonfly",
    "rail-only": "Rail-only (no spine)",
}



def params_from_dict(kind: str, values: dict[str, Any]) -> GeneratorParams:
    """Validate generator parameters given as plain values (a dialog, a project file)."""
    cls = PARAMS_BY_KIND.get(kind)
    if cls is None:
        raise GeneratorError(f"unknown generator '{kind}' (known: {', '.join(KINDS)})")
    try:
        return cls.model_validate({**values, "kind": kind})
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in err["loc"])
        option = f"--{where.replace('_', '-')}" if where else kind
        raise GeneratorError(
            f"{option}: {plain_error(err)}"
        ) from None




def plan(params: GeneratorParams, catalog: Catalog | None = None) -> Plan:
    cat = catalog if catalog is not None else builtin_catalog()
    pl = KINDS[params.kind](params, cat)
    how = {
        "dragonfly": "set --groups (or smaller --a, --p, --h)",
        "rail": "use fewer --sus or --servers",
        "fat-tree": "use fewer --gpus",
        "rail-only": "use fewer --gpus",
    }[params.kind]
    for what, n, limit in (
        ("GPUs", pl.gpus, MAX_GPUS),
        ("devices", pl.servers + pl.total_switches, MAX_DEVICES),
        ("cables", pl.total_links, MAX_CABLES),
    ):
        if n > limit:
            more = "" if what != "devices" else " (more GPUs per server needs fewer)"
            raise GeneratorError(
                f"this would build {n:,} {what}; the designer builds at most {limit:,}{more}: "
                f"{how}"
            )
    return pl


def generate(
    params: GeneratorParams, catalog: Catalog | None = None, base: Project | None = None
) -> Project:
    """A new project (or ``base`` with its fabric replaced) holding the generated fabric."""
    pl = plan(params, catalog)
    assert pl.build is not None and pl.gear is not None
    with collector_paused():
        plane, servers = pl.build()
        fabric = (pl.assembler or assemble)(plane, servers, pl.gear)
    spec = GeneratorSpec(kind=params.kind, params=params.model_dump(mode="json", exclude={"kind"}))
    added = {g.id: g for g in (base.overrides.gear if base else ())}
    added.update({g.id: g for g in pl.gear.added})
    overrides = Overrides(
        prices=dict(base.overrides.prices) if base else {}, gear=tuple(added.values())
    )
    name = params.name or (base.name if base else pl.title)
    fields: dict[str, Any] = {
        "name": name[:200],
        "profile": pl.gear.profile.id,
        "fabric": fabric,
        "generator": spec,
        "overrides": overrides,
    }
    if base is not None:
        if not base.networks:
            return base.model_copy(update=fields)
        # the other networks were built for the servers replaced: build them again
        from designer.core.networks.generate import regenerate_networks

        return regenerate_networks(base.model_copy(update=fields | {"networks": None}),
                                   base.networks, catalog)
    # the fabric was validated as it was assembled; passed to Project(...) its model
    # validator would run again (pydantic runs it on an instance too): 0.1 s at 397,152 links
    shell = Project(**{k: v for k, v in fields.items() if k != "fabric"})
    return shell.model_copy(update={"fabric": fabric})


def regenerate(
    project: Project, changes: dict[str, Any], catalog: Catalog | None = None
) -> Project:
    """Generate ``project``'s fabric again from its recorded parameters with ``changes``."""
    if project.generator is None:
        raise GeneratorError("this design was not generated, so it cannot be regenerated")
    values = dict(project.generator.params) | changes
    params = params_from_dict(project.generator.kind, values)
    cat = project.catalog(catalog if catalog is not None else builtin_catalog())
    return generate(params, cat, base=project)

# Loaded on first use (designer.core.faces): importing the package, or any module of it,
# stays as cheap as before.
_WHERE = {
    "resolve_gear": "gear",
    "GEAR_PROFILES": "params",
}
__getattr__ = lazy_names(__name__, globals(), _WHERE)

if TYPE_CHECKING:
    from designer.core.generators.gear import resolve_gear
    from designer.core.generators.params import GEAR_PROFILES

__all__ = [
    "GEAR_PROFILES",
    "KINDS",
    "KIND_LABELS",
    "PARAMS_BY_KIND",
    "CommonParams",
    "DragonflyParams",
    "FatTreeParams",
    "GeneratorParams",
    "Plan",
    "RailOnlyParams",
    "RailParams",
    "Ratio",
    "generate",
    "params_from_dict",
    "plan",
    "regenerate",
    "resolve_gear",
]
