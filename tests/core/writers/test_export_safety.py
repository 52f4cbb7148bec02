"""Formula injection: text that leaves the app never becomes a formula (CWE-1236)."""

from __future__ import annotations

import csv
import io
import re

from hypothesis import given
from hypothesis import strategies as st

from designer.core.writers.csv_writer import csv_bytes
from designer.core.writers.safety import csv_text, is_formula_like, xml_text

RISKY = ["=1+1", "+1", "-2", "@SUM(A1)", "\t=1", "\r=1", "\n=1", " =1", "\uff1d1",
         "=cmd|'/C calc'!A0"]


def test_risky_starts_are_recognised():
    for text in RISKY:
        assert is_formula_like(text), text
    for text in ["leaf-1", "1/2", "su1-node01", "", "  ", "'=x", "a=b"]:
        assert not is_formula_like(text), text


def _safe_and_whole(out: str, sent: str) -> None:
    """Neither the field nor any piece a reader splitting at ``;``, ``|`` or tab would see
    reads as a formula, and only apostrophes were added (one before the field, one before
    each risky piece)."""
    assert not is_formula_like(out)
    assert not any(is_formula_like(piece) for piece in re.split("[;|\t]", out)[1:])
    assert out.replace("'", "") == sent.replace("'", "")
    added = out.count("'") - sent.count("'")
    assert 0 <= added <= 1 + len(re.findall("[;|\t]", sent))
    assert (added == 0) == (out == sent)


@given(st.text())
def test_csv_text_is_never_a_formula_and_loses_nothing(text):
    _safe_and_whole(csv_text(text), text)


@given(st.lists(st.sampled_from(["a", ";", "|", "\t", "=", "+", " ", "'", "-1", "@"]),
                max_size=12).map("".join))
def test_risky_pieces_behind_delimiters_get_their_apostrophe(text):
    """The same, on text made of the characters that matter (random text rarely holds a
    delimiter followed by a formula start)."""
    _safe_and_whole(csv_text(text), text)


def test_numbers_pass_unchanged():
    assert csv_text(-5) == -5 and csv_text(2.5) == 2.5


@given(st.lists(st.text(), min_size=1, max_size=5))
def test_csv_round_trip_keeps_every_field_safe(fields):
    data = csv_bytes(["h"] * len(fields), [fields]).decode("utf-8")
    rows = list(csv.reader(io.StringIO(data, newline="")))
    assert len(rows) == 2
    for got, sent in zip(rows[1], fields, strict=True):
        _safe_and_whole(got, sent)


def test_xml_text_drops_what_xml_cannot_hold():
    assert xml_text("a\x00b\x1fc\td") == "a\ufffdb\ufffdc\td"
