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
