"""What a user waits for at the command line, in CPU time (user + system of the command's own
process, from ``wait4``) and peak resident memory, each command in its own process, with the
ratios that matter taken in one run. CPU time rather than wall time: on a shared machine wall
time measures the neighbours. The machine's load average is printed with the figures.

Cases (each ``--case`` may be repeated; default: all):

- ``adaptive``: ``designer load --routing adaptive`` against ``--routing ecmp`` on a generated
  131,072-GPU 3-tier fat tree (ib-xdr, the default balanced striping: its spines are all
  unlike, so the spray's far part is split off, see traffic/split.py). Target: adaptive
  within 1.5x of ECMP's CPU, under 1 GB. ``--uniform`` adds the same on uniform striping.
- ``read``: reading that design's file (``load_project``). Target: under 1 s of CPU.
- ``cluster``: ``designer cluster FILE synthetic:300`` against ``designer solve FILE`` on the
  24,576-GPU RoCE example, and the same with ``--json``. Targets: under 10x of the solve;
  ``--json`` adds under 5%.
- ``startup``: ``designer solve`` on the 1,024-GPU example against ``python -c "import numpy,
  scipy.sparse"``. Target: within 2x.

Run: python bench/bench_cli_cpu.py [--case adaptive] [--uniform] [--repeat N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DESIGNER = str(BIN / "designer")
CASES = ("adaptive", "read", "cluster", "startup")


# bytecode written and used, as in an installed copy (with PYTHONDONTWRITEBYTECODE set, an
# editable checkout compiles every module's source at every start: 0.2-0.4 s of CPU)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(cmd: list[str], repeat: int, warm: bool = False) -> tuple[float, float]:
    """The least CPU seconds (user + system) over ``repeat`` runs (after one to warm the
    bytecode cache) and the largest peak RSS (GB) of the command's process."""
    best, peak = float("inf"), 0.0
    if warm:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                       env=ENV, check=False)
    for _ in range(repeat):
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                cwd=ROOT, env=ENV)
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise SystemExit(f"{' '.join(cmd)} failed: {err.strip()[-300:]}")
        best = min(best, ru.ru_utime + ru.ru_stime)
        peak = max(peak, ru.ru_maxrss / 1e6)  # ru_maxrss: KB on Linux
    return best, peak


def load() -> str:
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"


def _generate(tmp: Path, name: str, args: list[str]) -> Path:
    out = tmp / name
    if not out.exists():
        subprocess.run([DESIGNER, "generate", "fat-tree", *args, "-o", str(out)], check=True,
                       stdout=subprocess.DEVNULL, cwd=ROOT)
    return out


def case_adaptive(tmp: Path, repeat: int, uniform: bool = False) -> None:
    designs = [("balanced", _generate(tmp, "ft131k.fabric.json",
                                      ["--gpus", "131072", "--gear", "ib-xdr"]))]
    if uniform:
        designs.append(("uniform", _generate(tmp, "ft131k-uniform.fabric.json",
                                             ["--gpus", "131072", "--gear", "ib-xdr",
                                              "--striping", "uniform"])))
    for striping, f in designs:
        ecmp = measure([DESIGNER, "load", str(f), "--routing", "ecmp"], repeat)
        adap = measure([DESIGNER, "load", str(f), "--routing", "adaptive"], repeat)
        print(f"load, 131,072 GPUs (3-tier ib-xdr fat tree, {striping} striping), "
              "permutation, whole command:")
        print(f"  ecmp      {ecmp[0]:6.2f} s CPU  {ecmp[1]:.2f} GB peak")
        print(f"  adaptive  {adap[0]:6.2f} s CPU  {adap[1]:.2f} GB peak  "
              f"ratio {adap[0] / ecmp[0]:.2f}x (target 1.5x, 1 GB)")


def case_read(tmp: Path, repeat: int) -> None:
    f = _generate(tmp, "ft131k.fabric.json", ["--gpus", "131072", "--gear", "ib-xdr"])
    code = ("import sys, time; from designer.core.fileformat import load_project; "
            "t = time.process_time(); load_project(sys.argv[1]); "
            "print(time.process_time() - t)")
    best = float("inf")
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True,
                             text=True, check=True, cwd=ROOT)
        best = min(best, float(out.stdout.strip().splitlines()[-1]))
    print(f"read the 131,072-GPU design's file ({f.stat().st_size / 1e6:.1f} MB): "
          f"{best:.2f} s CPU (target 1 s)")


def case_cluster(tmp: Path, repeat: int) -> None:
    f = str(ROOT / "projects" / "roce-fat-tree-24k-oversubscribed.fabric.json")
    solve = measure([DESIGNER, "solve", f], repeat, warm=True)
    clu = measure([DESIGNER, "cluster", f, "synthetic:300"], repeat)
    js = measure([DESIGNER, "cluster", f, "synthetic:300", "--json"], repeat)
    print("cluster replay, 24,576-GPU RoCE example, 300 synthetic jobs:")
    print(f"  solve            {solve[0]:6.2f} s CPU")
    print(f"  cluster          {clu[0]:6.2f} s CPU  {clu[0] / solve[0]:.1f}x solve (target 10x)")
    print(f"  cluster --json   {js[0]:6.2f} s CPU  json adds "
          f"{100 * (js[0] - clu[0]) / clu[0]:+.1f}% (target 5%)")


def case_startup(tmp: Path, repeat: int) -> None:
    f = str(ROOT / "projects" / "amd-mi355x-1024-roce-400.fabric.json")
    base = measure([sys.executable, "-c", "import numpy, scipy.sparse"], repeat, warm=True)
    solve = measure([DESIGNER, "solve", f], repeat, warm=True)
    print(f"start-up: import numpy, scipy.sparse {base[0]:.3f} s CPU; designer solve (1,024 "
          f"GPUs) {solve[0]:.3f} s CPU; ratio {solve[0] / base[0]:.2f}x (target 2x)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", action="append", choices=CASES)
    ap.add_argument("--repeat", type=int, default=2, help="runs per command (least CPU kept)")
    ap.add_argument("--uniform", action="store_true",
                    help="adaptive: the uniform-striping design too")
    ap.add_argument("--dir", type=Path, help="where the generated designs are kept and "
                    "reused between runs (default: a temporary directory)")
    args = ap.parse_args()
    print(load())
    with tempfile.TemporaryDirectory() as d:
        where = args.dir or Path(d)
        where.mkdir(parents=True, exist_ok=True)
        for name in args.case or CASES:
            if name == "adaptive":
                case_adaptive(where, args.repeat, args.uniform)
            else:
                globals()[f"case_{name}"](where, args.repeat)
    print(load())


if __name__ == "__main__":
    main()
