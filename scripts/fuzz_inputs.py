"""Write many hostile or odd inputs for the surfaces besides project files (supplier quotes,
sweep specs, LLDP tables, traffic CSVs, perftest output, InfraGraph files, acceptance results,
job traces, and the writers with a link or a FIFO planted at their output) and run the command
that reads or writes each; print how each run ended.

    python scripts/fuzz_inputs.py [--per-surface 1000] [--seed 1] [--jobs 2] [--keep DIR]
        [--surfaces infragraph,acceptance,trace,writer] [--seconds 10] [--memory-gb 1]

Inputs written from known figures must be read exactly (a different figure is a failure,
``wrong``) or refused; damaged ones must be refused or read sanely. A run ends as ``refused``
(exit 2, one line), ``ok``, or a failure: ``traceback``, ``timeout`` (``--seconds``),
``memory`` (``--memory-gb`` of address space), ``not-json``, ``crash``, ``wrong`` (a silent
wrong figure), ``invalid`` (an import accepted and written that the tool then refuses),
``injection`` (a control character from an input reached the terminal), ``escape`` (a write
went through a link out of its folder) and ``damage`` (a FIFO or device was replaced). The
same generators run a smaller sample in the test suite (tests/hostile/test_fuzz_inputs.py).
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fuzz_harness import FAILURES, Summary, run_cases
from tests.input_mutations import ALL_SURFACES, cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-surface", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="child processes at a time")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--memory-gb", type=float, default=4.0)
    ap.add_argument("--surfaces", default=",".join(ALL_SURFACES))
    ap.add_argument("--keep", type=Path, help="keep the inputs in this folder")
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="fuzz-inputs-"))
    surfaces = tuple(s for s in args.surfaces.split(",") if s)
    todo = cases(args.per_surface, args.seed, folder, surfaces)
    chunks = [todo[k::args.jobs] for k in range(args.jobs)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        parts = list(pool.map(lambda c: run_cases(
            c, seconds=args.seconds, memory_bytes=int(args.memory_gb * (1 << 30))), chunks))
    took = time.perf_counter() - t0
    summary = Summary([o for p in parts for o in p.outcomes])
    known = {c.name for c in todo if c.check}
    print(f"inputs: {len(todo):,} ({args.per_surface:,} per surface: {', '.join(surfaces)}); "
          f"{len(known):,} written from known figures; {took:.0f} s")
    for s in surfaces:
        mine = [o for o in summary.outcomes if o.command == s]
        kinds = collections.Counter(o.kind for o in mine)
        exact = sum(1 for o in mine if o.case in known and o.kind == "ok")
        print(f"  {s:<10} " + ", ".join(f"{k} {kinds[k]:,}" for k in ("refused", "ok", *FAILURES))
              + f"; read exactly {exact:,} of {sum(1 for o in mine if o.case in known):,}")
    total = collections.Counter(o.kind for o in summary.outcomes)
    print("total:   " + ", ".join(f"{k} {total[k]:,}" for k in ("refused", "ok", *FAILURES)))
    slowest = max(summary.outcomes, key=lambda o: o.seconds)
    print(f"slowest run: {slowest.seconds:.1f} s ({slowest.case})")
    for o in summary.failures[:50]:
        print(f"  {o.kind:<9} {o.command:<9} {o.case}: {o.detail[:160]}")
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
