"""From a spec to the list of design points: axes, sampling (grid, random, Latin hypercube),
and the checks that refuse a bad spec before any work starts."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import ValidationError

from designer.core.catalog import Catalog, builtin_catalog
from designer.core.errors import DesignerError
from designer.core.generators import KINDS, params_from_dict, plan
from designer.core.generators.params import PARAMS_BY_KIND
from designer.core.sweep.errors import SweepSpecError
from designer.core.sweep.metrics import METRICS
from designer.core.sweep.spec import MAX_POINTS, Range, Scalar, SweepSpec, parse_constraint
from designer.core.text import shown

PRICE = "price:"
WORKLOAD = "workload"


@dataclass(frozen=True)
class Point:
    index: int
    block: int
    kind: str
    params: dict[str, Any]  # generator parameters, plain JSON values
    prices: dict[str, float] = field(default_factory=dict)
    workload: int | None = None  # index into spec.workloads
    seed: int = 0
    gpus: int = 0  # from the generator's plan: what the work will cost
    error: str | None = None  # the generator refused this combination
    # the plan's sizes over all planes, which the time estimate reads (sweep/cost.py)
    switches: int = 0
    links: int = 0  # every cable, endpoints' included
    endpoint_links: int = 0  # cables from a GPU server's NIC port to its switch
    planes: int = 1

    def label(self) -> str:
        parts = [self.kind] + [f"{k}={v}" for k, v in self.params.items()]
        parts += [f"{k} ${v:,.0f}" for k, v in self.prices.items()]
        if self.workload is not None:
            parts.append(f"workload {self.workload}")
        return ", ".join(parts)


def _axis(where: str, value: Any) -> list[Scalar] | Range | None:
    """``value`` as an axis, or None when it is a fixed value."""
    for v in value if isinstance(value, list | tuple) else (value,):
        if isinstance(v, float) and not math.isfinite(v):
            raise SweepSpecError(f"{where}: {v} is not a number a design can have")
        if isinstance(v, list | tuple | dict) and isinstance(value, list | tuple):
            raise SweepSpecError(f"{where}: an axis lists plain values, not lists or mappings")
    if isinstance(value, list | tuple):
        if not value:
            raise SweepSpecError(f"{where}: an empty list gives no design; give at least one value")
        if len(value) > MAX_POINTS:
            raise SweepSpecError(f"{where}: {len(value):,} values (at most {MAX_POINTS:,})")
        return list(value)
    if isinstance(value, dict | Range):
        try:
            r = value if isinstance(value, Range) else Range.model_validate(value)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            field = ".".join(str(x) for x in err["loc"])
            why = f" ({field}: {shown(err['msg'], 120)})" if field else ""
            raise SweepSpecError(f"{where}: a range is {{min: A, max: B}} with an optional "
                                 f"step, finite numbers{why}") from None
        if r.max < r.min:
            raise SweepSpecError(f"{where}: empty range (min {r.min:g} > max {r.max:g})")
        return r
    return None


def _axes(spec: SweepSpec, b: int, block: dict[str, Any], catalog: Catalog
          ) -> tuple[dict[str, Any], dict[str, list[Scalar] | Range]]:
    where = f"generate[{b}]" if len(spec.generate) > 1 else "generate"
    if "kind" not in block:
        raise SweepSpecError(f"{where}.kind: say which generator ({', '.join(KINDS)})")
    fixed: dict[str, Any] = {}
    axes: dict[str, list[Scalar] | Range] = {}
    for key, value in block.items():
        ax = _axis(f"{where}.{key}", value)
        if ax is None:
            fixed[key] = value
        else:
            axes[key] = ax
    kinds = axes.get("kind", [fixed.get("kind")])
    if isinstance(kinds, Range):
        raise SweepSpecError(f"{where}.kind: a list of generators, not a range")
    for kind in kinds:
        if kind not in KINDS:
            raise SweepSpecError(f"{where}.kind: unknown generator '{shown(str(kind), 60)}' "
                                 f"(known: {', '.join(KINDS)})")
        known = [k for k in PARAMS_BY_KIND[kind].model_fields if k != "kind"]
        for key in block:
            if key != "kind" and key not in known:
                raise SweepSpecError(f"{where}.{shown(str(key), 60)}: not a parameter of the "
                                     f"{kind} generator "
                                     f"(known: {', '.join(known)})")
    # every value of every axis must pass the generator's own checks
    first = {k: (v.value(0) if isinstance(v, Range) else v[0]) for k, v in axes.items()}
    for key, ax in axes.items():
        values = [ax.min, ax.max] if isinstance(ax, Range) else ax
        if isinstance(ax, Range) and ax.integer:
            values = [int(ax.min), int(ax.max)]
        for v in values:
            trial = fixed | first | {key: v}
            try:
                params_from_dict(str(trial.pop("kind")), trial)
            except DesignerError as exc:
                raise SweepSpecError(f"{where}.{key} = {shown(repr(v), 60)}: "
                                     f"{shown(str(exc), 300)}") from None
    for gid, price in spec.prices.items():
        if gid not in catalog:
            raise SweepSpecError(f"prices.{shown(gid, 60)}: no such gear in the catalog "
                                 "('designer catalog' lists all gear)")
        ax = _axis(f"prices.{gid}", price)
        if ax is None:
            fixed[PRICE + gid] = float(price)  # type: ignore[arg-type]
        else:
            axes[PRICE + gid] = ax
    if spec.workloads:
        axes[WORKLOAD] = list(range(len(spec.workloads)))
    return fixed, axes


def _grid(axes: dict[str, list[Scalar] | Range], where: str) -> list[dict[str, Any]]:
    # counted before anything is listed: a product of ranges can be astronomically large
    n = math.prod(v.count() if isinstance(v, Range) else len(v) for v in axes.values())
    if n > MAX_POINTS:
        raise SweepSpecError(f"{where}: the grid has {n:,} points (at most {MAX_POINTS:,}); "
                             "thin the ranges with step, or use sampling: lhs")
    lists = {k: (v.grid() if isinstance(v, Range) else v) for k, v in axes.items()}
    keys = list(lists)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*lists.values())]


def _sampled(axes: dict[str, list[Scalar] | Range], n: int, lhs: bool,
             rng: np.random.Generator) -> list[dict[str, Any]]:
    columns: dict[str, list[Any]] = {}
    for key, ax in axes.items():
        # Latin hypercube: one draw in each of n equal strata, the strata shuffled per axis
        u = (rng.permutation(n) + rng.random(n)) / n if lhs else rng.random(n)
        if isinstance(ax, Range):
            columns[key] = [ax.at(float(x)) for x in u]
        else:
            idx = np.minimum((u * len(ax)).astype(np.int64), len(ax) - 1)
            columns[key] = [ax[int(i)] for i in idx]
    return [{k: columns[k][i] for k in axes} for i in range(n)]


def point_seed(seed: int, index: int) -> int:
    """A seed per point that depends only on the spec's seed and the point's index."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def expand(spec: SweepSpec, catalog: Catalog | None = None) -> list[Point]:
    """Every point of ``spec``, planned (cheap) so that refused combinations are known now.
    Raises ``SweepSpecError`` for a spec that cannot run: an unknown parameter or figure, an
    empty axis, a value the generator refuses for every point that has it."""
    cat = catalog if catalog is not None else builtin_catalog()
    uses_workload = any(METRICS[m].workload for m in spec.objectives) or any(
        METRICS[parse_constraint(c)[0]].workload for c in spec.constraints)
    if spec.workloads and not uses_workload:
        raise SweepSpecError("workloads: no objective or constraint reads a workload "
                             "(a step-time figure would); drop workloads or add one")
    if uses_workload and not spec.workloads:
        raise SweepSpecError("workloads: an objective or constraint needs a workload; list one")
    from designer.core.errors import DesignerError
    from designer.core.sweep.decision_metrics import workload_of

    for i, w in enumerate(spec.workloads or []):
        try:
            workload_of(w)
        except DesignerError as exc:
            raise SweepSpecError(f"workloads[{i}]: {exc}") from None
    points: list[Point] = []
    seen: set[str] = set()
    discrete: set[tuple[int, str]] = set()  # (block, key) whose every value should build
    for b, block in enumerate(spec.generate):
        where = f"generate[{b}]" if len(spec.generate) > 1 else "generate"
        fixed, axes = _axes(spec, b, block, cat)
        if spec.sampling == "grid":  # sampled combinations were not chosen one by one
            discrete |= {(b, k) for k in axes}
        if spec.sampling == "grid" or not axes:
            combos = _grid(axes, where)
        else:
            rng = np.random.default_rng([spec.seed, b])
            combos = _sampled(axes, spec.samples, spec.sampling == "lhs", rng)
        for combo in combos:
            values = fixed | combo
            key = repr(sorted(values.items()))
            if key in seen:  # random draws repeat; a design is built once
                continue
            seen.add(key)
            points.append(_point(len(points), b, values, spec.seed, cat))
        if len(points) > MAX_POINTS:
            raise SweepSpecError(f"the sweep has more than {MAX_POINTS:,} points")
    _refuse_dead_values(spec, points, discrete)
    return points


def _point(index: int, block: int, values: dict[str, Any], seed: int, cat: Catalog) -> Point:
    kind = str(values["kind"])
    params = {k: v for k, v in values.items() if k != "kind" and not k.startswith(PRICE)
              and k != WORKLOAD}
    prices = {k[len(PRICE):]: float(v) for k, v in values.items() if k.startswith(PRICE)}
    try:
        pl = plan(params_from_dict(kind, params), cat)
    except DesignerError as exc:
        return Point(index, block, kind, params, prices, values.get(WORKLOAD),
                     point_seed(seed, index), error=str(exc))
    endpoint = sum(n for layer, n in pl.links.items() if layer.startswith("endpoint"))
    return Point(index, block, kind, params, prices, values.get(WORKLOAD), point_seed(seed, index),
                 pl.gpus, None, pl.total_switches, pl.total_links, endpoint, pl.planes)


def _refuse_dead_values(spec: SweepSpec, points: list[Point],
                        discrete: set[tuple[int, str]]) -> None:
    """A listed value that the generator refuses in every combination is a mistake in the
    spec (a value drawn from a sampled range is not: it was not chosen)."""
    if points and all(p.error for p in points):
        raise SweepSpecError(f"the generator refuses every point; the first: "
                             f"{points[0].label()}: {points[0].error}")
    by_value: dict[tuple[int, str, str], list[Point]] = {}
    for p in points:
        for k, v in p.params.items():
            if (p.block, k) in discrete:
                by_value.setdefault((p.block, k, repr(v)), []).append(p)
    for (b, k, v), group in by_value.items():
        if len(group) < len(points) and all(p.error for p in group):
            where = f"generate[{b}]" if len(spec.generate) > 1 else "generate"
            raise SweepSpecError(f"{where}.{k} = {v}: the generator refuses it in every "
                                 f"combination: {group[0].error}")
