"""The spares policy: how many of each class of part to buy again as spares.

A rule is a percentage of the installed quantity or a count per N installed, rounded up (one
spare as soon as a class has any part). The defaults and their basis:

* optics (transceivers, laser modules): 10%. Imbue's report on building its 70B-model cluster
  (2024) saw InfiniBand optics fail at about 3% a week in the first weeks; 10% covers about a
  month of such failures while returns are replaced. A field report, not a failure-rate study
  [M]; after burn-in far fewer fail, so a steady-state stock can be smaller.
* copper cables and fibres: 5%: cut, bent or mis-measured ones at installation. No published
  rate found: an assumption.
* NICs: 2%: no public field rate for NICs found; Meta's RSC studies (Kokolis et al., HPCA
  2025) keep about 5% spare capacity for whole GPU servers, a NIC being one of their many
  parts. An assumption.
* switches: 1 per 32 installed (at least one of each model): a spare chassis to swap while one
  is returned. An assumption; a support contract with next-day replacement makes it optional.
"""

from __future__ import annotations

import math
import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from designer.core.errors import DesignerError

# the BOM categories each class of the policy covers
CLASSES: dict[str, tuple[str, ...]] = {
    "optics": ("transceiver", "laser"),
    "cables": ("cable", "fibre"),
    "nics": ("nic",),
    "switches": ("switch",),
}
# a category's class (the policy is kept per category: the older files' key)
CLASS_OF = {cat: cls for cls, cats in CLASSES.items() for cat in cats}


class SpareRule(BaseModel):
    """``pct`` % of the installed quantity, or ``count`` for every ``per`` installed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pct: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None
    count: int | None = Field(default=None, ge=0, le=10_000)
    per: int | None = Field(default=None, ge=1, le=1_000_000)

    @model_validator(mode="after")
    def _one_kind(self) -> SpareRule:
        if (self.pct is None) == (self.count is None):
            raise ValueError("a spares rule is a percentage or a count per N, one of the two")
        if (self.count is None) != (self.per is None):
            raise ValueError("a count of spares needs its 'per' (1 per 32 installed)")
        return self

    def quantity(self, installed: int) -> int:
        """Spares for ``installed`` parts: rounded up, so any share of a part is one part."""
        if installed <= 0:
            return 0
        if self.pct is not None:
            share = installed * self.pct / 100.0
        else:
            share = installed * self.count / self.per  # type: ignore[operator]
        return math.ceil(share - 1e-9)

    @property
    def label(self) -> str:
        if self.pct is not None:
            return f"{self.pct:g}%"
        return f"{self.count} per {self.per}"


DEFAULT_RULES: dict[str, SpareRule] = {
    "transceiver": SpareRule(pct=10.0),
    "laser": SpareRule(pct=10.0),
    "cable": SpareRule(pct=5.0),
    "fibre": SpareRule(pct=5.0),
    "nic": SpareRule(pct=2.0),
    "switch": SpareRule(count=1, per=32),
}
BASIS: dict[str, str] = {
    "optics": "about 3% of InfiniBand optics failed a week in the first weeks (Imbue, 70B "
              "cluster report, 2024); 10% covers a month of returns [M]",
    "cables": "cut, bent or mis-measured at installation; no published rate found "
              "(assumption)",
    "nics": "no public NIC field rate found; whole-server spares of about 5% at Meta (Kokolis "
            "et al., HPCA 2025) (assumption)",
    "switches": "one chassis to swap while one is returned; optional with next-day "
                "replacement support (assumption)",
}

_PCT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*$")
_PER = re.compile(r"^\s*([0-9]+)\s*(?:/|per)\s*([0-9]+)\s*$")


class SparesError(DesignerError):
    """A spares rule given as text that is not one; the message names it."""


def parse_rule(text: str) -> SpareRule:
    """``10%`` or ``1/32`` (``1 per 32``)."""
    m = _PCT.match(text)
    try:
        if m:
            return SpareRule(pct=float(m.group(1)))
        m = _PER.match(text)
        if m:
            return SpareRule(count=int(m.group(1)), per=int(m.group(2)))
    except ValidationError as exc:  # out of range
        msg = exc.errors(include_url=False)[0]["msg"]
        raise SparesError(f"'{text}': {msg}") from None
    raise SparesError(f"'{text}' is not a spares rule: give a percentage (10%) or a count "
                      "per N installed (1/32)")


def parse_assignment(text: str) -> dict[str, SpareRule]:
    """``optics=10%`` or ``switch=1/32``: the categories of a class (or one category) and
    their rule."""
    if "=" not in text:
        raise SparesError(f"'{text}': give CLASS=RULE, e.g. optics=10% or switches=1/32")
    key, rule = (x.strip() for x in text.split("=", 1))
    cats = CLASSES.get(key.lower()) or ((key.lower(),) if key.lower() in CLASS_OF else None)
    if cats is None:
        known = ", ".join([*CLASSES, *CLASS_OF])
        raise SparesError(f"'{key}' is no class of spares (known: {known})")
    r = parse_rule(rule)
    return dict.fromkeys(cats, r)
