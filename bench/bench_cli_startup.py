"""A command's own start-up against importing numpy and scipy (issue 29's target: within 2x).

``designer solve`` on the 1,024-GPU example (DGX SuperPOD, 4 SU), each run a fresh process, and
in the same run the baseline ``python -c "import numpy, scipy.sparse"`` (the two libraries the
core stands on) and the bare interpreter, alternated so that a change of load touches both.
On a shared machine the wall clock measures the queue for a core as much as the work, so the
ratio is taken on CPU time (user + system, from the kernel's accounting of each child), the
minimum of several runs; wall times are printed beside it. ``--modules`` lists what the
command imported that the baseline did not.

``--callgrind`` counts instructions instead (valgrind's callgrind, one run each, about a minute):
the same within a few per mille from run to run, whatever the load.

Run: python bench/bench_cli_startup.py [--repeat 9] [--file projects/...] [--callgrind]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 2.0
LIST = "import sys; import runpy; sys.argv = ['designer'] + sys.argv[1:]\n" \
       "try:\n    runpy.run_module('designer', run_name='__main__')\n" \
       "except SystemExit:\n    pass\nprint('\\n'.join(sorted(sys.modules)), file=sys.stderr)"


def once(argv: list[str]) -> tuple[float, float]:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, capture_output=True, cwd=ROOT, check=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def instructions(argv: list[str]) -> int:
    """Instructions one run executes, counted by callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["valgrind", "--tool=callgrind",
                              f"--callgrind-out-file={tmp}/cg.out", *argv],
                             capture_output=True, text=True, cwd=ROOT)
    found = re.search(r"Collected : (\d+)", out.stderr)
    if not found:
        raise SystemExit(f"callgrind failed: {out.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--file", default="projects/dgx-superpod-4su-ib-ndr.fabric.json")
    ap.add_argument("--modules", action="store_true", help="list the command's extra imports")
    ap.add_argument("--callgrind", action="store_true", help="count instructions (valgrind)")
    args = ap.parse_args()
    py = sys.executable
    if args.callgrind:
        if not shutil.which("valgrind"):
            raise SystemExit("valgrind is not installed")
        base = instructions([py, "-c", "import numpy, scipy.sparse"])
        cmd = instructions([py, "-m", "designer", "solve", args.file])
        verdict = "ok" if cmd / base <= TARGET else "OVER"
        print(f"instructions: baseline {base / 1e9:.3f} G, designer solve {cmd / 1e9:.3f} G: "
              f"{cmd / base:.2f}x, target {TARGET:.1f}x: {verdict}")
        return
    runs = {
        "python -c pass": [py, "-c", "pass"],
        "import numpy, scipy.sparse (baseline)": [py, "-c", "import numpy, scipy.sparse"],
        f"designer solve {Path(args.file).name}": [py, "-m", "designer", "solve", args.file],
    }
    best = {k: [float("inf"), float("inf")] for k in runs}
    for _ in range(args.repeat):
        for k, argv in runs.items():
            w, c = once(argv)
            best[k] = [min(best[k][0], w), min(best[k][1], c)]
    print(f"start-up, best of {args.repeat} fresh processes; {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f} (uptime's 1-minute average)")
    for k, (w, c) in best.items():
        print(f"  {k:52} cpu {c:6.3f} s   wall {w:6.3f} s")
    base = best["import numpy, scipy.sparse (baseline)"][1]
    cmd = best[f"designer solve {Path(args.file).name}"][1]
    ratio = cmd / base
    print(f"  designer solve / baseline (cpu): {ratio:.2f}x, target {TARGET:.1f}x: "
          f"{'ok' if ratio <= TARGET else 'OVER'}")
    if args.modules:
        out = subprocess.run([py, "-c", "import numpy, scipy.sparse, sys; "
                              "print('\\n'.join(sys.modules), file=sys.stderr)"],
                             capture_output=True, text=True, cwd=ROOT).stderr.split()
        mine = subprocess.run([py, "-c", LIST, "solve", args.file], capture_output=True,
                              text=True, cwd=ROOT).stderr.split()
        extra = sorted(set(mine) - set(out))
        tops = sorted({m.split(".")[0] for m in extra})
        print(f"  imported beyond the baseline: {len(extra)} modules from {', '.join(tops)}")


if __name__ == "__main__":
    main()
