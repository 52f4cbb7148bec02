"""Reading measured results: nccl-tests and perftest output in their real text formats.

nccl-tests prints, per run, a parameter line (``# nThread 1 nGpus 1 minBytes ...``), one line
per rank (``#  Rank  0 Group  0 Pid ... on HOST device 0 ...``), a two-line column header
(``size count type redop [root] time algbw busbw #wrong|error`` for out-of-place, then
in-place) and one row per size; ``# Avg bus bandwidth`` closes it. Versions differ (no
``root`` or ``Group`` before 2.13, ``error`` instead of ``#wrong``, ``N/A`` in-place columns),
launchers prefix lines (``[1,0]<stdout>:`` from Open MPI's ``--tag-output``, ``0:`` from
``srun --label``), and NCCL's own log lines interleave: rows are read by the header's column
names, one line at a time, and a line that does not fit is counted and skipped. perftest
(``ib_write_bw``, ``ib_write_lat`` ...) prints a title, ``Device``/``Link type`` lines and a
table headed ``#bytes`` (``BW average[Gb/sec]`` or ``[MB/sec]``, or ``t_typical[usec]``).

Numbers read here are data: they are parsed as floats, never evaluated, and every file is
read within ``MAX_BYTES`` (see ``safe_io``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from designer.core.errors import DesignerError
from designer.core.safe_io import read_text

MAX_BYTES = 64 * 1024 * 1024
MAX_ROWS = 200_000
_PREFIX = re.compile(r"^\s*(?:\[\d+,\d+\]<std(?:out|err)>:|\d+:\s|\[\d+\](?=\s))")
_RANK = re.compile(r"#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)")
_STARTING = re.compile(r"Collective test starting:\s*(\w+)")
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*([0-9.eE+-]+)")
_PARAMS = re.compile(r"#?\s*nThread\s+\d+\s+nGpus\s+(\d+)")
TYPE_BYTES = {"int8": 1, "char": 1, "uint8": 1, "int32": 4, "int": 4, "uint32": 4,
              "int64": 8, "uint64": 8, "half": 2, "float16": 2, "bfloat16": 2, "float": 4,
              "float32": 4, "double": 8, "float64": 8, "f8e4m3": 1, "f8e5m2": 1}
REDOPS = {"sum", "prod", "max", "min", "avg", "mulsum"}
# the binaries' names as files and titles carry them -> the estimate's operation
OP_OF_NAME = (("all_reduce", "all-reduce"), ("allreduce", "all-reduce"),
              ("all_gather", "all-gather"), ("allgather", "all-gather"),
              ("alltoall", "all-to-all"), ("all_to_all", "all-to-all"),
              ("reduce_scatter", "reduce-scatter"), ("reducescatter", "reduce-scatter"))


class ResultsError(DesignerError):
    """A results file cannot be read at all; the message names it."""


@dataclass
class NcclRow:
    bytes: int
    time_us: float
    busbw: float  # out-of-place, GB/s
    busbw_in: float | None  # in-place
    wrong: int


@dataclass
class NcclRun:
    source: str  # file name and run number
    op: str  # the estimate's name, "" when it cannot be told
    ranks: int
    hosts: tuple[str, ...]
    gpus_per_host: int
    rows: list[NcclRow] = field(default_factory=list)
    avg_busbw: float | None = None
    skipped: int = 0


@dataclass
class PerfRow:
    bytes: int
    value: float  # Gb/s for bandwidth tests, us (t_typical) for latency tests


@dataclass
class PerftestRun:
    source: str
    test: str  # ib_write_bw, ib_write_lat, ...
    kind: str  # "bw" or "lat"
    device: str
    link: str
    rows: list[PerfRow] = field(default_factory=list)
    server: str = ""
    client: str = ""


@dataclass
class Results:
    nccl: list[NcclRun] = field(default_factory=list)
    perftest: list[PerftestRun] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _number(tok: str) -> float | None:
    try:
        v = float(tok)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _op_from_name(text: str) -> str:
    low = text.lower()
    for key, op in OP_OF_NAME:
        if key in low:
            return op
    return ""


_TAG = re.compile(r"\[\d+\]")


def _clean(line: str) -> str:
    """The line without a launcher's prefix; a ``[rank]`` tag that also interrupts the line
    (two ranks' output spliced together) is removed wherever it appears."""
    s = line.rstrip("\r\n")
    if _TAG.match(s.lstrip()):
        return _TAG.sub(" ", s)
    return _PREFIX.sub("", s, count=1)


def _header_columns(line: str) -> list[str] | None:
    body = line.strip().lstrip("#").split()
    if len(body) >= 6 and body[0] == "size" and "busbw" in body and "time" in body:
        return [("wrong" if t in ("#wrong", "wrong") else t) for t in body]
    return None


def parse_nccl(text: str, name: str) -> list[NcclRun]:
    runs: list[NcclRun] = []
    hint = _op_from_name(name)
    ranks: dict[int, tuple[str, int]] = {}
    started = ""
    cols: list[str] | None = None
    run: NcclRun | None = None
    last_size = -1
    total_rows = 0  # kept as rows come: re-summing every run per row was quadratic

    def new_run() -> NcclRun:
        hosts = tuple(dict.fromkeys(h for h, _ in ranks.values()))
        per = {}
        for h, _d in ranks.values():
            per[h] = per.get(h, 0) + 1
        r = NcclRun(f"{name} run {len(runs) + 1}", started or hint, len(ranks), hosts,
                    max(per.values()) if per else 0)
        runs.append(r)
        return r

    for raw in text.splitlines():
        line = _clean(raw)
        s = line.strip()
        if not s:
            continue
        # a result row starts with its size: the markers below never do (a log of a night's
        # reruns is almost all rows)
        if not s[0].isdigit():
            m = _STARTING.search(s)
            if m:
                started = _op_from_name(m.group(1))
                continue
            if _PARAMS.search(s):
                ranks = {}
                cols = None
                run = None
                continue
            m = _RANK.search(s)
            if m:
                ranks[int(m.group(1))] = (m.group(2), int(m.group(3)))
                continue
            c = _header_columns(s)
            if c:
                cols = c
                run = None
                last_size = -1
                continue
            m = _AVG.search(s)
            if m and run is not None:
                run.avg_busbw = _number(m.group(1))
                continue
        if s.startswith("#") or cols is None:
            continue
        toks = s.split()
        if not toks or not toks[0].isdigit():
            continue
        if len(toks) != len(cols):
            if run is not None:
                run.skipped += 1
            continue
        row = _row(toks, cols)
        if row is None:
            if run is not None:
                run.skipped += 1
            continue
        if run is None or row.bytes < last_size:  # a new sweep (another run's rows)
            run = new_run()
        if not run.op:
            run.op = _infer_op(toks, cols, row, run.ranks)
        run.rows.append(row)
        last_size = row.bytes
        total_rows += 1
        if total_rows > MAX_ROWS:
            raise ResultsError(f"{name}: more than {MAX_ROWS:,} result rows")
    return [r for r in runs if r.rows]


def _row(toks: list[str], cols: list[str]) -> NcclRow | None:
    try:
        size = int(toks[cols.index("size")])
    except ValueError:
        return None
    times = [i for i, c in enumerate(cols) if c == "time"]
    bus = [i for i, c in enumerate(cols) if c == "busbw"]
    wrong = [i for i, c in enumerate(cols) if c == "wrong"]
    t = _number(toks[times[0]])
    b = _number(toks[bus[0]])
    if t is None or b is None or t < 0 or b < 0:
        return None
    b_in = _number(toks[bus[1]]) if len(bus) > 1 else None
    bad = 0
    for i in wrong:  # "#wrong" counts bad values; the older "error" column is a magnitude
        if toks[i].isdigit():
            bad += int(toks[i])
    return NcclRow(size, t, b, b_in, bad)


def _infer_op(toks: list[str], cols: list[str], row: NcclRow, ranks: int) -> str:
    """all-reduce when a reduction runs on the whole buffer (count x type = size)."""
    try:
        count = int(toks[cols.index("count")])
        tb = TYPE_BYTES.get(toks[cols.index("type")].lower(), 0)
        redop = toks[cols.index("redop")].lower() if "redop" in cols else ""
    except (ValueError, IndexError):
        return ""
    if redop in REDOPS and tb and count * tb == row.bytes:
        return "all-reduce"
    if redop in REDOPS and tb and ranks and count * tb * ranks == row.bytes:
        return "reduce-scatter"
    return ""


_PT_TITLE = re.compile(r"(RDMA_Write|RDMA_Read|Send|Atomic\w*)\s+(BW|Latency)\s+Test")
_PT_DEVICE = re.compile(r"Device\s*:\s*(\S+)")
_PT_LINK = re.compile(r"Link type\s*:\s*(\S+)")
_PT_TESTS = {("RDMA_Write", "BW"): "ib_write_bw", ("RDMA_Write", "Latency"): "ib_write_lat",
             ("RDMA_Read", "BW"): "ib_read_bw", ("RDMA_Read", "Latency"): "ib_read_lat",
             ("Send", "BW"): "ib_send_bw", ("Send", "Latency"): "ib_send_lat"}
# host names hold no '_' (``cluster.host_name``): server and client split there exactly
_PT_FILE = re.compile(r"(ib_\w+?_(?:bw|lat))_([^_]+)_([^_]+)_rail(\d+)")


def parse_perftest(text: str, name: str) -> list[PerftestRun]:
    runs: list[PerftestRun] = []
    run: PerftestRun | None = None
    head: list[str] | None = None
    fm = _PT_FILE.search(Path(name).stem)
    for raw in text.splitlines():
        s = _clean(raw).strip()
        if not s:
            continue
        m = _PT_TITLE.search(s)
        if m:
            test = _PT_TESTS.get((m.group(1), m.group(2)), f"{m.group(1)} {m.group(2)}")
            kind = "bw" if m.group(2) == "BW" else "lat"
            run = PerftestRun(f"{name} run {len(runs) + 1}", test, kind, "", "")
            if fm:
                run.server, run.client = fm.group(2), fm.group(3)
            runs.append(run)
            head = None
            continue
        if run is None:
            continue
        m = _PT_DEVICE.search(s)
        if m and not run.device:
            run.device = m.group(1)
        m = _PT_LINK.search(s)
        if m:
            run.link = m.group(1)
        if s.startswith("#bytes"):
            head = s.split()
            continue
        if head is None or not s[0].isdigit():
            continue
        toks = s.split()
        val = _perf_value(toks, head, run.kind)
        if val is None:
            continue
        try:
            run.rows.append(PerfRow(int(toks[0]), val))
        except ValueError:
            continue
    return [r for r in runs if r.rows]


def _merged(head: list[str]) -> list[str]:
    """Header words as columns: ``BW average[Gb/sec]`` and ``99% percentile[usec]`` are one
    column each, written as two words."""
    out: list[str] = []
    for t in head:
        if out and (out[-1] in ("BW",) or out[-1].endswith("%")):
            out[-1] = f"{out[-1]} {t}"
        else:
            out.append(t)
    return out


def _perf_value(toks: list[str], head: list[str], kind: str) -> float | None:
    cols = _merged(head)
    if kind == "lat":
        name = "t_typical[usec]"
        i = cols.index(name) if name in cols else -1
        return _number(toks[i]) if 0 <= i < len(toks) else None
    for i, h in enumerate(cols):
        if h.startswith("BW average["):
            v = _number(toks[i]) if i < len(toks) else None
            if v is None:
                return None
            if "MB/sec" in h:
                return v * 8 * 1.048576 / 1000  # perftest's MB is 2^20 bytes
            return v
    return None


def read_results(paths: list[str | Path]) -> Results:
    """Every run in ``paths`` (nccl-tests or perftest output, told apart by content)."""
    out = Results()
    if not paths:
        raise ResultsError("give at least one results file")
    for p in paths:
        path = Path(p)
        text = read_text(path, limit=MAX_BYTES, what="results file", fallback="utf-8")
        if "\x00" in text[:4096]:
            raise ResultsError(f"{path}: a binary file, not nccl-tests or perftest output")
        nccl = parse_nccl(text, path.name)
        perf = parse_perftest(text, path.name)
        if not nccl and not perf:
            raise ResultsError(f"{path}: no nccl-tests or perftest result table in it "
                               "(is it the output of another tool, or cut before the first "
                               "result line?)")
        for r in nccl:
            if not r.op:
                out.warnings.append(f"{r.source}: cannot tell which collective it ran; name "
                                    "the file after the test (all_gather_perf.txt)")
            if r.skipped:
                out.warnings.append(f"{r.source}: {r.skipped} line(s) cut or garbled, skipped")
            if not r.ranks:
                out.warnings.append(f"{r.source}: no '# Rank' lines; rank count taken from "
                                    "the plan")
        out.nccl += [r for r in nccl if r.op]
        out.perftest += perf
    return out
