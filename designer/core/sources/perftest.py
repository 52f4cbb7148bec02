"""Read the result line of a perftest latency run (``ib_send_lat``, ``ib_write_lat``...).

perftest measures the round trip and reports half of it as the one-way latency, with the
median as ``t_typical``; that median is the figure taken, with the message size of its row
(the largest size when the run swept several: the caller may pick another with ``size``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from designer.core.safe_io import FileRefused, read_text
from designer.core.sources.apply import SourcesError
from designer.core.text import ascii_float, ascii_int, shown

MAX_BYTES = 1024 * 1024  # a perftest run prints a few kilobytes


@dataclass(frozen=True)
class PerftestRow:
    message_bytes: int
    typical_us: float
    link_type: str  # "IB" or "Ethernet" when perftest printed it, else ""
    tool: str  # the test's title line, e.g. "Send Latency Test"


def read_perftest(path: str | os.PathLike[str], size: int | None = None) -> PerftestRow:
    """The result of the perftest output saved in ``path`` (a regular file, at most 1 MiB)."""
    try:
        text = read_text(path, limit=MAX_BYTES, what="perftest output", fallback="latin-1")
    except FileRefused as exc:
        raise SourcesError(str(exc)) from None
    return parse_perftest(text, size, shown(os.fspath(path), 200))


def parse_perftest(text: str, size: int | None = None, where: str = "perftest output"
                   ) -> PerftestRow:
    lines = text.splitlines()
    head = next((i for i, ln in enumerate(lines) if "t_typical" in ln and "#bytes" in ln), None)
    if head is None:
        raise SourcesError(f"{where}: no result table (a header line with '#bytes' and "
                           "'t_typical[usec]')")
    cols = lines[head].split()
    # "99% percentile[usec]" is two words in the header: index by the first columns only
    try:
        i_bytes, i_typ = cols.index("#bytes"), cols.index("t_typical[usec]")
    except ValueError:
        raise SourcesError(f"{where}: unexpected result header: "
                           f"{shown(lines[head].strip(), 120)}") from None
    rows: list[tuple[int, float]] = []
    for ln in lines[head + 1:]:
        parts = ln.split()
        if not parts or ascii_int(parts[0]) is None:
            if rows:
                break
            continue
        size_b = ascii_int(parts[i_bytes]) if i_bytes < len(parts) else None
        typical = ascii_float(parts[i_typ]) if i_typ < len(parts) else None
        if size_b is None or typical is None or size_b <= 0:
            raise SourcesError(f"{where}: cannot read the result line "
                               f"'{shown(ln.strip(), 120)}'")
        rows.append((size_b, typical))
    if not rows:
        raise SourcesError(f"{where}: the result table has no rows")
    if size is not None:
        pick = [r for r in rows if r[0] == size]
        if not pick:
            have = ", ".join(str(r[0]) for r in rows)
            raise SourcesError(f"{where}: no result for {size} bytes (have {have})")
        row = pick[0]
    else:
        row = rows[-1] if len(rows) > 1 else rows[0]
    link = ""
    title = ""
    for ln in lines[:head]:
        s = ln.strip()
        if s.startswith("Link type") and ":" in s:
            link = shown(s.split(":", 1)[1].strip(), 40)
        if s.endswith("Test") and not title:
            title = shown(s, 120)
    if row[1] <= 0:
        raise SourcesError(f"{where}: t_typical {row[1]} us is not a latency")
    return PerftestRow(row[0], row[1], link, title)
