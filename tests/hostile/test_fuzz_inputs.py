"""A fuzz run in the suite over the surfaces besides project files: supplier quotes, sweep
specs, LLDP tables, traffic CSVs and perftest output, each written from known figures (to be
read exactly or refused) or damaged (to be refused or read sanely), and some not files at all.
Never a traceback, a hang, memory past a bound, or a figure other than the one written
(``scripts/fuzz_inputs.py`` runs the same generators on thousands of inputs)."""

from __future__ import annotations

import collections

from tests.fuzz_harness import run_cases
from tests.input_mutations import SURFACES, cases

PER_SURFACE = 40
SEED = 20261128
MEMORY_BYTES = 3 << 30


def test_mutated_inputs_never_break_the_command_line(tmp_path):
    todo = cases(PER_SURFACE, SEED, tmp_path)
    summary = run_cases(todo, seconds=60, memory_bytes=MEMORY_BYTES)
    assert len(summary.outcomes) == len(todo) == PER_SURFACE * len(SURFACES)
    failures = [f"{o.kind} {o.case}: {o.detail}" for o in summary.failures]
    assert not failures, "\n".join(failures[:20])
    known = {c.name for c in todo if c.check}
    for s in SURFACES:
        mine = [o for o in summary.outcomes if o.command == s]
        kinds = collections.Counter(o.kind for o in mine)
        # both ends occur on every surface: the damage is not all harmless, nor all refused
        assert kinds["refused"] >= PER_SURFACE // 5 and kinds["ok"] >= PER_SURFACE // 8, (s, kinds)
        # inputs written from known figures the way real files are written are read
        read = sum(1 for o in mine if o.case in known and o.kind == "ok")
        assert read >= 0.8 * sum(1 for o in mine if o.case in known), (s, read)
