"""The one guard every writer's text passes: it never runs as a formula (formula injection,
CWE-1236), never breaks the markup around it, and never holds what the format cannot.

A spreadsheet program treats a cell beginning with ``=``, ``+``, ``-`` or ``@`` as a formula
(and tab, carriage return, spaces or invisible characters such as a zero-width space can hide
such a start). A device or project name is free text a user (or a file someone sent them)
typed, so every writer passes text through here:

* CSV has no types, so a risky text gets a leading apostrophe, which spreadsheet programs show
  as text (the usual mitigation; readers that want the raw name strip one leading ``'``). A
  program set to split at ``;``, ``|`` or tab instead of ``,`` (many locales are) would find a
  formula after such a character inside a field (``x;=1+1``): the piece gets its apostrophe too.
* xlsx cells have types: text is written as a string cell with the quote-prefix style, so it
  stays text even when someone edits the cell later. Only values the exporter itself builds
  as ``Formula`` become formulas. A page header or footer reads ``&`` as a code: doubled.
* HTML (the report, its PDF and the comparison page) and XML (GraphML, SVG) get their
  characters escaped and the control characters XML cannot hold replaced.
* Switch configs, containerlab and file names do not take free text at all: names there go
  through one mapping per target (``designer.core.names``).
"""

from __future__ import annotations

import html
import re
import unicodedata

# Characters that start a formula in Excel, LibreOffice or Google Sheets, plus the full-width
# forms some locales accept, and the tab / CR / LF that can hide them.
FORMULA_STARTS = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")
# Spaces and invisible characters a program may skip, or a reader not see, before the first
# character: every space separator (no-break, narrow, ideographic ...) and the zero-width and
# format characters (zero-width space and joiners, word joiner, byte-order mark, soft hyphen).
_LEADING_SPACE = "".join(
    chr(c) for c in range(0x10000)
    if chr(c) not in "\t\r\n" and (unicodedata.category(chr(c)) in ("Zs", "Cf")
                                   or chr(c) in "\u180e\u2800\u3164\uffa0\u115f\u1160"))
# Characters XML (and so xlsx and GraphML) cannot hold at all.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def is_formula_like(text: str) -> bool:
    """True when a spreadsheet could read ``text`` as a formula."""
    stripped = text.lstrip(_LEADING_SPACE)
    return bool(stripped) and stripped[0] in FORMULA_STARTS


# A delimiter some reader may split at, then what a formula may start with.
_PIECE_FORMULA = re.compile(
    "([;|\t][" + re.escape(_LEADING_SPACE) + "]*)"
    "(?=[" + re.escape("".join(sorted(FORMULA_STARTS))) + "])"
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


def markup_text(value: object) -> str:
    """``value`` as text inside HTML or XML (element text or a quoted attribute): every
    character that means markup escaped, the ones XML cannot hold replaced."""
    return html.escape(xml_text(str(value)), quote=True)


def xlsx_text(text: str) -> str:
    """Text for an xlsx string cell: XML-safe and within Excel's 32,767-character limit."""
    return xml_text(text)[:32767]


def xlsx_header_text(text: str) -> str:
    """Text for a printed page's header or footer, where ``&`` starts a code (``&P`` is the
    page number): doubled, so a name prints as written."""
    return xlsx_text(text).replace("&", "&&")[:250]
