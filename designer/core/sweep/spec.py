"""The sweep spec: which designs to build and how to judge them (YAML or JSON, pydantic).

```yaml
name: Rail-optimized, IB against RoCE
generate:                     # one block, or a list of blocks (their points add up)
  kind: rail                  # a generator; a list makes it an axis too
  gear: [ib-ndr, roce-400]    # a list is an axis
  sus: {min: 1, max: 8}       # an integer range (grid: every value; step: ... to thin it)
  oversubscription: "2:1,1:1" # per-tier values stay one string
prices: {qm9700: [30000, 40000]}   # catalog id -> price or an axis of prices
sampling: grid                # grid | random | lhs (Latin hypercube)
samples: 200                  # points per block for random and lhs
seed: 0
constraints: {budget: 5e6, min_bisection_share: 0.5, max_p99_latency_us: 2.5}
objectives: [cost_per_gpu, bisection_per_gpu]
```
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from designer.core.sweep.errors import SweepSpecError
from designer.core.sweep.metrics import get as get_metric

MAX_POINTS = 200_000  # beyond this a table and a scatter stop being useful

Scalar = int | float | str | bool | None


class Range(BaseModel):
    """A numeric range: every ``step`` from ``min`` to ``max`` inclusive on a grid, uniform
    draws for random and Latin-hypercube sampling (integers when both ends are)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    min: float
    max: float
    step: float | None = Field(default=None, gt=0)

    @property
    def integer(self) -> bool:
        return float(self.min).is_integer() and float(self.max).is_integer() and (
            self.step is None or float(self.step).is_integer())

    def grid(self) -> list[Scalar]:
        step = self.step or 1.0
        n = int((self.max - self.min) / step + 1e-9) + 1
        values = [self.min + i * step for i in range(n)]
        return [round(v) for v in values] if self.integer else values

    def at(self, u: float) -> Scalar:
        """The value at fraction ``u`` in [0, 1) of the range (on the step when given)."""
        if self.step is not None or self.integer:
            values = self.grid()
            return values[min(len(values) - 1, int(u * len(values)))]
        return self.min + u * (self.max - self.min)


Axis = list[Scalar] | Range


class SweepSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    name: str = Field(default="Sweep", max_length=200)
    generate: list[dict[str, Any]] = Field(min_length=1, max_length=100)
    prices: dict[str, float | list[float] | Range] = Field(default_factory=dict)
    workloads: list[dict[str, Any]] | None = None
    sampling: Literal["grid", "random", "lhs"] = "grid"
    samples: int = Field(default=100, ge=1, le=MAX_POINTS)
    seed: int = Field(default=0, ge=0, le=2**32 - 1)
    constraints: dict[str, float] = Field(default_factory=dict)
    objectives: list[str] = Field(default_factory=lambda: ["cost_per_gpu", "bisection_per_gpu"],
                                  min_length=1, max_length=8)

    @field_validator("generate", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, dict) else value


# constraint shorthands the issue names -> (metric, bound)
CONSTRAINT_ALIASES: dict[str, tuple[str, str]] = {
    "budget": ("network_cost_usd", "max"),
    "budget_per_gpu": ("cost_per_gpu", "max"),
    "min_bisection_share": ("bisection_share", "min"),
    "max_p99_latency_us": ("p99_latency_us", "max"),
    "max_step_time": ("step_time", "max"),
}


def parse_constraint(key: str) -> tuple[str, str]:
    """``budget`` -> (network_cost_usd, max); ``min_X`` / ``max_X`` -> (X, min|max)."""
    if key in CONSTRAINT_ALIASES:
        metric, bound = CONSTRAINT_ALIASES[key]
    elif key.startswith(("min_", "max_")):
        bound, metric = key[:3], key[4:]
    else:
        raise SweepSpecError(
            f"constraints.{key}: say min_<figure> or max_<figure> (or one of "
            f"{', '.join(CONSTRAINT_ALIASES)})")
    get_metric(metric, f"constraints.{key}")
    return metric, bound


def spec_from_dict(data: Any) -> SweepSpec:
    if not isinstance(data, dict):
        raise SweepSpecError("a sweep spec is a mapping with at least 'generate'")
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in err["loc"]) or "spec"
        raise SweepSpecError(f"{where}: {err['msg'].removeprefix('Value error, ')}") from None
    for i, name in enumerate(spec.objectives):
        get_metric(name, f"objectives[{i}]")
    if len(set(spec.objectives)) != len(spec.objectives):
        raise SweepSpecError("objectives: a figure is named twice")
    for key in spec.constraints:
        parse_constraint(key)
    return spec


def loads_spec(text: str, source: str = "spec") -> SweepSpec:
    """A spec from YAML or JSON text (JSON is YAML, but its errors read better)."""
    stripped = text.lstrip()
    try:
        if stripped.startswith(("{", "[")):
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise SweepSpecError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except Exception as exc:  # yaml.YAMLError and its kin
        raise SweepSpecError(f"{source}: not valid YAML ({str(exc).splitlines()[0]})") from None
    return spec_from_dict(data)


def load_spec(path: str | Path) -> SweepSpec:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SweepSpecError(f"{p}: cannot read the spec ({exc.strerror or exc})") from None
    return loads_spec(text, str(p))
