"""Reading the numbers of a supplier's quote by the locale the file shows, never by a guess.

``1.750,00`` is one thousand seven hundred and fifty in Germany and an error in the US;
``31.500`` is thirty-one thousand five hundred in Germany and thirty-one and a half in the US.
Reading each cell on its own (or by Python's ``float``) turns a European quote into prices a
thousand times too small without a word. So the whole column is read together:

1. Each cell is read both ways (decimal point, decimal comma). A cell that reads one way only
   (``1.750,00``, ``1,234.50``, ``2.5``, ``1.234.567``) shows the file's decimal mark; a cell
   that reads both ways with different values (``31.500``, ``1,750``) is ambiguous; a cell
   without separators reads the same either way.
2. The decimal mark is, in this order: the one the user gave; the one the cells show (cells
   that disagree are refused, both named); the one a CSV's field separator implies (spreadsheet
   programs write ``;`` exactly where the comma is the decimal mark, ``,`` where the point
   is). Without any of these an ambiguous cell is refused, naming the cell and both readings.
3. Every cell is then read by that mark; grouping must be in threes, digits must be ASCII
   (``²`` or ``١`` are refused, not read), a currency sign must agree with the book's currency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from designer.core.sources.apply import SourcesError
from designer.core.text import shown

POINT, COMMA = ".", ","
DECIMAL_MARKS = (POINT, COMMA)
DECIMAL_NAMES = {POINT: "decimal point", COMMA: "decimal comma"}

# Signs and codes a quote writes beside a price, and the currencies each may stand for.
SIGNS: dict[str, frozenset[str]] = {
    "€": frozenset({"EUR"}),
    "£": frozenset({"GBP"}),
    "¥": frozenset({"JPY", "CNY"}),
    "$": frozenset({"USD", "CAD", "AUD", "NZD", "SGD", "HKD", "TWD", "MXN"}),
}
_CODE = re.compile(r"^([A-Z]{3})\s*|\s*([A-Z]{3})$")
# Spaces and the apostrophe group thousands in French, Swiss and other locales.
_GROUP_ONLY = " \u00a0\u202f'\u2019"
_SHAPE = re.compile(r"^[0-9][0-9.," + _GROUP_ONLY + r"]*$")


class AmbiguousNumber(SourcesError):
    """A cell reads two ways and nothing in the file says which; the caller may give the
    decimal mark (``--decimal`` on the command line, a question in the window)."""

    def __init__(self, message: str, cell: str) -> None:
        self.cell = cell
        super().__init__(message)


@dataclass(frozen=True)
class Cell:
    """One number as written: where it is (for messages) and its text."""

    where: str  # e.g. "row 3, unit price"
    text: str


@dataclass(frozen=True)
class Reading:
    values: tuple[float, ...]
    decimal: str  # "." or ","
    why: str  # the decimal mark and how it was decided, for the preview
    currency: str | None  # the currency the cells' signs or codes name, if any


def _read_as(digits: str, decimal: str) -> float | None:
    """``digits`` read with ``decimal`` as the decimal mark, or None when that is not a
    well-formed number in that locale (grouping in threes, one decimal mark)."""
    group = COMMA if decimal == POINT else POINT
    if digits.count(decimal) > 1:
        return None
    whole, _, frac = digits.partition(decimal)
    if any(c in frac for c in group + _GROUP_ONLY):
        return None
    parts = re.split("[" + re.escape(group + _GROUP_ONLY) + "]", whole)
    if len(parts) > 1:
        # one kind of grouping mark in one number, groups of three after the first
        marks = {c for c in whole if not c.isdigit()}
        if len(marks) > 1 or not (1 <= len(parts[0]) <= 3) or parts[0].startswith("0") or \
                any(len(p) != 3 for p in parts[1:]):
            return None
    if not all(p.isdigit() for p in parts) or (decimal in digits and not frac.isdigit()):
        return None
    return float("".join(parts) + ("." + frac if frac else ""))


def _strip_currency(cell: Cell) -> tuple[str, str | None]:
    """The number's text without a currency sign or code, and the code or sign found."""
    t = cell.text.strip()
    found: str | None = None
    for sign in SIGNS:
        if t.startswith(sign) or t.endswith(sign):
            found = sign
            t = t.strip(sign).strip()
            break
    m = _CODE.search(t)
    if m:
        code = m.group(1) or m.group(2)
        if found is not None and code not in SIGNS[found]:
            raise SourcesError(f"{cell.where} '{shown(cell.text, 60)}' names two currencies")
        found = code
        t = _CODE.sub("", t, count=1).strip()
    return t, found


def _shape(cell: Cell) -> tuple[str, str | None]:
    t, currency = _strip_currency(cell)
    if not t:
        raise SourcesError(f"{cell.where} is empty")
    if t.startswith(("-", "(")) or t.endswith(")"):
        raise SourcesError(f"{cell.where} '{shown(cell.text, 60)}' is negative; a price is "
                           "0 or more")
    if not _SHAPE.fullmatch(t) or t[-1] in _GROUP_ONLY:
        raise SourcesError(f"{cell.where} '{shown(cell.text, 60)}' is not a number (digits "
                           "0-9 with one decimal mark and thousands grouped in threes)")
    return t, currency


def read_numbers(cells: list[Cell], *, decimal: str | None = None,
                 field_separator: str | None = None, currency: str | None = None) -> Reading:
    """Read every cell by one decimal mark: ``decimal`` when given, else the one the cells
    show, else the one ``field_separator`` (a CSV's) implies; refuse what stays ambiguous or
    what contradicts. ``currency``: the book's currency, checked against signs in cells."""
    if decimal is not None and decimal not in DECIMAL_MARKS:
        raise SourcesError(f"the decimal mark is '.' or ',', not '{shown(decimal, 10)}'")
    shaped = [(c, *_shape(c)) for c in cells]
    signs = {cur for _c, _t, cur in shaped if cur is not None}
    named = _currency_of(signs, currency, shaped)
    shows: dict[str, Cell] = {}
    ambiguous: Cell | None = None
    for c, t, _cur in shaped:
        a, b = _read_as(t, POINT), _read_as(t, COMMA)
        if a is None and b is None:
            raise SourcesError(f"{c.where} '{shown(c.text, 60)}' is not a number in either "
                               "locale (thousands grouped in threes, one decimal mark)")
        if a is None or b is None:
            shows.setdefault(COMMA if a is None else POINT, c)
        elif a != b and ambiguous is None:
            ambiguous = c
    if decimal is not None:
        why = f"{DECIMAL_NAMES[decimal]}, as asked"
    elif len(shows) == 2:
        p, c = shows[POINT], shows[COMMA]
        raise SourcesError(f"the quote mixes locales: {p.where} '{shown(p.text, 40)}' has a "
                           f"decimal point, {c.where} '{shown(c.text, 40)}' a decimal comma; "
                           "write every price the same way")
    elif shows:
        decimal, cell = next(iter(shows.items()))
        why = f"{DECIMAL_NAMES[decimal]}, as {cell.where} '{shown(cell.text, 40)}' shows"
    elif ambiguous is not None and field_separator in (",", ";"):
        decimal = POINT if field_separator == "," else COMMA
        why = (f"{DECIMAL_NAMES[decimal]}, as the file's '{field_separator}' field separator "
               "shows (spreadsheets write ';' where the comma is the decimal mark)")
    elif ambiguous is not None:
        a, b = _read_as(_shape(ambiguous)[0], POINT), _read_as(_shape(ambiguous)[0], COMMA)
        raise AmbiguousNumber(
            f"{ambiguous.where} '{shown(ambiguous.text, 40)}' reads as {a:,.2f} with a decimal "
            f"point or {b:,.2f} with a decimal comma, and no other number in the file says "
            "which; give the decimal mark (--decimal . or --decimal ,)", ambiguous.where)
    else:
        decimal, why = POINT, "no decimal mark (none of the numbers has a separator)"
    values = []
    for c, t, _cur in shaped:
        v = _read_as(t, decimal)
        if v is None:
            raise SourcesError(f"{c.where} '{shown(c.text, 60)}' is not a number with a "
                               f"{DECIMAL_NAMES[decimal]} ({why})")
        values.append(v)
    return Reading(tuple(values), decimal, why, named)


def _currency_of(signs: set[str], currency: str | None, shaped) -> str | None:
    """The one currency the cells' signs and codes name (None when they name none), checked
    against the book's ``currency`` when that is known."""
    if not signs:
        return None
    codes = {s for s in signs if s not in SIGNS}
    options = set.intersection(*[set(SIGNS.get(s, {s})) for s in signs])
    wanted = currency.upper() if currency else None
    if wanted is not None:
        for c, _t, cur in shaped:
            if cur is not None and wanted not in SIGNS.get(cur, {cur}):
                raise SourcesError(f"{c.where} '{shown(c.text, 40)}' is in {cur}, but the "
                                   f"book's currency is {wanted}")
        return wanted
    if not options:
        raise SourcesError(f"the prices name more than one currency ({', '.join(sorted(signs))})"
                           "; one book holds one currency")
    if len(options) == 1:
        return next(iter(options))
    if "USD" in options and not codes:
        return "USD"  # '$' alone: dollars, US unless the file or the user says otherwise
    raise SourcesError(f"'{sorted(signs)[0]}' could be {', '.join(sorted(options))}; give the "
                       "currency (a currency column or --currency)")
