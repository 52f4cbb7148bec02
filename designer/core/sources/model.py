"""The project's own sources: price books and latency measurements (saved with the project)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from designer.core.catalog import GearId, Tech
from designer.core.text import check_name, check_notes

Price = Annotated[float, Field(ge=0, le=1e9, allow_inf_nan=False)]
DateText = Annotated[str, Field(pattern=r"^$|^\d{4}(-\d{2}(-\d{2})?)?$")]
Currency = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
# Names and labels are printed and exported: no control characters (see core/text.py).
BookName = Annotated[str, Field(min_length=1, max_length=120), AfterValidator(check_name)]
Label = Annotated[str, Field(max_length=500), AfterValidator(check_name)]
# A supplier's own part number and a quoted lead time ("6-8 weeks", "in stock"), as written.
Sku = Annotated[str, Field(min_length=1, max_length=80), AfterValidator(check_name)]
LeadTime = Annotated[str, Field(min_length=1, max_length=60), AfterValidator(check_name)]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class PriceBook(_Frozen):
    """A supplier's quote: unit prices by catalog id, in one currency, on one date.

    ``usd_per_unit`` converts the book's currency to US dollars (1 for USD); prices are kept
    as quoted so the book can be shown as received.
    """

    name: BookName
    currency: Currency = "USD"
    usd_per_unit: float = Field(default=1.0, gt=0, le=1e6, allow_inf_nan=False)
    date: DateText = ""
    source: Label = ""  # the file it was imported from
    prices: dict[GearId, Price] = Field(default_factory=dict, max_length=10_000)
    # the supplier's SKU and lead time per part, when the quote gives them
    skus: dict[GearId, Sku] = Field(default_factory=dict, max_length=10_000)
    lead_times: dict[GearId, LeadTime] = Field(default_factory=dict, max_length=10_000)

    def usd(self, gear_id: str) -> float:
        return self.prices[gear_id] * self.usd_per_unit

    @property
    def label(self) -> str:
        when = f", {self.date}" if self.date else ""
        return f"price book '{self.name}' ({self.currency}{when})"


class LatencyMeasurement(_Frozen):
    """Latencies measured on real hardware for one technology; they replace the catalog's.

    Give per-component figures (``nic_ns`` per end, ``switch_ns`` per switch model), or an
    end-to-end one-way latency as ``ib_send_lat`` / ``ib_write_lat`` report it (half the
    round trip) with what the measured path crossed: the per-end NIC figure is then what is
    left after the switches, the cable and the serialisation of the message, halved.
    """

    tech: Tech
    nic_ns: float | None = Field(default=None, ge=0, le=1e7)
    switch_ns: dict[GearId, Annotated[float, Field(ge=0, le=1e7)]] = Field(
        default_factory=dict, max_length=64)
    end_to_end_us: float | None = Field(default=None, gt=0, le=1e4)
    switches: int = Field(default=0, ge=0, le=16)  # switches the measured path crossed
    switch_model: GearId | None = None  # which switch (default: the profile's)
    message_bytes: int = Field(default=2, ge=1, le=1 << 30)  # perftest's default size is 2 B
    speed_gbps: int | None = Field(default=None, gt=0, le=3200)
    cable_m: float = Field(default=0.0, ge=0, le=100_000)  # total cable on the measured path
    # e.g. "ib_send_lat (perftest 24.07)"
    tool: Annotated[str, Field(max_length=200), AfterValidator(check_name)] = ""
    date: DateText = ""
    note: Annotated[str, Field(max_length=2000), AfterValidator(check_notes)] = ""

    @model_validator(mode="after")
    def _one_way(self) -> LatencyMeasurement:
        if self.nic_ns is not None and self.end_to_end_us is not None:
            raise ValueError("give nic_ns or end_to_end_us, not both")
        if self.nic_ns is None and self.end_to_end_us is None and not self.switch_ns:
            raise ValueError("a measurement needs nic_ns, end_to_end_us or switch_ns")
        return self


class Sources(_Frozen):
    """The project's price books (later ones win) and latency measurements (one per
    technology). Manual price overrides (``Project.overrides.prices``) win over both."""

    price_books: tuple[PriceBook, ...] = Field(default=(), max_length=64)
    latency: tuple[LatencyMeasurement, ...] = Field(default=(), max_length=16)

    @model_validator(mode="after")
    def _unique(self) -> Sources:
        names = [b.name for b in self.price_books]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"price book name '{sorted(dup)[0]}' is used twice")
        techs = [m.tech for m in self.latency]
        dup = {t for t in techs if techs.count(t) > 1}
        if dup:
            raise ValueError(f"two latency measurements for '{sorted(dup)[0]}'")
        return self

    @property
    def empty(self) -> bool:
        return not self.price_books and not self.latency

    def with_book(self, book: PriceBook) -> Sources:
        """Add ``book``, replacing one of the same name."""
        books = (*tuple(b for b in self.price_books if b.name != book.name), book)
        return self.model_copy(update={"price_books": books})

    def without_book(self, name: str) -> Sources:
        return self.model_copy(update={
            "price_books": tuple(b for b in self.price_books if b.name != name)})

    def with_latency(self, m: LatencyMeasurement) -> Sources:
        rest = tuple(x for x in self.latency if x.tech != m.tech)
        return self.model_copy(update={"latency": (*rest, m)})

    def without_latency(self, tech: str) -> Sources:
        return self.model_copy(update={
            "latency": tuple(x for x in self.latency if x.tech != tech)})
