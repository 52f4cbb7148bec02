"""A trace of jobs: when each arrives, how many GPUs it asks for, how long it runs, what it
runs and for whom; read from the plain CSV the command line documents.

``Trace`` holds one numpy column per field, so a month of 10,000 jobs costs nothing to carry
around. ``hosts`` is the trace's own placement where the source has one (Philly, Lingjun): a
tuple of (host name, GPUs on it) per job, or empty.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from designer.core.errors import DesignerError
from designer.core.safe_io import FileRefused, read_text
from designer.core.text import shown

REQUIRED = ("job", "arrival_h", "gpus", "duration_h")
OPTIONAL = ("workload", "tenant", "tokens")
MAX_JOBS = 10_000_000
# What every reader's jobs are checked against (the CSV reader's checks, for all formats): a
# replay steps through every failure event up to the last job's end, so times are bounded.
MAX_HOURS = 87_600.0  # ten years, for an arrival and for a run time
MAX_JOB_GPUS = 1 << 20  # the largest design the tool builds


class TraceError(DesignerError):
    """A trace that cannot be read: names the file and the row."""


@dataclass(frozen=True, eq=False)
class Trace:
    name: str
    job: tuple[str, ...]
    arrival_h: np.ndarray  # float64, hours from the trace's start
    gpus: np.ndarray  # int64
    duration_h: np.ndarray  # float64, run time on an ideal fabric without failures
    workload: tuple[str, ...]  # a preset name, a traffic name (ring, all-to-all, none) or ""
    tenant: tuple[str, ...]
    tokens: np.ndarray  # float64, 0 when not given
    hosts: tuple[tuple[tuple[str, int], ...], ...] = field(default=())
    source: str = "csv"
    window_h: float | None = None  # a synthetic mix's arrival window: the replay's default

    @property
    def n(self) -> int:
        return int(self.gpus.size)

    @property
    def span_h(self) -> float:
        return float((self.arrival_h + self.duration_h).max()) if self.n else 0.0

    def check_fits(self, gpus: int) -> None:
        """A one-line error naming the first job larger than the design."""
        big = np.flatnonzero(self.gpus > gpus)
        if big.size:
            i = int(big[0])
            raise TraceError(f"{self.name}, job {self.job[i]}: asks for {int(self.gpus[i]):,} "
                             f"GPUs, but the design has {gpus:,}")

    def head(self, days: float | None) -> Trace:
        """The jobs arriving within the first ``days`` (all when None)."""
        if days is None:
            return self
        keep = np.flatnonzero(self.arrival_h < days * 24.0)
        return self.take(keep)

    def take(self, idx: np.ndarray) -> Trace:
        idx = np.asarray(idx, np.int64)
        pick = idx.tolist()
        return Trace(self.name, tuple(self.job[i] for i in pick), self.arrival_h[idx],
                     self.gpus[idx], self.duration_h[idx],
                     tuple(self.workload[i] for i in pick), tuple(self.tenant[i] for i in pick),
                     self.tokens[idx], tuple(self.hosts[i] for i in pick) if self.hosts else (),
                     self.source)


def make_trace(name: str, job, arrival_h, gpus, duration_h, workload=None, tenant=None,
               tokens=None, hosts=None, source: str = "csv", shift: bool = True) -> Trace:
    """A trace from columns, sorted by arrival (stable); ``shift``: times moved to start at
    0 (public traces count from an arbitrary epoch)."""
    n = len(job)
    if n > MAX_JOBS:
        raise TraceError(f"{name}: more than {MAX_JOBS:,} jobs")
    arr = _checked(name, job, arrival_h, "arrival_h", np.float64)
    g = _checked(name, job, gpus, "gpus", np.int64)
    dur = _checked(name, job, duration_h, "duration_h", np.float64)
    start = float(arr.min()) if n and shift else 0.0
    late = np.flatnonzero(arr - start > MAX_HOURS)
    if late.size:
        raise TraceError(f"{name}, job {shown(str(job[int(late[0])]), 80)}: arrives "
                         f"{arr[int(late[0])] - start:,.6g} h after the first, more than "
                         f"{MAX_HOURS:,.0f} h (ten years)")
    tok = _checked(name, job, tokens if tokens is not None else np.zeros(n), "tokens",
                   np.float64)
    order = np.argsort(arr, kind="stable")
    t = Trace(name, tuple(str(x) for x in job), arr - start, g, dur,
              tuple(workload) if workload is not None else ("",) * n,
              tuple(tenant) if tenant is not None else ("",) * n, tok,
              tuple(hosts) if hosts is not None else (), source)
    return t.take(order)


_RANGES = {"arrival_h": (-1e12, 1e12, "h"), "duration_h": (0.0, MAX_HOURS, "h"),
           "gpus": (1, MAX_JOB_GPUS, "GPUs"), "tokens": (0.0, 1e18, "tokens")}


def _checked(name: str, job, values, what: str, dtype) -> np.ndarray:
    """A column as ``dtype``, every value finite and in range; a refusal names the first job
    outside (what the CSV reader checks, for every format)."""
    lo, hi, unit = _RANGES[what]
    vals = list(values) if not isinstance(values, np.ndarray) else values
    try:
        f = np.asarray(vals, np.float64)
    except (TypeError, ValueError, OverflowError):
        f = np.array([_as_float(v) for v in vals], np.float64)
    bad = ~np.isfinite(f) | (f < lo) | (f > hi)
    if what == "duration_h":
        bad |= f <= 0
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise TraceError(f"{name}, job {shown(str(job[i]), 80)}: {what} {vals[i]!r} is not a "
                         f"number from {lo:,g} to {hi:,g} {unit}")
    return f.astype(dtype) if dtype is not np.float64 else f


def _as_float(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def _number(text: str, where: str, what: str, integer: bool = False) -> float:
    s = text.strip()
    try:
        x = float(s)
    except ValueError:
        raise TraceError(f"{where}: {what} '{s}' is not a number") from None
    if not math.isfinite(x):
        raise TraceError(f"{where}: {what} '{s}' is not a finite number")
    if x < 0:
        raise TraceError(f"{where}: {what} is negative ({s})")
    if integer and x != int(x):
        raise TraceError(f"{where}: {what} '{s}' is not a whole number")
    return x


def read_csv(path: str | Path) -> Trace:
    """The documented CSV: header ``job,arrival_h,gpus,duration_h`` (any order), optional
    ``workload``, ``tenant``, ``tokens``. A malformed row gets a message naming it."""
    p = Path(path)
    return parse_csv(read_trace_text(p), p.name)


MAX_TRACE_BYTES = 1 << 30  # the largest public traces are a few hundred megabytes


def read_trace_text(path: Path) -> str:
    """A trace file's text through the safe file layer: a regular file (a FIFO or a device is
    refused before it is opened), at most 1 GiB, UTF-8 (a refusal names the line)."""
    try:
        return read_text(path, limit=MAX_TRACE_BYTES, what="trace")
    except FileRefused as exc:
        raise TraceError(str(exc)) from None


def parse_csv(text: str, name: str) -> Trace:
    reader = csv.reader(io.StringIO(text))
    try:
        rows = iter(list(reader))
    except csv.Error as exc:  # a bare carriage return in a field, a field over 128 KiB
        raise TraceError(f"{name}, line {reader.line_num}: not CSV ({exc})") from None
    header = next(rows, None)
    if header is None:
        raise TraceError(f"{name}: empty file (expected the header {','.join(REQUIRED)})")
    cols = [h.strip().lower() for h in header]
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        raise TraceError(f"{name}, row 1: the header lacks {', '.join(missing)} (expected "
                         f"{','.join(REQUIRED)}[,workload,tenant,tokens])")
    at = {c: cols.index(c) for c in REQUIRED + OPTIONAL if c in cols}
    job, arr, gpus, dur, wl, ten, tok = [], [], [], [], [], [], []
    seen: set[str] = set()
    for line, r in enumerate(rows, start=2):
        if not r or not any(x.strip() for x in r):
            continue
        where = f"{name}, row {line}"
        if len(r) < len(cols):
            raise TraceError(f"{where}: {len(r)} fields, the header has {len(cols)}")
        jid = r[at["job"]].strip()
        if not jid:
            raise TraceError(f"{where}: the job has no name")
        if jid in seen:
            raise TraceError(f"{where}: job '{jid}' appears twice")
        seen.add(jid)
        g = _number(r[at["gpus"]], where, "gpus", integer=True)
        if g < 1:
            raise TraceError(f"{where}: gpus must be at least 1")
        d = _number(r[at["duration_h"]], where, "duration_h")
        if d <= 0:
            raise TraceError(f"{where}: duration_h must be positive")
        job.append(jid)
        arr.append(_number(r[at["arrival_h"]], where, "arrival_h"))
        gpus.append(int(g))
        dur.append(d)
        wl.append(r[at["workload"]].strip() if "workload" in at else "")
        ten.append(r[at["tenant"]].strip() if "tenant" in at else "")
        tok.append(_number(r[at["tokens"]], where, "tokens") if "tokens" in at
                   and r[at["tokens"]].strip() else 0.0)
        if len(job) > MAX_JOBS:
            raise TraceError(f"{name}: more than {MAX_JOBS:,} jobs")
    if not job:
        raise TraceError(f"{name}: no jobs after the header")
    return make_trace(name, job, arr, gpus, dur, wl, ten, tok, shift=False)
