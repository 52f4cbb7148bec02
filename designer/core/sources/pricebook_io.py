"""Read a supplier's quote (CSV or xlsx) into a PriceBook.

The sheet needs a header row naming a part id column and a unit price column; currency, date,
supplier SKU and lead time columns are optional (the command line can give currency and date
for the whole book). A part id is a catalog id or the manufacturer's part number the catalog
gives for it (MQM9700-NS2F; a length code such as MCP4Y10-N002 matches MCP4Y10-Nxxx), matched
without regard to case; rows naming parts the catalog does not know are skipped and reported,
so a quote with services or spares still imports.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from designer.core.catalog import Catalog
from designer.core.safe_io import FileRefused, decode_text, read_bytes
from designer.core.sources.apply import SourcesError
from designer.core.sources.model import PriceBook
from designer.core.sources.numbers import Cell, read_numbers
from designer.core.text import shown

MAX_BYTES = 20 * 1024 * 1024
# What a workbook may unpack to: a quote is small; a zip of many gigabytes is a bomb.
MAX_UNPACKED = 200 * 1024 * 1024
MAX_ROWS = 100_000
MAX_FIELD = 10_000  # characters in one CSV field
# The rate of a currency to US dollars: any real one is well inside these bounds.
USD_RATE_MIN, USD_RATE_MAX = 1e-6, 1e6
# A quoted price this many times above or below the price in use is shown as suspect
# (a misread decimal mark or currency is a factor of 100 to 1,000).
SUSPECT_RATIO = 10.0
HEADERS = {
    "part": ("part id", "part_id", "partid", "part", "catalog id", "catalog_id", "id",
             "part number", "manufacturer part number", "mpn", "opn"),
    "price": ("unit price", "unit_price", "unitprice", "price", "unit cost", "unit_usd",
              "price (usd)", "unit price (usd)"),
    "currency": ("currency", "ccy"),
    "date": ("date", "quote date", "valid from", "quote_date"),
    # the supplier's own part number; a quote with no part id column names parts by it
    "sku": ("sku", "supplier sku", "vendor sku", "supplier part number", "reseller sku"),
    "lead": ("lead time", "lead_time", "leadtime", "lead time (weeks)", "lead time (days)",
             "delivery", "availability"),
}
_DATE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?")


class RateNeeded(SourcesError):
    """The book's prices are in another currency and no rate to US dollars was given."""

    def __init__(self, where: str, currency: str) -> None:
        self.currency = currency
        super().__init__(f"{where}: currency: prices are in {currency}; give the rate in US "
                         f"dollars per {currency} (--usd-rate)")


@dataclass(frozen=True)
class PriceLine:
    """One imported price as the preview shows it: as written, as read, against the price
    the project uses now (the catalog's estimate or an earlier book)."""

    row: int
    part: str  # as written in the file
    gear_id: str
    text: str  # the price as written
    price: float  # in the book's currency
    usd: float
    now_usd: float | None

    @property
    def ratio(self) -> float | None:
        if not self.now_usd:
            return None
        return self.usd / self.now_usd

    @property
    def suspect(self) -> str:
        r = self.ratio
        if r is None:
            return ""
        if r == 0:
            return "free: a zero price"
        if r < 1 / SUSPECT_RATIO:
            return f"{1 / r:,.0f}x below the price in use"
        if r > SUSPECT_RATIO:
            return f"{r:,.0f}x above the price in use"
        return ""


@dataclass(frozen=True)
class BookImport:
    book: PriceBook
    skipped: tuple[tuple[int, str], ...]  # (row number, part id) not in the catalog
    lines: tuple[PriceLine, ...] = ()
    numbers: str = ""  # how the numbers were read (the decimal mark and why)

    def skipped_summary(self, width: int = 40) -> str:
        """The skipped rows in a line: how many, and the first five with their part names."""
        parts = ", ".join(f"row {n} '{shown(p, width)}'" for n, p in self.skipped[:5])
        more = f" and {len(self.skipped) - 5:,} more" if len(self.skipped) > 5 else ""
        return (f"{len(self.skipped):,} row(s) naming parts the catalog does not have: "
                f"{parts}{more}")

    @property
    def suspects(self) -> tuple[PriceLine, ...]:
        return tuple(x for x in self.lines if x.suspect)

    def preview(self) -> list[str]:
        """What the import would apply, a line each, for a person to check first."""
        b = self.book
        rate = f" at {b.usd_per_unit:g} USD per {b.currency}" if b.currency != "USD" else ""
        out = [f"{shown(b.label)}: {len(b.prices):,} prices in {b.currency}{rate}; numbers: "
               f"{self.numbers}"]
        out.append(f"  {'row':>5}  {'part':<22} {'as written':>16} {'read as':>14} "
                   f"{'USD':>14} {'now USD':>14}")
        for x in self.lines:
            cat = f"{x.now_usd:,.2f}" if x.now_usd is not None else "-"
            note = f"  ! {x.suspect}" if x.suspect else ""
            out.append(f"  {x.row:>5}  {shown(x.gear_id, 22):<22} {shown(x.text, 16):>16} "
                       f"{x.price:>14,.2f} {x.usd:>14,.2f} {cat:>14}{note}")
        if b.skus or b.lead_times:
            out.append(f"supplier SKUs for {len(b.skus):,} part(s), lead times for "
                       f"{len(b.lead_times):,} part(s) (shown in the BOM)")
        if self.skipped:
            out.append(f"skipped {self.skipped_summary()}")
        if self.suspects:
            out.append(f"check {len(self.suspects):,} price(s) marked '!': far from the price "
                       "in use (a misread decimal mark or currency?)")
        return out


def usd_rate(value: float | None) -> float | None:
    """A rate to US dollars as given, refused when no currency could have it."""
    if value is None:
        return None
    if not (math.isfinite(value) and USD_RATE_MIN <= value <= USD_RATE_MAX):
        raise SourcesError(f"a rate of {value:g} US dollars per unit is not a currency's "
                           f"(between {USD_RATE_MIN:g} and {USD_RATE_MAX:g})")
    return value


def read_price_book(path: Path, catalog: Catalog, *, name: str | None = None,
                    currency: str | None = None, usd_per_unit: float | None = None,
                    date: str | None = None, decimal: str | None = None) -> BookImport:
    """The price book in ``path`` (``.csv`` or ``.xlsx``). ``decimal``: the decimal mark
    when the file does not show it (see ``sources.numbers``)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".xlsx", ".xlsm"):
        raise SourcesError(f"{shown(path.name)}: a price book is a .csv or .xlsx file")
    try:
        data = read_bytes(path, limit=MAX_BYTES, what="price book")
    except FileRefused as exc:
        raise SourcesError(str(exc)) from None
    where = shown(path.name, 120)
    if suffix == ".csv":
        rows, separator = _csv_rows(data, where)
    else:
        rows, separator = _xlsx_rows(data, where), None
    # the file's own name stands for the book: shown, as a name may not hold controls
    return book_from_rows(rows, catalog, name=name or shown(path.stem, 120),
                          source=shown(path.name, 500),
                          currency=currency, usd_per_unit=usd_per_unit, date=date,
                          where=where, decimal=decimal, field_separator=separator)


def _csv_rows(data: bytes, where: str) -> tuple[list[list[str]], str | None]:
    """The rows of a CSV quote and its field separator: the one of ``;``, tab and ``,`` that
    splits a header row into a part id and a price column (a guess from the first line alone,
    as ``csv.Sniffer`` makes, picks ',' in '1.750,00;...' and finds no header at all)."""
    # Spreadsheet programs save CSV in the system's 8-bit code page when not told UTF-8.
    text = decode_text(data, where, fallback="latin-1")
    best: tuple[list[list[str]], str] | None = None
    for separator in (";", "\t", ","):
        rows = _split(text, separator, where)
        try:
            _find_header(rows, where)
        except SourcesError:
            continue
        if best is None or _width(rows) > _width(best[0]):
            best = (rows, separator)
    if best is None:  # no separator finds a header: the refusal names what is missing
        return _split(text, ",", where), None
    return best


def _width(rows: list[list[str]]) -> int:
    return max((len(r) for r in rows[:20]), default=0)


def _split(text: str, separator: str, where: str) -> list[list[str]]:
    rows: list[list[str]] = []
    try:
        for row in csv.reader(io.StringIO(text), delimiter=separator):
            if len(rows) > MAX_ROWS + 20:
                raise SourcesError(f"{where}: more than {MAX_ROWS:,} rows is too many for a "
                                   "price book")
            if any(len(c) > MAX_FIELD for c in row):
                raise SourcesError(f"{where}: row {len(rows) + 1} has a field longer than "
                                   f"{MAX_FIELD:,} characters")
            rows.append(row)
    except csv.Error as exc:
        raise SourcesError(f"{where}: not readable as CSV ({exc})") from None
    return rows


def _xlsx_rows(data: bytes, where: str) -> list[list[str | float]]:
    import openpyxl  # only here: reading a workbook is rare

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            unpacked = sum(i.file_size for i in z.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise SourcesError(f"{where}: not a readable xlsx workbook ({exc})") from None
    if unpacked > MAX_UNPACKED:
        raise SourcesError(f"{where}: the workbook unpacks to {unpacked:,} bytes, too large "
                           "for a price book")
    try:
        wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds on a damaged file
        raise SourcesError(f"{where}: not a readable xlsx workbook "
                           f"({shown(str(exc), 200)})") from None
    try:
        if not wb.worksheets:
            raise SourcesError(f"{where}: the workbook has no sheet")
        ws = wb.worksheets[0]
        out: list[list[str | float]] = []
        for row in ws.iter_rows(values_only=True, max_row=MAX_ROWS + 21, max_col=64):
            if len(out) > MAX_ROWS + 20:
                raise SourcesError(f"{where}: more than {MAX_ROWS:,} rows is too many for a "
                                   "price book")
            out.append(["" if v is None else _cell(v) for v in row])
        return out
    except SourcesError:
        raise
    except Exception as exc:
        raise SourcesError(f"{where}: not a readable xlsx workbook "
                           f"({shown(str(exc), 200)})") from None
    finally:
        wb.close()


def _cell(v: object) -> str | float:
    """A workbook cell: a number stays a number (it has no locale to misread), a date its
    ISO text, anything else its text."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int | float):
        return float(v)
    if hasattr(v, "strftime"):
        return v.strftime("%Y-%m-%d")  # type: ignore[union-attr]
    return str(v)


def _text(v: str | float) -> str:
    return v if isinstance(v, str) else f"{v:g}"


def book_from_rows(rows: list[list[str]] | list[list[str | float]], catalog: Catalog, *,
                   name: str, source: str = "", currency: str | None = None,
                   usd_per_unit: float | None = None, date: str | None = None,
                   where: str = "price book", decimal: str | None = None,
                   field_separator: str | None = None) -> BookImport:
    usd_per_unit = usd_rate(usd_per_unit)
    head_at, cols = _find_header(rows, where)
    match = part_matcher(catalog)
    found: dict[str, tuple[int, str, str | float]] = {}  # gear id: (row, part, price)
    skipped: list[tuple[int, str]] = []
    currencies: set[str] = set()
    dates: list[str] = []
    skus: dict[str, str] = {}
    leads: dict[str, str] = {}
    for n, row in enumerate(rows[head_at + 1:], start=head_at + 2):
        if not any(_text(c).strip() for c in row):
            continue
        cell = _cells(row, cols)
        part = _text(cell["part"]).strip()
        price = cell["price"]
        price = price.strip() if isinstance(price, str) else price
        if not part and price == "":
            continue
        if not part:
            raise SourcesError(f"{where}: row {n}: part id is empty")
        gear_id = match(part)
        if gear_id is None:
            skipped.append((n, part))
            continue
        if price == "":
            raise SourcesError(f"{where}: row {n}: unit price of '{shown(part, 40)}' is empty")
        if gear_id in found and _text(found[gear_id][2]) != _text(price):
            first = found[gear_id]
            raise SourcesError(f"{where}: '{shown(gear_id, 40)}' is priced twice, "
                               f"'{shown(_text(first[2]), 30)}' in row {first[0]} and "
                               f"'{shown(_text(price), 30)}' in row {n}; keep one")
        found[gear_id] = (n, part, price)
        for key, into in (("sku", skus), ("lead", leads)):
            text = _text(cell.get(key, "")).strip() if key in cell else ""
            if text and not (key == "sku" and cols.get("sku") == cols["part"]):
                into[gear_id] = shown(text, 80 if key == "sku" else 60)
        ccy_cell = _text(cell.get("currency", "")).strip()
        if ccy_cell:
            currencies.add(ccy_cell.upper())
        if _text(cell.get("date", "")).strip():
            dates.append(_date(_text(cell["date"]).strip(), f"{where}: row {n}: date"))
    if not found:
        known = f" ({len(skipped)} rows name parts the catalog does not have, e.g. " \
                f"'{shown(skipped[0][1], 60)}')" if skipped else ""
        raise SourcesError(f"{where}: no prices for catalog parts{known}")
    if len(currencies) > 1:
        raise SourcesError(f"{where}: currency: one book holds one currency, found "
                           f"{', '.join(shown(c, 10) for c in sorted(currencies))}")
    stated = currency or (next(iter(currencies)) if currencies else None)
    texts = [(g, n, p) for g, (n, _part, p) in found.items() if isinstance(p, str)]
    reading = read_numbers([Cell(f"{where}: row {n}: unit price", p) for _g, n, p in texts],
                           decimal=decimal, field_separator=field_separator, currency=stated)
    values = {g: v for (g, _n, _p), v in zip(texts, reading.values, strict=True)}
    for g, (_n, _part, p) in found.items():
        if not isinstance(p, str):
            values[g] = p
    ccy = (stated or reading.currency or "USD").upper()
    if not re.fullmatch(r"[A-Z]{3}", ccy):
        raise SourcesError(f"{where}: currency '{shown(ccy, 10)}' is not a three-letter code")
    if ccy != "USD" and usd_per_unit is None:
        raise RateNeeded(where, ccy)
    rate = usd_per_unit if ccy != "USD" else 1.0
    for g, v in values.items():
        if not (math.isfinite(v) and 0 <= v <= 1e9):
            raise SourcesError(f"{where}: row {found[g][0]}: unit price {v:g} is out of range "
                               "(0 to 1e9)")
    when = _date(date, "date") if date else (max(dates) if dates else "")
    try:
        book = PriceBook(name=name[:120] or "price book", currency=ccy, usd_per_unit=rate,
                         date=when, source=source[:500], prices=values, skus=skus,
                         lead_times=leads)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        field = ".".join(str(x) for x in err["loc"])
        raise SourcesError(f"{where}: {field}: {shown(err['msg'], 200)}") from None
    lines = []
    for g, (n, part, p) in sorted(found.items(), key=lambda kv: kv[1][0]):
        try:
            cat = float(catalog.price(g))
        except Exception:  # a part the catalog has without a price, or a network's own
            own = _network_item(g)
            cat = float(own.price_usd) if own is not None else None
        lines.append(PriceLine(n, part, g, _text(p), values[g], values[g] * rate, cat))
    numbers = reading.why if texts else "typed numbers (a workbook's numbers have no locale)"
    return BookImport(book, tuple(skipped), tuple(lines), numbers)


def _network_item(gear_id: str):
    from designer.core.networks.gear import network_items

    return network_items().get(gear_id)


def part_matcher(catalog: Catalog):
    """A function from a part id as a quote writes it to the catalog id it names (None: not
    the catalog's): a catalog id, or a manufacturer's part number the catalog gives, its
    length code (``xxx``) standing for any characters. A part number two items share names
    neither."""
    from designer.core.networks.gear import network_items

    # the other networks' own gear (management switches, their optics, storage nodes) is
    # priced from the same books
    items = [*catalog, *(g for g in network_items().values() if g.id not in catalog)]
    by_lower = {i.id.lower(): i.id for i in items}
    numbers: dict[str, set[str]] = {}
    patterns: list[tuple[re.Pattern, str]] = []
    for item in items:
        pn = item.part_number.lower()
        if not pn:
            continue
        numbers.setdefault(pn, set()).add(item.id)
        if "xxx" in pn:
            rx = ".+".join(re.escape(x) for x in pn.split("xxx"))
            patterns.append((re.compile(rx), item.id))
    exact = {k: next(iter(v)) for k, v in numbers.items() if len(v) == 1}

    def match(part: str) -> str | None:
        low = part.strip().lower()
        if low in by_lower:
            return by_lower[low]
        if low in exact:
            return exact[low]
        hits = {gid for rx, gid in patterns if rx.fullmatch(low)}
        return hits.pop() if len(hits) == 1 else None

    return match


def _find_header(rows: list[list[str]], where: str) -> tuple[int, dict[str, int]]:
    for i, row in enumerate(rows[:20]):
        low = [_text(c).strip().lower() for c in row]
        cols: dict[str, int] = {}
        for key, names in HEADERS.items():
            for j, c in enumerate(low):
                if c in names:
                    cols[key] = j
                    break
        if "part" not in cols and "sku" in cols:
            cols["part"] = cols["sku"]  # a quote naming parts by SKU alone: the SKU is the id
        if "part" in cols and "price" in cols:
            return i, cols
    raise SourcesError(f"{where}: no header row with a part id column and a unit price "
                       "column (e.g. 'part id,unit price,currency,date')")


def _cells(row, cols: dict[str, int]) -> dict[str, str | float]:
    return {k: (row[j] if j < len(row) else "") for k, j in cols.items()}


def _date(text: str, what: str) -> str:
    m = _DATE.match(text)
    if not m:
        raise SourcesError(f"{what} '{shown(text, 40)}' is not a date (YYYY-MM-DD)")
    return m.group(0)
