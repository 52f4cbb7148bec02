"""Mutate the bundled examples into many hostile or odd project files and run the command line
on each (validate, solve --json, export bom); print how each run ended.

    python scripts/fuzz_projects.py [--cases 3200] [--seed 1] [--all-examples] [--keep DIR]

A run ends as ``refused`` (exit 2, one line), ``ok`` (exit 0 or 1, strict JSON for --json), or a
failure: ``traceback``, ``timeout`` (30 s), ``memory`` (a 4 GiB address-space ceiling),
``not-json``, ``crash``. The same mutator runs a few hundred cases in the test suite.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz_harness import FAILURES, run_files
from tests.project_mutations import EXAMPLES, SMALL_EXAMPLES, cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=3200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--all-examples", action="store_true",
                    help="mutate every bundled example, the 16k- and 24k-GPU ones too")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--keep", type=Path, help="keep the mutated files in this folder")
    args = ap.parse_args()
    examples = tuple(sorted(p.name for p in EXAMPLES.glob("*.fabric.json"))) \
        if args.all_examples else SMALL_EXAMPLES
    folder = args.keep or Path(tempfile.mkdtemp(prefix="fuzz-files-"))
    folder.mkdir(parents=True, exist_ok=True)
    files, by_kind = [], collections.Counter()
    for name, kind, data in cases(args.cases, args.seed, examples):
        path = folder / name
        path.write_bytes(data)
        files.append(path)
        by_kind[kind] += 1
    t0 = time.perf_counter()
    summary = run_files(files, seconds=args.seconds)
    took = time.perf_counter() - t0
    outcomes = collections.Counter(o.kind for o in summary.outcomes)
    per_file = collections.defaultdict(set)
    for o in summary.outcomes:
        per_file[o.case].add(o.kind)
    failed_files = sum(1 for kinds in per_file.values() if kinds & set(FAILURES))
    print(f"files: {len(files):,} from {len(examples)} examples; mutations: "
          + ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items())))
    print(f"runs:  {len(summary.outcomes):,} in {took:.0f} s "
          f"(validate, solve --json, export bom on each)")
    print("ended: " + ", ".join(f"{k} {outcomes[k]:,}" for k in ("refused", "ok", *FAILURES)))
    print(f"files with a failure: {failed_files}")
    for o in summary.failures[:50]:
        print(f"  {o.kind:<9} {o.command:<12} {o.case}: {o.detail[:160]}")
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
