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

REQUIRED = ("job", "arrival_h", "gpus", "duration_h")
OPTIONAL = ("workload", "tenant", "tokens")
MAX_JOBS = 10_000_000


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
    arr = np.asarray(arrival_h, np.float64)
    order = np.argsort(arr, kind="stable")
    start = float(arr.min()) if n and shift else 0.0
    t = Trace(name, tuple(str(x) for x in job), arr - start, np.asarray(gpus, np.int64),
              np.asarray(duration_h, np.float64),
              tuple(workload) if workload is not None else ("",) * n,
              tuple(tenant) if tenant is not None else ("",) * n,
              np.asarray(tokens if tokens is not None else np.zeros(n), np.float64),
              tuple(hosts) if hosts is not None else (), source)
    return t.take(order)


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
    rows = csv.reader(io.StringIO(text))
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
