"""Text that leaves the app must never run as a formula (formula injection, CWE-1236).

A spreadsheet program treats a cell beginning with ``=``, ``+``, ``-`` or ``@`` as a formula
(and tab or carriage return can hide such a start). A device or project name is free text a
user (or a file someone sent them) typed, so every writer passes text through here:

* CSV has no types, so a risky text gets a leading apostrophe, which spreadsheet programs show
  as text (the usual mitigation; readers that want the raw name strip one leading ``'``). A
  program set to split at ``;``, ``|`` or tab instead of ``,`` (many locales are) would find a
  formula after such a character inside a field (``x;=1+1``): the piece gets its apostrophe too.
* xlsx cells have types: text is written as a string cell with the quote-prefix style, so it
  stays text even when someone edits the cell later. Only values the exporter itself builds
  as ``Formula`` become formulas.
"""

from __future__ import annotations

import re

# Characters that start a formula in Excel, LibreOffice or Google Sheets, plus the full-width
# forms some locales accept, and the tab / CR / LF that can hide them.
FORMULA_STARTS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")
# Spaces some programs skip before looking at the first character.
_LEADING_SPACE = " \u00a0\u3000"
# Characters XML (and so xlsx and GraphML) cannot hold at all.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def is_formula_like(text: str) -> bool:
    """True when a spreadsheet could read ``text`` as a formula."""
    stripped = text.lstrip(_LEADING_SPACE)
    return bool(stripped) and stripped[0] in FORMULA_STARTS


# A delimiter some reader may split at, then what a formula may start with.
_PIECE_FORMULA = re.compile(
    "([;|\t][" + _LEADING_SPACE + "]*)(?=[" + re.escape("".join(sorted(FORMULA_STARTS))) + "])"
)


def csv_text(value: object) -> object:
    """A CSV field: numbers as they are, risky text (or a risky piece of it) behind an
    apostrophe."""
    if not isinstance(value, str):
        return value
    value = _PIECE_FORMULA.sub(r"\1'", value)
    return "'" + value if is_formula_like(value) else value


def xml_text(text: str) -> str:
    """``text`` without the control characters XML forbids (a file with one will not open)."""
    return _XML_ILLEGAL.sub("\ufffd", text)


def xlsx_text(text: str) -> str:
    """Text for an xlsx string cell: XML-safe and within Excel's 32,767-character limit."""
    return xml_text(text)[:32767]
