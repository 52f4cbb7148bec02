"""Is a bundled sweep slower on 2 workers than in process? And where does a local Dask
cluster's start go?

Every bundled sweep (``projects/*.sweep.yaml``, or the specs given) runs as a user runs it:
a fresh ``designer sweep SPEC --json`` process, in process (``--workers 0``), on 2 local
worker processes and on a 2-worker local Dask cluster; the modes alternate, so that a change
of load on a shared machine touches all of them. ``--baseline DIR`` adds the same modes run
from another checkout of the designer (``git archive REV | tar -x -C DIR``), for an A/B.

Printed per run: the wall time of the command, the CPU of the command and every process it
started (sampled every 50 ms, so a process's last few ms may be missed), the sweep's own time
(the rest of the wall is the command's start, reading and expanding the spec, the report and
closing the cluster), when the workers took their first batch (from the start of the sweep),
how many designs this process solved meanwhile, the load average, and the largest design's
time and share of the run (and, where the report gives it, where the estimate ranked it).

Run: python bench/bench_sweep_start.py [--repeat 2] [--modes inproc,local2,dask2]
     [--baseline DIR] [SPEC ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent

ARGS = {"inproc": ["--workers", "0"], "local2": ["--workers", "2"],
        "dask2": ["--engine", "dask", "--workers", "2"]}
CLI = "import sys\nfrom designer.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"


def tree_cpu(root: psutil.Process, seen: dict[int, float], stop: threading.Event) -> None:
    """The last CPU time seen of every process under ``root`` (and root), until ``stop``."""
    while not stop.is_set():
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        for p in procs:
            try:
                t = p.cpu_times()
                seen[p.pid] = t.user + t.system
            except psutil.NoSuchProcess:
                pass
        stop.wait(0.05)


def once(spec: str, mode: str, baseline: str | None) -> dict:
    """One run of ``mode`` (``NAME`` or ``NAME@base``: from the baseline checkout)."""
    name, _, base = mode.partition("@")
    env = os.environ | ({"PYTHONPATH": baseline} if base and baseline else {})
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = psutil.Popen([sys.executable, "-c", CLI, "sweep", str(Path(spec).resolve()),
                         "--json", *ARGS[name]], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, cwd=baseline if base else ROOT, env=env)
    seen: dict[int, float] = {}
    stop = threading.Event()
    mon = threading.Thread(target=tree_cpu, args=(proc, seen, stop), daemon=True)
    mon.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    stop.set()
    mon.join()
    if proc.returncode:
        raise SystemExit(f"{mode} failed: {err.decode()[-400:]}")
    summary = json.loads(out)
    workers = [w for w in summary["timing"]["workers"] if w["worker"] != "this process"]
    here = [w for w in summary["timing"]["workers"] if w["worker"] == "this process"]
    first = min((w["startup"] for w in workers), default=None)
    return {"wall": wall, "cpu": sum(seen.values()), "sweep": summary["seconds"],
            "first": first, "here": here[0]["points"] if here else 0, "load": load,
            "largest": summary["timing"]["largest"] or {}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--modes", default="inproc,local2,dask2")
    ap.add_argument("--baseline", metavar="DIR", help="another checkout: its modes too")
    a = ap.parse_args()
    specs = a.specs or sorted(str(p) for p in (ROOT / "projects").glob("*.sweep.yaml"))
    modes = a.modes.split(",")
    if a.baseline:
        modes += [f"{m}@base" for m in modes if m != "inproc"]
    print(f"cores {os.cpu_count()}, modes {', '.join(modes)}, {a.repeat} round(s)")
    for spec in specs:
        print(f"\n{Path(spec).name}")
        walls: dict[str, list[float]] = {m: [] for m in modes}
        for r in range(a.repeat):
            for m in modes if r % 2 == 0 else modes[::-1]:
                x = once(spec, m, a.baseline)
                walls[m].append(x["wall"])
                first = "" if x["first"] is None else (
                    f"  workers' first batch {x['first']:.2f} s into the sweep, "
                    f"{x['here']} design(s) here meanwhile")
                big = x["largest"]
                rank = f", ranked {big['rank']} of {big['ranked']}" \
                    if big.get("rank") is not None else ""
                largest = (f"  largest {big['seconds']:.2f} s ({100 * big['share']:.0f}%"
                           f"{rank})" if big else "")
                print(f"  {m:11s} wall {x['wall']:6.2f} s  cpu {x['cpu']:6.2f} s  sweep "
                      f"{x['sweep']:6.2f} s  load {x['load']:4.1f}{first}{largest}",
                      flush=True)
        base = sum(walls[modes[0]]) / len(walls[modes[0]])
        print("  mean wall: " + ", ".join(
            f"{m} {sum(v) / len(v):.2f} s ({base / (sum(v) / len(v)):.2f}x)"
            for m, v in walls.items()))


if __name__ == "__main__":
    main()
