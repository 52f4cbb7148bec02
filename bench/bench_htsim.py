"""The flow model against the packet simulator on the same 1,024-GPU permutation: CPU time of
``designer load`` and of htsim (``htsim_roce``, ECMP), each a child process.

The design is the bundled DGX SuperPOD 4 SU on RoCE 400G (1,024 GPUs); ``designer export
htsim`` writes its permutation (the tool's permutation, seed 0) and, as its 128-port spines
exceed htsim's 64, the design re-expressed with 64-port switches; ``designer load`` runs on
that same re-expressed design and pattern, so both answer the same question. htsim's CPU time
grows with the bytes per flow (every packet is an event); the flow model's does not.

htsim_roce is looked up in $HTSIM_BIN, then on PATH (build csg-htsim: make in sim/, then
sim/datacenter); without it only the flow model's time is printed.

Run: python bench/bench_htsim.py [--bytes 8MiB]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESIGN = ROOT / "projects" / "dgx-superpod-4su-roce-400.fabric.json"


def child_cpu(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> float:
    """User + system CPU seconds of ``cmd`` run as a child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bytes", default="8MiB", help="bytes per flow (default 8MiB)")
    args = ap.parse_args()
    designer = str(Path(sys.executable).with_name("designer"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "htsim"
        subprocess.run([designer, "export", "htsim", str(DESIGN), "-o", str(out), "--pattern",
                        "permutation", "--bytes", args.bytes], check=True,
                       stdout=subprocess.DEVNULL)
        flows = int((out / "permutation.cm").read_text().split("Connections ")[1].split()[0])
        design = out / "htsim-design.fabric.json"
        design = design if design.is_file() else DESIGN
        load_cpu = min(child_cpu([designer, "load", str(design), "--pattern", "permutation",
                                  "--routing", "ecmp", "--json"]) for _ in range(3))
        print(f"design: {DESIGN.name} as htsim runs it, 1,024 GPUs; permutation of "
              f"{flows:,} flows of {args.bytes}")
        print(f"designer load --routing ecmp (whole command, one trial): {load_cpu:.2f} s CPU")
        env = dict(os.environ)
        found = (Path(env["HTSIM_BIN"]) / "htsim_roce" if env.get("HTSIM_BIN") else None)
        if not (found and found.is_file()) and not shutil.which("htsim_roce"):
            print("htsim_roce not found ($HTSIM_BIN or PATH): htsim's time not measured")
            return
        env["ROUTINGS"] = "ecmp"
        ht_cpu = child_cpu(["sh", "run.sh", "permutation"], env=env, cwd=out)
        done = (out / "permutation.ecmp.out").read_text().count(" finished at ")
        print(f"htsim_roce (run.sh, ECMP): {ht_cpu:.2f} s CPU, {done:,}/{flows:,} flows "
              "finished")
        print(f"ratio htsim / designer load: {ht_cpu / load_cpu:.1f}x")


if __name__ == "__main__":
    main()
