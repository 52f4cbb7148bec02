"""Text fields a design may hold, and the characters they refuse.

Names travel into many formats (the InfiniBand topology file, CSV, xlsx, GraphML, HTML, switch
configurations); a control character or a bidirectional override in one can add a record to a
line-based file, break XML or show a different name than the one stored. Names refuse them at
load; notes may hold line breaks and tabs, nothing else below a space.
"""

from __future__ import annotations

import math
import re
from typing import Annotated

from pydantic import AfterValidator, Field

# C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional overrides and
# isolates (U+202A-U+202E, U+2066-U+2069) that reorder how text is shown.
_NAME_BAD = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NOTES_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _describe(ch: str) -> str:
    return {"\n": "a line break", "\r": "a carriage return", "\t": "a tab"}.get(
        ch, f"the control character U+{ord(ch):04X}"
    )


def check_name(value: str) -> str:
    bad = _NAME_BAD.search(value)
    if bad:
        raise ValueError(f"names may not contain {_describe(bad.group())}")
    return value


def check_notes(value: str) -> str:
    bad = _NOTES_BAD.search(value)
    if bad:
        raise ValueError(f"notes may not contain {_describe(bad.group())}")
    return value


def has_control(value: str) -> bool:
    """True when ``value`` holds a character a single-line field refuses."""
    return _NAME_BAD.search(value) is not None


def without_controls(value: str) -> str:
    """``value`` with every character a single-line field refuses dropped (text taken from
    another tool's file into a name)."""
    return _NAME_BAD.sub("", value)


NAME_MAX = 200
Name = Annotated[str, Field(min_length=1, max_length=NAME_MAX), AfterValidator(check_name)]
ShortText = Annotated[str, Field(max_length=NAME_MAX), AfterValidator(check_name)]
Notes = Annotated[str, Field(max_length=100_000), AfterValidator(check_notes)]


# What a terminal or a log would act on rather than show: C0/C1 controls, DEL, the line and
# paragraph separators, and the bidirectional overrides and isolates.
_SHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f"
                    r"\ufeff]")


def shown(text: str, limit: int = 200) -> str:
    """``text`` fit to print on one line: every control, bidirectional or invisible character
    written as an escape (``\\x1b``, ``\\u202e``), and cut to ``limit`` characters with ``…``.
    A name from a file can then neither clear a terminal, forge a line, nor run on for pages."""
    text = str(text)
    cut = len(text) > limit
    text = text[:limit]
    out = _SHOWN.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
    return out + ("…" if cut else "")


_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def ascii_int(text: str) -> int | None:
    """``text`` as a whole number written in ASCII digits, else None. (``int`` would also
    read '²'-free digits of other scripts such as '١٢' and underscores, and ``str.isdigit``
    says yes to '²', which ``int`` then refuses.)"""
    t = text.strip()
    return int(t) if _INT.fullmatch(t) else None


def ascii_float(text: str) -> float | None:
    """``text`` as a finite number written in ASCII (``1.5``, ``-2e3``), else None; never
    ``inf``, ``nan``, underscores or digits of other scripts."""
    t = text.strip()
    if not _FLOAT.fullmatch(t):
        return None
    value = float(t)
    return value if math.isfinite(value) else None


def _number(x) -> str:
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return f"{x:,}" if isinstance(x, int) and not isinstance(x, bool) else str(x)


# pydantic's wording for a broken rule, in the words the rest of the tool uses
_PLAIN = {
    "greater_than_equal": lambda c: f"must be {_number(c['ge'])} or more",
    "greater_than": lambda c: f"must be more than {_number(c['gt'])}",
    "less_than_equal": lambda c: f"must be {_number(c['le'])} or less",
    "less_than": lambda c: f"must be less than {_number(c['lt'])}",
    "int_parsing": lambda c: "must be a whole number",
    "int_type": lambda c: "must be a whole number",
    "int_from_float": lambda c: "must be a whole number",
    "float_parsing": lambda c: "must be a number",
    "float_type": lambda c: "must be a number",
    "finite_number": lambda c: "must be a finite number",
    "bool_parsing": lambda c: "must be true or false",
    "bool_type": lambda c: "must be true or false",
    "string_type": lambda c: "must be text",
    "string_too_short": lambda c: f"must be at least {_number(c['min_length'])} characters",
    "string_too_long": lambda c: f"must be at most {_number(c['max_length'])} characters",
    "too_short": lambda c: f"must have at least {_number(c['min_length'])} items",
    "too_long": lambda c: f"must have at most {_number(c['max_length'])} items",
    "list_type": lambda c: "must be a list",
    "dict_type": lambda c: "must be a table of names and values",
    "missing": lambda c: "is required",
    "extra_forbidden": lambda c: "is not a setting this tool knows",
    "literal_error": lambda c: f"must be one of {c['expected']}",
    "enum": lambda c: f"must be one of {c['expected']}",
}


def plain_error(err: dict) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) as a plain sentence:
    "must be 1 or more" where pydantic says "Input should be greater than or equal to 1"."""
    kind = err.get("type", "")
    ctx = err.get("ctx") or {}
    make = _PLAIN.get(kind)
    if make is not None:
        try:
            return make(ctx)
        except (KeyError, TypeError, ValueError):
            pass
    return str(err.get("msg", "is not valid")).removeprefix("Value error, ")
