"""Run a sample of the test suite one test at a time, each in a fresh interpreter.

A test must pass alone, not only after others that warmed a cache, opened a window or left a
file. CI runs 50 tests drawn at random (the seed is printed; pass it with ``--seed`` to run
the same ones again); ``--count 0`` runs every test alone (slow: a new interpreter each).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def collect() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
         "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, check=False)
    ids = [line.strip() for line in out.stdout.splitlines() if "::" in line]
    if not ids:
        sys.exit(f"no tests collected:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    return ids


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=50, help="tests to draw (0: all)")
    ap.add_argument("--seed", type=int, default=None, help="draw the same tests again")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    ids = collect()
    picked = ids if args.count <= 0 else random.Random(seed).sample(ids, min(args.count,
                                                                              len(ids)))
    print(f"{len(picked)} of {len(ids)} tests, each alone (seed {seed})", flush=True)
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    failed: list[str] = []
    for k, test_id in enumerate(picked, 1):
        t0 = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
             test_id], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        ok = run.returncode == 0  # a test that skips itself for a missing tool passes too
        mark = "ok" if ok else f"FAILED (exit {run.returncode})"
        print(f"[{k:>3}/{len(picked)}] {mark:<8} {time.monotonic() - t0:5.1f} s  {test_id}",
              flush=True)
        if not ok:
            failed.append(test_id)
            print(run.stdout[-4000:], run.stderr[-2000:], sep="\n", flush=True)
    if failed:
        print(f"{len(failed)} test(s) failed alone (seed {seed}):", *failed, sep="\n  ")
        return 1
    print(f"all {len(picked)} passed alone (seed {seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
