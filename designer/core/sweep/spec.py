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
import math
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from designer.core.safe_io import FileRefused, decode_text, read_bytes
from designer.core.sweep.errors import SweepSpecError
from designer.core.sweep.metrics import get as get_metric
from designer.core.text import plain_error, shown

MAX_POINTS = 200_000  # beyond this a table and a scatter stop being useful
MAX_SPEC_BYTES = 1024 * 1024  # a spec is a page of text
Finite = Annotated[float, Field(allow_inf_nan=False)]

Scalar = int | float | str | bool | None


class Range(BaseModel):
    """A numeric range: every ``step`` from ``min`` to ``max`` inclusive on a grid, uniform
    draws for random and Latin-hypercube sampling (integers when both ends are)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    min: Finite
    max: Finite
    step: Finite | None = Field(default=None, gt=0)

    @property
    def integer(self) -> bool:
        return float(self.min).is_integer() and float(self.max).is_integer() and (
            self.step is None or float(self.step).is_integer())

    def count(self) -> int:
        """How many values the grid has, counted, never listed (``max: 1e9`` is a typo that
        would otherwise fill the memory before any check)."""
        if self.max < self.min:
            return 0
        n = (self.max - self.min) / (self.step or 1.0) + 1e-9
        return int(n) + 1 if math.isfinite(n) and n < 2**62 else 2**62

    def value(self, i: int) -> Scalar:
        v = self.min + i * (self.step or 1.0)
        return round(v) if self.integer else v

    def grid(self) -> list[Scalar]:
        n = self.count()
        if n > MAX_POINTS:
            raise SweepSpecError(f"the range {self.min:g} to {self.max:g} has {n:,} values "
                                 f"(at most {MAX_POINTS:,}); give a step or a smaller range")
        return [self.value(i) for i in range(n)]

    def at(self, u: float) -> Scalar:
        """The value at fraction ``u`` in [0, 1) of the range (on the step when given)."""
        if self.step is not None or self.integer:
            n = self.count()
            return self.value(min(n - 1, int(u * n)))
        return self.min + u * (self.max - self.min)


Axis = list[Scalar] | Range


class SweepSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    name: str = Field(default="Sweep", max_length=200)
    generate: list[dict[str, Any]] = Field(min_length=1, max_length=100)
    prices: dict[str, Finite | list[Finite] | Range] = Field(default_factory=dict)
    workloads: list[dict[str, Any]] | None = None
    sampling: Literal["grid", "random", "lhs"] = "grid"
    samples: int = Field(default=100, ge=1, le=MAX_POINTS)
    seed: int = Field(default=0, ge=0, le=2**32 - 1)
    constraints: dict[str, Finite] = Field(default_factory=dict)
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
        where = shown(".".join(str(x) for x in err["loc"]) or "spec", 120)
        raise SweepSpecError(f"{where}: {shown(plain_error(err), 300)}"
                             ) from None
    for i, name in enumerate(spec.objectives):
        get_metric(name, f"objectives[{i}]")
    if len(set(spec.objectives)) != len(spec.objectives):
        raise SweepSpecError("objectives: a figure is named twice")
    for key in spec.constraints:
        parse_constraint(key)
    return spec


class _NoAliases(yaml.SafeLoader):
    """YAML without anchors and aliases: a spec has no use for them, and nine aliases nested
    eight deep make a list of 43 million items from 200 bytes (a "billion laughs")."""

    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise SweepSpecError(f"line {event.start_mark.line + 1}: YAML aliases (*name) are "
                                 "not allowed in a spec; write the values out")
        return super().compose_node(parent, index)


def load_yaml(text: str) -> Any:
    """YAML (or JSON) text as data, aliases refused (see ``_NoAliases``)."""
    return yaml.load(text, Loader=_NoAliases)  # a SafeLoader: builds plain data only


def loads_spec(text: str, source: str = "spec") -> SweepSpec:
    """A spec from YAML or JSON text (JSON is YAML, but its errors read better)."""
    stripped = text.lstrip()
    try:
        if stripped.startswith(("{", "[")):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                try:  # YAML's flow style looks like JSON: {generate: {kind: rail}}
                    data = load_yaml(text)
                except Exception:
                    raise exc from None
        else:
            data = load_yaml(text)
    except SweepSpecError as exc:
        raise SweepSpecError(f"{source}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise SweepSpecError(f"{source}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise SweepSpecError(f"{source}: nested too deeply to read") from None
    except Exception as exc:  # yaml.YAMLError and its kin
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SweepSpecError(f"{source}: not valid YAML ({shown(first, 200)})") from None
    return spec_from_dict(data)


def read_spec_text(path: str | Path) -> str:
    """The text of the spec file at ``path``: a regular file of at most 1 MiB, UTF-8 or (with
    its byte-order mark) UTF-16 as some editors save."""
    try:
        data = read_bytes(path, limit=MAX_SPEC_BYTES, what="sweep spec")
    except FileRefused as exc:
        raise SweepSpecError(str(exc)) from None
    try:
        return decode_text(data, shown(str(path), 200))
    except FileRefused as exc:
        raise SweepSpecError(str(exc)) from None


def load_spec(path: str | Path) -> SweepSpec:
    return loads_spec(read_spec_text(path), shown(str(path), 200))
