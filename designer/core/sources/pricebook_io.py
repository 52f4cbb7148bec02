"""Read a supplier's quote (CSV or xlsx) into a PriceBook.

The sheet needs a header row naming a part id column and a unit price column; currency and
date columns are optional (the command line can give them for the whole book). Part ids are
catalog ids, matched without regard to case; rows naming parts the catalog does not know
are skipped and reported, so a quote with services or spares still imports.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from designer.core.catalog import Catalog
from designer.core.sources.apply import SourcesError
from designer.core.sources.model import PriceBook

MAX_BYTES = 20 * 1024 * 1024
MAX_ROWS = 100_000
HEADERS = {
    "part": ("part id", "part_id", "partid", "part", "catalog id", "catalog_id", "id",
             "part number", "sku"),
    "price": ("unit price", "unit_price", "unitprice", "price", "unit cost", "unit_usd",
              "price (usd)", "unit price (usd)"),
    "currency": ("currency", "ccy"),
    "date": ("date", "quote date", "valid from", "quote_date"),
}
_DATE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?")


class RateNeeded(SourcesError):
    """The book's prices are in another currency and no rate to US dollars was given."""

    def __init__(self, where: str, currency: str) -> None:
        self.currency = currency
        super().__init__(f"{where}: currency: prices are in {currency}; give the rate in US "
                         f"dollars per {currency} (--usd-rate)")


@dataclass(frozen=True)
class BookImport:
    book: PriceBook
    skipped: tuple[tuple[int, str], ...]  # (row number, part id) not in the catalog


def read_price_book(path: Path, catalog: Catalog, *, name: str | None = None,
                    currency: str | None = None, usd_per_unit: float | None = None,
                    date: str | None = None) -> BookImport:
    """The price book in ``path`` (``.csv`` or ``.xlsx``)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SourcesError(f"cannot read price book {path}: {exc.strerror}") from None
    if size > MAX_BYTES:
        raise SourcesError(f"{path}: {size:,} bytes is too large for a price book")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        rows = _csv_rows(path)
    elif suffix in (".xlsx", ".xlsm"):
        rows = _xlsx_rows(path)
    else:
        raise SourcesError(f"{path}: a price book is a .csv or .xlsx file")
    return book_from_rows(rows, catalog, name=name or path.stem, source=path.name,
                          currency=currency, usd_per_unit=usd_per_unit, date=date,
                          where=path.name)


def _csv_rows(path: Path) -> list[list[str]]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    return [row for row in csv.reader(io.StringIO(text), dialect)][: MAX_ROWS + 20]


def _xlsx_rows(path: Path) -> list[list[str]]:
    import openpyxl  # only here: reading a workbook is rare

    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds on a damaged file
        raise SourcesError(f"{path}: not a readable xlsx workbook ({exc})") from None
    try:
        ws = wb.worksheets[0]
        out = []
        for row in ws.iter_rows(values_only=True, max_row=MAX_ROWS + 20):
            out.append(["" if v is None else _cell_text(v) for v in row])
        return out
    finally:
        wb.close()


def _cell_text(v: object) -> str:
    if hasattr(v, "strftime"):
        return v.strftime("%Y-%m-%d")  # type: ignore[union-attr]
    return str(v)


def book_from_rows(rows: list[list[str]], catalog: Catalog, *, name: str, source: str = "",
                   currency: str | None = None, usd_per_unit: float | None = None,
                   date: str | None = None, where: str = "price book") -> BookImport:
    head_at, cols = _find_header(rows, where)
    by_lower = {i.lower(): i for i in catalog.ids()}
    prices: dict[str, float] = {}
    skipped: list[tuple[int, str]] = []
    currencies: set[str] = set()
    dates: list[str] = []
    for n, row in enumerate(rows[head_at + 1:], start=head_at + 2):
        if not any(row):
            continue
        cell = _cells(row, cols)
        part, price_text = cell["part"].strip(), cell["price"].strip()
        if not part and not price_text:
            continue
        if not part:
            raise SourcesError(f"{where}: row {n}: part id is empty")
        gear_id = by_lower.get(part.lower())
        if gear_id is None:
            skipped.append((n, part))
            continue
        prices[gear_id] = _price(price_text, f"{where}: row {n}: unit price")
        if cell.get("currency", "").strip():
            currencies.add(cell["currency"].strip().upper())
        if cell.get("date", "").strip():
            dates.append(_date(cell["date"].strip(), f"{where}: row {n}: date"))
    if not prices:
        known = f" ({len(skipped)} rows name parts the catalog does not have, e.g. " \
                f"'{skipped[0][1]}')" if skipped else ""
        raise SourcesError(f"{where}: no prices for catalog parts{known}")
    if len(currencies) > 1:
        raise SourcesError(f"{where}: currency: one book holds one currency, found "
                           f"{', '.join(sorted(currencies))}")
    ccy = (currency or (currencies.pop() if currencies else "USD")).upper()
    if not re.fullmatch(r"[A-Z]{3}", ccy):
        raise SourcesError(f"{where}: currency '{ccy}' is not a three-letter code")
    if ccy != "USD" and usd_per_unit is None:
        raise RateNeeded(where, ccy)
    when = _date(date, "date") if date else (max(dates) if dates else "")
    book = PriceBook(name=name[:120] or "price book", currency=ccy,
                     usd_per_unit=usd_per_unit if ccy != "USD" else 1.0,
                     date=when, source=source[:500], prices=prices)
    return BookImport(book, tuple(skipped))


def _find_header(rows: list[list[str]], where: str) -> tuple[int, dict[str, int]]:
    for i, row in enumerate(rows[:20]):
        low = [c.strip().lower() for c in row]
        cols: dict[str, int] = {}
        for key, names in HEADERS.items():
            for j, c in enumerate(low):
                if c in names:
                    cols[key] = j
                    break
        if "part" in cols and "price" in cols:
            return i, cols
    raise SourcesError(f"{where}: no header row with a part id column and a unit price "
                       "column (e.g. 'part id,unit price,currency,date')")


def _cells(row: list[str], cols: dict[str, int]) -> dict[str, str]:
    return {k: (row[j] if j < len(row) else "") for k, j in cols.items()}


_STRIP = re.compile(r"[\s$€£¥]|USD|EUR|GBP")
_COMMA_DECIMALS = re.compile(r"\d{1,3}(\.\d{3})+,\d+")


def _price(text: str, what: str) -> float:
    try:
        value = float(text)  # the common case: a plain number
    except ValueError:
        value = _parse_price(text, what)
    if not (0 <= value <= 1e9):  # also refuses NaN
        raise SourcesError(f"{what} {text} is out of range (0 to 1e9)")
    return value


def _parse_price(text: str, what: str) -> float:
    t = _STRIP.sub("", text)
    # 1.234,50 (comma decimals) or 1,234.50
    comma_decimals = _COMMA_DECIMALS.fullmatch(t)
    t = t.replace(".", "").replace(",", ".") if comma_decimals else t.replace(",", "")
    try:
        return float(t)
    except ValueError:
        raise SourcesError(f"{what} '{text}' is not a number") from None


def _date(text: str, what: str) -> str:
    m = _DATE.match(text)
    if not m:
        raise SourcesError(f"{what} '{text}' is not a date (YYYY-MM-DD)")
    return m.group(0)
