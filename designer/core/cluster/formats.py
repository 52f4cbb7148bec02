"""Readers for the public traces' own formats, each read whole, into a ``Trace``.

- Microsoft Philly (``cluster_job_log``, JSON; msr-fiddle/philly-traces): a job per entry,
  ``submitted_time``, ``attempts`` with ``start_time``/``end_time`` and ``detail`` (the
  server ``ip`` and its ``gpus``), ``user``, ``vc``. The run time is the attempts' sum; the
  placement is the last attempt's.
- Alibaba PAI 2020 (``pai_task_table``; alibaba/clusterdata cluster-trace-gpu-v2020): CSV
  without a header, columns ``job_name,task_name,inst_num,status,start_time,end_time,
  plan_cpu,plan_mem,plan_gpu,gpu_type``; ``plan_gpu`` is percent of a GPU per instance, times
  in seconds. A job's GPUs are its tasks' ``inst_num x plan_gpu / 100`` rounded up.
- Shanghai AI Lab Acme (``trace_seren.csv``, ``trace_kalos.csv``; InternLM/AcmeTrace):
  ``job_id,user,node_num,gpu_num,...,submit_time,start_time,end_time,duration,...``.
- Alibaba Lingjun 2023 (alibaba/alibaba-lingjun-dataset-2023): a worker table (one row per
  worker: its job, host, GPUs, start and end) and ``topo.csv`` (``ip,DSW,PSW,ASW``: every
  host's core, aggregation and ToR switch). The worker table's columns are found by name.
  With the topology the hosts keep their ToR: the trace's own placement.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import numpy as np

from designer.core.cluster.trace import (
    MAX_JOB_GPUS,
    Trace,
    TraceError,
    make_trace,
    parse_csv,
    read_trace_text,
)
from designer.core.text import shown

PAI_TASK_COLUMNS = ("job_name", "task_name", "inst_num", "status", "start_time", "end_time",
                    "plan_cpu", "plan_mem", "plan_gpu", "gpu_type")
FORMATS = ("csv", "philly", "pai", "acme", "lingjun")


def _read(path: Path) -> str:
    return read_trace_text(path)


def _time_h(text: object, where: str) -> float:
    """Seconds (a number, or its text) or an ISO date, in hours; NaN and infinity refused."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        x = float(text)
    elif isinstance(text, str) or text is None:
        s = (text or "").strip()
        if not s:
            raise TraceError(f"{where}: no time")
        try:
            x = float(s)
        except ValueError:
            try:
                return datetime.fromisoformat(s).timestamp() / 3600.0
            except (ValueError, OverflowError):
                raise TraceError(f"{where}: '{shown(s, 80)}' is not a time") from None
    else:
        raise TraceError(f"{where}: a time must be a number or a date, found "
                         f"{type(text).__name__}")
    if not math.isfinite(x) or abs(x) > MAX_SECONDS:
        raise TraceError(f"{where}: time {x!r} is not a finite number of seconds within "
                         f"{MAX_SECONDS:,.0f}")
    return x / 3600.0


MAX_SECONDS = 1e13  # 300,000 years after the epoch: any real timestamp


def _rows(text: str, name: str) -> list[list[str]]:
    """The CSV rows of ``text``; what the csv module refuses (a bare carriage return inside
    a field, a field over its 128 KiB limit) is a refusal naming the file and line."""
    reader = csv.reader(io.StringIO(text))
    try:
        return list(reader)
    except csv.Error as exc:
        raise TraceError(f"{name}, line {reader.line_num}: not CSV ({exc})") from None


def _whole(text: str, where: str, what: str) -> int:
    try:
        x = float(text or 0)
    except ValueError:
        raise TraceError(f"{where}: {what} '{shown(text, 80)}' is not a number") from None
    if not math.isfinite(x) or not 0 <= x <= MAX_JOB_GPUS:
        raise TraceError(f"{where}: {what} '{shown(text, 80)}' is not a number from 0 to "
                         f"{MAX_JOB_GPUS:,}")
    return int(x)


def detect(path: Path, text: str) -> str:
    head = text.lstrip()[:4096]
    if head.startswith("[") or head.startswith("{"):
        return "philly"
    first = head.splitlines()[0].lower() if head else ""
    cols = [c.strip() for c in first.split(",")]
    if "job" in cols and {"arrival_h", "gpus", "duration_h"} & set(cols):
        return "csv"  # the documented CSV (its parser names what the header lacks)
    if "gpu_num" in cols and "submit_time" in cols:
        return "acme"
    if ("ip" in cols or "host_ip" in cols) and any("job" in c for c in cols):
        return "lingjun"
    if len(cols) == len(PAI_TASK_COLUMNS) and cols[0] != "job_name":
        return "pai"
    if cols[:3] == list(PAI_TASK_COLUMNS[:3]):
        return "pai"
    raise TraceError(f"{path.name}: not a trace this tool reads (a CSV with the header "
                     "job,arrival_h,gpus,duration_h, or Philly, PAI, Acme or Lingjun files)")


def read_trace(path: str | Path, fmt: str | None = None, topology: str | Path | None = None
               ) -> Trace:
    """Any supported trace; ``fmt`` None: recognised from the file. ``topology``: Lingjun's
    ``topo.csv`` for the trace's own placement."""
    p = Path(path)
    text = _read(p)
    fmt = fmt or detect(p, text)
    if fmt == "csv":
        return parse_csv(text, p.name)
    if fmt == "philly":
        return philly(text, p.name)
    if fmt == "pai":
        return pai(text, p.name)
    if fmt == "acme":
        return acme(text, p.name)
    if fmt == "lingjun":
        topo = _read(Path(topology)) if topology else None
        return lingjun(text, p.name, topo)
    raise TraceError(f"unknown trace format '{fmt}' (choose {', '.join(FORMATS)})")


def philly(text: str, name: str) -> Trace:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceError(f"{name}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise TraceError(f"{name}: expected a list of jobs")
    job, arr, gpus, dur, ten, hosts = [], [], [], [], [], []
    for i, e in enumerate(data, start=1):
        where = f"{name}, job {i}"
        if not isinstance(e, dict) or "attempts" not in e:
            raise TraceError(f"{where}: expected an object with 'attempts'")
        att = e["attempts"] or []
        if not isinstance(att, list) or not all(isinstance(a, dict) for a in att):
            raise TraceError(f"{where}: 'attempts' must be a list of objects")
        runs = [a for a in att if a.get("start_time") and a.get("end_time")]
        if not runs:  # never ran, or a logging gap: nothing to replay
            continue
        sub = _time_h(e.get("submitted_time") or runs[0]["start_time"], where)
        run_h = sum(_time_h(a["end_time"], where) - _time_h(a["start_time"], where)
                    for a in runs)
        last = runs[-1].get("detail") or []
        if not isinstance(last, list) or not all(
                isinstance(d, dict) and isinstance(d.get("gpus") or [], list) for d in last):
            raise TraceError(f"{where}: 'detail' must be a list of objects with a 'gpus' list")
        placed = tuple((str(d.get("ip", "")), len(d.get("gpus") or ())) for d in last)
        n = sum(k for _, k in placed)
        if n < 1 or run_h <= 0:
            continue
        job.append(str(e.get("jobid", i)))
        arr.append(sub)
        gpus.append(n)
        dur.append(run_h)
        ten.append(str(e.get("vc") or e.get("user") or ""))
        hosts.append(placed)
    if not job:
        raise TraceError(f"{name}: no job that ran (Philly entries need attempts with times)")
    return make_trace(name, job, arr, gpus, dur, None, ten, None, hosts, "philly")


def pai(text: str, name: str) -> Trace:
    rows = _rows(text, name)
    if rows and rows[0][:1] == ["job_name"]:
        rows = rows[1:]
    start: dict[str, float] = {}
    end: dict[str, float] = {}
    need: dict[str, float] = defaultdict(float)
    for line, r in enumerate(rows, start=1):
        if not r:
            continue
        where = f"{name}, row {line}"
        if len(r) < len(PAI_TASK_COLUMNS):
            raise TraceError(f"{where}: {len(r)} fields, a PAI task row has "
                             f"{len(PAI_TASK_COLUMNS)}")
        jid, inst, st, en, pg = r[0], r[2], r[4], r[5], r[8]
        if not st.strip() or not en.strip() or not pg.strip():
            continue  # a task that never ran or asked no GPU
        try:
            g = float(inst or 1) * float(pg) / 100.0
        except ValueError:
            raise TraceError(f"{where}: inst_num or plan_gpu is not a number") from None
        if not math.isfinite(g) or g > MAX_JOB_GPUS:
            raise TraceError(f"{where}: inst_num x plan_gpu / 100 is not a number from 0 to "
                             f"{MAX_JOB_GPUS:,}")
        if g <= 0:
            continue
        s, e = _time_h(st, where), _time_h(en, where)
        start[jid] = min(start.get(jid, s), s)
        end[jid] = max(end.get(jid, e), e)
        need[jid] += g
        if need[jid] > MAX_JOB_GPUS:
            raise TraceError(f"{where}: job '{shown(jid, 80)}' asks for more than "
                             f"{MAX_JOB_GPUS:,} GPUs")
    ids = [j for j in start if end[j] > start[j]]
    if not ids:
        raise TraceError(f"{name}: no GPU task with start and end times")
    return make_trace(name, ids, [start[j] for j in ids], [math.ceil(need[j]) for j in ids],
                      [end[j] - start[j] for j in ids], None, None, None, None, "pai")


def _table(text: str, name: str) -> tuple[list[str], list[list[str]]]:
    rows = _rows(text, name)
    if not rows:
        raise TraceError(f"{name}: empty file")
    return [h.strip().lower() for h in rows[0]], rows[1:]


def acme(text: str, name: str) -> Trace:
    cols, rows = _table(text, name)
    for c in ("job_id", "gpu_num", "submit_time", "start_time", "end_time"):
        if c not in cols:
            raise TraceError(f"{name}, row 1: an Acme trace needs the column '{c}'")
    at = {c: cols.index(c) for c in cols}
    job, arr, gpus, dur, ten = [], [], [], [], []
    for line, r in enumerate(rows, start=2):
        if not r:
            continue
        where = f"{name}, row {line}"
        if len(r) < len(cols):
            raise TraceError(f"{where}: {len(r)} fields, the header has {len(cols)}")
        g = _whole(r[at["gpu_num"]], where, "gpu_num")
        if g < 1 or not r[at["start_time"]].strip() or not r[at["end_time"]].strip():
            continue  # CPU jobs and jobs that never started
        s, e = _time_h(r[at["start_time"]], where), _time_h(r[at["end_time"]], where)
        if e <= s:
            continue
        job.append(r[at["job_id"]])
        arr.append(_time_h(r[at["submit_time"]], where))
        gpus.append(g)
        dur.append(e - s)
        ten.append(r[at["user"]] if "user" in at else "")
    if not job:
        raise TraceError(f"{name}: no GPU job that ran")
    return make_trace(name, job, arr, gpus, dur, None, ten, None, None, "acme")


def _column(cols: list[str], name: str, *keys: str) -> int:
    for k in keys:
        for i, c in enumerate(cols):
            if c == k:
                return i
    for k in keys:
        for i, c in enumerate(cols):
            if k in c:
                return i
    raise TraceError(f"{name}, row 1: no column for {keys[0]} (looked for {', '.join(keys)})")


def lingjun_topology(text: str, name: str = "topo.csv") -> dict[str, tuple[str, str, str]]:
    """host -> (DSW, PSW, ASW): its core, aggregation and ToR switch."""
    cols, rows = _table(text, name)
    try:
        i, d, p, a = (cols.index(c) for c in ("ip", "dsw", "psw", "asw"))
    except ValueError:
        raise TraceError(f"{name}, row 1: expected the header ip,DSW,PSW,ASW") from None
    return {r[i]: (r[d], r[p], r[a]) for r in rows if len(r) > max(i, d, p, a)}


def lingjun(text: str, name: str, topology: str | None = None) -> Trace:
    cols, rows = _table(text, name)
    j = _column(cols, name, "job_name", "job_id", "job")
    h = _column(cols, name, "host_ip", "ip", "host")
    g = _column(cols, name, "gpu_num", "num_gpu", "gpu")
    s = _column(cols, name, "start_time", "start")
    e = _column(cols, name, "end_time", "end")
    topo = lingjun_topology(topology) if topology else {}
    start: dict[str, float] = {}
    end: dict[str, float] = {}
    placed: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for line, r in enumerate(rows, start=2):
        if not r:
            continue
        where = f"{name}, row {line}"
        if len(r) <= max(j, h, g, s, e):
            raise TraceError(f"{where}: {len(r)} fields, the header has {len(cols)}")
        n = _whole(r[g], where, "GPUs")
        if n < 1 or not r[s].strip() or not r[e].strip():
            continue
        a, b = _time_h(r[s], where), _time_h(r[e], where)
        jid = r[j]
        start[jid] = min(start.get(jid, a), a)
        end[jid] = max(end.get(jid, b), b)
        host = r[h]
        if host in topo:  # the host's switches lead its name: same ToR, same group
            host = "/".join((*topo[host], host))
        placed[jid].append((host, n))
    ids = [k for k in start if end[k] > start[k]]
    if not ids:
        raise TraceError(f"{name}: no worker with GPUs and times")
    hosts = [tuple(sorted(placed[k])) for k in ids]
    return make_trace(name, ids, [start[k] for k in ids],
                      [sum(n for _, n in placed[k]) for k in ids],
                      [end[k] - start[k] for k in ids], None, None, None, hosts, "lingjun")


def host_order(trace: Trace) -> list[str]:
    """Every host the trace places jobs on, in first-seen order."""
    seen: dict[str, None] = {}
    for placed in trace.hosts:
        for host, _ in placed:
            seen.setdefault(host, None)
    return list(seen)


def gpus_per_host(trace: Trace) -> np.ndarray:
    """The most GPUs any job used on each host (first-seen order)."""
    most: dict[str, int] = {}
    for placed in trace.hosts:
        for host, n in placed:
            most[host] = max(most.get(host, 0), n)
    return np.array([most[h] for h in host_order(trace)], np.int64)
