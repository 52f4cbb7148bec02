"""Where a sweep's CPU goes besides the designs: per process and per thread.

The 1,024-design fat-tree grid of ``bench_sweep_scaling.py --step 64`` (64 to 4,096 GPUs
every 64, 4 gear profiles, 4 oversubscriptions), run in a fresh ``python`` process per mode.
This script samples every process of that sweep (the sweeping process, a fork server, the
workers, the sweeping process's own fork) and every thread in them with psutil, every 200 ms
(from outside: a sampling thread inside would change how the workers are started), and the
CPU is split into:

- design work: the thread of each worker process that ran the batches (the busiest one), and
  the whole of any process that only solves (this process's fork while a cluster starts);
- the sweeping process: per thread (its own, the Dask event loop that runs the scheduler,
  the nannies and the client, the cluster's starting thread, Dask's offload threads);
- the workers' other threads (their event loops: heartbeats, (de)serialising tasks and
  results), and the fork server (its imports).

CPU seconds do not grow while other jobs hold the cores, so the overhead figures can be
compared between runs on a shared machine; the wall clock and its 2-vs-1 ratio cannot (the
load is printed with them).

Run: python bench/bench_sweep_overhead.py [--modes dask1,dask2] [--step 64] [--repeat 1]
     [--baseline DIR]  (the same modes from another checkout, alternating)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sweep_scaling import GRID  # noqa: E402  (the bench folder, put on the path above)

CHILD = GRID + r"""
import json, sys, threading, time
from designer.core.sweep import run_sweep

names = {}  # native thread id -> name, this process's threads while the sweep ran


def seen(*_):
    for t in threading.enumerate():
        if t.native_id is not None:
            names[t.native_id] = t.name


def main():
    step, workers, engine = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    spec = grid(step)
    seen()
    print("go", flush=True)
    sys.stdin.readline()  # the sampler has read the CPU so far
    t0 = time.perf_counter()
    run = run_sweep(spec, workers=workers, engine=engine, on_outcome=seen)
    wall = time.perf_counter() - t0
    seen()
    work = sum(o.seconds for o in run.outcomes.values())
    pids = sorted({int(o.worker.rsplit(":", 1)[1]) for o in run.outcomes.values()
                   if o.worker})
    print(json.dumps({"wall": wall, "designs": len(run.points), "failed": run.failed,
                      "batches": run.batches, "design_s": work, "workers": pids,
                      "main_thread": threading.main_thread().native_id,
                      "names": {str(k): v for k, v in names.items()}}), flush=True)
    sys.stdin.readline()  # ... and its last sample

if __name__ == "__main__":
    main()
"""

SAMPLE_S = 0.2


class Sampler:
    """The CPU of every thread of a process and of its descendants, read every
    ``SAMPLE_S`` (a process that ends loses at most its last interval)."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.cpu: dict[tuple[int, int], float] = {}
        self.parent: dict[int, int] = {}
        self.forkserver: set[int] = set()

    def sample(self) -> None:
        try:
            tree = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return
        for p in tree:
            try:
                with p.oneshot():
                    threads = p.threads()
                    if p.pid not in self.parent:
                        self.parent[p.pid] = p.ppid()
                        # its forks (the workers) show the same command line
                        if p.ppid() == self.root.pid and "forkserver" in " ".join(
                                p.cmdline()):
                            self.forkserver.add(p.pid)
            except psutil.Error:
                continue
            for t in threads:
                self.cpu[p.pid, t.id] = t.user_time + t.system_time


MODES = {"inproc": (0, "processes"), "local1": (1, "processes"), "local2": (2, "processes"),
         "dask1": (1, "dask"), "dask2": (2, "dask")}


def once(root: Path, step: int, workers: int, engine: str) -> dict:
    py = root / ".venv" / "bin" / "python"
    exe = str(py) if py.exists() else sys.executable
    env = {**os.environ, "PYTHONPATH": str(root)}
    child = subprocess.Popen([exe, "-c", CHILD, str(step), str(workers), engine],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             cwd=root, env=env)
    assert child.stdin is not None and child.stdout is not None
    s = Sampler(child.pid)
    if child.stdout.readline().strip() != "go":
        raise SystemExit(child.communicate()[1] or "the sweep did not start")
    s.sample()
    before = dict(s.cpu)
    child.stdin.write("\n")
    child.stdin.flush()
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(child.stdout.readline()))
    reader.start()
    while reader.is_alive():
        s.sample()
        reader.join(SAMPLE_S)
    s.sample()
    child.stdin.write("\n")
    child.stdin.flush()
    child.wait()
    if child.returncode or not lines or not lines[0].strip():
        raise SystemExit(f"the sweep failed ({child.returncode})")
    r = json.loads(lines[0])
    main_pid, workers_pids = child.pid, set(r["workers"])
    out = {"main": {}, "worker_work": 0.0, "worker_other": 0.0, "fork_server": 0.0,
           "other_procs": 0.0}
    by_pid: dict[int, dict[int, float]] = {}
    for (pid, tid), cpu in s.cpu.items():
        by_pid.setdefault(pid, {})[tid] = cpu - before.get((pid, tid), 0.0)
    for pid, threads in by_pid.items():
        if pid == main_pid:
            for tid, cpu in threads.items():
                name = "main" if tid == r["main_thread"] else \
                    r["names"].get(str(tid), "unnamed")
                if name.startswith(("Dask-Offload", "ThreadPoolExecutor", "Thread-")):
                    name = name.split("_")[0].split("-")[0]
                out["main"][name] = out["main"].get(name, 0.0) + cpu
        elif pid in s.forkserver:
            out["fork_server"] += sum(threads.values())
        elif pid in workers_pids:
            busiest = max(threads.values())
            out["worker_work"] += busiest
            out["worker_other"] += sum(threads.values()) - busiest
        else:  # this process's own fork (it only solves), the resource tracker
            out["other_procs"] += sum(threads.values())
    r["cpu"] = out
    return r


def show(label: str, r: dict, load: float) -> dict[str, float]:
    """Print one run; return its CPU split: design work (the workers' task threads and
    this process's fork), overhead (everything else) and its parts."""
    c = r["cpu"]
    main_total = sum(c["main"].values())
    work = c["worker_work"] + c["other_procs"]
    over = main_total + c["worker_other"] + c["fork_server"]
    print(f"{label:12} load {load:4.1f}  wall {r['wall']:6.2f} s  CPU: design work "
          f"{work:6.2f} s, overhead {over:5.2f} s  ({r['designs']} designs, "
          f"{r['batches']} batches, reported build+solve {r['design_s']:.2f} s)")
    threads = ", ".join(f"{k} {v:.2f}" for k, v in sorted(c["main"].items(),
                                                          key=lambda kv: -kv[1]) if v >= 0.01)
    print(f"{'':12} overhead: sweeping process {main_total:.2f} s ({threads}); workers' "
          f"other threads {c['worker_other']:.2f} s; fork server {c['fork_server']:.2f} s")
    return {"work": work, "overhead": over}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--modes", default="dask1,dask2")
    ap.add_argument("--step", type=int, default=64, help="GPU step (64: 1,024 designs)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--baseline", type=Path, help="another checkout, run alternately")
    args = ap.parse_args()
    roots = [("", ROOT)] + ([("base ", args.baseline)] if args.baseline else [])
    walls: dict[str, list[float]] = {}
    over: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for mode in args.modes.split(","):
            for tag, root in roots:
                load = os.getloadavg()[0]
                r = once(root, args.step, *MODES[mode])
                split = show(tag + mode, r, load)
                over.setdefault(tag + mode, []).append(split["overhead"])
                walls.setdefault(tag + mode, []).append(r["wall"])
    for key, vals in over.items():
        print(f"{key}: overhead CPU {', '.join(f'{v:.2f}' for v in vals)} s")
    for tag, _root in roots:
        for eng in ("local", "dask"):
            one, two = walls.get(f"{tag}{eng}1"), walls.get(f"{tag}{eng}2")
            if one and two:
                print(f"{tag}{eng}: 2 workers vs 1 (best of {len(one)}): "
                      f"{min(one) / min(two):.2f}x")


if __name__ == "__main__":
    main()
